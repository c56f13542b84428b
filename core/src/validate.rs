//! Every rule SIFEN (MT v150 + NTs + XSD) and the user's service state for the fields kuatia emits, checked at once.
//!
//! [`validate`] never stops at the first problem: it returns every [`Finding`] with its JSON path, so a form can
//! mark all wrong fields in one pass. An empty list means the request can be issued.

use crate::cdc::Cdc;
use crate::codes;
use crate::de::TipoDocumento;
use crate::error::{code, Finding, Findings};
use crate::fmt::{parse_date, parse_datetime};
use crate::geo;
use crate::invoice::{Direccion, DocumentoAsociadoReq, FacturaRequest, Item};
use crate::numbering::NumberingKey;
use crate::profile::{Ambiente, Emisor, Timbrado};
use crate::ruc::Ruc;
use crate::totals;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;
use time::{Duration, PrimitiveDateTime};

/// Highest number of items SIFEN accepts in one document (`gCamItem` 1..999).
pub const MAX_ITEMS: usize = 999;
/// Innominado receivers are refused at or above this PYG total (NT-024, in force since 2025-01-01).
pub const INNOMINADO_LIMIT_PYG: i64 = 7_000_000;
/// Values of `_simulate` the sandbox understands.
pub const SIMULATE_VALUES: [&str; 4] = ["approved", "rejected", "pending", "sent"];

/// The outcome of validating a request: `ok` and every finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Report {
    /// True when there is no finding.
    pub ok: bool,
    /// Every problem found, in document order.
    pub errors: Vec<Finding>,
}

impl From<Vec<Finding>> for Report {
    fn from(errors: Vec<Finding>) -> Self {
        Report {
            ok: errors.is_empty(),
            errors,
        }
    }
}

/// Parses and validates a JSON request: shape problems and rule violations come back in one report (the rules check
/// every field whose shape is right).
pub fn validate_json(json: &str, emisor: &Emisor, now: PrimitiveDateTime) -> Report {
    check_json(json, emisor, now).1.into()
}

/// Reads a JSON request for a step that checks it next (numbering key, preview, issue): the request, or — when its
/// shape is wrong — every finding, shape and the rules' over what reads, as [`validate_json`] reports them.
pub fn read_json(
    json: &str,
    emisor: &Emisor,
    now: PrimitiveDateTime,
) -> Result<FacturaRequest, Findings> {
    crate::invoice::read_request(json).map_err(|u| {
        let rules = u.rest().map(|r| validate(r, emisor, now));
        Findings(u.merge(rules.unwrap_or_default()))
    })
}

/// Reads and validates a JSON request: the request when it reads, and every finding (shape first, then the rules
/// over what is readable).
pub fn check_json(
    json: &str,
    emisor: &Emisor,
    now: PrimitiveDateTime,
) -> (Option<FacturaRequest>, Vec<Finding>) {
    // One call of the rules, on the request or on what of it reads.
    let read = crate::invoice::read_request(json);
    let rest = match &read {
        Ok(req) => Some(req),
        Err(unread) => unread.rest(),
    };
    let rules = rest.map(|r| validate(r, emisor, now)).unwrap_or_default();
    match read {
        Ok(req) => (Some(req), rules),
        Err(unread) => (None, unread.merge(rules)),
    }
}

struct V {
    out: Vec<Finding>,
}

impl V {
    /// Paths are formatted only here, when there is a finding: building them eagerly for every field of every item
    /// cost more than the checks themselves.
    fn push(&mut self, code: &str, path: impl fmt::Display, msg: impl Into<String>) {
        self.out.push(Finding::new(code, path.to_string(), msg));
    }

    /// Text of `min..=max` characters after trimming; SIFEN rejects leading/trailing blanks, so they count as errors.
    fn text(&mut self, path: impl fmt::Display + Copy, v: &str, min: usize, max: usize) {
        let n = v.chars().count();
        if v.trim().is_empty() {
            if min > 0 {
                self.push(code::REQUIRED, path, "must not be empty");
            }
        } else if v.trim() != v {
            self.push(
                code::INVALID_FORMAT,
                path,
                "must not start or end with spaces",
            );
        } else if n < min || n > max {
            self.push(
                code::INVALID_FORMAT,
                path,
                format!("must have {min} to {max} characters, has {n}"),
            );
        } else if v.chars().any(|c| c.is_control()) {
            self.push(
                code::INVALID_FORMAT,
                path,
                "must not contain control characters (tabs, line breaks)",
            );
        } else if v.chars().any(|c| matches!(c, '\u{FFFE}' | '\u{FFFF}')) {
            // The only non-control scalar values outside XML 1.0's `Char`: a document carrying them is not XML.
            self.push(
                code::INVALID_FORMAT,
                path,
                "must not contain the noncharacters U+FFFE or U+FFFF (not allowed in XML)",
            );
        }
    }

    fn opt_text(
        &mut self,
        path: impl fmt::Display + Copy,
        v: &Option<String>,
        min: usize,
        max: usize,
    ) {
        if let Some(v) = v {
            self.text(path, v, min, max);
        }
    }

    /// Decimal with at most `int` integer digits and `frac` fraction digits, and `min` as lower bound.
    fn amount(
        &mut self,
        path: impl fmt::Display + Copy,
        d: Decimal,
        int: u32,
        frac: u32,
        positive: bool,
    ) {
        if d.is_sign_negative() && !d.is_zero() {
            self.push(
                code::OUT_OF_RANGE,
                path,
                format!("must not be negative (got {d})"),
            );
        } else if positive && d.is_zero() {
            self.push(code::OUT_OF_RANGE, path, "must be greater than zero");
        } else if d.normalize().scale() > frac {
            self.push(
                code::OUT_OF_RANGE,
                path,
                format!("at most {frac} decimals allowed (got {d})"),
            );
        } else if d.trunc() >= Decimal::from(10u64.pow(int)) {
            self.push(
                code::OUT_OF_RANGE,
                path,
                format!("at most {int} integer digits allowed (got {d})"),
            );
        }
    }

    fn code_in(&mut self, path: impl fmt::Display + Copy, value: u32, ok: bool, what: &str) {
        if !ok {
            self.push(
                code::INVALID_VALUE,
                path,
                format!("{value} is not a valid {what}"),
            );
        }
    }

    fn not_allowed(&mut self, path: impl fmt::Display + Copy, present: bool, tipo: TipoDocumento) {
        if present {
            self.push(
                code::NOT_ALLOWED,
                path,
                format!("not allowed in a {}", tipo.descripcion()),
            );
        }
    }

    fn location(&mut self, path: &str, dep: u8, dist: Option<u16>, ciudad: u32) {
        if codes::departamento(dep).is_none() {
            self.push(
                code::INVALID_VALUE,
                format!("{path}.departamento"),
                format!("{dep} is not a department code (1–20)"),
            );
            return;
        }
        if let Some(d) = dist {
            if geo::distrito(d).is_none() {
                self.push(
                    code::INVALID_VALUE,
                    format!("{path}.distrito"),
                    format!("{d} is not a district code"),
                );
                return;
            }
        }
        if geo::ciudad(ciudad).is_none() {
            self.push(
                code::INVALID_VALUE,
                format!("{path}.ciudad"),
                format!("{ciudad} is not a city code"),
            );
            return;
        }
        if let Err(msg) = geo::check_location(dep, dist, ciudad) {
            self.push(code::INCONSISTENT, format!("{path}.ciudad"), msg);
        }
    }

