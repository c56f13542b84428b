//! `kuatia validate` and `kuatia totals`: the create request of the API, checked and computed by the core.

use crate::output::{read_input, Outcome};
use clap::Args;
use kuatia_core::error::code;
use kuatia_core::profile::Emisor;
use kuatia_core::shape::Unread;
use kuatia_core::validate::Report;
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};

/// Arguments shared by commands that read a request and an emitter profile.
#[derive(Debug, Args)]
pub struct RequestArgs {
    /// JSON request file (the body of POST /v1/facturas), or - for standard input.
    pub input: String,
    /// Emitter profile JSON (default: the built-in test-only sandbox profile).
    #[arg(long)]
    pub profile: Option<String>,
    /// Paraguay local time to validate at, YYYY-MM-DDThh:mm:ss (default: now).
    #[arg(long)]
    pub at: Option<String>,
}

/// Paraguay has kept UTC-3 all year since October 2024.
const PARAGUAY: Result<UtcOffset, time::error::ComponentRange> = UtcOffset::from_hms(-3, 0, 0);

/// Current Paraguay local time: the host's clock, read here so the core stays pure.
pub fn paraguay_now() -> PrimitiveDateTime {
    let now = OffsetDateTime::now_utc();
    let local = PARAGUAY.map(|o| now.to_offset(o)).unwrap_or(now);
    PrimitiveDateTime::new(
        local.date(),
        local.time().replace_nanosecond(0).unwrap_or(local.time()),
    )
}

/// Resolves `--at` (local `YYYY-MM-DDThh:mm:ss`, or RFC 3339 converted to Paraguay time) or the clock.
pub fn at_arg(arg: &Option<String>) -> Result<PrimitiveDateTime, Outcome> {
    let Some(s) = arg else {
        return Ok(paraguay_now());
    };
    if let Ok(local) = kuatia_core::fmt::parse_datetime(s) {
        return Ok(local);
    }
    let parsed =
        OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).map_err(|_| {
            Outcome::unreadable(format!(
                "--at: '{s}' is neither YYYY-MM-DDThh:mm:ss nor RFC 3339"
            ))
        })?;
    let local = PARAGUAY.map(|o| parsed.to_offset(o)).unwrap_or(parsed);
    Ok(PrimitiveDateTime::new(
        local.date(),
        local.time().replace_nanosecond(0).unwrap_or(local.time()),
    ))
}

/// Loads `--profile` or the built-in sandbox profile.
pub fn profile(arg: &Option<String>) -> Result<Emisor, Outcome> {
    match arg {
        None => Ok(Emisor::sandbox()),
        Some(path) => {
            let text = read_input(path)?;
            Emisor::from_json(&text)
                .map_err(|f| Outcome::unreadable(format!("{path}: invalid profile: {f}")))
        }
    }
}

/// The request read, or every shape finding with what did read (see `kuatia_core::shape::Unread`).
pub type Read =
    Result<kuatia_core::invoice::FacturaRequest, Unread<kuatia_core::invoice::FacturaRequest>>;

/// Reads the request text; malformed JSON is "unreadable" (exit 2), shape problems are findings (exit 1).
pub fn request(input: &str) -> Result<Read, Outcome> {
    let text = read_input(input)?;
    request_text(input, &text)
}

/// [`request`] for text already read from `input`.
pub fn request_text(input: &str, text: &str) -> Result<Read, Outcome> {
    match kuatia_core::invoice::read_request(text) {
        Err(u)
            if u.findings
                .first()
                .is_some_and(|f| f.code == code::MALFORMED_JSON) =>
        {
            Err(Outcome::unreadable(format!("{input}: {}", u.first())))
        }
        other => Ok(other),
    }
}

/// Exit 1 with `{"ok":false,"errors":[...]}` (or exit 0 when there is none).
pub fn findings_outcome(findings: Vec<kuatia_core::Finding>) -> Outcome {
    report_outcome(findings.into())
}

fn report_outcome(mut report: Report) -> Outcome {
    crate::output::localize_all(&mut report.errors);
    match report.errors.first() {
        None => Outcome::ok(&report),
        Some(first) => {
            let first = first.clone();
            Outcome::invalid(&report, &first)
        }
    }
}

/// `kuatia validate`: prints `{"ok":bool,"errors":[{code,path,message}]}`.
pub fn validate(args: RequestArgs) -> Outcome {
    let run = || -> Result<Outcome, Outcome> {
        let emisor = profile(&args.profile)?;
        let now = at_arg(&args.at)?;
        let report: Report = match request(&args.input)? {
            Ok(req) => kuatia_core::validate::validate(&req, &emisor, now).into(),
            Err(u) => u
                .with_rules(|r| kuatia_core::validate::validate(r, &emisor, now))
                .into(),
        };
        Ok(report_outcome(report))
    };
    run().unwrap_or_else(|o| o)
}

/// `kuatia totals`: prints every item value and the document totals, amounts as strings.
pub fn totals(input: String) -> Outcome {
    let run = || -> Result<Outcome, Outcome> {
        let outcome = match request(&input)? {
            Err(u) => report_outcome(u.findings.into()),
            Ok(req) => match kuatia_core::totals::compute(&req) {
                Ok(calc) => Outcome::ok(&calc),
                Err(fs) => report_outcome(fs.0.into()),
            },
        };
        Ok(outcome)
    };
    run().unwrap_or_else(|o| o)
}
