//! `kuatia` command line: a thin host over kuatia-core.
//!
//! Every command prints one JSON document on stdout (stable keys) and exits with 0 (ok), 1 (invalid input
//! or negative answer, the JSON says why) or 2 (unreadable input or usage error, one line on stderr).
//! One module per command family: `ids` (ruc, cdc); shared I/O and exit handling in `output`.
// Unsafe code only in `alloc` (the allocator chosen before `main`), which allows it for itself.
#![deny(unsafe_code)]

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod alloc;
mod archive;
mod backup;
mod ids;
mod invoice;
mod issue;
mod kude;
mod output;
mod serve;
mod sifen;

/// mimalloc for `serve` and `--batch` (many threads allocate at once), the system's for one-shot commands (see
/// [`alloc`]).
#[global_allocator]
static ALLOCATOR: alloc::Chosen = alloc::Chosen;

/// Shown after `--help`: the exit-code contract scripts rely on.
const AFTER_HELP: &str = "\
Output: one JSON document on stdout.
Exit codes:
  0  success (for checks: the answer is positive)
  1  invalid input or negative answer; stdout holds {\"error\":{\"code\",\"message\",...}}
  2  unreadable input (missing file, not UTF-8, malformed JSON) or usage error; one line on stderr";

/// Paraguayan electronic invoicing (SIFEN / e-Kuatia) from the command line.
#[derive(Debug, Parser)]
#[command(name = "kuatia", version, about, after_help = AFTER_HELP, propagate_version = true)]
struct Cli {
    /// Language of the findings printed (stdout JSON and the stderr line): es (Spanish of Paraguay) or en. Default:
    /// the first non-empty of LC_ALL, LC_MESSAGES, LANG (en* is English, anything else Spanish).
    #[arg(long, global = true, value_enum)]
    lang: Option<LangArg>,
    #[command(subcommand)]
    command: Command,
}

/// The languages `--lang` takes.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LangArg {
    /// Spanish of Paraguay (es-PY).
    Es,
    /// English.
    En,
}