    fn direccion(&mut self, path: &str, d: &Direccion) {
        self.text(&format!("{path}.direccion"), &d.direccion, 1, 255);
        if d.numero_casa > 999_999 {
            self.push(
                code::OUT_OF_RANGE,
                format!("{path}.numero_casa"),
                "at most 6 digits",
            );
        }
        self.location(path, d.departamento, d.distrito, d.ciudad);
        self.opt_text(&format!("{path}.telefono"), &d.telefono, 6, 15);
    }

    fn date(&mut self, path: &str, v: &Option<String>) {
        if let Some(s) = v {
            if let Err(e) = parse_date(s) {
                self.push(code::INVALID_FORMAT, path, e);
            }
        }
    }

    fn digits(&mut self, path: &str, v: &str, min: usize, max: usize) {
        let n = v.len();
        if !v.bytes().all(|b| b.is_ascii_digit()) || n < min || n > max {
            let what = if min == max {
                format!("exactly {min}")
            } else {
                format!("{min} to {max}")
            };
            self.push(code::INVALID_FORMAT, path, format!("must be {what} digits"));
        }
    }

    fn ruc(&mut self, path: &str, v: &str) -> Option<Ruc> {
        match Ruc::parse(v) {
            Ok(r) => Some(r),
            Err(e) => {
                self.out.push(e.to_finding(path));
                None
            }
        }
    }

    fn id_number(&mut self, path: &str, v: &str) {
        let ok = !v.is_empty()
            && v.len() <= 20
            && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !ok {
            self.push(
                code::INVALID_FORMAT,
                path,
                "must be 1 to 20 letters, digits or '-'",
            );
        }
    }
}

/// Checks an e-mail address against SIFEN's `tEmail` pattern (one address, no spaces).
pub fn email_ok(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    let local_ok = local
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric())
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
    let labels: Vec<&str> = domain.split('.').collect();
    let Some((tld, rest)) = labels.split_last() else {
        return false;
    };
    let labels_ok = !rest.is_empty()
        && rest.iter().all(|l| {
            l.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
                && l.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
        });
    let tld_ok = (2..=9).contains(&tld.len()) && tld.bytes().all(|b| b.is_ascii_alphabetic());
    local_ok && labels_ok && tld_ok
}

pub use crate::fmt::code3;

/// A request validated against an emitter profile at a time: validation's proof, made only by [`check`] (or
/// [`check_owned`] / [`check_with`]).
///
/// It carries what validation decided — the document type, the emission time, the stamp (the establishment and point
/// asked for, normalised), the emitter's RUC and the totals — so the stages after it (numbering, building the DE,
/// signing) never decide them again. It borrows the request and profile ([`check`]) or owns them ([`check_owned`]):
/// an owned one (`Checked<'static>`) moves to another thread, so a host signs what it checked without checking again.
#[derive(Debug, Clone)]
pub struct Checked<'a> {
    req: Cow<'a, FacturaRequest>,
    emisor: Cow<'a, Emisor>,
    tipo: TipoDocumento,
    fecha_emision: PrimitiveDateTime,
    timbrado: Cow<'a, Timbrado>,
    emisor_ruc: Ruc,
    calculo: totals::Calculo,
    now: PrimitiveDateTime,
}

impl Checked<'_> {
    /// The time of the check (Paraguay local): the signing time (`dFecFirma`) of the document.
    pub fn now(&self) -> PrimitiveDateTime {
        self.now
    }
    /// The request.
    pub fn request(&self) -> &FacturaRequest {
        &self.req
    }
    /// The emitter profile it was checked against.
    pub fn emisor(&self) -> &Emisor {
        &self.emisor
    }
    /// The document type.
    pub fn tipo(&self) -> TipoDocumento {
        self.tipo
    }
    /// The emission time (`fecha`, or the time of the check).
    pub fn fecha_emision(&self) -> PrimitiveDateTime {
        self.fecha_emision
    }
    /// The stamp covering the type, establishment and point on the emission date.
    pub fn timbrado(&self) -> &Timbrado {
        &self.timbrado
    }
    /// The emitter's RUC.
    pub fn emisor_ruc(&self) -> Ruc {
        self.emisor_ruc
    }
    /// Item values and totals, computed once.
    pub fn calculo(&self) -> &totals::Calculo {
        &self.calculo
    }
    /// The numbering sequence the document takes its number from.
    pub fn numbering_key(&self) -> NumberingKey {
        NumberingKey {
            tipo_documento: self.tipo.code(),
            timbrado: self.timbrado.numero.clone(),
            establecimiento: self.timbrado.establecimiento.clone(),
            punto: self.timbrado.punto_expedicion.clone(),
        }
    }
}

// An owned proof moves to the thread that signs it.
const _: fn() = || {
    fn send<T: Send + 'static>() {}
    send::<Checked<'static>>();
};

/// What validation decided about a request that passed every rule (the parts of [`Checked`] besides its inputs).
struct Decided<'e> {
    tipo: TipoDocumento,
    fecha_emision: PrimitiveDateTime,
    timbrado: &'e Timbrado,
    emisor_ruc: Ruc,
    calculo: totals::Calculo,
}

/// Who applies the `_simulate` rule ([`check_simulate`]) to a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Simulate {
    /// Validation, by the profile's `ambiente` (every host but the service).
    ByProfile,
    /// The caller did already, for an environment that is `production` or not (the service, by the caller's
    /// environment, before it looks up the profile): validation applies it again only when the profile's `ambiente`
    /// says otherwise.
    Applied {
        /// Whether the rule was applied as for production.
        production: bool,
    },
}

/// The `_simulate` rule (the spec §1: allowed in the sandbox, never in production), for validation and for the
/// service, which applies it by the caller's environment before it looks up the profile.
pub fn check_simulate(simulate: Option<&str>, production: bool) -> Option<Finding> {
    (simulate.is_some() && production).then(|| {
        Finding::new(
            code::SIMULATE_NOT_ALLOWED,
            "_simulate",
            "_simulate is only accepted in the sandbox",
        )
    })
}

/// Validates a request against every rule and, when it passes, returns the proof the issuing stages need.
pub fn check<'a>(
    req: &'a FacturaRequest,
    emisor: &'a Emisor,
    now: PrimitiveDateTime,
) -> Result<Checked<'a>, Findings> {
    check_with(
        Cow::Borrowed(req),
        Cow::Borrowed(emisor),
        now,
        Simulate::ByProfile,
    )
}

/// As [`check`], keeping the request and profile: the proof owns everything and can move to another thread.
pub fn check_owned(
    req: FacturaRequest,
    emisor: Emisor,
    now: PrimitiveDateTime,
) -> Result<Checked<'static>, Findings> {
    check_with(
        Cow::Owned(req),
        Cow::Owned(emisor),
        now,
        Simulate::ByProfile,
    )
}

