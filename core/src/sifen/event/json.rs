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
//!
//! Each part is read by serde into a mirror struct through [`crate::shape`]'s pass, so every shape problem of the
//! part (missing, unknown, mistyped field) is reported at once; the values serde cannot judge (CDC, RUC, dates,
//! numbers given as text) are then checked on what did read. The discriminators (`tipo`, `cambio.tipo_cambio`) are
//! read first and pick the payload struct: no `#[serde(tag)]`/`flatten`, which buffer numbers and break under
//! serde_json's `arbitrary_precision` (serde-rs/json#505).

use super::{
    CambioTransporte, Evento, EventoInput, IdentidadReceptor, Inutilizacion, Nominacion,
    ReceptorEvento, SignedEvent,
};
use crate::cdc::Cdc;
use crate::error::join_path as join;
use crate::error::{Finding, Findings};
use crate::ruc::Ruc;
use crate::rule;
use crate::shape;
use crate::sifen::MAX_EVENTS;
use rust_decimal::Decimal;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use time::PrimitiveDateTime;

mod mirror;
use mirror::*;

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
        return Err(rule::event_not_one("").into());
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
        return Err(rule::event_not_signed_array("").into());
    };
    count_ok(items.len())?;
    let mut out = Vec::with_capacity(items.len());
    let mut findings = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let path = format!("[{i}]");
        match shape::read_value::<SignedJson>(item, &path) {
            Ok(s) => match s.check(&path) {
                Ok(e) => out.push(e),
                Err(f) => findings.push(f),
            },
            Err(u) => findings.extend(u.findings),
        }
    }
    if findings.is_empty() {
        Ok(out)
    } else {
        Err(Findings(findings))
    }
}

// ------------------------------------------------------------------------------------------------------------
// Plumbing: the text, the count, the checks on what serde read
// ------------------------------------------------------------------------------------------------------------

fn parse_value(text: &str) -> Result<Value, Finding> {
    if text.len() > MAX_EVENT_JSON_BYTES {
        return Err(rule::event_json_too_large(
            "",
            text.len(),
            MAX_EVENT_JSON_BYTES,
        ));
    }
    // serde_json's own recursion limit (128) bounds nesting.
    shape::from_json(text, "")
}

fn count_ok(n: usize) -> Result<(), Finding> {
    if (1..=MAX_EVENTS).contains(&n) {
        Ok(())
    } else {
        Err(rule::event_count("", MAX_EVENTS, n))
    }
}

/// Collects the findings of one event: the shape pass's, then those of the checks on what read.
struct Check<'a> {
    /// The event's path (`""` or `[i]`); fields are named relative to it.
    base: &'a str,
    findings: Vec<Finding>,
}

