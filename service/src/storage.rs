//! How a failure of the host's storage becomes an answer, the same on every host: the host names what its store
//! reported ([`StorageFault`]), the core decides the status, the code and the message ([`failure_response`]).
//!
//! Whatever the fault, the host has rolled the request back: nothing was applied, so retrying is always safe.

use super::{refuse, HttpResponse};
#[cfg(test)]
use kuatia_core::error::code;
use kuatia_core::error::Finding;
use kuatia_core::rule;

/// What the host's store reported when a request could not be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StorageFault {
    /// No space left on the data's device (`ENOSPC`, `SQLITE_FULL`).
    Full,
    /// The data (directory, file or device) is read-only (`EROFS`, `SQLITE_READONLY`).
    ReadOnly,
    /// Another process holds the data locked longer than the host waits (`SQLITE_BUSY`, `SQLITE_LOCKED`).
    Busy,
    /// The device failed to read or write (`EIO`, `SQLITE_IOERR`, `SQLITE_CANTOPEN`).
    Io,
    /// The host is shutting down and takes no more writes (another node, or this one restarted, will).
    ShuttingDown,
    /// Anything else: a stored record that does not decode, a schema the host does not know.
    Other,
}

impl StorageFault {
    /// Whether the fault is the machine's state, which the operator can fix without changing the data (a retry
    /// later can succeed), rather than a fault of the data itself.
    pub fn is_transient(self) -> bool {
        !matches!(self, StorageFault::Other)
    }

    /// The finding of the answer: what happened, that nothing was changed and, for a transient fault, to retry.
    fn finding(self) -> Finding {
        match self {
            StorageFault::Full => rule::storage_full(""),
            StorageFault::ReadOnly => rule::storage_read_only(""),
            StorageFault::Busy => rule::storage_busy(""),
            StorageFault::Io => rule::storage_io(""),
            StorageFault::ShuttingDown => rule::storage_shutting_down(""),
            StorageFault::Other => rule::storage_failed(""),
        }
    }
}

/// Seconds a client is told to wait before retrying after a transient storage fault (`Retry-After`).
pub const RETRY_AFTER_SECONDS: u32 = 5;

/// The answer to a request the host could not store (and rolled back): a transient fault is
/// 503 `STORAGE_UNAVAILABLE` with `Retry-After`, any other 500 `STORAGE_ERROR`.
pub fn failure_response(fault: StorageFault) -> HttpResponse {
    if fault.is_transient() {
        let mut r = refuse(503, fault.finding());
        r.headers
            .push(("Retry-After".into(), RETRY_AFTER_SECONDS.to_string()));
        r
    } else {
        refuse(500, fault.finding())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_faults_are_503_with_retry_after_and_others_500() {
        for f in [
            StorageFault::Full,
            StorageFault::ReadOnly,
            StorageFault::Busy,
            StorageFault::Io,
            StorageFault::ShuttingDown,
        ] {
            let r = failure_response(f);
            assert_eq!(r.status, 503);
            assert_eq!(r.json()["error"]["code"], code::STORAGE_UNAVAILABLE);
            assert_eq!(r.header("Retry-After"), Some("5"));
        }
        let r = failure_response(StorageFault::Other);
        assert_eq!(r.status, 500);
        assert_eq!(r.json()["error"]["code"], code::STORAGE_ERROR);
        assert_eq!(r.header("Retry-After"), None);
    }
}