/// As [`check`], over borrowed or owned inputs, with the `_simulate` rule applied by validation or already by the
/// caller ([`Simulate`]).
pub fn check_with<'a>(
    req: Cow<'a, FacturaRequest>,
    emisor: Cow<'a, Emisor>,
    now: PrimitiveDateTime,
    simulate: Simulate,
) -> Result<Checked<'a>, Findings> {
    let (findings, decided) = run(&req, &emisor, now, simulate);
    let decided = match decided {
        Some(d) if findings.is_empty() => d,
        _ if findings.is_empty() => {
            return Err(Findings::from(Finding::new(
                code::VALIDATION_ERROR,
                "",
                "the request could not be checked",
            )))
        }
        _ => return Err(Findings(findings)),
    };
    let Decided {
        tipo,
        fecha_emision,
        timbrado,
        emisor_ruc,
        calculo,
    } = decided;
    // A borrowed profile lends its stamp; an owned one is moved into the proof, which keeps a copy of it.
    let lent: Option<&'a Emisor> = match &emisor {
        Cow::Borrowed(e) => Some(e),
        Cow::Owned(_) => None,
    };
    let timbrado = lent
        .and_then(|e| e.timbrados.iter().find(|t| std::ptr::eq(*t, timbrado)))
        .map_or_else(|| Cow::Owned(timbrado.clone()), Cow::Borrowed);
    Ok(Checked {
        req,
        emisor,
        tipo,
        fecha_emision,
        timbrado,
        emisor_ruc,
        calculo,
        now,
    })
}

/// Validates a request against every rule, with the emitter profile and the current Paraguay local time; every
/// finding at once, whatever else is wrong.
pub fn validate(req: &FacturaRequest, emisor: &Emisor, now: PrimitiveDateTime) -> Vec<Finding> {
    run(req, emisor, now, Simulate::ByProfile).0
}

