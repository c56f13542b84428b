//! The arguments of `kuatia issue` (one request, or `--batch DIR`).

use clap::Args;
use std::path::PathBuf;

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
    pub batch: BatchArgs,
}

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