impl Check<'_> {
    /// Reads `value` (the part of the event at `field`) into the mirror `T` through the shape pass, then hands what
    /// read to `rules`, which checks the values and builds the domain part. On a shape problem every shape finding
    /// is kept, `rules` still run on what could be read (their findings at or under a field already reported are
    /// left out), and the part is `None`.
    fn read<T: DeserializeOwned, U>(
        &mut self,
        value: Value,
        field: &str,
        rules: impl FnOnce(&mut Self, &T) -> Option<U>,
    ) -> Option<U> {
        match shape::read_value::<T>(value, &join(self.base, field)) {
            Ok(t) => rules(self, &t),
            Err(unread) => {
                let mut inner = Check {
                    base: self.base,
                    findings: Vec::new(),
                };
                if let Some(rest) = unread.rest() {
                    let _ = rules(&mut inner, rest);
                }
                self.findings.extend(unread.merge(inner.findings));
                None
            }
        }
    }

    /// Pushes the finding of a rule's builder, given the field's full path.
    fn push(&mut self, field: &str, build: impl FnOnce(String) -> Finding) {
        let path = join(self.base, field);
        self.findings.push(build(path));
    }

    /// A discriminator: `None` (with a finding) when it is missing or not one of `allowed`.
    fn tag(
        &mut self,
        field: &str,
        given: Option<&str>,
        allowed: &[&'static str],
    ) -> Option<&'static str> {
        let name = field.rsplit('.').next().unwrap_or(field);
        let Some(given) = given else {
            self.push(field, |p| rule::event_tag_missing(p, name, allowed));
            return None;
        };
        let found = allowed.iter().copied().find(|k| *k == given);
        if found.is_none() {
            let given: String = given.chars().take(40).collect();
            self.push(field, |p| rule::event_tag_unknown(p, name, &given, allowed));
        }
        found
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
        let path = join(self.base, field);
        crate::fmt::datetime_at(s, &path)
            .map_err(|f| self.findings.push(f))
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
        let path = join(self.base, field);
        crate::invoice::decimal_at(v, &path)
            .map_err(|f| self.findings.push(f))
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
                self.push(field, rule::event_digits);
                return None;
            }
            other => {
                let k = found(other);
                self.push(field, |p| rule::event_number_type(p, k));
                return None;
            }
        };
        match n {
            Some(n) if n <= max => Some(n),
            _ => {
                self.push(field, |p| rule::event_number_max(p, max));
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
                let k = found(other);
                self.push(field, |p| rule::event_string_type(p, k));
                None
            }
        }
    }

    fn receptor(&mut self, r: &ReceptorJson) -> Option<ReceptorEvento> {
        match &r.ruc {
            Some(ruc) => {
                self.no_document("receptor", r.tipo_documento.is_some(), r.numero.is_some());
                let ruc = self.ruc("receptor.ruc", ruc)?;
                Some(ReceptorEvento::Contribuyente {
                    nombre: r.nombre.clone(),
                    ruc,
                })
            }
            None => match (r.tipo_documento, &r.numero) {
                (Some(tipo_documento), Some(numero)) => Some(ReceptorEvento::NoContribuyente {
                    nombre: r.nombre.clone(),
                    tipo_documento,
                    numero: numero.clone(),
                }),
                (t, n) => {
                    self.document_required(
                        "receptor",
                        t.is_some(),
                        n.is_some(),
                        rule::event_receptor_document,
                    );
                    None
                }
            },
        }
    }

    fn identidad(&mut self, i: &IdentidadJson) -> Option<IdentidadReceptor> {
        match &i.ruc {
            Some(ruc) => {
                self.no_document("identidad", i.tipo_documento.is_some(), i.numero.is_some());
                let ruc = self.ruc("identidad.ruc", ruc);
                let Some(tipo_contribuyente) = i.tipo_contribuyente else {
                    self.push(
                        "identidad.tipo_contribuyente",
                        rule::event_tipo_contribuyente,
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
                        "identidad.tipo_contribuyente",
                        rule::event_tipo_contribuyente_not_allowed,
                    );
                }
                match (i.tipo_documento, &i.numero) {
                    (Some(tipo_documento), Some(numero)) => {
                        Some(IdentidadReceptor::NoContribuyente {
                            tipo_documento,
                            numero: numero.clone(),
                        })
                    }
                    (t, n) => {
                        self.document_required(
                            "identidad",
                            t.is_some(),
                            n.is_some(),
                            rule::event_identidad_document,
                        );
                        None
                    }
                }
            }
        }
    }

    /// A receiver with RUC given an identity document too: each part given is not allowed.
    fn no_document(&mut self, at: &str, tipo: bool, numero: bool) {
        for (f, given) in [("tipo_documento", tipo), ("numero", numero)] {
            if given {
                self.push(&join(at, f), rule::event_document_not_allowed);
            }
        }
    }

    /// A receiver without RUC: each missing part of its identity document is required.
    fn document_required(
        &mut self,
        at: &str,
        tipo: bool,
        numero: bool,
        rule: fn(String) -> Finding,
    ) {
        for (f, given) in [("tipo_documento", tipo), ("numero", numero)] {
            if !given {
                self.push(&join(at, f), rule);
            }
        }
    }
}

/// What a JSON value is, as a catalog term `event-found-*` (rules `event.not_object`, `event.number_type`, …).
fn found(v: &Value) -> &'static str {
    match v {
        Value::Null => "event-found-null",
        Value::Bool(_) => "event-found-bool",
        Value::Number(_) => "event-found-number",
        Value::String(_) => "event-found-text",
        Value::Array(_) => "event-found-list",
        Value::Object(_) => "event-found-object",
    }
}

// ------------------------------------------------------------------------------------------------------------
// Reading
// ------------------------------------------------------------------------------------------------------------

/// Takes the `keys` out of `obj` into an object of their own.
fn take(obj: &mut Map<String, Value>, keys: &[&str]) -> Value {
    Value::Object(keys.iter().filter_map(|k| obj.remove_entry(*k)).collect())
}

