//! Counters of the issuing pipeline's expensive decisions, for the test that proves each document is validated once
//! (`service/tests/validate_once.rs`): validation runs ([`crate::validate`]), stamp choices
//! ([`crate::profile::Emisor::timbrado_for`]) and certificate checks ([`crate::issue::check_signer`]).
//!
//! Only with the `probe` feature, which no build of a face enables (tests ask for it as a dev-dependency feature);
//! without it the counting calls compile to nothing. The counters are per thread, so tests running side by side do
//! not see each other's work.

/// One counted decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Probe {
    /// A run of every validation rule over a request.
    Validate,
    /// A stamp chosen for a document type, establishment and point.
    Stamp,
    /// A signer's certificate checked against a profile.
    Certificate,
}

#[cfg(feature = "probe")]
mod on {
    use super::Probe;
    use std::cell::Cell;

    thread_local! {
        static COUNTS: Cell<Counts> = const { Cell::new(Counts { validate: 0, stamp: 0, certificate: 0 }) };
    }

    /// How many times each decision ran on this thread since the last [`take`].
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct Counts {
        /// Validation runs.
        pub validate: u32,
        /// Stamp choices.
        pub stamp: u32,
        /// Certificate checks.
        pub certificate: u32,
    }

    /// The counts of this thread, reset to zero.
    pub fn take() -> Counts {
        COUNTS.with(|c| c.replace(Counts::default()))
    }

    pub(crate) fn hit(p: Probe) {
        COUNTS.with(|c| {
            let mut n = c.get();
            match p {
                Probe::Validate => n.validate += 1,
                Probe::Stamp => n.stamp += 1,
                Probe::Certificate => n.certificate += 1,
            }
            c.set(n);
        });
    }
}

#[cfg(feature = "probe")]
pub use on::{take, Counts};

/// Counts one decision (nothing without the `probe` feature).
#[inline(always)]
pub(crate) fn hit(p: Probe) {
    #[cfg(feature = "probe")]
    on::hit(p);
    #[cfg(not(feature = "probe"))]
    let _ = p;
}
