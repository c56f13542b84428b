//! The face as plain Rust over JSON text: every export of [`crate`] is one of these functions plus the conversion
//! of JS values to and from JSON text. Kept free of `wasm-bindgen` so native tests and benches run it as is.
//!
//! Why JSON text and not `serde-wasm-bindgen`: core reads amounts from their exact decimal text (money never passes
//! through `f64`) and reports shape errors with JSON paths; handing it the JSON text of the caller's object keeps
//! every code, path and amount identical to the Rust and CLI faces. `JSON.stringify` of a JS number writes the
//! shortest text that round-trips, i.e. what the user typed (`123.45`).

use kuatia_core::cdc::{Cdc, CdcFields};
#[cfg(feature = "full")]
use kuatia_core::document::{self, IssueContext};
use kuatia_core::invoice;
use kuatia_core::msg::Lang;
use kuatia_core::profile::Emisor;
#[cfg(feature = "full")]
use kuatia_core::qr::{self, Ambiente, QrInput, QrReceptor};
use kuatia_core::ruc::Ruc;
use kuatia_core::rule;
use kuatia_core::validate::{self, Report};
use kuatia_core::{fmt, totals};
#[cfg(feature = "full")]
use kuatia_core::{sign, xml};
use kuatia_core::{Finding, Findings};
#[cfg(feature = "full")]
use serde::Deserialize;
use serde::Serialize;
use time::PrimitiveDateTime;

/// The result of every face function: JSON text of the answer, or the findings that reject the input.
pub type Outcome = Result<String, Findings>;

fn to_json<T: Serialize>(value: &T) -> Outcome {
    serde_json::to_string(value)
        .map_err(|e| Findings::from(rule::api_internal_serialize("", &e.to_string())))
}

#[cfg(feature = "full")]
/// Reads a small JSON argument (context, options, QR input) into its DTO; `path` names the argument.
fn read<T: serde::de::DeserializeOwned>(text: &str, path: &str) -> Result<T, Findings> {
    kuatia_core::shape::from_json(text, path).map_err(Findings::from)
}

/// The emitter profile: the given JSON (errors located under `profile`), else the built-in sandbox profile.
pub fn emisor(profile: Option<&str>) -> Result<Emisor, Findings> {
    match profile {
        None => Ok(Emisor::sandbox()),
        Some(text) => Emisor::from_json(text).map_err(|mut f| {
            f.path = if f.path.is_empty() {
                "profile".into()
            } else {
                format!("profile.{}", f.path)
            };
            Findings::from(f)
        }),
    }
}

/// Parses a Paraguay local date-time argument (`YYYY-MM-DDThh:mm:ss`) named `path`.
pub fn datetime(text: &str, path: &str) -> Result<PrimitiveDateTime, Findings> {
    fmt::datetime_at(text, path).map_err(Findings::from)
}

/// A validation report as JSON, for inputs rejected before validation could start; messages in `lang`.
pub fn report(findings: Vec<Finding>, lang: Lang) -> Outcome {
    let mut findings = Findings(findings);
    findings.localize(lang);
    to_json(&Report::from(findings.0))
}

/// `localize`: findings kuatia wrote (a report's `errors`, a thrown error's `errors`, `/v1`'s `details`), each message
/// rendered again in `lang` from its rule; codes, paths, rules and parameters stay, and a finding of a rule this build
/// does not know keeps its message.
#[cfg(feature = "full")]
pub fn localize(findings: &str, lang: Lang) -> Outcome {
    let mut findings: Vec<Finding> =
        kuatia_core::shape::from_json(findings, "findings").map_err(Findings::from)?;
    findings.iter_mut().for_each(|f| f.localize(lang));
    to_json(&findings)
}

/// `validate`: every finding of a request, `{ok, errors}` exactly as the Rust `validate::Report`.
/// Fails only on a bad profile or `now`; request problems are findings in the report.
pub fn validate(
    request: &str,
    profile: Option<&str>,
    now: Option<&str>,
    clock: impl FnOnce() -> PrimitiveDateTime,
    lang: Lang,
) -> Outcome {
    let emisor = emisor(profile)?;
    let now = match now {
        Some(t) => datetime(t, "now")?,
        None => clock(),
    };
    report(validate::validate_json(request, &emisor, now).errors, lang)
}