fn run<'e>(
    req: &FacturaRequest,
    emisor: &'e Emisor,
    now: PrimitiveDateTime,
    simulate: Simulate,
) -> (Vec<Finding>, Option<Decided<'e>>) {
    crate::probe::hit(crate::probe::Probe::Validate);
    let mut v = V { out: Vec::new() };
    let emisor_ruc = v.ruc("emisor.ruc", &emisor.ruc);
    let Some(tipo) = TipoDocumento::from_code(req.tipo_documento) else {
        v.push(
            code::INVALID_VALUE,
            "tipo_documento",
            format!("{} is not a document type (1 factura, 4 autofactura, 5 nota de crédito, 6 nota de débito, 7 nota de remisión)", req.tipo_documento),
        );
        // Everything that does not depend on the type is still checked, so the caller sees every problem at once.
        check_receptor(&mut v, req, TipoDocumento::Factura, emisor_ruc.as_ref());
        check_items(&mut v, req, TipoDocumento::Factura);
        for (i, d) in req.documentos_asociados.iter().enumerate() {
            check_asociado(
                &mut v,
                &format!("documentos_asociados[{i}]"),
                d,
                emisor_ruc.as_ref(),
            );
        }
        return (v.out, None);
    };

    let production = emisor.ambiente == Ambiente::Produccion;
    let simulate_rule = match simulate {
        Simulate::Applied { production: p } if p == production => None,
        _ => check_simulate(req.simulate.as_deref(), production),
    };
    if let Some(f) = simulate_rule {
        v.out.push(f);
    } else if let Some(s) = &req.simulate {
        if !SIMULATE_VALUES.contains(&s.as_str()) {
            v.push(
                code::INVALID_VALUE,
                "_simulate",
                format!("'{s}' is not one of approved, rejected, pending, sent"),
            );
        }
    }

    // Emission date: SIFEN accepts up to 720 h before and 120 h after the transmission (MT D002).
    let fecha = match &req.fecha {
        None => Some(now),
        Some(s) => match parse_datetime(s) {
            Ok(f) => {
                if f < now - Duration::hours(720) {
                    v.push(
                        code::OUT_OF_RANGE,
                        "fecha",
                        "emission date is more than 30 days (720 h) in the past",
                    );
                } else if f > now + Duration::hours(120) {
                    v.push(
                        code::OUT_OF_RANGE,
                        "fecha",
                        "emission date is more than 5 days (120 h) in the future",
                    );
                }
                Some(f)
            }
            Err(e) => {
                v.push(code::INVALID_FORMAT, "fecha", e);
                None
            }
        },
    };
    let est = match req.establecimiento.as_deref().map(|e| (e, code3(e))) {
        Some((_, None)) => {
            v.push(
                code::INVALID_FORMAT,
                "establecimiento",
                "must be a code from 001 to 999",
            );
            None
        }
        Some((_, Some(c))) => Some(c),
        None => None,
    };
    let punto = match req.punto.as_deref().map(|p| (p, code3(p))) {
        Some((_, None)) => {
            v.push(
                code::INVALID_FORMAT,
                "punto",
                "must be a code from 001 to 999",
            );
            None
        }
        Some((_, Some(c))) => Some(c),
        None => None,
    };
    // Stamp: the user's spec §7 — expired or not covering the document type → INVALID_TIMBRADO. `_simulate` only
    // simulates SIFEN: the stamp, establishment and point asked for are the ones used, or the request is refused.
    let mut timbrado = None;
    if let Some(f) = fecha {
        timbrado = emisor.timbrado_for(tipo.code(), est.as_deref(), punto.as_deref(), f.date());
        if timbrado.is_none() {
            let why = if emisor
                .timbrados
                .iter()
                .any(|t| t.tipos_documento.contains(&tipo.code()))
            {
                "no stamp (timbrado) of the emitter is valid on the emission date for this establishment and point"
            } else {
                "no stamp (timbrado) of the emitter covers this document type"
            };
            v.push(code::INVALID_TIMBRADO, "tipo_documento", why);
        }
    }
    if let Some(t) = req.tipo_emision {
        v.code_in(
            "tipo_emision",
            t.into(),
            matches!(t, 1 | 2),
            "emission type (1 normal, 2 contingencia)",
        );
    }
    let fe_afe = matches!(tipo, TipoDocumento::Factura | TipoDocumento::Autofactura);
    match req.tipo_transaccion {
        Some(t) if fe_afe => v.code_in(
            "tipo_transaccion",
            t.into(),
            (1..=13).contains(&t),
            "transaction type (1–13)",
        ),
        Some(_) => v.not_allowed("tipo_transaccion", true, tipo),
        None => {}
    }
    match req.indicador_presencia {
        Some(i) if tipo == TipoDocumento::Factura => {
            v.code_in(
                "indicador_presencia",
                i.into(),
                matches!(i, 1..=6 | 9),
                "presence indicator (1–6, 9)",
            );
            if i == 9 {
                match &req.indicador_presencia_descripcion {
                    Some(d) => v.text("indicador_presencia_descripcion", d, 10, 30),
                    None => v.push(
                        code::REQUIRED,
                        "indicador_presencia_descripcion",
                        "required when indicador_presencia is 9",
                    ),
                }
            }
        }
        Some(_) => v.not_allowed("indicador_presencia", true, tipo),
        None => {}
    }

    // Currency and exchange rate.
    let moneda = req.moneda.as_deref().unwrap_or("PYG");
    if tipo == TipoDocumento::NotaRemision {
        v.not_allowed(
            "moneda",
            req.moneda.as_deref().is_some_and(|m| m != "PYG"),
            tipo,
        );
    }
    if codes::moneda(moneda).is_none() {
        v.push(
            code::INVALID_VALUE,
            "moneda",
            format!("'{moneda}' is not an ISO 4217 currency SIFEN accepts"),
        );
    }
    if tipo == TipoDocumento::Autofactura && moneda != "PYG" {
        v.push(
            code::NOT_ALLOWED,
            "moneda",
            "an autofactura must be in guaraníes (PYG) (NT-012)",
        );
    }
    match (moneda == "PYG", req.tipo_cambio) {
        (true, Some(_)) => v.push(
            code::NOT_ALLOWED,
            "tipo_cambio",
            "no exchange rate with guaraníes",
        ),
        (false, None) if tipo.has_values() => v.push(
            code::REQUIRED,
            "tipo_cambio",
            format!("exchange rate to PYG is required for {moneda}"),
        ),
        (false, Some(tc)) => v.amount("tipo_cambio", tc, 5, 4, true),
        _ => {}
    }

    check_receptor(&mut v, req, tipo, emisor_ruc.as_ref());
    check_items(&mut v, req, tipo);

    // Payment condition (FE, AFE only).
    let condicion = req.condicion_pago.unwrap_or(1);
    if fe_afe {
        v.code_in(
            "condicion_pago",
            condicion.into(),
            matches!(condicion, 1 | 2),
            "payment condition (1 contado, 2 crédito)",
        );
    } else {
        v.not_allowed("condicion_pago", req.condicion_pago.is_some(), tipo);
        v.not_allowed("pagos", !req.pagos.is_empty(), tipo);
        v.not_allowed("credito", req.credito.is_some(), tipo);
    }
    if fe_afe {
        check_pagos(&mut v, req, moneda);
        match (condicion, &req.credito) {
            (2, None) => v.push(
                code::REQUIRED,
                "credito",
                "crédito needs its terms (plazo or cuotas)",
            ),
            (2, Some(c)) => {
                match c.tipo.as_str() {
                    "plazo" => match &c.plazo {
                        Some(p) => v.text("credito.plazo", p, 2, 15),
                        None => v.push(
                            code::REQUIRED,
                            "credito.plazo",
                            "a term such as \"30 días\" is required",
                        ),
                    },
                    "cuota" => {
                        if c.cantidad_cuotas.is_none() && c.cuotas.is_empty() {
                            v.push(
                                code::REQUIRED,
                                "credito.cuotas",
                                "give cantidad_cuotas or the list of cuotas",
                            );
                        }
                        if let Some(n) = c.cantidad_cuotas {
                            if n == 0 || n > 999 {
                                v.push(
                                    code::OUT_OF_RANGE,
                                    "credito.cantidad_cuotas",
                                    "must be 1 to 999",
                                );
                            } else if !c.cuotas.is_empty() && usize::from(n) != c.cuotas.len() {
                                v.push(
                                    code::INCONSISTENT,
                                    "credito.cantidad_cuotas",
                                    "differs from the number of cuotas listed",
                                );
                            }
                        }
                        for (i, q) in c.cuotas.iter().enumerate() {
                            v.amount(
                                format_args!("credito.cuotas[{i}].monto"),
                                q.monto,
                                15,
                                4,
                                true,
                            );
                            v.date(&format!("credito.cuotas[{i}].vencimiento"), &q.vencimiento);
                        }
                    }
                    other => v.push(
                        code::INVALID_VALUE,
                        "credito.tipo",
                        format!("'{other}' is not plazo or cuota"),
                    ),
                }
                if let Some(e) = c.entrega {
                    v.amount("credito.entrega", e, 15, 4, false);
                }
            }
            (_, Some(_)) => v.push(
                code::NOT_ALLOWED,
                "credito",
                "credit terms only with condicion_pago 2 (crédito)",
            ),
            _ => {}
        }
    }

    if let Some(p) = req.descuento_global {
        if tipo == TipoDocumento::Autofactura || !tipo.has_values() {
            v.not_allowed("descuento_global", true, tipo);
        } else if p.is_sign_negative() || p >= Decimal::ONE_HUNDRED || p.normalize().scale() > 8 {
            v.push(
                code::OUT_OF_RANGE,
                "descuento_global",
                "a percentage from 0 to below 100, at most 8 decimals",
            );
        }
    }
    if req.redondeo && (moneda != "PYG" || !tipo.has_values()) {
        v.push(
            code::NOT_ALLOWED,
            "redondeo",
            "the 50-guaraní rounding applies to PYG documents with totals only",
        );
    }
    v.opt_text("informacion_emisor", &req.informacion_emisor, 1, 3000);
    v.opt_text("informacion_fiscal", &req.informacion_fiscal, 1, 3000);
    v.opt_text("orden_compra", &req.orden_compra, 1, 15);
    v.opt_text("orden_venta", &req.orden_venta, 1, 15);

    // Notes: motive; associated documents.
    let nota = matches!(tipo, TipoDocumento::NotaCredito | TipoDocumento::NotaDebito);
    match (nota, req.motivo) {
        (true, None) => v.push(
            code::REQUIRED,
            "motivo",
            "a credit/debit note needs its motive (1–8)",
        ),
        (true, Some(m)) => v.code_in(
            "motivo",
            m.into(),
            (1..=8).contains(&m),
            "note motive (1–8)",
        ),
        (false, Some(_)) => v.not_allowed("motivo", true, tipo),
        _ => {}
    }
    check_asociados(&mut v, req, tipo, emisor_ruc.as_ref());

    // Autofactura seller.
    match (&req.vendedor, tipo) {
        (None, TipoDocumento::Autofactura) => v.push(
            code::REQUIRED,
            "vendedor",
            "an autofactura needs the seller",
        ),
        (Some(s), TipoDocumento::Autofactura) => {
            v.code_in(
                "vendedor.naturaleza",
                s.naturaleza.into(),
                matches!(s.naturaleza, 1 | 2),
                "seller nature (1 no contribuyente, 2 extranjero)",
            );
            v.code_in(
                "vendedor.documento_tipo",
                s.documento_tipo.into(),
                (1..=4).contains(&s.documento_tipo),
                "seller ID document type (1–4)",
            );
            v.id_number("vendedor.documento_numero", &s.documento_numero);
            v.text("vendedor.nombre", &s.nombre, 4, 60);
            v.text("vendedor.direccion", &s.direccion, 1, 255);
            v.location("vendedor", s.departamento, s.distrito, s.ciudad);
            if let Some(l) = &s.lugar_transaccion {
                v.direccion("vendedor.lugar_transaccion", l);
            }
        }
        (Some(_), _) => v.not_allowed("vendedor", true, tipo),
        _ => {}
    }

    // Remission.
    match (&req.remision, tipo) {
        (None, TipoDocumento::NotaRemision) => v.push(
            code::REQUIRED,
            "remision",
            "a remission note needs motivo and kilometros",
        ),
        (Some(r), TipoDocumento::NotaRemision) => {
            v.code_in(
                "remision.motivo",
                r.motivo.into(),
                matches!(r.motivo, 1..=14 | 99),
                "remission motive (1–14, 99)",
            );
            if r.motivo == 99 {
                match &r.motivo_descripcion {
                    Some(d) => v.text("remision.motivo_descripcion", d, 5, 60),
                    None => v.push(
                        code::REQUIRED,
                        "remision.motivo_descripcion",
                        "required for motive 99",
                    ),
                }
            }
            if let Some(resp) = r.responsable {
                v.code_in(
                    "remision.responsable",
                    resp.into(),
                    (1..=5).contains(&resp),
                    "responsible party (1–5)",
                );
            }
            if r.kilometros == 0 || r.kilometros > 99_999 {
                v.push(
                    code::OUT_OF_RANGE,
                    "remision.kilometros",
                    "must be 1 to 99999",
                );
            }
            v.date("remision.fecha_factura", &r.fecha_factura);
        }
        (Some(_), _) => v.not_allowed("remision", true, tipo),
        _ => {}
    }
    check_transporte(&mut v, req, tipo);

    // Totals-dependent rules, only when the items themselves are sound.
    let mut calculo = None;
    if v.out.iter().all(|f| !f.path.starts_with("items")) {
        match totals::compute(req) {
            Ok(calc) => {
                check_net_prices(&mut v, req, &calc);
                if let Some(t) = &calc.totales {
                    check_totals_rules(&mut v, req, tipo, t, moneda);
                }
                calculo = Some(calc);
            }
            Err(fs) => v.out.extend(fs.0),
        }
    }
    let checked = match (fecha, timbrado, emisor_ruc, calculo) {
        (Some(fecha_emision), Some(timbrado), Some(emisor_ruc), Some(calculo))
            if v.out.is_empty() =>
        {
            Some(Decided {
                tipo,
                fecha_emision,
                timbrado,
                emisor_ruc,
                calculo,
            })
        }
        _ => None,
    };
    (v.out, checked)
}

