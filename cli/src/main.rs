//! `kuatia` command line: a thin host over kuatia-core.
//!
//! Every command prints one JSON document on stdout (stable keys) and exits with 0 (ok), 1 (invalid input
//! or negative answer, the JSON says why) or 2 (unreadable input or usage error, one line on stderr).
//! One module per command family: `ids` (ruc, cdc); shared I/O and exit handling in `output`.
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod ids;
mod output;

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
    #[command(subcommand)]
    command: Command,
}

/// Top-level commands, one family per module.
#[derive(Debug, Subcommand)]
enum Command {
    /// RUC check digit (DV): compute or verify.
    #[command(subcommand, after_help = AFTER_HELP)]
    Ruc(ids::RucCommand),
    /// CDC (44-character document control code): build from fields or parse back.
    #[command(subcommand, after_help = AFTER_HELP)]
    Cdc(ids::CdcCommand),
    // Next families, each in its own module and dispatched in `run` below:
    //   Validate (validate.rs), Totals (totals.rs), Issue (issue.rs), Verify (verify.rs), Kude (kude.rs).
    // Return an `output::Outcome` so exit codes and error lines stay uniform.
}

fn run(command: Command) -> output::Outcome {
    match command {
        Command::Ruc(c) => ids::ruc(c),
        Command::Cdc(c) => ids::cdc(c),
    }
}

fn main() -> ExitCode {
    // clap prints help/version with exit 0 and usage errors with exit 2, matching our contract.
    let cli = Cli::parse();
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