/// Outcome of `check`: the validation report and, when the items can be computed, the totals.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CheckResult"))]
pub(crate) struct Check {
    /// No finding: the request can be submitted.
    ok: bool,
    /// Every finding (code, JSON path, message), as `validate` reports them.
    errors: Vec<Finding>,
    /// Item values and totals; `null` when the items cannot be computed.
    totals: Option<totals::Calculo>,
}

/// `check`: validation and totals from one parse, for a form that validates as the user types.
pub fn check(
    request: &str,
    profile: Option<&str>,
    now: Option<&str>,
    clock: impl FnOnce() -> PrimitiveDateTime,
    lang: Lang,
) -> Outcome {
    let emisor = emisor(profile)?;
    let now = match now {
        Some(t) => datetime(t, "now")?,
        None => clock(),
    };
    let (req, errors) = validate::check_json(request, &emisor, now);
    let mut errors = Findings(errors);
    errors.localize(lang);
    let errors = errors.0;
    let answer = Check {
        ok: errors.is_empty(),
        totals: req.as_ref().and_then(|r| totals::compute(r).ok()),
        errors,
    };
    to_json(&answer)
}

/// `totals`: item values and document totals (amounts as decimal strings), as `kuatia totals` prints them.
pub fn totals(request: &str) -> Outcome {
    let req = invoice::parse_request(request)?;
    to_json(&totals::compute(&req)?)
}

/// Outcome of `rucDv`: the RUC with its check digit, and the digit.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub(crate) struct RucDv {
    /// `body-dv`, e.g. `80069563-1`.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    ruc: Ruc,
    /// The check digit.
    dv: u8,
}

/// `rucDv`: the check digit of a RUC body, `{ruc: "80069563-1", dv: 1}`.
pub fn ruc_dv(body: &str) -> Outcome {
    let ruc = Ruc::from_body(body.trim()).map_err(|e| Findings::from(e.to_finding("")))?;
    to_json(&RucDv { ruc, dv: ruc.dv() })
}

/// Outcome of `rucCheck`: `{valid: true, ruc}` or `{valid: false, error}`.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub(crate) struct RucCheck {
    /// Whether the RUC and its check digit are valid.
    valid: bool,
    /// The RUC as `body-dv` (when valid).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(as = "Option<String>", optional))]
    ruc: Option<Ruc>,
    /// Why it is not valid (`INVALID_RUC`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    error: Option<Finding>,
}

/// `rucCheck`: `{valid: true, ruc}` or `{valid: false, error}` (its message in `lang`); never fails.
pub fn ruc_check(ruc: &str, lang: Lang) -> Outcome {
    to_json(&match Ruc::parse(ruc) {
        Ok(r) => RucCheck {
            valid: true,
            ruc: Some(r),
            error: None,
        },
        Err(e) => RucCheck {
            valid: false,
            ruc: None,
            error: Some({
                let mut f = e.to_finding("");
                f.localize(lang);
                f
            }),
        },
    })
}

/// Outcome of `cdcBuild`: the CDC, bare and grouped.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub(crate) struct CdcBuilt {
    /// The 44 digits.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    cdc: Cdc,
    /// The digits in groups of 4, as the KuDE prints them.
    grouped: String,
}

/// `cdcBuild`: the CDC of its fields (codes as numbers or zero-padded strings), `{cdc, grouped}`.
pub fn cdc_build(fields: &str) -> Outcome {
    let fields = CdcFields::from_json(fields)?;
    let cdc = Cdc::build(&fields).map_err(|e| e.to_finding(e.field().unwrap_or("")))?;
    to_json(&CdcBuilt {
        cdc,
        grouped: cdc.grouped(),
    })
}

/// `cdcParse`: a checked CDC's fields plus `cdc`, `grouped` and `dv` (core's [`kuatia_core::cdc::CdcParts`]).
pub fn cdc_parse(cdc: &str) -> Outcome {
    let cdc = Cdc::parse(cdc).map_err(|e| Findings::from(e.to_finding("")))?;
    to_json(&cdc.parts())
}