/// The net unit price `E721 − EA002 − EA004` (price minus item discount minus the global discount's share) must not
/// be negative: `dTotOpeItem` and every IVA amount derived from it are unsigned in the XSD (`minInclusive 0`). Each
/// discount may be valid alone (item discount ≤ price, global % < 100) and still exceed the price together.
fn check_net_prices(v: &mut V, req: &FacturaRequest, calc: &totals::Calculo) {
    if v.out.iter().any(|f| f.path == "descuento_global") {
        return;
    }
    for (i, (it, c)) in req.items.iter().zip(&calc.items).enumerate() {
        let Some(val) = &c.valor else { continue };
        let neto = val
            .precio_unitario
            .checked_sub(val.descuento)
            .and_then(|n| n.checked_sub(val.descuento_global));
        if neto.is_some_and(|n| n.is_sign_negative() && !n.is_zero()) {
            let path = if it.descuento.is_some() {
                format!("items[{i}].descuento")
            } else {
                "descuento_global".to_string()
            };
            v.push(
                code::OUT_OF_RANGE,
                path,
                format!(
                    "items[{i}]: the item discount plus the global discount ({} per unit) exceed the unit price",
                    crate::fmt::dec(val.descuento_global)
                ),
            );
        }
    }
}

fn check_receptor(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento, emisor_ruc: Option<&Ruc>) {
    let r = &req.receptor;
    v.text("receptor.razon_social", &r.razon_social, 4, 255);
    if let Some(e) = &r.email {
        if !email_ok(e) || e.len() > 80 {
            v.push(
                code::INVALID_FORMAT,
                "receptor.email",
                format!(
                    "'{}' is not a valid e-mail address",
                    e.chars().take(80).collect::<String>()
                ),
            );
        }
    }
    let pais = r.pais.as_deref().unwrap_or("PRY");
    if codes::pais(pais).is_none() {
        v.push(
            code::INVALID_VALUE,
            "receptor.pais",
            format!("'{pais}' is not an ISO 3166 alpha-3 country code"),
        );
    }
    let contribuyente = r.ruc.is_some();
    let ruc = r.ruc.as_deref().and_then(|s| v.ruc("receptor.ruc", s));
    if let Some(t) = r.tipo_contribuyente {
        v.code_in(
            "receptor.tipo_contribuyente",
            t.into(),
            matches!(t, 1 | 2),
            "taxpayer kind (1 física, 2 jurídica)",
        );
        v.not_allowed("receptor.tipo_contribuyente", !contribuyente, tipo);
    }
    let ope = r.tipo_operacion;
    if let Some(o) = ope {
        v.code_in(
            "receptor.tipo_operacion",
            o.into(),
            (1..=4).contains(&o),
            "operation type (1 B2B, 2 B2C, 3 B2G, 4 B2F)",
        );
        if contribuyente && o == 4 {
            v.push(
                code::INCONSISTENT,
                "receptor.tipo_operacion",
                "B2F (4) is for non-taxpayer foreign receivers; remove the RUC",
            );
        }
        if !contribuyente && matches!(o, 1 | 3) {
            v.push(
                code::INCONSISTENT,
                "receptor.tipo_operacion",
                "a receiver without RUC can only be B2C (2) or B2F (4)",
            );
        }
    }
    let b2f = ope == Some(4) || (!contribuyente && ope.is_none() && pais != "PRY");
    if b2f && pais == "PRY" {
        v.push(
            code::INCONSISTENT,
            "receptor.pais",
            "a B2F receiver is abroad: country must not be PRY",
        );
    }
    if !b2f && pais != "PRY" {
        v.push(
            code::INCONSISTENT,
            "receptor.pais",
            "only B2F (foreign, non-taxpayer) receivers may have a country other than PRY",
        );
    }
    if tipo == TipoDocumento::Autofactura {
        match (&ruc, emisor_ruc) {
            (Some(rr), Some(er)) if rr != er => v.push(code::INCONSISTENT, "receptor.ruc", "in an autofactura the receiver is the emitter itself: RUC must equal the emitter's"),
            (None, _) if r.ruc.is_none() => v.push(code::REQUIRED, "receptor.ruc", "in an autofactura the receiver is the emitter: give the emitter's RUC"),
            _ => {}
        }
    }
    if contribuyente {
        v.not_allowed("receptor.documento_tipo", r.documento_tipo.is_some(), tipo);
        v.not_allowed(
            "receptor.documento_numero",
            r.documento_numero.is_some(),
            tipo,
        );
    } else {
        let dt = r.documento_tipo.unwrap_or(1);
        v.code_in(
            "receptor.documento_tipo",
            dt.into(),
            matches!(dt, 1..=6 | 9),
            "ID document type (1–6, 9)",
        );
        if dt == 9 {
            match &r.documento_tipo_descripcion {
                Some(d) => v.text("receptor.documento_tipo_descripcion", d, 9, 41),
                None => v.push(
                    code::REQUIRED,
                    "receptor.documento_tipo_descripcion",
                    "required for document type 9",
                ),
            }
        }
        if dt == 5 {
            if matches!(
                tipo,
                TipoDocumento::NotaCredito
                    | TipoDocumento::NotaDebito
                    | TipoDocumento::NotaRemision
            ) {
                v.push(
                    code::NOT_ALLOWED,
                    "receptor.documento_tipo",
                    "an innominado receiver is not allowed in notes",
                );
            }
            if b2f {
                v.push(
                    code::NOT_ALLOWED,
                    "receptor.documento_tipo",
                    "an innominado receiver is only allowed for B2C",
                );
            }
        } else {
            match &r.documento_numero {
                Some(n) => v.id_number("receptor.documento_numero", n),
                None => v.push(code::REQUIRED, "receptor.documento_numero", "a receiver without RUC needs an ID document number (or documento_tipo 5, innominado)"),
            }
        }
    }
    v.opt_text("receptor.nombre_fantasia", &r.nombre_fantasia, 4, 255);
    v.opt_text("receptor.direccion", &r.direccion, 1, 255);
    if r.direccion.is_none() && (tipo == TipoDocumento::NotaRemision || b2f) {
        v.push(
            code::REQUIRED,
            "receptor.direccion",
            "the receiver's address is required for remission notes and B2F",
        );
    }
    if r.numero_casa.is_some_and(|n| n > 999_999) {
        v.push(
            code::OUT_OF_RANGE,
            "receptor.numero_casa",
            "at most 6 digits",
        );
    }
    match (r.departamento, r.ciudad) {
        (Some(d), Some(c)) => v.location("receptor", d, r.distrito, c),
        (None, None) if r.direccion.is_some() && !b2f => v.push(
            code::REQUIRED,
            "receptor.ciudad",
            "with an address in Paraguay, departamento and ciudad are required",
        ),
        (Some(_), None) => v.push(
            code::REQUIRED,
            "receptor.ciudad",
            "ciudad goes with departamento",
        ),
        (None, Some(_)) => v.push(
            code::REQUIRED,
            "receptor.departamento",
            "departamento goes with ciudad",
        ),
        _ => {}
    }
    v.opt_text("receptor.telefono", &r.telefono, 6, 15);
    v.opt_text("receptor.celular", &r.celular, 10, 20);
    v.opt_text("receptor.codigo_cliente", &r.codigo_cliente, 3, 15);
}