/// Top-level commands, one family per module.
#[derive(Debug, Subcommand)]
enum Command {
    /// RUC check digit (DV): compute or verify. Example: kuatia ruc dv 80069563
    #[command(subcommand, after_help = AFTER_HELP)]
    Ruc(ids::RucCommand),
    /// CDC (44-character document control code): build from fields or parse back. Example: kuatia cdc parse
    /// 01800695631001001000000122022081411234567891
    #[command(subcommand, after_help = AFTER_HELP)]
    Cdc(ids::CdcCommand),
    /// Validate a create request (JSON, - for stdin): every finding at once; exit 0 valid, 1 invalid. Example:
    /// kuatia validate examples/factura.json
    #[command(after_help = AFTER_HELP)]
    Validate(invoice::RequestArgs),
    /// Compute item values, IVA and totals of a create request (amounts as strings). Example: kuatia totals
    /// examples/factura.json
    #[command(after_help = AFTER_HELP)]
    Totals {
        /// JSON request file, or - for standard input.
        input: String,
    },
    /// Issue a document: validate, number, sign, add the QR; writes OUT/<cdc>.xml. Without --p12 it signs with the
    /// built-in TEST-ONLY certificate and the sandbox profile. Example: kuatia issue examples/factura.json
    #[command(after_help = AFTER_HELP)]
    Issue(issue::IssueArgs),
    /// The numbering of an output directory: numbers reserved and never issued (gaps), to void with an
    /// inutilización. Example: kuatia numbering gaps --out kuatia-out
    #[command(subcommand, after_help = AFTER_HELP)]
    Numbering(issue::NumberingCommand),
    /// Verify the XMLDSig signature of signed DEs or events: one file, several, or folders (their *.xml), or a
    /// month's archive (FILE.zip: every sum of its manifest and every XML's signature); exit 0 only when every one is
    /// valid. Example: kuatia verify kuatia-out/*.xml
    #[command(after_help = AFTER_HELP)]
    Verify {
        /// Signed XML files or folders of them, or - for standard input. Several: one report per file and a summary.
        #[arg(required = true, num_args = 1..)]
        files: Vec<std::path::PathBuf>,
        /// Also check the certificate validity at this time (local YYYY-MM-DDThh:mm:ss or RFC 3339).
        #[arg(long)]
        at: Option<String>,
    },
    /// Render the KuDE (A4 or 80 mm ticket PDF) of a signed DE. Example: kuatia kude doc.xml --out doc.pdf
    #[command(after_help = AFTER_HELP)]
    Kude(kude::KudeArgs),
    /// SIFEN web services: print the SOAP request of consulta, consulta-ruc, consulta-lote, recibe, lote or signed
    /// events (cancelar, evento; kuatia does not send it), or parse an answer. Example: kuatia sifen parse answer.xml
    #[command(subcommand, after_help = AFTER_HELP)]
    Sifen(sifen::SifenCommand),
    /// Run the /v1 service on a local HTTP server (SQLite in --data; simulated SIFEN in the sandbox, SIFEN over
    /// TLS 1.2 with --p12 in production; webhooks). Example: kuatia serve --addr 127.0.0.1:8080 --data ./kuatia-data
    Serve(Box<serve::ServeArgs>),
    /// API keys of a `kuatia serve` data directory: kuatia keys create --live --data ./kuatia-data
    #[command(subcommand, after_help = AFTER_HELP)]
    Keys(serve::KeysCommand),
    /// Accounts of a `kuatia serve` data directory (profiles, P12s): kuatia accounts create "Mi Empresa" --data
    /// ./kuatia-data
    #[command(subcommand, after_help = AFTER_HELP)]
    Accounts(serve::AccountsCommand),
    /// Back up a `kuatia serve` SQLite data directory, while the server runs, into one file (database copy, panel.key,
    /// manifest with SHA-256 sums; mode 0600). Example: kuatia backup --data ./kuatia-data --to kuatia.backup.tar
    #[command(after_help = AFTER_HELP)]
    Backup(backup::BackupArgs),
    /// Restore a `kuatia backup` file into a new data directory (every sum checked, then SQLite's integrity check).
    /// Example: kuatia restore --from kuatia.backup.tar --data ./kuatia-data-restored
    #[command(after_help = AFTER_HELP)]
    Restore(backup::RestoreArgs),
    /// The month's archive for the accountant: every signed XML and KuDE emitted that month, index.csv and
    /// manifest.json in one zip. Example: kuatia archive --data ./kuatia-data --month 2026-11 --out 2026-11.zip
    #[command(after_help = AFTER_HELP)]
    Archive(archive::ArchiveArgs),
    // Return an `output::Outcome` so exit codes and error lines stay uniform.
}

fn run(command: Command) -> output::Outcome {
    match command {
        Command::Ruc(c) => ids::ruc(c),
        Command::Cdc(c) => ids::cdc(c),
        Command::Validate(a) => invoice::validate(a),
        Command::Totals { input } => invoice::totals(input),
        Command::Issue(a) => issue::run_issue(a),
        Command::Verify { files, at } => issue::run_verify(&files, &at),
        Command::Numbering(c) => issue::run_numbering(c),
        Command::Kude(a) => kude::run(a),
        Command::Serve(a) => serve::run(*a),
        Command::Keys(c) => serve::keys(c),
        Command::Accounts(c) => serve::accounts(c),
        Command::Archive(a) => archive::run(a),
        Command::Sifen(c) => sifen::run(c),
        Command::Backup(a) => backup::run_backup(a),
        Command::Restore(a) => backup::run_restore(a),
    }
}

fn main() -> ExitCode {
    // clap prints help/version with exit 0 and usage errors with exit 2, matching our contract.
    let cli = Cli::parse();
    output::set_lang(match cli.lang {
        Some(LangArg::Es) => kuatia_core::msg::Lang::EsPy,
        Some(LangArg::En) => kuatia_core::msg::Lang::En,
        None => output::env_lang(|k| std::env::var(k).ok()),
    });
    run(cli.command).finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