fn read_event(
    value: Value,
    base: &str,
    fecha_firma_default: Option<PrimitiveDateTime>,
) -> Result<EventoInput, Vec<Finding>> {
    let Value::Object(mut obj) = value else {
        return Err(vec![rule::event_not_object(base, found(&value))]);
    };
    let mut c = Check {
        base,
        findings: Vec::new(),
    };
    let head = take(&mut obj, &HEAD);
    let mut tipo = None;
    let mut fecha_firma = None;
    let id = c.read(head, "", |c, h: &HeadJson| {
        tipo = c.tag("tipo", h.tipo.as_deref(), &KINDS);
        let id = h.id.as_ref().map(|id| id.0);
        if id.is_none() {
            c.push("id", rule::event_id_missing);
        }
        fecha_firma = match &h.fecha_firma {
            None if fecha_firma_default.is_none() => {
                c.push("fecha_firma", rule::event_fecha_firma_missing);
                None
            }
            None => fecha_firma_default,
            Some(s) => c.datetime("fecha_firma", s),
        };
        id
    });
    let evento = tipo.and_then(|t| read_payload(&mut c, t, Value::Object(obj)));
    match (id, fecha_firma, evento) {
        (Some(id), Some(fecha_firma), Some(evento)) if c.findings.is_empty() => Ok(EventoInput {
            id,
            fecha_firma,
            evento,
        }),
        _ => Err(c.findings),
    }
}

/// The payload of kind `tipo` (one of [`KINDS`]), `None` when a finding was pushed.
fn read_payload(c: &mut Check<'_>, tipo: &str, rest: Value) -> Option<Evento> {
    match tipo {
        "cancelacion" => c.read(rest, "", |c, j: &CdcMotivoJson| {
            Some(Evento::Cancelacion {
                cdc: c.cdc("cdc", &j.cdc)?,
                motivo: j.motivo.clone(),
            })
        }),
        "disconformidad" => c.read(rest, "", |c, j: &CdcMotivoJson| {
            Some(Evento::Disconformidad {
                cdc: c.cdc("cdc", &j.cdc)?,
                motivo: j.motivo.clone(),
            })
        }),
        "inutilizacion" => c.read(rest, "", |c, j: &InutilizacionJson| {
            let timbrado = c.text("timbrado", &j.timbrado);
            let est = c.number("establecimiento", &j.establecimiento, u16::MAX.into());
            let pun = c.number("punto", &j.punto, u16::MAX.into());
            let desde = c.number("desde", &j.desde, u32::MAX.into());
            let hasta = c.number("hasta", &j.hasta, u32::MAX.into());
            Some(Evento::Inutilizacion(Inutilizacion {
                timbrado: timbrado?,
                establecimiento: u16::try_from(est?).unwrap_or(u16::MAX),
                punto: u16::try_from(pun?).unwrap_or(u16::MAX),
                desde: u32::try_from(desde?).unwrap_or(u32::MAX),
                hasta: u32::try_from(hasta?).unwrap_or(u32::MAX),
                tipo_documento: j.tipo_documento,
                motivo: j.motivo.clone(),
                serie: j.serie.clone(),
            }))
        }),
        "nominacion" => c.read(rest, "", |c, j: &NominacionJson| {
            let cdc = c.cdc("cdc", &j.cdc);
            let identidad = c.identidad(&j.identidad);
            Some(Evento::Nominacion(Nominacion {
                cdc: cdc?,
                motivo: j.motivo.clone(),
                tipo_operacion: j.tipo_operacion,
                pais: j.pais.clone(),
                nombre: j.nombre.clone(),
                identidad: identidad?,
                direccion: j.direccion.clone(),
                email: j.email.clone(),
            }))
        }),
        "transporte" => c.read(rest, "", |c, j: &TransporteJson| {
            let cdc = c.cdc("cdc", &j.cdc);
            let cambio = read_cambio(c, j.cambio.clone());
            Some(Evento::Transporte {
                cdc: cdc?,
                cambio: cambio?,
            })
        }),
        "notificacion_recepcion" => c.read(rest, "", |c, j: &NotificacionJson| {
            let cdc = c.cdc("cdc", &j.cdc);
            let emision = c.datetime("fecha_emision", &j.fecha_emision);
            let recepcion = c.datetime("fecha_recepcion", &j.fecha_recepcion);
            let receptor = c.receptor(&j.receptor);
            let total = c.decimal("total_gs", &j.total_gs);
            Some(Evento::NotificacionRecepcion {
                cdc: cdc?,
                fecha_emision: emision?,
                fecha_recepcion: recepcion?,
                receptor: receptor?,
                total_gs: total?,
            })
        }),
        "conformidad" => c.read(rest, "", |c, j: &ConformidadJson| {
            let cdc = c.cdc("cdc", &j.cdc);
            let recepcion = c.opt_datetime("fecha_recepcion", &j.fecha_recepcion);
            Some(Evento::Conformidad {
                cdc: cdc?,
                parcial: j.parcial,
                fecha_recepcion: recepcion?,
            })
        }),
        "desconocimiento" => c.read(rest, "", |c, j: &DesconocimientoJson| {
            let cdc = c.cdc("cdc", &j.cdc);
            let emision = c.datetime("fecha_emision", &j.fecha_emision);
            let recepcion = c.datetime("fecha_recepcion", &j.fecha_recepcion);
            let receptor = c.receptor(&j.receptor);
            Some(Evento::Desconocimiento {
                cdc: cdc?,
                fecha_emision: emision?,
                fecha_recepcion: recepcion?,
                receptor: receptor?,
                motivo: j.motivo.clone(),
            })
        }),
        // tag() admitted only KINDS.
        _ => None,
    }
}

