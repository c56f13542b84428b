//! `kuatia issue` and `kuatia verify`: sign documents with a P12 (or the built-in test-only certificate) and check
//! signatures. The host side of issuing lives here: the clock, the CSPRNG, the numbering file, reading the key.

use crate::invoice::{at_arg, profile};
use crate::output::{read_input, Outcome};
use clap::Args;
use kuatia_core::cdc::SecurityCodeSource;
use kuatia_core::error::code;
use kuatia_core::issue::{issue_pending, IssueError, Stage};
use kuatia_core::sign::{sandbox_test_signer, SoftwareSigner};
use kuatia_core::Finding;
use kuatia_server::numbering::SqliteNumbering;
use serde::Serialize;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// Arguments of `kuatia issue`.
#[derive(Debug, Args)]
pub struct IssueArgs {
    /// JSON request file (the body of POST /v1/facturas), or - for standard input.
    #[arg(required_unless_present = "batch")]
    pub input: Option<String>,
    /// Directory for `<cdc>.xml` and the numbering file (created if missing).
    #[arg(long, default_value = "kuatia-out")]
    pub out: PathBuf,
    /// Emitter profile JSON (default: the built-in test-only sandbox profile).
    #[arg(long)]
    pub profile: Option<String>,
    /// PKCS#12 file with the signing key and certificate (default: the built-in TEST-ONLY certificate).
    #[arg(long, requires = "password_env")]
    pub p12: Option<PathBuf>,
    /// Name of the environment variable holding the P12 password (never pass passwords as arguments).
    #[arg(long)]
    pub password_env: Option<String>,
    /// Issuing time: RFC 3339 (converted to Paraguay time) or local YYYY-MM-DDThh:mm:ss (default: now).
    #[arg(long)]
    pub at: Option<String>,
    /// `--batch DIR [-j N]`: issue a whole directory (batch.rs).
    #[command(flatten)]
    pub batch: crate::batch::BatchArgs,
}

/// Security codes from the operating system's CSPRNG.
pub(crate) struct OsRandom;

impl SecurityCodeSource for OsRandom {
    fn next_u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        // On the (never seen) failure of the OS generator, fall back to the clock's nanoseconds: still not
        // sequential, and the core re-draws if it equals the document number.
        if getrandom::fill(&mut b).is_err() {
            return std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(1);
        }
        u32::from_le_bytes(b)
    }
}

/// Opens the numbering store of an output directory (created if missing): `<out>/numbering.sqlite3`.
pub(crate) fn open_numbering(out: &Path) -> Result<SqliteNumbering, Outcome> {
    std::fs::create_dir_all(out)
        .map_err(|e| Outcome::unreadable(format!("{}: cannot create: {e}", out.display())))?;
    SqliteNumbering::open(out).map_err(|f| Outcome::error(&f))
}

/// Writes a document durably before its number is confirmed: a temporary file, synced, renamed into place, and the
/// directory synced, so a crash leaves either the whole document or a listed gap.
pub(crate) fn write_durably(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let tmp = path.with_extension("xml.partial");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

#[derive(Serialize)]
struct IssueOutput<'a> {
    id: String,
    status: &'a str,
    cdc: &'a str,
    numero: &'a str,
    tipo_documento: u8,
    fecha_emision: String,
    total: Option<String>,
    moneda: Option<&'a str>,
    qr: &'a str,
    xml: String,
    test_only: bool,
}

pub(crate) fn load_signer(args: &IssueArgs) -> Result<(SoftwareSigner, bool), Outcome> {
    match (&args.p12, &args.password_env) {
        (Some(path), Some(var)) => {
            let bytes = std::fs::read(path).map_err(|e| {
                Outcome::unreadable(format!("{}: cannot read: {e}", path.display()))
            })?;
            let password = Zeroizing::new(std::env::var(var).map_err(|_| {
                Outcome::unreadable(format!("environment variable {var} is not set"))
            })?);
            let signer = SoftwareSigner::from_pkcs12(&bytes, &password)
                .map_err(|e| Outcome::error(&Finding::new(e.code(), "p12", e.to_string())))?;
            Ok((signer, false))
        }
        _ => sandbox_test_signer()
            .map(|s| (s, true))
            .map_err(|e| Outcome::unreadable(format!("built-in test certificate: {e}"))),
    }
}

/// A failed issue as the CLI reports it: the request's findings as `kuatia validate` prints them (exit 1); a numbering
/// store that cannot be read or written is an error of its own, never a silent restart.
pub(crate) fn issue_failure(e: IssueError) -> Outcome {
    match e.stage {
        Stage::Check => crate::invoice::findings_outcome(e.findings.0),
        _ => match e.findings.0.first() {
            Some(f) => Outcome::error(f),
            None => Outcome::unreadable("issuing failed"),
        },
    }
}

