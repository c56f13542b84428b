//! `kuatia issue FILE`: one document, confirmed once its file is on disk.

use super::args::IssueArgs;
use super::host::{load_signer, open_numbering, write_durably, OsRandom};
use crate::invoice::{at_arg, profile};
use crate::output::{read_input, Outcome};
use kuatia_core::issue::{issue_pending, Detail, IssueError, Stage, Summary};
use serde::Serialize;

/// `kuatia issue`'s answer: the document's summary between the invoice-like id and status and the file written.
#[derive(Serialize)]
struct IssueOutput<'a> {
    id: String,
    status: &'a str,
    #[serde(flatten)]
    summary: Summary,
    xml: String,
    test_only: bool,
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

/// `kuatia issue FILE`: validate, number, build, sign, add the QR, write `<out>/<cdc>.xml`.
pub fn run(args: IssueArgs) -> Outcome {
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
        Ok(Outcome::ok(&IssueOutput {
            id: format!("fact_{}", &issued.cdc),
            status: "signed",
            summary: Summary::of(&issued, Detail::Document),
            xml: path.display().to_string(),
            test_only,
        }))
    };
    run().unwrap_or_else(|o| o)
}