#[cfg(feature = "full")]
/// What the host supplies to build a document: Paraguay local time, number, security code (see [`IssueContext`]).
#[derive(Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "IssueContext"))]
#[serde(deny_unknown_fields)]
pub(crate) struct ContextDto {
    /// Paraguay local time `YYYY-MM-DDThh:mm:ss`: the emission time when the request has no `fecha`.
    now: String,
    /// Document number (`dNumDoc`, 1–9 999 999).
    numero: u32,
    /// Security code (`dCodSeg`, 1–999 999 999).
    codigo_seguridad: u32,
}

#[cfg(feature = "full")]
/// Reads the `context` argument into core's [`IssueContext`].
pub fn context(text: &str) -> Result<IssueContext, Findings> {
    let c: ContextDto = read(text, "context")?;
    Ok(IssueContext {
        now: datetime(&c.now, "context.now")?,
        numero: c.numero,
        codigo_seguridad: c.codigo_seguridad,
    })
}

#[cfg(feature = "full")]
/// Builds the resolved document of a request (validation first: any finding rejects it).
fn build(
    request: &str,
    context_json: &str,
    profile: Option<&str>,
) -> Result<(kuatia_core::de::DocumentoElectronico, Emisor), Findings> {
    let emisor = emisor(profile)?;
    let ctx = context(context_json)?;
    let req = validate::read_json(request, &emisor, ctx.now)?;
    let de = document::build(&req, &emisor, ctx)?;
    Ok((de, emisor))
}

#[cfg(feature = "full")]
/// Outcome of `previewXml`: the unsigned `rDE` and its CDC.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "XmlPreview"))]
pub(crate) struct Preview {
    /// The CDC (44 digits).
    cdc: String,
    /// The unsigned `rDE`, in canonical form: the bytes that will be signed.
    xml: String,
}

#[cfg(feature = "full")]
/// `previewXml`: the unsigned `rDE` (canonical form, the bytes that will be signed) and its CDC.
pub fn preview_xml(request: &str, context_json: &str, profile: Option<&str>) -> Outcome {
    let (de, _) = build(request, context_json, profile)?;
    let xml = xml::write(&de);
    to_json(&Preview { cdc: de.cdc, xml })
}

#[cfg(feature = "full")]
/// Receiver identification in the QR: `{"ruc": "80069563"}` (RUC body), `{"documento": "…"}` or `"sin_documento"`.
#[derive(Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "QrReceptor"))]
#[serde(rename_all = "snake_case")]
pub(crate) enum ReceptorDto {
    /// RUC body without check digit (`dRucRec`).
    Ruc(String),
    /// ID document number (`dNumIDRec`).
    Documento(String),
    /// No receiver identification (`dNumIDRec` 0).
    SinDocumento,
}

#[cfg(feature = "full")]
/// Parts of a `dCarQR`, strings exactly as written in the signed XML (what `qrBuild` takes).
#[derive(Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "QrInput"))]
#[serde(deny_unknown_fields)]
pub(crate) struct QrInputDto {
    /// The CDC (`Id`).
    cdc: String,
    /// `dFeEmiDE` as written in the XML (`2025-03-10T10:11:00`).
    fecha_emision: String,
    /// The receiver.
    receptor: ReceptorDto,
    /// `dTotGralOpe` as written in the XML.
    total: String,
    /// `dTotIVA` as written in the XML (`0` when absent).
    total_iva: String,
    /// Number of items (`cItems`).
    items: usize,
    /// `DigestValue` of the signature (base64 text).
    digest_value: String,
    /// CSC id (`IdCSC`, 4 digits).
    csc_id: String,
    /// The secret CSC: hashed, never written out.
    csc: String,
    /// Environment: selects the QR base URL.
    ambiente: Ambiente,
}