/// The `cambio` of a `transporte` event: `tipo_cambio` first, then the struct of that change.
fn read_cambio(c: &mut Check<'_>, mut cambio: Map<String, Value>) -> Option<CambioTransporte> {
    let tag = take(&mut cambio, &["tipo_cambio"]);
    let tipo = c.read(tag, "cambio", |c, t: &CambioTagJson| {
        c.tag("cambio.tipo_cambio", t.tipo_cambio.as_deref(), &CAMBIOS)
    })?;
    let rest = Value::Object(cambio);
    match tipo {
        "local_entrega" => c.read(rest, "cambio", |_, j: &LocalEntregaJson| {
            Some(CambioTransporte::LocalEntrega {
                ciudad: j.ciudad,
                direccion: j.direccion.clone(),
                numero_casa: j.numero_casa,
            })
        }),
        "chofer" => c.read(rest, "cambio", |_, j: &ChoferJson| {
            Some(CambioTransporte::Chofer {
                nombre: j.nombre.clone(),
                documento: j.documento.clone(),
            })
        }),
        "transportista" => c.read(rest, "cambio", |c, j: &TransportistaJson| {
            let ruc = match &j.ruc {
                None => None,
                Some(s) => Some(c.ruc("cambio.ruc", s)?),
            };
            Some(CambioTransporte::Transportista {
                nombre: j.nombre.clone(),
                ruc,
                documento: j.documento.as_ref().map(|d| (d.tipo, d.numero.clone())),
            })
        }),
        "vehiculo" => c.read(rest, "cambio", |_, j: &VehiculoJson| {
            Some(CambioTransporte::Vehiculo {
                modalidad: j.modalidad,
                tipo: j.tipo.clone(),
                marca: j.marca.clone(),
                numero_identificacion: j.numero_identificacion.clone(),
                matricula: j.matricula.clone(),
            })
        }),
        // tag() admitted only CAMBIOS.
        _ => None,
    }
}

impl SignedJson {
    /// Checks that the object is a signed event as [`super::sign_event`] made it, and rebuilds it.
    fn check(self, base: &str) -> Result<SignedEvent, Finding> {
        let p = |f: &str| join(base, f);
        let kind = ELEMENTS
            .iter()
            .copied()
            .find(|k| *k == self.kind)
            .ok_or_else(|| rule::event_kind_unknown(p("kind"), &ELEMENTS))?;
        match (&self.cdc, kind) {
            (Some(_), "rGeVeInu") => return Err(rule::event_cdc_not_allowed(p("cdc"))),
            (None, k) if k != "rGeVeInu" => return Err(rule::event_cdc_required(p("cdc"), k)),
            (Some(c), _) => {
                Cdc::parse(c).map_err(|e| e.to_finding(p("cdc")))?;
            }
            _ => {}
        }
        let x = &self.xml;
        let head = format!("<rGesEve><rEve Id=\"{}\">", self.id);
        if !x.starts_with(&head) || !x.ends_with("</Signature></rGesEve>") {
            return Err(rule::event_signed_shape(p("xml"), &head));
        }
        if x.matches("<rGesEve").count() != 1
            || x.matches("</rGesEve>").count() != 1
            || x.matches("<Signature ").count() != 1
        {
            return Err(rule::event_signed_count(p("xml")));
        }
        let payload = match &self.cdc {
            Some(c) => format!("<gGroupTiEvt><{kind}><Id>{c}</Id>"),
            None => format!("<gGroupTiEvt><{kind}>"),
        };
        if !x.contains(&payload) {
            return Err(rule::event_signed_payload(p("xml"), &payload));
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
            return Err(match report.error {
                Some(cause) => {
                    let mut params = cause.params;
                    params.insert("cause", rule::Param::One(cause.rule.into_owned()));
                    rule::finding(rule::EVENT_SIGNATURE, p("xml"), params)
                }
                None => rule::event_signed_reference(p("xml")),
            });
        }
        Ok(event)
    }
}

#[cfg(test)]
mod tests;
