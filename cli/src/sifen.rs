//! `kuatia sifen`: print the SOAP request SIFEN expects (for debugging; kuatia does not send it), including signed
//! events (`cancelar`, or any event from its JSON with `evento`), and parse SIFEN's answers into typed JSON.
//! Output: `{"service","url","content_type","xml"}` for requests.

use crate::invoice::at_arg;
use crate::issue::{load_signer, IssueArgs};
use crate::output::{read_input, Outcome};
use clap::{Args, Parser, Subcommand};
use kuatia_core::cdc::Cdc;
use kuatia_core::qr::Ambiente;
use kuatia_core::ruc::Ruc;
use kuatia_core::sifen::event::{inputs_from_json, sign_event, Evento, EventoInput};
use kuatia_core::sifen::{request, response, Request};
use kuatia_core::sign::{certificate_info, Signer};
use kuatia_core::Finding;
use std::path::PathBuf;

/// Options shared by every request.
#[derive(Debug, Args)]
pub struct Common {
    /// Request identifier dId (1..=999999999999999).
    #[arg(long, default_value_t = 1)]
    pub id: u64,
    /// Use the production endpoint (default: test).
    #[arg(long)]
    pub prod: bool,
}

/// `kuatia sifen` subcommands.
#[derive(Debug, Subcommand)]
pub enum SifenCommand {
    /// consulta: query a DE by CDC. Example: kuatia sifen consulta 0144444401700100100000012202503101123456789 --id 7
    Consulta {
        /// The CDC (44 characters).
        cdc: String,
        #[command(flatten)]
        common: Common,
    },
    /// consulta-ruc: query a RUC (with or without DV).
    ConsultaRuc {
        /// The RUC.
        ruc: String,
        #[command(flatten)]
        common: Common,
    },
    /// consulta-lote: query a lot by its number (dProtConsLote).
    ConsultaLote {
        /// The lot number SIFEN returned.
        protocolo: String,
        #[command(flatten)]
        common: Common,
    },
    /// recibe: send one signed DE synchronously.
    Recibe {
        /// Signed rDE file, or - for standard input.
        file: String,
        #[command(flatten)]
        common: Common,
    },
    /// recibe-lote: up to 50 signed DE of one emitter and one type, zipped.
    Lote {
        /// Signed rDE files.
        #[arg(required = true)]
        files: Vec<String>,
        #[command(flatten)]
        common: Common,
    },
    /// evento: cancel an approved DE (signed with --p12, or the built-in TEST-ONLY certificate).
    Cancelar {
        /// CDC of the document to cancel.
        cdc: String,
        /// Reason (5 to 500 characters).
        #[arg(long)]
        motivo: String,
        /// Event Id (rEve/@Id, 1..=9999999999).
        #[arg(long, default_value_t = 1)]
        event_id: u64,
        /// PKCS#12 file with the emitter's key and certificate.
        #[arg(long, requires = "password_env")]
        p12: Option<PathBuf>,
        /// Name of the environment variable holding the P12 password.
        #[arg(long)]
        password_env: Option<String>,
        /// Signing time (default: now, Paraguay time).
        #[arg(long)]
        at: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// evento: sign SIFEN events given as JSON (one object or an array of up to 15; docs/sifen.md, "Events") with
    /// --p12 or the built-in TEST-ONLY certificate and print the request. Example: kuatia sifen evento cancelacion.json
    Evento {
        /// Event JSON file (one object or an array), or - for standard input.
        file: String,
        /// PKCS#12 file with the key and certificate of who signs (the emitter or, for receiver events, the
        /// receiver).
        #[arg(long, requires = "password_env")]
        p12: Option<PathBuf>,
        /// Name of the environment variable holding the P12 password.
        #[arg(long)]
        password_env: Option<String>,
        /// RUC that signs, with DV (default: the certificate's RUC).
        #[arg(long)]
        ruc: Option<String>,
        /// Signing time of events without "fecha_firma" (default: now, Paraguay time).
        #[arg(long)]
        at: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// ping: only the TLS handshake with SIFEN (test, or --prod) with the emitter's certificate (--p12, or the built-in
    /// TEST-ONLY one); prints protocol, cipher, SIFEN's certificate and whether ours was requested and sent; exit 1
    /// with the reason when the handshake fails. Example: kuatia sifen ping --p12 emisor.p12 --password-env P12_PASS
    Ping {
        /// PKCS#12 file with the emitter's key and certificate.
        #[arg(long, requires = "password_env")]
        p12: Option<PathBuf>,
        /// Name of the environment variable holding the P12 password.
        #[arg(long)]
        password_env: Option<String>,
        /// Production endpoint (sifen.set.gov.py) instead of the test one (sifen-test.set.gov.py).
        #[arg(long)]
        prod: bool,
        /// Another origin (https://host:port), as `kuatia serve --sifen-url`.
        #[arg(long)]
        sifen_url: Option<String>,
        /// Extra root certificate (PEM or DER) trusted for the server, besides the system's.
        #[arg(long)]
        sifen_ca: Option<PathBuf>,
        /// TLS stack, as `kuatia serve --sifen-tls`.
        #[arg(long, value_enum, default_value = "rustls")]
        sifen_tls: crate::serve::SifenTlsArg,
        /// Timeout of the connection and handshake, in seconds.
        #[arg(long, default_value_t = 30)]
        timeout: u64,
    },
    /// Parse a SIFEN answer (SOAP XML) into typed JSON with the lifecycle action; exit 1 on a non-SIFEN answer.
    Parse {
        /// Answer file, or - for standard input.
        file: String,
    },
}

/// The environment `--prod` picks.
fn ambiente(common: &Common) -> Ambiente {
    if common.prod {
        Ambiente::Produccion
    } else {
        Ambiente::Test
    }
}

/// Prints a request as every face writes it (core's `RequestParts`).
fn print(r: &Request, common: &Common) -> Outcome {
    Outcome::ok(&r.parts(ambiente(common)))
}

fn cdc_arg(s: &str) -> Result<Cdc, Outcome> {
    Cdc::parse(s).map_err(|e| Outcome::error(&e.to_finding("cdc")))
}

/// `kuatia issue`'s signer options, built through clap so `issue::load_signer` is reused as is whatever other
/// options `IssueArgs` grows.
fn signer_args(p12: Option<PathBuf>, password_env: Option<String>) -> Result<IssueArgs, Outcome> {
    #[derive(Parser)]
    struct Wrap {
        #[command(flatten)]
        args: IssueArgs,
    }
    // The positional request file is irrelevant here; "-" satisfies it whether it is required or optional.
    let mut argv = vec!["kuatia-issue".into(), "-".into()];
    if let (Some(p), Some(v)) = (p12, password_env) {
        argv.extend([
            "--p12".into(),
            p.into_os_string(),
            "--password-env".into(),
            v.into(),
        ]);
    }
    Wrap::try_parse_from(argv)
        .map(|w| w.args)
        .map_err(|e| Outcome::unreadable(format!("signer options: {e}")))
}

/// The RUC of the signer's certificate, who signs when --ruc is not given.
fn certificate_ruc(signer: &dyn Signer) -> Result<Ruc, Outcome> {
    let info = certificate_info(signer.certificate_der())
        .map_err(|e| Outcome::error(&e.to_finding("p12")))?;
    let ruc = info.ruc.ok_or_else(|| {
        Outcome::unreadable("the certificate carries no RUC: give the signing RUC with --ruc")
    })?;
    Ruc::parse(&ruc).map_err(|e| Outcome::error(&e.to_finding("ruc")))
}

fn err(f: Finding) -> Outcome {
    Outcome::error(&f)
}

/// Runs a `kuatia sifen` subcommand.
pub fn run(cmd: SifenCommand) -> Outcome {
    let run = || -> Result<Outcome, Outcome> {
        Ok(match cmd {
            SifenCommand::Ping {
                p12,
                password_env,
                prod,
                sifen_url,
                sifen_ca,
                sifen_tls,
                timeout,
            } => {
                let (signer, _test_only) = load_signer(&signer_args(p12, password_env)?)?;
                let mut transport = kuatia_server::sifen::SifenTransport {
                    timeout: std::time::Duration::from_secs(timeout.max(1)),
                    base_url: sifen_url,
                    tls: sifen_tls.into(),
                    ..Default::default()
                };
                if let Some(ca) = &sifen_ca {
                    let bytes = std::fs::read(ca).map_err(|e| {
                        Outcome::unreadable(format!("{}: cannot read: {e}", ca.display()))
                    })?;
                    transport.extra_roots = kuatia_server::sifen::certificates(&bytes)
                        .map_err(|e| Outcome::unreadable(format!("{}: {e}", ca.display())))?;
                }
                let amb = if prod {
                    Ambiente::Produccion
                } else {
                    Ambiente::Test
                };
                let url = request::consulta_ruc(
                    1,
                    &Ruc::from_body("80069563")
                        .map_err(|e| Outcome::error(&e.to_finding("ruc")))?,
                )
                .map_err(err)?
                .url(amb)
                .to_string();
                match kuatia_server::sifen::ping(std::sync::Arc::new(signer), &transport, &url) {
                    Ok(p) => Outcome::ok(&p),
                    Err(e) => Outcome::error(&kuatia_core::rule::sifen_tls_handshake("sifen", &e)),
                }
            }
            SifenCommand::Consulta { cdc, common } => print(
                &request::consulta(common.id, &cdc_arg(&cdc)?).map_err(err)?,
                &common,
            ),
            SifenCommand::ConsultaRuc { ruc, common } => print(
                &request::consulta_ruc_text(common.id, &ruc).map_err(err)?,
                &common,
            ),
            SifenCommand::ConsultaLote { protocolo, common } => print(
                &request::consulta_lote(common.id, &protocolo).map_err(err)?,
                &common,
            ),
            SifenCommand::Recibe { file, common } => {
                let xml = read_input(&file)?;
                print(&request::recibe(common.id, &xml).map_err(err)?, &common)
            }
            SifenCommand::Lote { files, common } => {
                let xmls = files
                    .iter()
                    .map(|f| read_input(f))
                    .collect::<Result<Vec<_>, _>>()?;
                let refs: Vec<&str> = xmls.iter().map(String::as_str).collect();
                let lot = request::recibe_lote(common.id, &refs)
                    .map_err(|f| crate::invoice::findings_outcome(f.0))?;
                Outcome::ok(&lot.parts(ambiente(&common)))
            }
            SifenCommand::Cancelar {
                cdc,
                motivo,
                event_id,
                p12,
                password_env,
                at,
                common,
            } => {
                let cdc = cdc_arg(&cdc)?;
                let (signer, _test_only) = load_signer(&signer_args(p12, password_env)?)?;
                let input = EventoInput {
                    id: event_id,
                    fecha_firma: at_arg(&at)?,
                    evento: Evento::Cancelacion { cdc, motivo },
                };
                let signed = sign_event(&input, &cdc.fields().ruc, &signer)
                    .map_err(|f| crate::invoice::findings_outcome(f.0))?;
                print(
                    &request::evento(common.id, &[signed]).map_err(err)?,
                    &common,
                )
            }
            SifenCommand::Evento {
                file,
                p12,
                password_env,
                ruc,
                at,
                common,
            } => {
                let text = read_input(&file)?;
                let inputs = match inputs_from_json(&text, Some(at_arg(&at)?)) {
                    Ok(v) => v,
                    Err(f) if f.code() == kuatia_core::error::code::MALFORMED_JSON => {
                        return Err(Outcome::unreadable(format!("{file}: {f}")))
                    }
                    Err(f) => return Err(crate::invoice::findings_outcome(f.0)),
                };
                let (signer, _test_only) = load_signer(&signer_args(p12, password_env)?)?;
                let firmante = match ruc {
                    Some(r) => Ruc::parse(&r).map_err(|e| Outcome::error(&e.to_finding("ruc")))?,
                    None => certificate_ruc(&signer)?,
                };
                // Paths of array elements keep their index; a single object's paths are its own.
                let array = text.trim_start().starts_with('[');
                let mut signed = Vec::with_capacity(inputs.len());
                let mut findings = Vec::new();
                for (i, input) in inputs.iter().enumerate() {
                    match sign_event(input, &firmante, &signer) {
                        Ok(e) => signed.push(e),
                        Err(f) => findings.extend(f.0.into_iter().map(|mut x| {
                            if array {
                                x.path = if x.path.is_empty() {
                                    format!("[{i}]")
                                } else {
                                    format!("[{i}].{}", x.path)
                                };
                            }
                            x
                        })),
                    }
                }
                if !findings.is_empty() {
                    return Err(crate::invoice::findings_outcome(findings));
                }
                print(&request::evento(common.id, &signed).map_err(err)?, &common)
            }
            SifenCommand::Parse { file } => {
                let text = read_input(&file)?;
                let parsed = response::parse_response(text.as_bytes()).map_err(err)?;
                Outcome::ok(&parsed.with_action())
            }
        })
    };
    run().unwrap_or_else(|o| o)
}