/// `kuatia issue`: validate, number, build, sign, add the QR, write `<out>/<cdc>.xml`.
pub fn run_issue(args: IssueArgs) -> Outcome {
    if let Some(dir) = &args.batch.batch {
        return crate::batch::run(&args, dir);
    }
    let input = args.input.clone().unwrap_or_else(|| "-".to_string());
    let run = || -> Result<Outcome, Outcome> {
        let emisor = profile(&args.profile)?;
        let now = at_arg(&args.at)?;
        let text = read_input(&input)?;
        let req = match crate::invoice::request_text(&input, &text)? {
            Ok(r) => r,
            Err(u) => {
                let all = u.with_rules(|r| kuatia_core::validate::validate(r, &emisor, now));
                return Ok(crate::invoice::findings_outcome(all));
            }
        };
        let (signer, test_only) = load_signer(&args)?;
        let mut numbering = open_numbering(&args.out)?;
        let pending = match issue_pending(
            &emisor,
            &req,
            Some(&signer),
            now,
            &mut OsRandom,
            &mut numbering,
        ) {
            Ok(p) => p,
            Err(e) => return Ok(issue_failure(e)),
        };
        let path = args.out.join(format!("{}.xml", pending.issued.cdc));
        write_durably(&path, pending.issued.xml.as_bytes())
            .map_err(|e| Outcome::unreadable(format!("{}: cannot write: {e}", path.display())))?;
        let issued = pending.confirm(&mut numbering).map_err(issue_failure)?;
        let d = &issued.documento;
        Ok(Outcome::ok(&IssueOutput {
            id: format!("fact_{}", &issued.cdc),
            status: "signed",
            cdc: &issued.cdc,
            numero: &issued.numero,
            tipo_documento: d.timbrado.tipo_documento.code(),
            fecha_emision: kuatia_core::fmt::datetime(d.fecha_emision),
            total: d
                .totales
                .as_ref()
                .map(|t| kuatia_core::fmt::dec(t.total_general)),
            moneda: d.operacion_comercial.as_ref().map(|o| o.moneda.as_str()),
            qr: &issued.qr,
            xml: path.display().to_string(),
            test_only,
        }))
    };
    run().unwrap_or_else(|o| o)
}

/// `kuatia verify`: check the XMLDSig signature of signed DEs or events. One file (or `-`): its report, exit 0 only
/// when valid. Several files or a folder: one report per file and a summary (see `verify_many`).
pub fn run_verify(inputs: &[PathBuf], at: &Option<String>) -> Outcome {
    let when = match at {
        Some(_) => match at_arg(at) {
            Ok(t) => Some(t),
            Err(o) => return o,
        },
        None => None,
    };
    let mut verifier = kuatia_core::sign::Verifier::new();
    if let [one] = inputs {
        if !one.is_dir() {
            return verify_one(&mut verifier, one, when).unwrap_or_else(|o| o);
        }
    }
    verify_many(&mut verifier, inputs, when)
}

/// One file (or `-`): its report on stdout, exit 0 valid, 1 not valid, 2 unreadable.
fn verify_one(
    verifier: &mut kuatia_core::sign::Verifier,
    file: &Path,
    when: Option<time::PrimitiveDateTime>,
) -> Result<Outcome, Outcome> {
    let text = read_input(&file.display().to_string())?;
    let report = verifier.verify(&text, when);
    Ok(if report.valid {
        Outcome::ok(&report)
    } else {
        let f = report
            .error
            .clone()
            .unwrap_or_else(|| Finding::new(code::SIGNATURE_INVALID, "", "signature is not valid"));
        Outcome::invalid(&report, &f)
    })
}

/// One entry of `kuatia verify` over several files: the file and its report, or why it could not be read.
struct FileReport {
    file: String,
    report: Option<kuatia_core::sign::VerifyReport>,
    unreadable: Option<String>,
}

impl FileReport {
    /// `{"file", ...the report}`, or `{"file", "valid": false, "unreadable": why}`.
    fn to_json(&self) -> serde_json::Value {
        let mut v = match &self.report {
            Some(r) => serde_json::to_value(r).unwrap_or_default(),
            None => serde_json::json!({ "valid": false, "unreadable": self.unreadable }),
        };
        if let Some(map) = v.as_object_mut() {
            map.insert("file".into(), self.file.clone().into());
        }
        v
    }
}

