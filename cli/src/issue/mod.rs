//! `kuatia issue` and `kuatia verify`: sign documents with a P12 (or the built-in test-only certificate) and check
//! signatures. `args` holds the flags, `host` the host side of issuing (the CSPRNG, the numbering file, durable
//! writes, reading the key); `single` and `batch` issue, each importing only those two.

mod args;
mod batch;
mod host;
mod single;

pub use args::IssueArgs;
pub(crate) use host::load_signer;
use host::open_numbering;

use crate::invoice::at_arg;
use crate::output::{read_input, Outcome};
use kuatia_server::numbering::SqliteNumbering;
use std::path::{Path, PathBuf};

/// `kuatia issue`: one request ([`single`]) or a directory of them (`--batch`, [`batch`]).
pub fn run_issue(args: IssueArgs) -> Outcome {
    match &args.batch.batch {
        Some(dir) => batch::run(&args, dir),
        None => single::run(args),
    }
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
        if one
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("zip"))
        {
            return crate::archive::verify(one, when);
        }
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
    let report = localized_report(verifier.verify(&text, when));
    Ok(if report.valid {
        Outcome::ok(&report)
    } else {
        let f = report
            .error
            .clone()
            .unwrap_or_else(|| kuatia_core::rule::sign_invalid(""));
        Outcome::invalid(&report, &f)
    })
}

/// A verification report with its finding in the chosen language.
fn localized_report(mut r: kuatia_core::sign::VerifyReport) -> kuatia_core::sign::VerifyReport {
    if let Some(f) = r.error.as_mut() {
        f.localize(crate::output::lang());
    }
    r
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
                report: Some(localized_report(verifier.verify(&text, when))),
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
