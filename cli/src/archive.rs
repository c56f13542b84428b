//! `kuatia archive` (the month's documents of an account, for the accountant) and `kuatia verify FILE.zip` (its
//! check): thin calls into kuatia-service's `archive` module, which decides every row, member and sum.

use crate::output::{Outcome, EXIT_INVALID, EXIT_OK};
use kuatia_service::archive::{check::check_archive, Month};
use kuatia_service::auth::Environment;
use std::path::{Path, PathBuf};

/// `kuatia archive`.
#[derive(Debug, clap::Args)]
pub struct ArchiveArgs {
    /// The data directory of `kuatia serve` (or the database of KUATIA_DATABASE_URL).
    #[arg(long, default_value = "kuatia-data")]
    data: PathBuf,
    /// The month of emission (dFeEmiDE, Paraguay's local time), YYYY-MM.
    #[arg(long)]
    month: String,
    /// The zip to write (replaced only once the new one is whole).
    #[arg(long)]
    out: PathBuf,
    /// The account (default: the data directory's default account, the one `kuatia serve` made).
    #[arg(long)]
    account: Option<String>,
    /// The production documents (default: the sandbox's).
    #[arg(long)]
    live: bool,
}

/// `kuatia archive --data DIR --month YYYY-MM --out FILE.zip [--account ID] [--live]`.
pub fn run(args: ArchiveArgs) -> Outcome {
    let Some(month) = Month::parse(&args.month) else {
        return Outcome::unreadable(format!(
            "--month '{}': a month YYYY-MM from 1980-01 to 2107-12, e.g. 2026-11",
            args.month
        ));
    };
    let env = match args.live {
        true => Environment::Production,
        false => Environment::Sandbox,
    };
    match kuatia_server::archive::archive_month(
        args.data,
        args.account.as_deref(),
        env,
        month,
        &args.out,
    ) {
        Ok((account, s)) => Outcome::ok(&serde_json::json!({
            "archive": args.out.display().to_string(),
            "account": account,
            "environment": env,
            "month": month.to_string(),
            "documents": s.documents,
            "kudes": s.kudes,
            "cancelled": s.cancelled,
            "members": s.members,
        })),
        Err(e) => Outcome::unreadable(e),
    }
}

/// `kuatia verify FILE.zip`: the archive's check, one report per member; exit 0 only when every member is whole and
/// every XML's signature verifies, 1 otherwise, 2 when the file cannot be opened.
pub fn verify(file: &Path, at: Option<time::PrimitiveDateTime>) -> Outcome {
    let opened = match std::fs::File::open(file) {
        Ok(f) => f,
        Err(e) => return Outcome::unreadable(format!("{}: cannot open: {e}", file.display())),
    };
    let check = check_archive(std::io::BufReader::new(opened), at);
    let problems = check.members.iter().filter(|m| !m.valid).count();
    let mut line = format!(
        "verify: archive {}, {} members, {} signatures valid, {problems} not valid",
        file.display(),
        check.total,
        check.signatures
    );
    if let Some(f) = &check.error {
        line.push_str(&format!(" (first: {f})"));
    }
    let exit = if check.valid { EXIT_OK } else { EXIT_INVALID };
    Outcome::summary(&check, line, exit)
}