#[cfg(feature = "full")]
/// `qrBuild`: the dCarQR text (raw, not XML-escaped).
pub fn qr_build(input: &str) -> Result<String, Findings> {
    let i: QrInputDto = read(input, "input")?;
    Ok(qr::build(&QrInput {
        cdc: &i.cdc,
        fecha_emision: &i.fecha_emision,
        receptor: match &i.receptor {
            ReceptorDto::Ruc(r) => QrReceptor::Ruc(r),
            ReceptorDto::Documento(d) => QrReceptor::Documento(d),
            ReceptorDto::SinDocumento => QrReceptor::SinDocumento,
        },
        total: &i.total,
        total_iva: &i.total_iva,
        items: i.items,
        digest_value: &i.digest_value,
        csc_id: &i.csc_id,
        csc: &i.csc,
        ambiente: i.ambiente,
    }))
}

#[cfg(feature = "full")]
/// `qrParse`: the parts of a dCarQR (core's [`qr::QrParts`]); with `csc`, also whether its `cHashQR` matches.
pub fn qr_parse(dcarqr: &str, csc: Option<&str>) -> Outcome {
    to_json(&qr::parse(dcarqr)?.checked(dcarqr, csc))
}

#[cfg(feature = "full")]
/// `verify`: the XMLDSig report of a signed document (public key only); `at` also checks the certificate dates.
pub fn verify(signed_xml: &str, at: Option<&str>, lang: Lang) -> Outcome {
    let at = at.map(|t| datetime(t, "at")).transpose()?;
    let mut report = sign::verify(signed_xml, at);
    if let Some(f) = report.error.as_mut() {
        f.localize(lang);
    }
    to_json(&report)
}

#[cfg(feature = "kude")]
pub use preview::kude_preview;

#[cfg(feature = "kude")]
pub(crate) mod preview {
    use super::*;
    use kuatia_core::issue;
    use kuatia_core::kude::{self, Formato, KudeOptions};

    /// KuDE drawing options a caller may choose (`kudePreview`).
    #[derive(Deserialize, Default)]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "KudeOptions"))]
    #[serde(deny_unknown_fields)]
    pub(crate) struct OptionsDto {
        /// Page format: `a4` (default) or `ticket` (80 mm roll).
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(inline, optional = nullable))]
        formato: Option<FormatoDto>,
        /// Footer text printed at the bottom of every page.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        pie: Option<String>,
        /// Free emitter text (`dInfAdic`), printed after the totals.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        info_adicional: Option<String>,
    }

    /// KuDE page format.
    #[derive(Deserialize, Clone, Copy)]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    #[serde(rename_all = "lowercase")]
    pub(crate) enum FormatoDto {
        /// A4 page.
        A4,
        /// 80 mm ticket roll.
        Ticket,
    }

    /// `kudePreview`: the KuDE PDF of a request built with `context`, watermarked "VISTA PREVIA - NO VÁLIDO".
    pub fn kude_preview(
        request: &str,
        context_json: &str,
        profile: Option<&str>,
        options: Option<&str>,
    ) -> Result<Vec<u8>, Findings> {
        let o: OptionsDto = match options {
            Some(t) => read(t, "options")?,
            None => OptionsDto::default(),
        };
        let (de, emisor) = build(request, context_json, profile)?;
        // No key in the browser: core writes the document and computes its QR from the real digest of `DE`.
        let issued = issue::simulate_unsigned(de, &emisor)?;
        let opts = KudeOptions {
            formato: match o.formato {
                Some(FormatoDto::Ticket) => Formato::Ticket,
                Some(FormatoDto::A4) | None => Formato::A4,
            },
            pie: o.pie,
            info_adicional: o.info_adicional,
            preview: true,
            ..KudeOptions::default()
        };
        Ok(kude::pdf(&issued.documento, &issued.qr, &opts)?)
    }
}

/// The whole sandboxed `/v1` API in memory (`kuatia_service` over `MemoryStore`), for a front-end that runs it offline.
/// The browser build has no private key, so documents are simulated unsigned (`issue::simulate_unsigned`); the
/// clock and a CSPRNG seed come from the JS side on every call.
#[cfg(feature = "kude")]
pub mod sandbox {
    use super::*;
    use kuatia_core::sign::Signer;
    use kuatia_service::auth::Environment;
    use kuatia_service::{Config, Host, MemoryStore, RequestHead, SeedRng, Service};
    use serde::Serialize;
    use time::OffsetDateTime;