fn check_items(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento) {
    if req.items.is_empty() {
        v.push(code::REQUIRED, "items", "at least one item is required");
        return;
    }
    if req.items.len() > MAX_ITEMS {
        v.push(
            code::TOO_LARGE,
            "items",
            format!(
                "{} items; SIFEN accepts at most {MAX_ITEMS}",
                req.items.len()
            ),
        );
    }
    for (i, it) in req.items.iter().enumerate() {
        check_item(v, totals::ItemPath(i), it, tipo);
    }
}

fn check_item(v: &mut V, p: totals::ItemPath, it: &Item, tipo: TipoDocumento) {
    v.text(format_args!("{p}.descripcion"), &it.descripcion, 1, 2000);
    v.opt_text(format_args!("{p}.codigo"), &it.codigo, 1, 50);
    v.amount(format_args!("{p}.cantidad"), it.cantidad, 10, 8, true);
    if let Some(u) = it.unidad_medida {
        v.code_in(
            format_args!("{p}.unidad_medida"),
            u.into(),
            codes::unidad_medida(u).is_some(),
            "unit of measure code",
        );
    }
    v.opt_text(format_args!("{p}.informacion"), &it.informacion, 1, 500);
    if let Some(c) = &it.pais_origen {
        if codes::pais(c).is_none() {
            v.push(
                code::INVALID_VALUE,
                format!("{p}.pais_origen"),
                format!("'{c}' is not an ISO 3166 alpha-3 code"),
            );
        }
    }
    if !tipo.has_values() {
        v.not_allowed(
            format_args!("{p}.precio_unitario"),
            it.precio_unitario.is_some(),
            tipo,
        );
        v.not_allowed(
            format_args!("{p}.iva"),
            it.iva.is_some() || it.afectacion_iva.is_some(),
            tipo,
        );
        v.not_allowed(format_args!("{p}.descuento"), it.descuento.is_some(), tipo);
        return;
    }
    match it.precio_unitario {
        None => v.push(
            code::REQUIRED,
            format!("{p}.precio_unitario"),
            "unit price is required",
        ),
        Some(pu) => {
            let before = v.out.len();
            v.amount(format_args!("{p}.precio_unitario"), pu, 15, 8, false);
            // dTotBruOpeItem is dec 23/8: the product must fit 15 integer digits too.
            if v.out.len() == before && it.cantidad > Decimal::ZERO {
                let fits = pu
                    .checked_mul(it.cantidad)
                    .is_some_and(|t| t < Decimal::from(1_000_000_000_000_000u64));
                if !fits {
                    v.push(
                        code::OUT_OF_RANGE,
                        format!("{p}.precio_unitario"),
                        "price × quantity exceeds 15 integer digits",
                    );
                }
            }
            if let Some(d) = it.descuento {
                v.amount(format_args!("{p}.descuento"), d, 15, 8, false);
                if d > pu {
                    v.push(
                        code::OUT_OF_RANGE,
                        format!("{p}.descuento"),
                        "the discount per unit exceeds the unit price",
                    );
                }
            }
        }
    }
    if tipo == TipoDocumento::Autofactura {
        v.not_allowed(
            format_args!("{p}.iva"),
            it.iva.is_some() || it.afectacion_iva.is_some(),
            tipo,
        );
        v.not_allowed(format_args!("{p}.descuento"), it.descuento.is_some(), tipo);
    } else if let Err(fs) = totals::iva_treatment(it, p) {
        v.out.extend(fs);
    }
}

