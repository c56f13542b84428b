//! The located read as it was before the position scanner ([`super::locate`]): serde_path_to_error's path, kept for
//! the differential test only (a dev-dependency). [`with`] runs a closure with every located read of this thread
//! going through it, so that any reader of the crate (a create request, an event, a profile) can be run both ways.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::{Failed, Located, Step};
use serde::de::DeserializeOwned;
use std::cell::Cell;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

/// Whether the located reads of this thread go through the old reader.
pub(super) fn on() -> bool {
    ON.with(Cell::get)
}

/// `f` run with the old reader.
pub(super) fn with<R>(f: impl FnOnce() -> R) -> R {
    ON.with(|c| c.set(true));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    ON.with(|c| c.set(false));
    out.unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// The old `located`: serde_path_to_error around serde_json. A path through an enum variant, which the scanner
/// cannot tell from a member, fails the test rather than being compared.
pub(super) fn located<T: DeserializeOwned>(text: &str) -> Result<T, Failed> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let mut steps = Vec::new();
        for segment in e.path() {
            match segment {
                serde_path_to_error::Segment::Map { key } => steps.push(Step::Key(key.clone())),
                serde_path_to_error::Segment::Seq { index } => steps.push(Step::Index(*index)),
                serde_path_to_error::Segment::Enum { variant } => {
                    panic!("a path through variant {variant} of an enum in {text}")
                }
                serde_path_to_error::Segment::Unknown => {}
            }
        }
        Failed::Read(Located {
            steps,
            error: e.into_inner(),
        })
    })?;
    de.end().map_err(Failed::Trailing)?;
    Ok(value)
}
