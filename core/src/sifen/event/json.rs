//! The JSON form of events, for the faces that cannot build Rust values (C ABI, bindings, CLI).
//!
//! An event is one JSON object with a `"tipo"` discriminator, the event `id`, its signing time `fecha_firma`
//! (Paraguay local `YYYY-MM-DDThh:mm:ss`) and the fields of its kind, named like the Rust fields so that the paths
//! of [`super::validate`]'s findings are the JSON paths:
//!
//! | `tipo` | fields |
//! |---|---|
//! | `cancelacion` | `cdc`, `motivo` |
//! | `inutilizacion` | `timbrado`, `establecimiento`, `punto` (`1` or `"001"`), `desde`, `hasta`, `tipo_documento`, `motivo`, `serie`? |
//! | `nominacion` | `cdc`, `motivo`, `tipo_operacion`, `pais` (`PRY`), `nombre`, `identidad` {`ruc`, `tipo_contribuyente`} or {`tipo_documento`, `numero`}, `direccion`?, `email`? |
//! | `transporte` | `cdc`, `cambio` {`tipo_cambio`: `local_entrega` (`ciudad`, `direccion`, `numero_casa`?) / `chofer` (`nombre`, `documento`) / `transportista` (`nombre`, `ruc` or `documento` {`tipo`, `numero`}) / `vehiculo` (`modalidad`, `tipo`, `marca`, `numero_identificacion` or `matricula`)} |
//! | `notificacion_recepcion` | `cdc`, `fecha_emision`, `fecha_recepcion`, `receptor`, `total_gs` |
//! | `conformidad` | `cdc`, `parcial` (false), `fecha_recepcion`? |
//! | `disconformidad` | `cdc`, `motivo` |
//! | `desconocimiento` | `cdc`, `fecha_emision`, `fecha_recepcion`, `receptor`, `motivo` |
//!
//! `receptor` is {`nombre`, `ruc`} (a taxpayer) or {`nombre`, `tipo_documento`, `numero`}. Amounts are JSON numbers
//! or strings, read as exact decimals. Reading checks shapes, types, CDCs, RUCs and dates, and reports every problem
//! it can with its JSON path; the rules of each kind are [`super::validate`]'s, applied when signing.

use super::{
    CambioTransporte, Evento, EventoInput, IdentidadReceptor, Inutilizacion, Nominacion,
    ReceptorEvento, SignedEvent,
};
use crate::cdc::Cdc;
use crate::error::join_path as join;
use crate::error::{code, Finding, Findings};
use crate::ruc::Ruc;
use crate::sifen::code as sifen_code;
use crate::sifen::MAX_EVENTS;
use rust_decimal::Decimal;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};
use time::PrimitiveDateTime;

/// The values of `"tipo"`, in the order of [`Evento`]'s variants.
pub const KINDS: [&str; 8] = [
    "cancelacion",
    "inutilizacion",
    "nominacion",
    "transporte",
    "notificacion_recepcion",
    "conformidad",
    "disconformidad",
    "desconocimiento",
];

/// The values of `"cambio.tipo_cambio"` of a `transporte` event (`dMotEv` 1–4).
pub const CAMBIOS: [&str; 4] = ["local_entrega", "chofer", "transportista", "vehiculo"];

/// The payload elements a [`SignedEvent::kind`] may name.
const ELEMENTS: [&str; 8] = [
    "rGeVeCan",
    "rGeVeInu",
    "rGEveNom",
    "rGeVeTr",
    "rGeVeNotRec",
    "rGeVeConf",
    "rGeVeDisconf",
    "rGeVeDescon",
];

/// Largest event JSON text accepted (one event or an array of up to 15; events are a few KB each).
pub const MAX_EVENT_JSON_BYTES: usize = 1_000_000;

/// Reads one event from its JSON form (see the module documentation). `fecha_firma` is required.
pub fn input_from_json(text: &str) -> Result<EventoInput, Findings> {
    let value = parse_value(text)?;
    if value.is_array() {
        return Err(Finding::new(
            code::INVALID_TYPE,
            "",
            "expected one event (a JSON object with \"tipo\"), found an array",
        )
        .into());
    }
    read_event(value, "", None).map_err(Findings)
}

/// Reads one event object or an array of 1..=15 of them; `fecha_firma_default` (the host's clock) stands in for
/// a missing `fecha_firma` (`None`: it is required). Paths of array elements start with `[i]`.
pub fn inputs_from_json(
    text: &str,
    fecha_firma_default: Option<PrimitiveDateTime>,
) -> Result<Vec<EventoInput>, Findings> {
    match parse_value(text)? {
        Value::Array(items) => {
            count_ok(items.len())?;
            let mut out = Vec::with_capacity(items.len());
            let mut findings = Vec::new();
            for (i, item) in items.into_iter().enumerate() {
                match read_event(item, &format!("[{i}]"), fecha_firma_default) {
                    Ok(e) => out.push(e),
                    Err(f) => findings.extend(f),
                }
            }
            if findings.is_empty() {
                Ok(out)
            } else {
                Err(Findings(findings))
            }
        }
        other => read_event(other, "", fecha_firma_default)
            .map(|e| vec![e])
            .map_err(Findings),
    }
}

/// Reads the signed events of an `evento` request: a JSON array of 1..=15 `{"id","kind","cdc","xml"}` objects as
/// [`super::sign_event`] returns them (serialized). Each must still be one `rGesEve` whose signature verifies over
/// its `rEve` with that `Id`, of that kind and about that CDC, so nothing but a signed event reaches the envelope.
pub fn signed_events_from_json(text: &str) -> Result<Vec<SignedEvent>, Findings> {
    let Value::Array(items) = parse_value(text)? else {
        return Err(Finding::new(
            code::INVALID_TYPE,
            "",
            "expected a JSON array of signed events ({\"id\",\"kind\",\"cdc\",\"xml\"})",
        )
        .into());
    };
    count_ok(items.len())?;
    let mut out = Vec::with_capacity(items.len());
    let mut findings = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let path = format!("[{i}]");
        match de::<SignedJson>(item, &path).and_then(|s| s.check(&path)) {
            Ok(e) => out.push(e),
            Err(f) => findings.push(f),
        }
    }
    if findings.is_empty() {
        Ok(out)
    } else {
        Err(Findings(findings))
    }
}

// ------------------------------------------------------------------------------------------------------------
// Plumbing: paths, JSON values, serde errors
// ------------------------------------------------------------------------------------------------------------