/// Several files, or folders (their `*.xml`, by name): `{"files":[{file, ...report}], "total", "valid",
/// "invalid", "unreadable"}` on stdout and a summary line on stderr; exit 0 only when every file is valid, 2 when one
/// could not be read, else 1.
fn verify_many(
    verifier: &mut kuatia_core::sign::Verifier,
    inputs: &[PathBuf],
    when: Option<time::PrimitiveDateTime>,
) -> Outcome {
    let mut files = Vec::new();
    let mut entries = Vec::new();
    for input in inputs {
        if !input.is_dir() {
            files.push(input.clone());
            continue;
        }
        let listed = std::fs::read_dir(input).and_then(|dir| {
            dir.map(|e| e.map(|e| e.path()))
                .collect::<std::io::Result<Vec<_>>>()
        });
        match listed {
            Ok(mut found) => {
                found.retain(|p| p.extension().is_some_and(|x| x == "xml") && p.is_file());
                found.sort();
                if found.is_empty() {
                    entries.push(FileReport {
                        file: input.display().to_string(),
                        report: None,
                        unreadable: Some(format!(
                            "{}: no .xml file in this folder",
                            input.display()
                        )),
                    });
                }
                files.extend(found);
            }
            Err(e) => entries.push(FileReport {
                file: input.display().to_string(),
                report: None,
                unreadable: Some(format!("{}: cannot list: {e}", input.display())),
            }),
        }
    }
    for file in files {
        let name = file.display().to_string();
        entries.push(match read_input(&name) {
            Ok(text) => FileReport {
                file: name,
                report: Some(verifier.verify(&text, when)),
                unreadable: None,
            },
            Err(o) => FileReport {
                file: name,
                report: None,
                unreadable: Some(o.message().unwrap_or("unreadable").to_string()),
            },
        });
    }
    let valid = entries
        .iter()
        .filter(|e| e.report.as_ref().is_some_and(|r| r.valid))
        .count();
    let unreadable = entries.iter().filter(|e| e.report.is_none()).count();
    let invalid = entries.len() - valid - unreadable;
    let mut summary = format!(
        "verify: {} files, {valid} valid, {invalid} not valid, {unreadable} unreadable",
        entries.len()
    );
    if let Some(first) = entries
        .iter()
        .find(|e| e.report.as_ref().is_none_or(|r| !r.valid))
    {
        let why = match (&first.report, &first.unreadable) {
            (Some(r), _) => r
                .error
                .as_ref()
                .map_or_else(|| "signature is not valid".to_string(), |f| f.to_string()),
            (None, Some(m)) => m.clone(),
            (None, None) => String::new(),
        };
        summary.push_str(&format!(" (first: {}: {why})", first.file));
    }
    let exit = if unreadable > 0 {
        crate::output::EXIT_UNREADABLE
    } else if invalid > 0 {
        crate::output::EXIT_INVALID
    } else {
        crate::output::EXIT_OK
    };
    Outcome::summary(
        &serde_json::json!({
            "files": entries.iter().map(FileReport::to_json).collect::<Vec<_>>(),
            "total": entries.len(),
            "valid": valid,
            "invalid": invalid,
            "unreadable": unreadable,
        }),
        summary,
        exit,
    )
}

/// `kuatia numbering …`: the numbering store of an output directory.
#[derive(Debug, clap::Subcommand)]
pub enum NumberingCommand {
    /// List the numbers reserved and never issued (each to void with an inutilización, or to find the document it
    /// became if a file of that number exists). Example: kuatia numbering gaps --out kuatia-out
    Gaps {
        /// The directory `kuatia issue --out` wrote to.
        #[arg(long, default_value = "kuatia-out")]
        out: PathBuf,
    },
    /// Rebuild a damaged numbering state (NUMBERING_STATE_CORRUPT) from the signed documents of the directory: the
    /// old files are kept aside as numbering.sqlite3.damaged-<time>, every sequence continues after its highest
    /// document (or the old state's counter, if higher and still readable). Example: kuatia numbering repair --out
    /// kuatia-out
    Repair {
        /// The directory `kuatia issue --out` wrote to.
        #[arg(long, default_value = "kuatia-out")]
        out: PathBuf,
    },
}

/// `kuatia numbering gaps` (`{"gaps": [{tipo_documento, timbrado, establecimiento, punto, numero}]}`, exit 0) and `kuatia
/// numbering repair` (what it rebuilt, exit 0).
pub fn run_numbering(command: NumberingCommand) -> Outcome {
    use kuatia_core::numbering::Numbering as _;
    match command {
        NumberingCommand::Gaps { out } => {
            if !out.join(kuatia_server::numbering::CLI_DB_FILE).exists() {
                return Outcome::unreadable(format!(
                    "{}: no numbering here (kuatia issue --out creates it)",
                    out.display()
                ));
            }
            let run = || -> Result<Outcome, Outcome> {
                let numbering = open_numbering(&out)?;
                let gaps = numbering.gaps().map_err(|f| Outcome::error(&f))?;
                Ok(Outcome::ok(&serde_json::json!({ "gaps": gaps })))
            };
            run().unwrap_or_else(|o| o)
        }
        NumberingCommand::Repair { out } => {
            if !out.is_dir() {
                return Outcome::unreadable(format!("{}: not a directory", out.display()));
            }
            match SqliteNumbering::repair(&out) {
                Ok(repaired) => Outcome::ok(&repaired),
                Err(f) => Outcome::error(&f),
            }
        }
    }
}
