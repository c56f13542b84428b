//! `kuatia kude`: the KuDE PDF (A4 or 80 mm ticket) of a signed DE XML.

use crate::output::{read_input, Outcome};
use clap::{Args, ValueEnum};
use kuatia_core::kude::{Formato, KudeOptions};
use serde::Serialize;
use std::path::PathBuf;

/// Paper format on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// A4 portrait, paginated.
    A4,
    /// 80 mm receipt roll.
    Ticket,
}

/// Arguments of `kuatia kude`.
#[derive(Debug, Args)]
pub struct KudeArgs {
    /// Signed DE XML (with gCamFuFD/dCarQR), or - for standard input.
    pub input: String,
    /// Output PDF file.
    #[arg(long)]
    pub out: PathBuf,
    /// Paper format.
    #[arg(long, value_enum, default_value = "a4")]
    pub format: FormatArg,
    /// Draw the "preview, not valid" watermark (for documents not yet approved).
    #[arg(long)]
    pub preview: bool,
}

#[derive(Serialize)]
struct KudeOutput {
    pdf: String,
    bytes: usize,
    cdc: String,
}

/// Renders the KuDE and writes the PDF.
pub fn run(args: KudeArgs) -> Outcome {
    let run = || -> Result<Outcome, Outcome> {
        let xml = read_input(&args.input)?;
        let de = match kuatia_core::xml::parse(&xml) {
            Ok(d) => d,
            Err(f) => return Ok(Outcome::error(&f)),
        };
        let Some(qr) = kuatia_core::xml::extract_qr(&xml) else {
            let f = kuatia_core::rule::kude_unsigned("gCamFuFD");
            return Ok(Outcome::error(&f));
        };
        let formato = match args.format {
            FormatArg::A4 => Formato::A4,
            FormatArg::Ticket => Formato::Ticket,
        };
        let opts = KudeOptions {
            formato,
            preview: args.preview,
            ..KudeOptions::default()
        };
        let pdf = match kuatia_core::kude::pdf(&de, &qr, &opts) {
            Ok(p) => p,
            Err(f) => return Ok(Outcome::error(&f)),
        };
        std::fs::write(&args.out, &pdf).map_err(|e| {
            Outcome::unreadable(format!("{}: cannot write: {e}", args.out.display()))
        })?;
        Ok(Outcome::ok(&KudeOutput {
            pdf: args.out.display().to_string(),
            bytes: pdf.len(),
            cdc: de.cdc,
        }))
    };
    run().unwrap_or_else(|o| o)
}
