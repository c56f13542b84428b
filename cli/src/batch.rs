//! `kuatia issue --batch DIR`: issue every `*.json` request of a directory in parallel, with a progress bar and a
//! summary. Numbers come from the same numbering store as single issuing (`<out>/numbering.sqlite3`), reserved under
//! the contract of `kuatia_core::numbering`: parallel workers and other processes never share a number, and a
//! document that fails after its reservation (or a process killed mid-way) leaves a gap that `kuatia numbering gaps`
//! lists.

use crate::invoice::{at_arg, profile};
use crate::issue::{load_signer, open_numbering, write_durably, IssueArgs, OsRandom};
use crate::output::Outcome;
use clap::Args;
use kuatia_core::error::code;
use kuatia_core::issue::issue_pending;
use kuatia_core::numbering::{Gap, Numbering, NumberingKey};
use kuatia_core::Finding;
use kuatia_server::numbering::SqliteNumbering;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Batch flags of `kuatia issue`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// Issue every *.json file of this directory (instead of one INPUT); writes OUT/<cdc>.xml for each.
    #[arg(long, value_name = "DIR")]
    pub batch: Option<PathBuf>,
    /// Parallel workers for --batch (default: all cores).
    #[arg(short = 'j', long = "jobs", requires = "batch", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

/// The numbering store shared by the workers (one connection, one statement at a time).
struct LockedNumbering<'a>(&'a Mutex<SqliteNumbering>);

impl LockedNumbering<'_> {
    fn lock(&self) -> std::sync::MutexGuard<'_, SqliteNumbering> {
        // Every statement is its own transaction, so a worker that panicked left nothing half-written.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Numbering for LockedNumbering<'_> {
    fn reserve(&mut self, key: &NumberingKey) -> Result<u32, Finding> {
        self.lock().reserve(key)
    }

    fn confirm(&mut self, key: &NumberingKey, numero: u32, cdc: &str) -> Result<(), Finding> {
        self.lock().confirm(key, numero, cdc)
    }

    fn gaps(&self) -> Result<Vec<Gap>, Finding> {
        self.lock().gaps()
    }
}

#[derive(Debug, Serialize)]
struct Issued {
    file: String,
    cdc: String,
    numero: String,
    xml: String,
}

#[derive(Debug, Serialize)]
struct Failed {
    file: String,
    /// The first finding (the whole list comes from `kuatia validate FILE`).
    code: String,
    message: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    path: String,
}

#[derive(Debug, Serialize)]
struct Summary {
    ok: usize,
    failed: usize,
    jobs: usize,
    out: String,
    seconds: f64,
    issued: Vec<Issued>,
    failures: Vec<Failed>,
}

fn requests(dir: &Path) -> Result<Vec<PathBuf>, Outcome> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Outcome::unreadable(format!("{}: cannot list: {e}", dir.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Ok(files)
}

/// `kuatia issue --batch DIR --out OUT [-j N]`: exit 0 when every document was issued, 1 when some failed.
pub fn run(args: &IssueArgs, dir: &Path) -> Outcome {
    let run = || -> Result<Outcome, Outcome> {
        let started = std::time::Instant::now();
        let emisor = profile(&args.profile)?;
        // Validate --at once up front so a bad value is a usage error, not N failures.
        at_arg(&args.at)?;
        let files = requests(dir)?;
        let (signer, _test_only) = load_signer(args)?;
        let numbering = Mutex::new(open_numbering(&args.out)?);
        let jobs = args
            .batch
            .jobs
            .map(usize::from)
            .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
            .unwrap_or(1)
            .clamp(1, files.len().max(1));
        let bar = indicatif::ProgressBar::new(files.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} issued ({per_sec}, eta {eta}) {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<Result<Issued, Failed>>> = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..jobs {
                s.spawn(|| {
                    while let Some(file) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let r = issue_one(file, args, &emisor, &signer, &numbering);
                        if let Err(f) = &r {
                            bar.set_message(format!("{} failed", f.file));
                        }
                        results.lock().unwrap_or_else(|p| p.into_inner()).push(r);
                        bar.inc(1);
                    }
                });
            }
        });
        bar.finish_and_clear();
        let mut issued = Vec::new();
        let mut failures = Vec::new();
        for r in results.into_inner().unwrap_or_else(|p| p.into_inner()) {
            match r {
                Ok(i) => issued.push(i),
                Err(f) => failures.push(f),
            }
        }
        issued.sort_by(|a, b| a.file.cmp(&b.file));
        failures.sort_by(|a, b| a.file.cmp(&b.file));
        let summary = Summary {
            ok: issued.len(),
            failed: failures.len(),
            jobs,
            out: args.out.display().to_string(),
            seconds: started.elapsed().as_secs_f64(),
            issued,
            failures,
        };
        Ok(match summary.failures.first() {
            None => Outcome::ok(&summary),
            Some(f) => {
                let first = Finding::new(
                    &f.code,
                    f.path.clone(),
                    format!(
                        "{} of {} documents failed; first: {}: {}",
                        summary.failed,
                        summary.failed + summary.ok,
                        f.file,
                        f.message
                    ),
                );
                Outcome::invalid(&summary, &first)
            }
        })
    };
    run().unwrap_or_else(|o| o)
}

fn issue_one(
    file: &Path,
    args: &IssueArgs,
    emisor: &kuatia_core::profile::Emisor,
    signer: &kuatia_core::sign::SoftwareSigner,
    numbering: &Mutex<SqliteNumbering>,
) -> Result<Issued, Failed> {
    let name = file.display().to_string();
    let fail = |f: Finding| Failed {
        file: name.clone(),
        code: f.code,
        message: f.message,
        path: f.path,
    };
    let text = std::fs::read_to_string(file).map_err(|e| {
        fail(Finding::new(
            code::MALFORMED_JSON,
            "",
            format!("cannot read: {e}"),
        ))
    })?;
    let req = kuatia_core::invoice::parse_request(&text).map_err(fail)?;
    // Each document gets the time it is issued at (or the fixed --at).
    let now = at_arg(&args.at)
        .map_err(|_| fail(Finding::new(code::INVALID_FORMAT, "at", "invalid --at")))?;
    let first = |fs: kuatia_core::Findings| {
        fail(
            fs.0.into_iter()
                .next()
                .unwrap_or_else(|| Finding::new(code::VALIDATION_ERROR, "", "not issued")),
        )
    };
    let mut numbers = LockedNumbering(numbering);
    let pending = issue_pending(emisor, &req, Some(signer), now, &mut OsRandom, &mut numbers)
        .map_err(|e| first(e.findings))?;
    let path = args.out.join(format!("{}.xml", pending.issued.cdc));
    // Not written: the number stays reserved and unconfirmed, a listed gap.
    write_durably(&path, pending.issued.xml.as_bytes()).map_err(|e| {
        fail(Finding::new(
            code::STORAGE_ERROR,
            "",
            format!("{}: cannot write: {e}", path.display()),
        ))
    })?;
    let issued = pending
        .confirm(&mut numbers)
        .map_err(|e| first(e.findings))?;
    Ok(Issued {
        file: name.clone(),
        cdc: issued.cdc,
        numero: issued.numero,
        xml: path.display().to_string(),
    })
}
