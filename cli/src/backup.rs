//! `kuatia backup` and `kuatia restore`: a thin host over [`kuatia_server::backup`] (SQLite data directories only).

use crate::output::Outcome;
use clap::Args;
use kuatia_server::backup;
use std::path::PathBuf;

/// Arguments of `kuatia backup`.
#[derive(Debug, Args)]
pub struct BackupArgs {
    /// Data directory of `kuatia serve` (SQLite); the server may be running.
    #[arg(long, default_value = "kuatia-data")]
    pub data: PathBuf,
    /// The backup file to write (a tar archive, mode 0600: it holds panel.key and the sealed P12s); replaced once the
    /// new one is complete.
    #[arg(long)]
    pub to: PathBuf,
}

/// Arguments of `kuatia restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The backup file `kuatia backup` wrote.
    #[arg(long)]
    pub from: PathBuf,
    /// The data directory to restore into: new or empty.
    #[arg(long)]
    pub data: PathBuf,
}

/// `kuatia backup`: refuses a PostgreSQL set-up (its database is backed up with PostgreSQL's tools).
pub fn run_backup(args: BackupArgs) -> Outcome {
    if std::env::var(kuatia_server::DATABASE_ENV).is_ok_and(|u| !u.is_empty()) {
        return Outcome::unreadable(format!(
            "{} is set: this server's data is in PostgreSQL; back it up with pg_dump or a base backup with WAL \
             archiving, and keep {} beside it ({})",
            kuatia_server::DATABASE_ENV,
            kuatia_server::panel::KEY_FILE,
            backup::DOCS
        ));
    }
    match backup::backup(&args.data, &args.to) {
        Ok(report) => Outcome::ok(&report),
        Err(e) => Outcome::unreadable(e),
    }
}

/// `kuatia restore`.
pub fn run_restore(args: RestoreArgs) -> Outcome {
    match backup::restore(&args.from, &args.data) {
        Ok(report) => Outcome::ok(&report),
        Err(e) => Outcome::unreadable(e),
    }
}
