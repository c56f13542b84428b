//! `kuatia ruc ...` and `kuatia cdc ...`: identifiers (SIFEN.md §1 and §2).

use crate::output::{read_input, ErrorBody, Outcome};
use clap::Subcommand;
use kuatia_core::cdc::{Cdc, CdcFields, CdcParts};
use kuatia_core::error::code;
use kuatia_core::ruc::Ruc;
use kuatia_core::Finding;
use serde::Serialize;

/// `kuatia ruc` subcommands.
#[derive(Debug, Subcommand)]
pub enum RucCommand {
    /// Compute the check digit of a RUC body; prints {"ruc":"80069563-1","dv":1}.
    Dv {
        /// RUC without DV, e.g. 80069563 (a final letter A-D is allowed).
        #[arg(allow_hyphen_values = true)]
        body: String,
    },
    /// Verify a RUC with its DV (80069563-1 or 800695631); exit 1 if invalid.
    Check {
        /// RUC with DV.
        #[arg(allow_hyphen_values = true)]
        ruc: String,
    },
}

/// `kuatia cdc` subcommands.
#[derive(Debug, Subcommand)]
pub enum CdcCommand {
    /// Build a CDC from a JSON file of fields (- for stdin); prints {"cdc":"...","grouped":"..."}.
    ///
    /// Fields: tipo_documento, ruc ("80069563-1"), establecimiento, punto, numero, tipo_contribuyente,
    /// fecha (YYYY-MM-DD), tipo_emision, codigo_seguridad. Codes may be numbers or zero-padded strings.
    Build {
        /// JSON file, or - to read standard input.
        input: String,
    },
    /// Check a CDC and print its fields (plus cdc, grouped, dv); exit 1 if invalid.
    Parse {
        /// The 44-character CDC (the grouped 4-by-4 form is accepted too).
        #[arg(allow_hyphen_values = true)]
        cdc: String,
    },
}

/// A negative answer to a check: `{"valid":false,"error":{...}}`.
#[derive(Serialize)]
struct Invalid<'a> {
    valid: bool,
    error: ErrorBody<'a>,
}

fn negative(finding: &Finding) -> Outcome {
    Outcome::invalid(
        &Invalid {
            valid: false,
            error: finding.into(),
        },
        finding,
    )
}

/// Runs a `kuatia ruc` subcommand.
pub fn ruc(command: RucCommand) -> Outcome {
    match command {
        RucCommand::Dv { body } => {
            #[derive(Serialize)]
            struct Answer {
                ruc: Ruc,
                dv: u8,
            }
            match Ruc::from_body(body.trim()) {
                Ok(ruc) => Outcome::ok(&Answer { ruc, dv: ruc.dv() }),
                Err(e) => Outcome::error(&e.to_finding("")),
            }
        }
        RucCommand::Check { ruc } => {
            #[derive(Serialize)]
            struct Valid {
                valid: bool,
                ruc: Ruc,
            }
            match Ruc::parse(&ruc) {
                Ok(ruc) => Outcome::ok(&Valid { valid: true, ruc }),
                Err(e) => negative(&e.to_finding("")),
            }
        }
    }
}

/// Runs a `kuatia cdc` subcommand.
pub fn cdc(command: CdcCommand) -> Outcome {
    match command {
        CdcCommand::Build { input } => {
            let text = match read_input(&input) {
                Ok(text) => text,
                Err(outcome) => return outcome,
            };
            let fields = match CdcFields::from_json(&text) {
                Ok(fields) => fields,
                // Not JSON at all: the input is unreadable, not merely invalid.
                Err(f) if f.code == code::MALFORMED_JSON => {
                    let name = if input == "-" { "<stdin>" } else { &input };
                    return Outcome::unreadable(format!("{name}: {}: {}", f.code, f.message));
                }
                Err(f) => return Outcome::error(&f),
            };
            #[derive(Serialize)]
            struct Built {
                cdc: Cdc,
                grouped: String,
            }
            match Cdc::build(&fields) {
                Ok(cdc) => Outcome::ok(&Built {
                    cdc,
                    grouped: cdc.grouped(),
                }),
                Err(e) => Outcome::error(&e.to_finding(e.field().unwrap_or(""))),
            }
        }
        CdcCommand::Parse { cdc } => {
            /// `"valid": true` before core's CDC parts, as `kuatia ruc check` answers.
            #[derive(Serialize)]
            struct Valid {
                valid: bool,
                #[serde(flatten)]
                parts: CdcParts,
            }
            match Cdc::parse(&cdc) {
                Ok(cdc) => Outcome::ok(&Valid {
                    valid: true,
                    parts: cdc.parts(),
                }),
                Err(e) => negative(&e.to_finding("")),
            }
        }
    }
}