    struct BrowserHost {
        now: OffsetDateTime,
        rng: SeedRng,
    }

    impl Host for BrowserHost {
        fn now(&mut self) -> OffsetDateTime {
            self.now
        }
        fn random_u32(&mut self) -> u32 {
            self.rng.next_u32()
        }
        fn signer(&self, _account_id: &str, _env: Environment) -> Option<&dyn Signer> {
            None
        }
    }

    fn host(now_unix: i64, seed: [u8; 32]) -> Result<BrowserHost, Findings> {
        let now = OffsetDateTime::from_unix_timestamp(now_unix).map_err(|e| {
            Findings::from(rule::host_arg_unix_time(
                "now",
                "now",
                &now_unix.to_string(),
                &e.to_string(),
            ))
        })?;
        Ok(BrowserHost {
            now,
            rng: SeedRng::new(seed),
        })
    }

    /// Outcome of `Sandbox.createAccount`: the account and its `dk_test_` key (shown once).
    #[derive(Serialize)]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub(crate) struct SandboxAccount {
        /// Account id.
        account_id: String,
        /// The sandbox API key (`dk_test_…`); only its hash is kept.
        key: String,
    }

    /// Status and headers of a `Sandbox.handle` response (the JS side adds `body` and `json`).
    #[derive(Serialize)]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub(crate) struct SandboxResponseHead {
        /// HTTP status.
        status: u16,
        /// Response headers, in order.
        headers: Vec<(String, String)>,
    }

    /// An in-memory sandbox service.
    pub struct Sandbox {
        svc: Service<MemoryStore>,
    }

    impl Sandbox {
        /// A fresh service; `config` is JSON text of the optional settings.
        pub fn new(config: Option<&str>) -> Result<Sandbox, Findings> {
            let config: Config = match config {
                Some(t) => read(t, "config")?,
                None => Config::default(),
            };
            Ok(Sandbox {
                svc: Service::new(MemoryStore::default(), config),
            })
        }

        /// Creates an account with the sandbox profile: `{"account_id","key"}` (the `dk_test_` key, shown once).
        pub fn create_account(
            &mut self,
            name: &str,
            now_unix: i64,
            seed: [u8; 32],
        ) -> Result<String, Findings> {
            let mut h = host(now_unix, seed)?;
            let (account, key) = self.svc.create_account(name, &mut h);
            to_json(&SandboxAccount {
                account_id: account.id,
                key,
            })
        }

        /// One request: `head` is JSON `{method, path, headers: [[k, v], ...]}`; returns the response head
        /// `{status, headers}` as JSON and the raw body.
        pub fn handle(
            &mut self,
            head: &str,
            body: Vec<u8>,
            now_unix: i64,
            seed: [u8; 32],
        ) -> Result<(String, Vec<u8>), Findings> {
            let head: RequestHead = read(head, "request")?;
            let mut h = host(now_unix, seed)?;
            let req = head.with_body(body);
            let res = self.svc.handle(&req, &mut h);
            let head = to_json(&SandboxResponseHead {
                status: res.status,
                headers: res.headers,
            })?;
            Ok((head, res.body))
        }

        /// Advances the simulated SIFEN to `now_unix`.
        pub fn tick(&mut self, now_unix: i64, seed: [u8; 32]) -> Result<(), Findings> {
            let mut h = host(now_unix, seed)?;
            self.svc.tick(&mut h);
            Ok(())
        }

        /// Webhook deliveries due at `now_unix`, signed, as JSON.
        pub fn due_deliveries(&self, now_unix: i64) -> String {
            serde_json::to_string(&self.svc.due_deliveries(now_unix))
                .unwrap_or_else(|_| "[]".into())
        }

        /// Records a delivery attempt's outcome; the updated delivery as JSON.
        pub fn report_delivery(&mut self, id: &str, ok: bool) -> Result<String, Findings> {
            let d = self
                .svc
                .report_delivery(id, ok)
                .ok_or_else(|| Findings::from(rule::webhook_delivery_not_found("id")))?;
            serde_json::to_string(&d)
                .map_err(|e| Findings::from(rule::api_internal_serialize("", &e.to_string())))
        }
    }
}