fn parse_value(text: &str) -> Result<Value, Finding> {
    if text.len() > MAX_EVENT_JSON_BYTES {
        return Err(Finding::new(
            code::TOO_LARGE,
            "",
            format!(
                "the event JSON is {} bytes; the limit is {MAX_EVENT_JSON_BYTES}",
                text.len()
            ),
        ));
    }
    // serde_json's own recursion limit (128) bounds nesting.
    crate::shape::from_json(text, "")
}

fn count_ok(n: usize) -> Result<(), Finding> {
    if (1..=MAX_EVENTS).contains(&n) {
        Ok(())
    } else {
        Err(Finding::new(
            sifen_code::EVENT_COUNT,
            "",
            format!("an event request carries 1 to {MAX_EVENTS} events, got {n}"),
        ))
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Deserializes `v` into `T` with core's one JSON-error classifier (paths under `base`).
fn de<T: DeserializeOwned>(v: Value, base: &str) -> Result<T, Finding> {
    crate::shape::from_json_value(v, base)
}

/// Collects findings while one event is read.
struct Reader<'a> {
    base: &'a str,
    findings: Vec<Finding>,
}

impl Reader<'_> {
    fn path(&self, field: &str) -> String {
        join(self.base, field)
    }

    fn push(&mut self, code: &str, field: &str, msg: impl Into<String>) {
        let path = self.path(field);
        self.findings.push(Finding::new(code, path, msg));
    }

    fn cdc(&mut self, field: &str, s: &str) -> Option<Cdc> {
        Cdc::parse(s)
            .map_err(|e| self.findings.push(e.to_finding(join(self.base, field))))
            .ok()
    }

    fn ruc(&mut self, field: &str, s: &str) -> Option<Ruc> {
        Ruc::parse(s)
            .map_err(|e| self.findings.push(e.to_finding(join(self.base, field))))
            .ok()
    }

    fn datetime(&mut self, field: &str, s: &str) -> Option<PrimitiveDateTime> {
        crate::fmt::parse_datetime(s)
            .map_err(|m| self.push(code::INVALID_FORMAT, field, m))
            .ok()
    }

    fn opt_datetime(
        &mut self,
        field: &str,
        s: &Option<String>,
    ) -> Option<Option<PrimitiveDateTime>> {
        match s {
            None => Some(None),
            Some(s) => self.datetime(field, s).map(Some),
        }
    }

    fn decimal(&mut self, field: &str, v: &Value) -> Option<Decimal> {
        crate::invoice::decimal_from_json(v)
            .map_err(|m| self.push(code::INVALID_TYPE, field, m))
            .ok()
    }

    /// A number given as a JSON integer or a string of digits (`1`, `"001"`), within `max`.
    fn number(&mut self, field: &str, v: &Value, max: u64) -> Option<u64> {
        let n = match v {
            Value::Number(n) => n.as_u64(),
            Value::String(s)
                if !s.is_empty() && s.len() <= 19 && s.bytes().all(|b| b.is_ascii_digit()) =>
            {
                s.parse().ok()
            }
            Value::String(_) => {
                self.push(code::INVALID_FORMAT, field, "expected digits");
                return None;
            }
            other => {
                let k = kind_of(other);
                self.push(
                    code::INVALID_TYPE,
                    field,
                    format!("expected a whole number or a string of digits, found {k}"),
                );
                return None;
            }
        };
        match n {
            Some(n) if n <= max => Some(n),
            _ => {
                self.push(code::OUT_OF_RANGE, field, format!("must be 0..={max}"));
                None
            }
        }
    }

    /// A text given as a string or a JSON integer (a stamp number `12558946`).
    fn text(&mut self, field: &str, v: &Value) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) if n.as_u64().is_some() => Some(n.to_string()),
            other => {
                let k = kind_of(other);
                self.push(
                    code::INVALID_TYPE,
                    field,
                    format!("expected a string, found {k}"),
                );
                None
            }
        }
    }

    fn receptor(&mut self, r: ReceptorJson) -> Option<ReceptorEvento> {
        match r.ruc {
            Some(ruc) => {
                for (f, given) in [
                    ("receptor.tipo_documento", r.tipo_documento.is_some()),
                    ("receptor.numero", r.numero.is_some()),
                ] {
                    if given {
                        self.push(
                            code::NOT_ALLOWED,
                            f,
                            "a receiver with RUC has no identity document",
                        );
                    }
                }
                let ruc = self.ruc("receptor.ruc", &ruc)?;
                Some(ReceptorEvento::Contribuyente {
                    nombre: r.nombre,
                    ruc,
                })
            }
            None => match (r.tipo_documento, r.numero) {
                (Some(tipo_documento), Some(numero)) => Some(ReceptorEvento::NoContribuyente {
                    nombre: r.nombre,
                    tipo_documento,
                    numero,
                }),
                (t, n) => {
                    for (f, given) in [
                        ("receptor.tipo_documento", t.is_some()),
                        ("receptor.numero", n.is_some()),
                    ] {
                        if !given {
                            self.push(
                                code::REQUIRED,
                                f,
                                "give the receiver's ruc, or tipo_documento and numero",
                            );
                        }
                    }
                    None
                }
            },
        }
    }

    fn identidad(&mut self, i: IdentidadJson) -> Option<IdentidadReceptor> {
        match i.ruc {
            Some(ruc) => {
                for (f, given) in [
                    ("identidad.tipo_documento", i.tipo_documento.is_some()),
                    ("identidad.numero", i.numero.is_some()),
                ] {
                    if given {
                        self.push(
                            code::NOT_ALLOWED,
                            f,
                            "a receiver with RUC has no identity document",
                        );
                    }
                }
                let ruc = self.ruc("identidad.ruc", &ruc);
                let Some(tipo_contribuyente) = i.tipo_contribuyente else {
                    self.push(
                        code::REQUIRED,
                        "identidad.tipo_contribuyente",
                        "a taxpayer needs tipo_contribuyente (1 persona física, 2 persona jurídica)",
                    );
                    return None;
                };
                Some(IdentidadReceptor::Contribuyente {
                    ruc: ruc?,
                    tipo_contribuyente,
                })
            }
            None => {
                if i.tipo_contribuyente.is_some() {
                    self.push(
                        code::NOT_ALLOWED,
                        "identidad.tipo_contribuyente",
                        "only a receiver with RUC has tipo_contribuyente",
                    );
                }
                match (i.tipo_documento, i.numero) {
                    (Some(tipo_documento), Some(numero)) => {
                        Some(IdentidadReceptor::NoContribuyente {
                            tipo_documento,
                            numero,
                        })
                    }
                    (t, n) => {
                        for (f, given) in [
                            ("identidad.tipo_documento", t.is_some()),
                            ("identidad.numero", n.is_some()),
                        ] {
                            if !given {
                                self.push(
                                    code::REQUIRED,
                                    f,
                                    "give the receiver's ruc and tipo_contribuyente, or tipo_documento and numero",
                                );
                            }
                        }
                        None
                    }
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------------------------
// The shapes
// ------------------------------------------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CdcMotivoJson {
    cdc: String,
    motivo: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InutilizacionJson {
    timbrado: Value,
    establecimiento: Value,
    punto: Value,
    desde: Value,
    hasta: Value,
    tipo_documento: u8,
    motivo: String,
    #[serde(default)]
    serie: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IdentidadJson {
    #[serde(default)]
    ruc: Option<String>,
    #[serde(default)]
    tipo_contribuyente: Option<u8>,
    #[serde(default)]
    tipo_documento: Option<u8>,
    #[serde(default)]
    numero: Option<String>,
}

fn pry() -> String {
    "PRY".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NominacionJson {
    cdc: String,
    motivo: String,
    tipo_operacion: u8,
    #[serde(default = "pry")]
    pais: String,
    nombre: String,
    identidad: IdentidadJson,
    #[serde(default)]
    direccion: Option<String>,
    #[serde(default)]
    email: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TransporteJson {
    cdc: String,
    cambio: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LocalEntregaJson {
    ciudad: u32,
    direccion: String,
    #[serde(default)]
    numero_casa: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChoferJson {
    nombre: String,
    documento: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DocumentoJson {
    tipo: u8,
    numero: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TransportistaJson {
    nombre: String,
    #[serde(default)]
    ruc: Option<String>,
    #[serde(default)]
    documento: Option<DocumentoJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VehiculoJson {
    modalidad: u8,
    tipo: String,
    marca: String,
    #[serde(default)]
    numero_identificacion: Option<String>,
    #[serde(default)]
    matricula: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReceptorJson {
    nombre: String,
    #[serde(default)]
    ruc: Option<String>,
    #[serde(default)]
    tipo_documento: Option<u8>,
    #[serde(default)]
    numero: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NotificacionJson {
    cdc: String,
    fecha_emision: String,
    fecha_recepcion: String,
    receptor: ReceptorJson,
    total_gs: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConformidadJson {
    cdc: String,
    #[serde(default)]
    parcial: bool,
    #[serde(default)]
    fecha_recepcion: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DesconocimientoJson {
    cdc: String,
    fecha_emision: String,
    fecha_recepcion: String,
    receptor: ReceptorJson,
    motivo: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SignedJson {
    id: u64,
    kind: String,
    #[serde(default)]
    cdc: Option<String>,
    xml: String,
}

// ------------------------------------------------------------------------------------------------------------
// Reading
// ------------------------------------------------------------------------------------------------------------

/// Removes a string discriminator from `obj`; `None` (with a finding) when it is missing, not a string or not
/// one of `allowed`.
fn take_tag(
    r: &mut Reader<'_>,
    obj: &mut Map<String, Value>,
    field: &str,
    at: &str,
    allowed: &[&str],
) -> Option<String> {
    match obj.remove(field) {
        None => {
            r.push(
                code::REQUIRED,
                at,
                format!("missing \"{field}\": one of {}", allowed.join(", ")),
            );
            None
        }
        Some(Value::String(s)) if allowed.contains(&s.as_str()) => Some(s),
        Some(Value::String(s)) => {
            r.push(
                code::INVALID_VALUE,
                at,
                format!(
                    "unknown {field} {:?}: expected one of {}",
                    s.chars().take(40).collect::<String>(),
                    allowed.join(", ")
                ),
            );
            None
        }
        Some(other) => {
            let k = kind_of(&other);
            r.push(
                code::INVALID_TYPE,
                at,
                format!("{field} must be a string, found {k}"),
            );
            None
        }
    }
}

fn read_event(
    value: Value,
    base: &str,
    fecha_firma_default: Option<PrimitiveDateTime>,
) -> Result<EventoInput, Vec<Finding>> {
    let Value::Object(mut obj) = value else {
        let k = kind_of(&value);
        return Err(vec![Finding::new(
            code::INVALID_TYPE,
            base,
            format!("an event is a JSON object with \"tipo\", found {k}"),
        )]);
    };
    let mut r = Reader {
        base,
        findings: Vec::new(),
    };
    let tipo = take_tag(&mut r, &mut obj, "tipo", "tipo", &KINDS);
    let id = match obj.remove("id") {
        None => {
            r.push(
                code::REQUIRED,
                "id",
                "missing the event id (1..=9999999999)",
            );
            None
        }
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(other) => {
            let k = if other.is_number() {
                "another number"
            } else {
                kind_of(&other)
            };
            r.push(
                code::INVALID_TYPE,
                "id",
                format!("the event id is a whole number 1..=9999999999, found {k}"),
            );
            None
        }
    };
    let fecha_firma = match obj.remove("fecha_firma") {
        None => {
            if fecha_firma_default.is_none() {
                r.push(
                    code::REQUIRED,
                    "fecha_firma",
                    "missing the signing time, Paraguay local YYYY-MM-DDThh:mm:ss",
                );
            }
            fecha_firma_default
        }
        Some(Value::String(s)) => r.datetime("fecha_firma", &s),
        Some(other) => {
            let k = kind_of(&other);
            r.push(
                code::INVALID_TYPE,
                "fecha_firma",
                format!("expected a string YYYY-MM-DDThh:mm:ss, found {k}"),
            );
            None
        }
    };
    let evento = match tipo {
        Some(t) => match read_payload(&mut r, &t, Value::Object(obj)) {
            Ok(e) => e,
            Err(f) => {
                r.findings.push(f);
                None
            }
        },
        None => None,
    };
    match (id, fecha_firma, evento) {
        (Some(id), Some(fecha_firma), Some(evento)) if r.findings.is_empty() => Ok(EventoInput {
            id,
            fecha_firma,
            evento,
        }),
        _ => Err(r.findings),
    }
}

/// The payload of kind `tipo`: `Err` for a shape problem (serde stops at the first), `Ok(None)` when the shape
/// was right but some value was not (the findings are in `r`).
fn read_payload(r: &mut Reader<'_>, tipo: &str, rest: Value) -> Result<Option<Evento>, Finding> {
    let base = r.base;
    Ok(match tipo {
        "cancelacion" | "disconformidad" => {
            let j: CdcMotivoJson = de(rest, base)?;
            r.cdc("cdc", &j.cdc).map(|cdc| {
                if tipo == "cancelacion" {
                    Evento::Cancelacion {
                        cdc,
                        motivo: j.motivo,
                    }
                } else {
                    Evento::Disconformidad {
                        cdc,
                        motivo: j.motivo,
                    }
                }
            })
        }
        "inutilizacion" => {
            let j: InutilizacionJson = de(rest, base)?;
            let timbrado = r.text("timbrado", &j.timbrado);
            let est = r.number("establecimiento", &j.establecimiento, u16::MAX.into());
            let pun = r.number("punto", &j.punto, u16::MAX.into());
            let desde = r.number("desde", &j.desde, u32::MAX.into());
            let hasta = r.number("hasta", &j.hasta, u32::MAX.into());
            match (timbrado, est, pun, desde, hasta) {
                (Some(timbrado), Some(e), Some(p), Some(d), Some(h)) => {
                    Some(Evento::Inutilizacion(Inutilizacion {
                        timbrado,
                        establecimiento: u16::try_from(e).unwrap_or(u16::MAX),
                        punto: u16::try_from(p).unwrap_or(u16::MAX),
                        desde: u32::try_from(d).unwrap_or(u32::MAX),
                        hasta: u32::try_from(h).unwrap_or(u32::MAX),
                        tipo_documento: j.tipo_documento,
                        motivo: j.motivo,
                        serie: j.serie,
                    }))
                }
                _ => None,
            }
        }
        "nominacion" => {
            let j: NominacionJson = de(rest, base)?;
            let cdc = r.cdc("cdc", &j.cdc);
            let identidad = r.identidad(j.identidad);
            match (cdc, identidad) {
                (Some(cdc), Some(identidad)) => Some(Evento::Nominacion(Nominacion {
                    cdc,
                    motivo: j.motivo,
                    tipo_operacion: j.tipo_operacion,
                    pais: j.pais,
                    nombre: j.nombre,
                    identidad,
                    direccion: j.direccion,
                    email: j.email,
                })),
                _ => None,
            }
        }
        "transporte" => {
            let j: TransporteJson = de(rest, base)?;
            let cdc = r.cdc("cdc", &j.cdc);
            let mut cambio = j.cambio;
            let at = join(base, "cambio");
            let cambio = match take_tag(
                r,
                &mut cambio,
                "tipo_cambio",
                "cambio.tipo_cambio",
                &CAMBIOS,
            ) {
                None => None,
                Some(t) => read_cambio(r, &t, Value::Object(cambio), &at)?,
            };
            match (cdc, cambio) {
                (Some(cdc), Some(cambio)) => Some(Evento::Transporte { cdc, cambio }),
                _ => None,
            }
        }
        "notificacion_recepcion" => {
            let j: NotificacionJson = de(rest, base)?;
            let cdc = r.cdc("cdc", &j.cdc);
            let emision = r.datetime("fecha_emision", &j.fecha_emision);
            let recepcion = r.datetime("fecha_recepcion", &j.fecha_recepcion);
            let receptor = r.receptor(j.receptor);
            let total = r.decimal("total_gs", &j.total_gs);
            match (cdc, emision, recepcion, receptor, total) {
                (
                    Some(cdc),
                    Some(fecha_emision),
                    Some(fecha_recepcion),
                    Some(receptor),
                    Some(total_gs),
                ) => Some(Evento::NotificacionRecepcion {
                    cdc,
                    fecha_emision,
                    fecha_recepcion,
                    receptor,
                    total_gs,
                }),
                _ => None,
            }
        }
        "conformidad" => {
            let j: ConformidadJson = de(rest, base)?;
            let cdc = r.cdc("cdc", &j.cdc);
            let recepcion = r.opt_datetime("fecha_recepcion", &j.fecha_recepcion);
            match (cdc, recepcion) {
                (Some(cdc), Some(fecha_recepcion)) => Some(Evento::Conformidad {
                    cdc,
                    parcial: j.parcial,
                    fecha_recepcion,
                }),
                _ => None,
            }
        }
        "desconocimiento" => {
            let j: DesconocimientoJson = de(rest, base)?;
            let cdc = r.cdc("cdc", &j.cdc);
            let emision = r.datetime("fecha_emision", &j.fecha_emision);
            let recepcion = r.datetime("fecha_recepcion", &j.fecha_recepcion);
            let receptor = r.receptor(j.receptor);
            match (cdc, emision, recepcion, receptor) {
                (Some(cdc), Some(fecha_emision), Some(fecha_recepcion), Some(receptor)) => {
                    Some(Evento::Desconocimiento {
                        cdc,
                        fecha_emision,
                        fecha_recepcion,
                        receptor,
                        motivo: j.motivo,
                    })
                }
                _ => None,
            }
        }
        // take_tag admitted only KINDS.
        _ => None,
    })
}

fn read_cambio(
    r: &mut Reader<'_>,
    tipo_cambio: &str,
    rest: Value,
    at: &str,
) -> Result<Option<CambioTransporte>, Finding> {
    Ok(match tipo_cambio {
        "local_entrega" => {
            let j: LocalEntregaJson = de(rest, at)?;
            Some(CambioTransporte::LocalEntrega {
                ciudad: j.ciudad,
                direccion: j.direccion,
                numero_casa: j.numero_casa,
            })
        }
        "chofer" => {
            let j: ChoferJson = de(rest, at)?;
            Some(CambioTransporte::Chofer {
                nombre: j.nombre,
                documento: j.documento,
            })
        }
        "transportista" => {
            let j: TransportistaJson = de(rest, at)?;
            let ruc = match &j.ruc {
                None => Some(None),
                Some(s) => r.ruc("cambio.ruc", s).map(Some),
            };
            ruc.map(|ruc| CambioTransporte::Transportista {
                nombre: j.nombre,
                ruc,
                documento: j.documento.map(|d| (d.tipo, d.numero)),
            })
        }
        "vehiculo" => {
            let j: VehiculoJson = de(rest, at)?;
            Some(CambioTransporte::Vehiculo {
                modalidad: j.modalidad,
                tipo: j.tipo,
                marca: j.marca,
                numero_identificacion: j.numero_identificacion,
                matricula: j.matricula,
            })
        }
        _ => None,
    })
}

impl SignedJson {
    /// Checks that the object is a signed event as [`super::sign_event`] made it, and rebuilds it.
    fn check(self, base: &str) -> Result<SignedEvent, Finding> {
        let p = |f: &str| join(base, f);
        let kind = ELEMENTS
            .iter()
            .copied()
            .find(|k| *k == self.kind)
            .ok_or_else(|| {
                Finding::new(
                    code::INVALID_VALUE,
                    p("kind"),
                    format!(
                        "unknown event kind: expected one of {}",
                        ELEMENTS.join(", ")
                    ),
                )
            })?;
        match (&self.cdc, kind) {
            (Some(_), "rGeVeInu") => {
                return Err(Finding::new(
                    code::NOT_ALLOWED,
                    p("cdc"),
                    "an inutilización concerns no CDC",
                ))
            }
            (None, k) if k != "rGeVeInu" => {
                return Err(Finding::new(
                    code::REQUIRED,
                    p("cdc"),
                    format!("a {k} event concerns a CDC"),
                ))
            }
            (Some(c), _) => {
                Cdc::parse(c).map_err(|e| e.to_finding(p("cdc")))?;
            }
            _ => {}
        }
        let not_signed = |why: &str| {
            Finding::new(
                sifen_code::EVENT_INVALID,
                p("xml"),
                format!("not an event as kuatia signs it: {why}"),
            )
        };
        let x = &self.xml;
        let head = format!("<rGesEve><rEve Id=\"{}\">", self.id);
        if !x.starts_with(&head) || !x.ends_with("</Signature></rGesEve>") {
            return Err(not_signed(&format!(
                "it must be one rGesEve starting with {head} and ending with its Signature"
            )));
        }
        if x.matches("<rGesEve").count() != 1
            || x.matches("</rGesEve>").count() != 1
            || x.matches("<Signature ").count() != 1
        {
            return Err(not_signed(
                "it must hold exactly one rGesEve and one Signature",
            ));
        }
        let payload = match &self.cdc {
            Some(c) => format!("<gGroupTiEvt><{kind}><Id>{c}</Id>"),
            None => format!("<gGroupTiEvt><{kind}>"),
        };
        if !x.contains(&payload) {
            return Err(not_signed(&format!(
                "its payload does not start with {payload} (kind and cdc must match the XML)"
            )));
        }
        let event = SignedEvent {
            id: self.id,
            kind,
            cdc: self.cdc,
            xml: self.xml,
        };
        let group = super::group_xml(std::slice::from_ref(&event))?;
        let report = crate::sign::verify(&group, None);
        if !report.valid || report.reference_id.as_deref() != Some(&*event.id.to_string()) {
            let why = report
                .error
                .map(|e| e.message)
                .unwrap_or_else(|| "the signature references another element".into());
            return Err(not_signed(&format!("its signature does not verify: {why}")));
        }
        Ok(event)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::sifen::event::sign_event;
    use crate::sign::sandbox_test_signer;
    use time::macros::datetime;

    const CDC: &str = "01444444017001001000000122025031011234567890";
    const FIRMA: &str = "\"id\":1,\"fecha_firma\":\"2025-03-11T09:00:00\"";

    fn cdc() -> Cdc {
        Cdc::parse(CDC).unwrap()
    }

    fn input(id: u64, evento: Evento) -> EventoInput {
        EventoInput {
            id,
            fecha_firma: datetime!(2025-03-11 09:00:00),
            evento,
        }
    }

    fn read(body: &str) -> EventoInput {
        let text = format!("{{{FIRMA},{body}}}");
        input_from_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn errors(text: &str) -> Vec<(String, String)> {
        input_from_json(text)
            .unwrap_err()
            .0
            .into_iter()
            .map(|f| (f.code, f.path))
            .collect()
    }

    fn nre() -> Cdc {
        Cdc::build(&crate::cdc::CdcFields {
            tipo_documento: 7,
            ruc: Ruc::parse("44444401-7").unwrap(),
            establecimiento: 1,
            punto: 1,
            numero: 9,
            tipo_contribuyente: 2,
            fecha: time::macros::date!(2025 - 03 - 10),
            tipo_emision: 1,
            codigo_seguridad: 123_456_789,
        })
        .unwrap()
    }

    #[test]
    fn cancelacion_and_disconformidad() {
        assert_eq!(
            read(&format!(
                r#""tipo":"cancelacion","cdc":"{CDC}","motivo":"Error en datos del receptor""#
            )),
            input(
                1,
                Evento::Cancelacion {
                    cdc: cdc(),
                    motivo: "Error en datos del receptor".into()
                }
            )
        );
        assert_eq!(
            read(&format!(
                r#""tipo":"disconformidad","cdc":"{CDC}","motivo":"Mercadería dañada""#
            )),
            input(
                1,
                Evento::Disconformidad {
                    cdc: cdc(),
                    motivo: "Mercadería dañada".into()
                }
            )
        );
    }

    #[test]
    fn inutilizacion_takes_numbers_or_digit_strings() {
        let want = input(
            1,
            Evento::Inutilizacion(Inutilizacion {
                timbrado: "12558946".into(),
                establecimiento: 1,
                punto: 1,
                desde: 5,
                hasta: 1004,
                tipo_documento: 1,
                motivo: "Salto de numeración".into(),
                serie: None,
            }),
        );
        assert_eq!(
            read(
                r#""tipo":"inutilizacion","timbrado":"12558946","establecimiento":"001","punto":1,
                   "desde":5,"hasta":"0001004","tipo_documento":1,"motivo":"Salto de numeración""#
            ),
            want
        );
        assert_eq!(
            read(
                r#""tipo":"inutilizacion","timbrado":12558946,"establecimiento":1,"punto":"001",
                   "desde":"5","hasta":1004,"tipo_documento":1,"motivo":"Salto de numeración","serie":null"#
            ),
            want
        );
        let e = errors(
            r#"{"tipo":"inutilizacion","id":1,"fecha_firma":"2025-03-11T09:00:00","timbrado":true,
                "establecimiento":"1a","punto":70000,"desde":-1,"hasta":1.5,"tipo_documento":1,"motivo":"Salto"}"#,
        );
        assert_eq!(
            e,
            [
                (code::INVALID_TYPE, "timbrado"),
                (code::INVALID_FORMAT, "establecimiento"),
                (code::OUT_OF_RANGE, "punto"),
                (code::OUT_OF_RANGE, "desde"),
                (code::OUT_OF_RANGE, "hasta"),
            ]
            .map(|(c, p)| (c.to_string(), p.to_string()))
        );
    }

    #[test]
    fn nominacion_with_ruc_or_document() {
        assert_eq!(
            read(&format!(
                r#""tipo":"nominacion","cdc":"{CDC}","motivo":"Nominación del receptor","tipo_operacion":1,
                   "pais":"PRY","nombre":"Cliente Ejemplo S.A.",
                   "identidad":{{"ruc":"80069563-1","tipo_contribuyente":2}},
                   "direccion":"Avda. España 123","email":"cliente@example.com""#
            )),
            input(
                1,
                Evento::Nominacion(Nominacion {
                    cdc: cdc(),
                    motivo: "Nominación del receptor".into(),
                    tipo_operacion: 1,
                    pais: "PRY".into(),
                    nombre: "Cliente Ejemplo S.A.".into(),
                    identidad: IdentidadReceptor::Contribuyente {
                        ruc: Ruc::parse("80069563-1").unwrap(),
                        tipo_contribuyente: 2,
                    },
                    direccion: Some("Avda. España 123".into()),
                    email: Some("cliente@example.com".into()),
                })
            )
        );
        // pais defaults to PRY.
        assert_eq!(
            read(&format!(
                r#""tipo":"nominacion","cdc":"{CDC}","motivo":"Nominación del receptor","tipo_operacion":2,
                   "nombre":"Juan Pérez","identidad":{{"tipo_documento":1,"numero":"1234567"}}"#
            )),
            input(
                1,
                Evento::Nominacion(Nominacion {
                    cdc: cdc(),
                    motivo: "Nominación del receptor".into(),
                    tipo_operacion: 2,
                    pais: "PRY".into(),
                    nombre: "Juan Pérez".into(),
                    identidad: IdentidadReceptor::NoContribuyente {
                        tipo_documento: 1,
                        numero: "1234567".into(),
                    },
                    direccion: None,
                    email: None,
                })
            )
        );
        let bad = format!(
            r#"{{{FIRMA},"tipo":"nominacion","cdc":"{CDC}","motivo":"Nominación","tipo_operacion":1,
                 "nombre":"Cliente","identidad":{{"ruc":"80069563-2","tipo_documento":1}}}}"#
        );
        assert_eq!(
            errors(&bad),
            [
                (code::NOT_ALLOWED, "identidad.tipo_documento"),
                (code::INVALID_RUC, "identidad.ruc"),
                (code::REQUIRED, "identidad.tipo_contribuyente"),
            ]
            .map(|(c, p)| (c.to_string(), p.to_string()))
        );
    }

    #[test]
    fn transporte_each_change() {
        let t = |cambio: &str| {
            let nre = nre();
            read(&format!(
                r#""tipo":"transporte","cdc":"{}","cambio":{cambio}"#,
                nre.as_str()
            ))
        };
        let want = |cambio| input(1, Evento::Transporte { cdc: nre(), cambio });
        assert_eq!(
            t(
                r#"{"tipo_cambio":"local_entrega","ciudad":1,"direccion":"Calle Palma","numero_casa":123}"#
            ),
            want(CambioTransporte::LocalEntrega {
                ciudad: 1,
                direccion: "Calle Palma".into(),
                numero_casa: 123
            })
        );
        assert_eq!(
            t(r#"{"tipo_cambio":"local_entrega","ciudad":1,"direccion":"Calle Palma"}"#),
            want(CambioTransporte::LocalEntrega {
                ciudad: 1,
                direccion: "Calle Palma".into(),
                numero_casa: 0
            })
        );
        assert_eq!(
            t(r#"{"tipo_cambio":"chofer","nombre":"Pedro Gómez","documento":"2345678"}"#),
            want(CambioTransporte::Chofer {
                nombre: "Pedro Gómez".into(),
                documento: "2345678".into()
            })
        );
        assert_eq!(
            t(r#"{"tipo_cambio":"transportista","nombre":"Transportes S.A.","ruc":"80069563-1"}"#),
            want(CambioTransporte::Transportista {
                nombre: "Transportes S.A.".into(),
                ruc: Some(Ruc::parse("80069563-1").unwrap()),
                documento: None
            })
        );
        assert_eq!(
            t(
                r#"{"tipo_cambio":"transportista","nombre":"Carlos Ruiz","documento":{"tipo":1,"numero":"3456789"}}"#
            ),
            want(CambioTransporte::Transportista {
                nombre: "Carlos Ruiz".into(),
                ruc: None,
                documento: Some((1, "3456789".into()))
            })
        );
        assert_eq!(
            t(
                r#"{"tipo_cambio":"vehiculo","modalidad":1,"tipo":"Camión","marca":"Volvo","matricula":"ABC123"}"#
            ),
            want(CambioTransporte::Vehiculo {
                modalidad: 1,
                tipo: "Camión".into(),
                marca: "Volvo".into(),
                numero_identificacion: None,
                matricula: Some("ABC123".into())
            })
        );
        let bad = |cambio: &str| {
            errors(&format!(
                r#"{{{FIRMA},"tipo":"transporte","cdc":"{CDC}","cambio":{cambio}}}"#
            ))
        };
        assert_eq!(
            bad(r#"{"tipo_cambio":"avion"}"#),
            [(
                code::INVALID_VALUE.to_string(),
                "cambio.tipo_cambio".to_string()
            )]
        );
        assert_eq!(
            bad(r#"{"nombre":"x"}"#),
            [(code::REQUIRED.to_string(), "cambio.tipo_cambio".to_string())]
        );
        assert_eq!(
            bad(r#"{"tipo_cambio":"chofer","nombre":"Pedro Gómez"}"#),
            [(code::REQUIRED.to_string(), "cambio.documento".to_string())]
        );
        assert_eq!(
            bad(
                r#"{"tipo_cambio":"transportista","nombre":"T","documento":{"tipo":"uno","numero":"1"}}"#
            ),
            [(
                code::INVALID_TYPE.to_string(),
                "cambio.documento.tipo".to_string()
            )]
        );
    }

    #[test]
    fn receiver_events() {
        let receptor = r#""receptor":{"nombre":"Cliente Ejemplo S.A.","ruc":"80069563-1"}"#;
        let contribuyente = ReceptorEvento::Contribuyente {
            nombre: "Cliente Ejemplo S.A.".into(),
            ruc: Ruc::parse("80069563-1").unwrap(),
        };
        for total in ["1100000", "\"1100000\"", "1100000.00", "\"1.1e6\""] {
            assert_eq!(
                read(&format!(
                    r#""tipo":"notificacion_recepcion","cdc":"{CDC}","fecha_emision":"2025-03-10T10:11:00",
                       "fecha_recepcion":"2025-03-10T15:00:00",{receptor},"total_gs":{total}"#
                )),
                input(
                    1,
                    Evento::NotificacionRecepcion {
                        cdc: cdc(),
                        fecha_emision: datetime!(2025-03-10 10:11:00),
                        fecha_recepcion: datetime!(2025-03-10 15:00:00),
                        receptor: contribuyente.clone(),
                        total_gs: Decimal::from(1_100_000),
                    }
                ),
                "{total}"
            );
        }
        assert_eq!(
            read(&format!(r#""tipo":"conformidad","cdc":"{CDC}""#)),
            input(
                1,
                Evento::Conformidad {
                    cdc: cdc(),
                    parcial: false,
                    fecha_recepcion: None
                }
            )
        );
        assert_eq!(
            read(&format!(
                r#""tipo":"conformidad","cdc":"{CDC}","parcial":true,"fecha_recepcion":"2025-03-10T15:00:00""#
            )),
            input(
                1,
                Evento::Conformidad {
                    cdc: cdc(),
                    parcial: true,
                    fecha_recepcion: Some(datetime!(2025-03-10 15:00:00))
                }
            )
        );
        assert_eq!(
            read(&format!(
                r#""tipo":"desconocimiento","cdc":"{CDC}","fecha_emision":"2025-03-10T10:11:00",
                   "fecha_recepcion":"2025-03-10T15:00:00","motivo":"Operación no reconocida",
                   "receptor":{{"nombre":"Juan Pérez","tipo_documento":1,"numero":"1234567"}}"#
            )),
            input(
                1,
                Evento::Desconocimiento {
                    cdc: cdc(),
                    fecha_emision: datetime!(2025-03-10 10:11:00),
                    fecha_recepcion: datetime!(2025-03-10 15:00:00),
                    receptor: ReceptorEvento::NoContribuyente {
                        nombre: "Juan Pérez".into(),
                        tipo_documento: 1,
                        numero: "1234567".into(),
                    },
                    motivo: "Operación no reconocida".into(),
                }
            )
        );
        // Every bad value at once, each at its path.
        let e = errors(&format!(
            r#"{{{FIRMA},"tipo":"notificacion_recepcion","cdc":"0144","fecha_emision":"2025-03-10 10:11",
                 "fecha_recepcion":"2025-03-10T25:00:00","receptor":{{"nombre":"Cliente","ruc":"80069563-1",
                 "numero":"1"}},"total_gs":"1,5"}}"#
        ));
        assert_eq!(
            e,
            [
                (code::INVALID_CDC, "cdc"),
                (code::INVALID_FORMAT, "fecha_emision"),
                (code::INVALID_FORMAT, "fecha_recepcion"),
                (code::NOT_ALLOWED, "receptor.numero"),
                (code::INVALID_TYPE, "total_gs"),
            ]
            .map(|(c, p)| (c.to_string(), p.to_string()))
        );
        let e = errors(&format!(
            r#"{{{FIRMA},"tipo":"desconocimiento","cdc":"{CDC}","fecha_emision":"2025-03-10T10:11:00",
                 "fecha_recepcion":"2025-03-10T15:00:00","motivo":"Operación no reconocida",
                 "receptor":{{"nombre":"Juan Pérez"}}}}"#
        ));
        assert_eq!(
            e,
            [
                (code::REQUIRED, "receptor.tipo_documento"),
                (code::REQUIRED, "receptor.numero"),
            ]
            .map(|(c, p)| (c.to_string(), p.to_string()))
        );
    }

    #[test]
    fn shape_errors_have_codes_and_paths() {
        let one = |t: &str| {
            let e = errors(t);
            assert_eq!(e.len(), 1, "{t}: {e:?}");
            let (c, p) = e.into_iter().next().unwrap();
            (c, p)
        };
        let s = |c: &str, p: &str| (c.to_string(), p.to_string());
        assert_eq!(one("{"), s(code::MALFORMED_JSON, ""));
        assert_eq!(one("[]"), s(code::INVALID_TYPE, ""));
        assert_eq!(one("7"), s(code::INVALID_TYPE, ""));
        assert_eq!(
            one(&format!(r#"{{{FIRMA},"cdc":"{CDC}","motivo":"abcde"}}"#)),
            s(code::REQUIRED, "tipo")
        );
        assert_eq!(
            one(&format!(r#"{{{FIRMA},"tipo":"anulacion"}}"#)),
            s(code::INVALID_VALUE, "tipo")
        );
        assert_eq!(
            one(&format!(r#"{{{FIRMA},"tipo":3}}"#)),
            s(code::INVALID_TYPE, "tipo")
        );
        assert_eq!(
            one(&format!(
                r#"{{{FIRMA},"tipo":"cancelacion","cdc":"{CDC}","motivo":"abcde","extra":1}}"#
            )),
            s(code::NOT_ALLOWED, "extra")
        );
        assert_eq!(
            one(&format!(
                r#"{{{FIRMA},"tipo":"cancelacion","cdc":"{CDC}"}}"#
            )),
            s(code::REQUIRED, "motivo")
        );
        assert_eq!(
            one(&format!(
                r#"{{{FIRMA},"tipo":"cancelacion","cdc":"{CDC}","motivo":5}}"#
            )),
            s(code::INVALID_TYPE, "motivo")
        );
        assert_eq!(
            one(&format!(
                r#"{{{FIRMA},"tipo":"conformidad","cdc":"{CDC}","parcial":"si"}}"#
            )),
            s(code::INVALID_TYPE, "parcial")
        );
        // id and fecha_firma.
        let e = errors(&format!(
            r#"{{"tipo":"cancelacion","id":-3,"fecha_firma":"2025-03-11","cdc":"{CDC}","motivo":"abcde"}}"#
        ));
        assert_eq!(
            e,
            [
                s(code::INVALID_TYPE, "id"),
                s(code::INVALID_FORMAT, "fecha_firma")
            ]
        );
        let e = errors(&format!(
            r#"{{"tipo":"cancelacion","cdc":"{CDC}","motivo":"abcde"}}"#
        ));
        assert_eq!(
            e,
            [s(code::REQUIRED, "id"), s(code::REQUIRED, "fecha_firma")]
        );
        assert_eq!(
            one(&"x".repeat(MAX_EVENT_JSON_BYTES + 1)),
            s(code::TOO_LARGE, "")
        );
        assert_eq!(
            one(&format!("{}{}", "[".repeat(200), "]".repeat(200))),
            s(code::MALFORMED_JSON, "")
        );
        assert_eq!(
            one(&format!(
                r#"{{"a":{}1{}}}"#,
                "[".repeat(200),
                "]".repeat(200)
            )),
            s(code::MALFORMED_JSON, "")
        );
        // Range rules are validate's, applied when signing: id 0 reads fine.
        let zero = format!(
            r#"{{"tipo":"cancelacion","id":0,"fecha_firma":"2025-03-11T09:00:00","cdc":"{CDC}","motivo":"abcde"}}"#
        );
        assert_eq!(input_from_json(&zero).unwrap().id, 0);
    }

    #[test]
    fn truncated_and_mangled_input_never_panics() {
        let full = format!(
            r#"{{"tipo":"notificacion_recepcion","id":1,"fecha_firma":"2025-03-11T09:00:00","cdc":"{CDC}",
                "fecha_emision":"2025-03-10T10:11:00","fecha_recepcion":"2025-03-10T15:00:00",
                "receptor":{{"nombre":"Cliente Ejemplo S.A.","ruc":"80069563-1"}},"total_gs":1100000}}"#
        );
        assert!(input_from_json(&full).is_ok());
        for (i, _) in full.char_indices() {
            let cut = &full[..i];
            assert!(input_from_json(cut).is_err(), "{cut}");
            let _ = inputs_from_json(&format!("[{cut}]"), None);
            let _ = signed_events_from_json(&format!("[{cut}]"));
            // Every value replaced by a value of another type.
            for other in ["null", "true", "-1", "1e400", "\"\"", "[]", "{}"] {
                let _ = input_from_json(&format!("{cut}{other}"));
            }
        }
    }

    #[test]
    fn arrays_and_the_default_signing_time() {
        let cancel = format!(r#"{{"tipo":"cancelacion","id":1,"cdc":"{CDC}","motivo":"abcde"}}"#);
        let now = datetime!(2025-03-12 08:00:00);
        let v = inputs_from_json(&cancel, Some(now)).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].fecha_firma, now);
        let two = format!(
            r#"[{cancel},{{"tipo":"conformidad","id":2,"fecha_firma":"2025-03-11T09:00:00","cdc":"{CDC}"}}]"#
        );
        let v = inputs_from_json(&two, Some(now)).unwrap();
        assert_eq!(v[1].fecha_firma, datetime!(2025-03-11 09:00:00));
        let f = inputs_from_json(&two, None).unwrap_err();
        assert_eq!(f.0.len(), 1);
        assert_eq!(
            (f.0[0].code.as_str(), f.0[0].path.as_str()),
            (code::REQUIRED, "[0].fecha_firma")
        );
        let bad = format!(r#"[{cancel},{{"tipo":"conformidad","id":2,"cdc":"x"}},3]"#);
        let f = inputs_from_json(&bad, Some(now)).unwrap_err();
        let got: Vec<(&str, &str)> =
            f.0.iter()
                .map(|x| (x.code.as_str(), x.path.as_str()))
                .collect();
        assert_eq!(
            got,
            [(code::INVALID_CDC, "[1].cdc"), (code::INVALID_TYPE, "[2]")]
        );
        assert_eq!(
            inputs_from_json("[]", Some(now)).unwrap_err().code(),
            sifen_code::EVENT_COUNT
        );
        let many = format!("[{}]", vec![cancel.as_str(); 16].join(","));
        assert_eq!(
            inputs_from_json(&many, Some(now)).unwrap_err().code(),
            sifen_code::EVENT_COUNT
        );
    }

    #[test]
    fn signed_events_are_checked_before_they_reach_a_request() {
        let signer = sandbox_test_signer().unwrap();
        let emisor = Ruc::parse("44444401-7").unwrap();
        let e1 = sign_event(
            &input(
                1,
                Evento::Cancelacion {
                    cdc: cdc(),
                    motivo: "Error en el precio".into(),
                },
            ),
            &emisor,
            &signer,
        )
        .unwrap();
        let e2 = sign_event(
            &input(
                2,
                Evento::Inutilizacion(Inutilizacion {
                    timbrado: "12558946".into(),
                    establecimiento: 1,
                    punto: 1,
                    desde: 5,
                    hasta: 9,
                    tipo_documento: 1,
                    motivo: "Salto de numeración".into(),
                    serie: None,
                }),
            ),
            &emisor,
            &signer,
        )
        .unwrap();
        let text = serde_json::to_string(&[&e1, &e2]).unwrap();
        assert_eq!(
            signed_events_from_json(&text).unwrap(),
            vec![e1.clone(), e2.clone()]
        );

        let codes = |v: serde_json::Value| -> Vec<(String, String)> {
            signed_events_from_json(&v.to_string())
                .unwrap_err()
                .0
                .into_iter()
                .map(|f| (f.code, f.path))
                .collect()
        };
        let s = |c: &str, p: &str| vec![(c.to_string(), p.to_string())];
        let mut v = serde_json::to_value(&e1).unwrap();
        // A changed motive breaks the signature.
        v["xml"] = e1
            .xml
            .replace("Error en el precio", "Error en el monto")
            .into();
        assert_eq!(
            codes(serde_json::json!([v])),
            s(sifen_code::EVENT_INVALID, "[0].xml")
        );
        // Another id, kind or CDC than the XML's.
        let mut v = serde_json::to_value(&e1).unwrap();
        v["id"] = 9.into();
        assert_eq!(
            codes(serde_json::json!([v])),
            s(sifen_code::EVENT_INVALID, "[0].xml")
        );
        let mut v = serde_json::to_value(&e1).unwrap();
        v["kind"] = "rGeVeDisconf".into();
        assert_eq!(
            codes(serde_json::json!([v])),
            s(sifen_code::EVENT_INVALID, "[0].xml")
        );
        let mut v = serde_json::to_value(&e1).unwrap();
        v["kind"] = "rGeVeX".into();
        assert_eq!(
            codes(serde_json::json!([v])),
            s(code::INVALID_VALUE, "[0].kind")
        );
        let mut v = serde_json::to_value(&e1).unwrap();
        v["cdc"] = serde_json::Value::Null;
        assert_eq!(codes(serde_json::json!([v])), s(code::REQUIRED, "[0].cdc"));
        let mut v = serde_json::to_value(&e2).unwrap();
        v["cdc"] = CDC.into();
        assert_eq!(
            codes(serde_json::json!([v])),
            s(code::NOT_ALLOWED, "[0].cdc")
        );
        // Extra XML smuggled after the event.
        let mut v = serde_json::to_value(&e1).unwrap();
        let x = e1
            .xml
            .replace("</rGesEve>", "</rGesEve><rGesEve></rGesEve>");
        v["xml"] = x.into();
        assert_eq!(
            codes(serde_json::json!([v])),
            s(sifen_code::EVENT_INVALID, "[0].xml")
        );
        // Not signed at all, missing fields, wrong shapes.
        let v = serde_json::json!({"id": 1, "kind": "rGeVeCan", "cdc": CDC, "xml": "<rGesEve/>"});
        assert_eq!(
            codes(serde_json::json!([v])),
            s(sifen_code::EVENT_INVALID, "[0].xml")
        );
        let v = serde_json::json!({"id": 1, "kind": "rGeVeCan"});
        assert_eq!(codes(serde_json::json!([v])), s(code::REQUIRED, "[0].xml"));
        assert_eq!(codes(serde_json::json!({})), s(code::INVALID_TYPE, ""));
        assert_eq!(codes(serde_json::json!([])), s(sifen_code::EVENT_COUNT, ""));
        assert_eq!(codes(serde_json::json!([1])), s(code::INVALID_TYPE, "[0]"));
    }
}