fn check_pagos(v: &mut V, req: &FacturaRequest, moneda: &str) {
    let many = req.pagos.len() > 1;
    if req.pagos.len() > 999 {
        v.push(code::TOO_LARGE, "pagos", "at most 999 payments");
    }
    for (i, pg) in req.pagos.iter().enumerate() {
        let p = format!("pagos[{i}]");
        let known = codes::tipo_pago(pg.tipo).is_some() || pg.tipo == 99;
        v.code_in(
            format_args!("{p}.tipo"),
            pg.tipo.into(),
            known,
            "payment type (1–21, 99)",
        );
        if pg.tipo == 99 {
            match &pg.descripcion {
                Some(d) => v.text(format_args!("{p}.descripcion"), d, 4, 30),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.descripcion"),
                    "required for payment type 99",
                ),
            }
        }
        if pg.tipo == 16 && req.indicador_presencia != Some(5) {
            v.push(
                code::INCONSISTENT,
                format!("{p}.tipo"),
                "pago bancario (16) only with indicador_presencia 5 (operación bancaria)",
            );
        }
        match pg.monto {
            Some(m) => v.amount(format_args!("{p}.monto"), m, 15, 4, false),
            None if many => v.push(
                code::REQUIRED,
                format!("{p}.monto"),
                "each of several payments needs its amount",
            ),
            None => {}
        }
        let pm = pg.moneda.as_deref().unwrap_or(moneda);
        if codes::moneda(pm).is_none() {
            v.push(
                code::INVALID_VALUE,
                format!("{p}.moneda"),
                format!("'{pm}' is not an ISO 4217 currency SIFEN accepts"),
            );
        }
        if pm == "PYG" && pg.tipo_cambio.is_some() {
            v.push(
                code::NOT_ALLOWED,
                format!("{p}.tipo_cambio"),
                "no exchange rate with guaraníes",
            );
        }
        if pm != "PYG" && pm != moneda && pg.tipo_cambio.is_none() {
            v.push(
                code::REQUIRED,
                format!("{p}.tipo_cambio"),
                "exchange rate required for a payment in another currency",
            );
        }
        if let Some(tc) = pg.tipo_cambio {
            v.amount(format_args!("{p}.tipo_cambio"), tc, 5, 4, true);
        }
        let card = matches!(pg.tipo, 3 | 4);
        if let Some(t) = pg.tarjeta {
            if card {
                v.code_in(
                    format_args!("{p}.tarjeta"),
                    t.into(),
                    matches!(t, 1..=6 | 99),
                    "card brand (1–6, 99)",
                );
            } else {
                v.push(
                    code::NOT_ALLOWED,
                    format!("{p}.tarjeta"),
                    "card data only for payment types 3 and 4",
                );
            }
        }
        v.opt_text(format_args!("{p}.procesadora"), &pg.procesadora, 4, 60);
        if let Some(c) = &pg.codigo_autorizacion {
            v.digits(&format!("{p}.codigo_autorizacion"), c, 6, 10);
        }
        if pg.tipo == 2 {
            match &pg.cheque_numero {
                Some(n) => v.digits(&format!("{p}.cheque_numero"), n, 1, 8),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.cheque_numero"),
                    "a cheque needs its number",
                ),
            }
            match &pg.banco {
                Some(b) => v.text(format_args!("{p}.banco"), b, 4, 20),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.banco"),
                    "a cheque needs its issuing bank",
                ),
            }
        }
    }
}

fn check_asociados(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento, emisor_ruc: Option<&Ruc>) {
    let needs = matches!(
        tipo,
        TipoDocumento::NotaCredito | TipoDocumento::NotaDebito | TipoDocumento::Autofactura
    );
    if needs && req.documentos_asociados.is_empty() {
        v.push(
            code::REQUIRED,
            "documentos_asociados",
            format!(
                "a {} must refer to at least one document",
                tipo.descripcion()
            ),
        );
    }
    if req.documentos_asociados.len() > 99 {
        v.push(
            code::TOO_LARGE,
            "documentos_asociados",
            "at most 99 associated documents",
        );
    }
    for (i, d) in req.documentos_asociados.iter().enumerate() {
        check_asociado(v, &format!("documentos_asociados[{i}]"), d, emisor_ruc);
    }
}

/// One associated document. An electronic one is named by its CDC, which must be the emitter's own document: the RUC
/// inside the CDC is the emitter's (SIFEN rejects another emitter's with 2439, SIFEN.md gCamDEAsoc H004).
fn check_asociado(v: &mut V, p: &str, d: &DocumentoAsociadoReq, emisor_ruc: Option<&Ruc>) {
    match d.kind() {
        1 => match &d.cdc {
            Some(c) => match Cdc::parse(c) {
                Err(e) => v.push(code::INVALID_CDC, format!("{p}.cdc"), e.to_string()),
                Ok(cdc) => {
                    let of = cdc.fields().ruc;
                    if let Some(own) = emisor_ruc.filter(|own| **own != of) {
                        v.push(
                            code::INCONSISTENT,
                            format!("{p}.cdc"),
                            format!(
                                "this CDC is a document of RUC {of}, not of the emitter {own}: a document can only refer to the emitter's own electronic documents (SIFEN 2439)"
                            ),
                        );
                    }
                }
            },
            None => v.push(
                code::REQUIRED,
                format!("{p}.cdc"),
                "an electronic document is referred to by its CDC",
            ),
        },
        2 => {
            match &d.timbrado {
                Some(t) => v.digits(&format!("{p}.timbrado"), t, 8, 8),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.timbrado"),
                    "a printed document needs its stamp number",
                ),
            }
            for (name, val) in [("establecimiento", &d.establecimiento), ("punto", &d.punto)] {
                match val.as_deref().map(code3) {
                    Some(Some(_)) => {}
                    Some(None) => v.push(
                        code::INVALID_FORMAT,
                        format!("{p}.{name}"),
                        "must be a code from 001 to 999",
                    ),
                    None => v.push(
                        code::REQUIRED,
                        format!("{p}.{name}"),
                        "required for a printed document",
                    ),
                }
            }
            match &d.numero {
                Some(n) => v.digits(&format!("{p}.numero"), n, 7, 7),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.numero"),
                    "required for a printed document",
                ),
            }
            match d.tipo_documento_impreso {
                Some(k) => v.code_in(
                    format_args!("{p}.tipo_documento_impreso"),
                    k.into(),
                    (1..=4).contains(&k),
                    "printed document kind (1–4)",
                ),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.tipo_documento_impreso"),
                    "required for a printed document",
                ),
            }
            match &d.fecha {
                Some(_) => v.date(&format!("{p}.fecha"), &d.fecha),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.fecha"),
                    "required for a printed document",
                ),
            }
        }
        3 => match d.tipo_constancia {
            Some(k @ (1 | 2)) => {
                if k == 2 {
                    match &d.numero_constancia {
                        Some(n) => v.digits(&format!("{p}.numero_constancia"), n, 11, 11),
                        None => v.push(
                            code::REQUIRED,
                            format!("{p}.numero_constancia"),
                            "required for a microproductor constancia",
                        ),
                    }
                    match &d.numero_control {
                        Some(n) => v.text(format_args!("{p}.numero_control"), n, 8, 8),
                        None => v.push(
                            code::REQUIRED,
                            format!("{p}.numero_control"),
                            "required for a microproductor constancia",
                        ),
                    }
                }
            }
            Some(k) => v.code_in(
                format_args!("{p}.tipo_constancia"),
                k.into(),
                false,
                "constancia type (1, 2)",
            ),
            None => v.push(
                code::REQUIRED,
                format!("{p}.tipo_constancia"),
                "a constancia needs its type (1 no contribuyente, 2 microproductor)",
            ),
        },
        other => v.code_in(
            format_args!("{p}.tipo"),
            other.into(),
            false,
            "associated document kind (1 electrónico, 2 impreso, 3 constancia)",
        ),
    }
}

