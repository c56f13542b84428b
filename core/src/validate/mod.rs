//! Every rule SIFEN (MT v150 + NTs + XSD) and the user's service state for the fields kuatia emits, checked at once.
//!
//! [`validate`] never stops at the first problem: it returns every [`Finding`] with its JSON path, so a form can
//! mark all wrong fields in one pass. An empty list means the request can be issued.

use crate::de::TipoDocumento;
use crate::error::{Finding, Findings};
use crate::invoice::FacturaRequest;
use crate::numbering::NumberingKey;
use crate::profile::{Emisor, Timbrado};
use crate::ruc::Ruc;
use crate::totals;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use time::PrimitiveDateTime;

mod asociados;
mod items;
mod pagos;
mod receptor;
mod run;
mod totals_rules;
mod transporte;
mod v;

use run::run;

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
    (simulate.is_some() && production)
        .then(|| crate::rule::request_simulate_production("_simulate"))
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
        _ if findings.is_empty() => return Err(Findings::from(crate::rule::request_unchecked(""))),
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