fn check_transporte(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento) {
    let Some(t) = &req.transporte else {
        if tipo == TipoDocumento::NotaRemision {
            v.push(
                code::REQUIRED,
                "transporte",
                "a remission note needs the transport data",
            );
        }
        return;
    };
    if !matches!(tipo, TipoDocumento::Factura | TipoDocumento::NotaRemision) {
        v.not_allowed("transporte", true, tipo);
        return;
    }
    let nre = tipo == TipoDocumento::NotaRemision;
    match t.tipo {
        Some(k) => v.code_in(
            "transporte.tipo",
            k.into(),
            matches!(k, 1 | 2),
            "transport type (1 propio, 2 tercero)",
        ),
        None if nre => v.push(
            code::REQUIRED,
            "transporte.tipo",
            "required for remission notes",
        ),
        None => {}
    }
    if let Some(m) = t.modalidad {
        v.code_in(
            "transporte.modalidad",
            m.into(),
            (1..=4).contains(&m),
            "transport mode (1–4)",
        );
    }
    if let Some(r) = t.responsable_flete {
        v.code_in(
            "transporte.responsable_flete",
            r.into(),
            (1..=5).contains(&r),
            "freight responsibility (1–5)",
        );
    }
    if let Some(i) = &t.incoterm {
        if codes::incoterm(i).is_none() {
            v.push(
                code::INVALID_VALUE,
                "transporte.incoterm",
                format!("'{i}' is not an Incoterm SIFEN accepts"),
            );
        }
    }
    v.date("transporte.inicio", &t.inicio);
    v.date("transporte.fin", &t.fin);
    if nre && t.inicio.is_none() {
        v.push(
            code::REQUIRED,
            "transporte.inicio",
            "start date of the transfer is required for remission notes",
        );
    }
    if let Some(pd) = &t.pais_destino {
        if codes::pais(pd).is_none() {
            v.push(
                code::INVALID_VALUE,
                "transporte.pais_destino",
                format!("'{pd}' is not an ISO 3166 alpha-3 code"),
            );
        }
    }
    match &t.salida {
        Some(s) => v.direccion("transporte.salida", s),
        None if nre => v.push(
            code::REQUIRED,
            "transporte.salida",
            "the departure place is required for remission notes",
        ),
        None => {}
    }
    if nre && t.entregas.is_empty() {
        v.push(
            code::REQUIRED,
            "transporte.entregas",
            "at least one delivery place is required for remission notes",
        );
    }
    if t.entregas.len() > 99 {
        v.push(
            code::TOO_LARGE,
            "transporte.entregas",
            "at most 99 delivery places",
        );
    }
    for (i, e) in t.entregas.iter().enumerate() {
        v.direccion(&format!("transporte.entregas[{i}]"), e);
    }
    if nre && t.vehiculos.is_empty() {
        v.push(
            code::REQUIRED,
            "transporte.vehiculos",
            "at least one vehicle is required for remission notes",
        );
    }
    if t.vehiculos.len() > 4 {
        v.push(
            code::TOO_LARGE,
            "transporte.vehiculos",
            "at most 4 vehicles",
        );
    }
    for (i, veh) in t.vehiculos.iter().enumerate() {
        let p = format!("transporte.vehiculos[{i}]");
        v.text(format_args!("{p}.tipo"), &veh.tipo, 4, 10);
        v.text(format_args!("{p}.marca"), &veh.marca, 1, 10);
        match (&veh.matricula, &veh.numero_identificacion) {
            (Some(m), _) => v.text(format_args!("{p}.matricula"), m, 6, 7),
            (None, Some(n)) => v.text(format_args!("{p}.numero_identificacion"), n, 1, 20),
            (None, None) => v.push(
                code::REQUIRED,
                format!("{p}.matricula"),
                "a vehicle needs its plate or identification number",
            ),
        }
    }
    match &t.transportista {
        Some(c) => {
            let p = "transporte.transportista";
            v.text(format_args!("{p}.nombre"), &c.nombre, 4, 60);
            match (&c.ruc, &c.documento_numero) {
                (Some(r), _) => {
                    v.ruc(&format!("{p}.ruc"), r);
                }
                (None, Some(n)) => {
                    v.id_number(&format!("{p}.documento_numero"), n);
                    let dt = c.documento_tipo.unwrap_or(1);
                    v.code_in(
                        format_args!("{p}.documento_tipo"),
                        dt.into(),
                        (1..=4).contains(&dt),
                        "ID document type (1–4)",
                    );
                }
                (None, None) => v.push(
                    code::REQUIRED,
                    format!("{p}.ruc"),
                    "the carrier needs a RUC or an ID document number",
                ),
            }
            if let Some(n) = &c.nacionalidad {
                if codes::pais(n).is_none() {
                    v.push(
                        code::INVALID_VALUE,
                        format!("{p}.nacionalidad"),
                        format!("'{n}' is not an ISO 3166 alpha-3 code"),
                    );
                }
            }
            v.text(
                format_args!("{p}.domicilio_fiscal"),
                &c.domicilio_fiscal,
                1,
                150,
            );
            v.id_number(&format!("{p}.chofer_documento"), &c.chofer_documento);
            v.text(format_args!("{p}.chofer_nombre"), &c.chofer_nombre, 4, 60);
            v.text(
                format_args!("{p}.chofer_direccion"),
                &c.chofer_direccion,
                1,
                255,
            );
        }
        None if nre && t.tipo == Some(2) => v.push(
            code::REQUIRED,
            "transporte.transportista",
            "third-party transport needs the carrier and driver",
        ),
        None => {}
    }
}

fn check_totals_rules(
    v: &mut V,
    req: &FacturaRequest,
    tipo: TipoDocumento,
    t: &crate::de::Totales,
    moneda: &str,
) {
    let total_pyg = if moneda == "PYG" {
        Some(t.total_general)
    } else {
        t.total_guaranies
    };
    if req.receptor.ruc.is_none()
        && req.receptor.documento_tipo == Some(5)
        && req.tipo_transaccion != Some(13)
    {
        if let Some(total) = total_pyg {
            if total >= Decimal::from(INNOMINADO_LIMIT_PYG) {
                v.push(code::NOT_ALLOWED, "receptor.documento_tipo", format!("an innominado receiver is not allowed for totals of {INNOMINADO_LIMIT_PYG} PYG or more (NT-024); identify the receiver"));
            }
        }
    }
    if t.total_general.trunc() >= Decimal::from(1_000_000_000_000_000u64) {
        v.push(
            code::OUT_OF_RANGE,
            "items",
            "the grand total exceeds 15 integer digits",
        );
    }
    // dTotalGs (total × exchange rate) is a tMontoBase too: 15 integer digits at most.
    if moneda != "PYG"
        && t.total_guaranies
            .is_some_and(|g| g.trunc() >= Decimal::from(1_000_000_000_000_000u64))
    {
        v.push(
            code::OUT_OF_RANGE,
            "tipo_cambio",
            "the grand total in guaraníes (total × tipo_cambio, dTotalGs) exceeds 15 integer digits",
        );
    }
    if tipo == TipoDocumento::Factura || tipo == TipoDocumento::Autofactura {
        if let Some(c) = &req.credito {
            if !c.cuotas.is_empty() {
                let sum: Option<Decimal> = c
                    .cuotas
                    .iter()
                    .try_fold(c.entrega.unwrap_or_default(), |a, q| a.checked_add(q.monto));
                if sum != Some(t.total_general) {
                    v.push(
                        code::INCONSISTENT,
                        "credito.cuotas",
                        format!(
                            "instalments plus down payment must add up to the total {}",
                            crate::fmt::dec(t.total_general)
                        ),
                    );
                }
            }
            if c.entrega.is_some_and(|e| e >= t.total_general) {
                v.push(
                    code::OUT_OF_RANGE,
                    "credito.entrega",
                    "the down payment must be below the total",
                );
            }
        }
    }
}
