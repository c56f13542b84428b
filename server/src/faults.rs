//! Storage failures as the host reports them ([`StoreError`]: what SQLite said, named as the core's
//! [`StorageFault`]), and a seeded fault injector ([`FaultPlan`]) that makes the store's calls fail at random, for the
//! fault-injection tests (docs/reliability.md). The answer a failure gets is the core's rule
//! ([`kuatia_service::storage::failure_response`]); this module only names what happened.

use kuatia_service::storage::StorageFault;
use rusqlite::ErrorCode;

/// A failed store operation: the fault it is (for the answer) and SQLite's message (for the log only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    /// What kind of failure, as the core names it.
    pub fault: StorageFault,
    /// What the storage said.
    pub message: String,
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<StoreError> for String {
    fn from(e: StoreError) -> String {
        e.message
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError {
            fault: fault_of(&e),
            message: e.to_string(),
        }
    }
}

impl StoreError {
    /// A failed PostgreSQL statement, named by its SQLSTATE: disk full, read-only, a lock or statement timeout, a
    /// serialization failure or deadlock, too many connections, a lost connection or server are the machine's state
    /// (503); any other answer of the server (a constraint, a type) is 500. Without an answer, the connection failed
    /// (closed, reset, timed out: 503) or the driver refused the data (500). `message` is what to log (see
    /// `pg::describe`).
    pub fn postgres(e: &postgres::Error, message: String) -> StoreError {
        use postgres::error::SqlState;
        let fault = match e.code() {
            Some(c) if *c == SqlState::DISK_FULL => StorageFault::Full,
            Some(c) if *c == SqlState::READ_ONLY_SQL_TRANSACTION => StorageFault::ReadOnly,
            Some(c)
                if [
                    SqlState::LOCK_NOT_AVAILABLE,
                    SqlState::QUERY_CANCELED,
                    SqlState::T_R_SERIALIZATION_FAILURE,
                    SqlState::T_R_DEADLOCK_DETECTED,
                    SqlState::TOO_MANY_CONNECTIONS,
                ]
                .contains(c) =>
            {
                StorageFault::Busy
            }
            // Classes 08 (connection exception), 57P (operator intervention: shutdown, crash), 58 (system error).
            Some(c) if ["08", "57P", "58"].iter().any(|p| c.code().starts_with(p)) => {
                StorageFault::Io
            }
            Some(_) => StorageFault::Other,
            None if e.is_closed() => StorageFault::Io,
            None if io_source(e) => StorageFault::Io,
            None => StorageFault::Other,
        };
        StoreError { fault, message }
    }

    /// The database could not be reached (no connection, or none could be made): the machine's state.
    pub fn unreachable(message: String) -> StoreError {
        StoreError {
            fault: StorageFault::Io,
            message,
        }
    }

    /// A failure that is not SQLite's (a record that does not decode or encode).
    pub fn other(message: impl Into<String>) -> StoreError {
        StoreError {
            fault: StorageFault::Other,
            message: message.into(),
        }
    }
}

/// Whether a driver error without a server answer came from the socket (reset, refused, timed out).
fn io_source(e: &postgres::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.is::<std::io::Error>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// The core's name for a SQLite failure.
pub fn fault_of(e: &rusqlite::Error) -> StorageFault {
    match e.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => StorageFault::Full,
        Some(ErrorCode::ReadOnly) => StorageFault::ReadOnly,
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StorageFault::Busy,
        Some(ErrorCode::SystemIoFailure | ErrorCode::CannotOpen) => StorageFault::Io,
        _ => StorageFault::Other,
    }
}

/// Which failures a [`FaultPlan`] injects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Injected {
    /// `SQLITE_FULL` (what `ENOSPC` becomes).
    Full,
    /// `SQLITE_BUSY` (a lock held longer than `busy_timeout`).
    Busy,
    /// `SQLITE_READONLY`.
    ReadOnly,
}

impl Injected {
    fn error(self) -> rusqlite::Error {
        let (code, text) = match self {
            Injected::Full => (rusqlite::ffi::SQLITE_FULL, "database or disk is full"),
            Injected::Busy => (rusqlite::ffi::SQLITE_BUSY, "database is locked"),
            Injected::ReadOnly => (
                rusqlite::ffi::SQLITE_READONLY,
                "attempt to write a readonly database",
            ),
        };
        rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            Some(format!("{text} (injected)")),
        )
    }
}

/// Seeded, reproducible fault injection: each store call (every statement, `BEGIN` and `COMMIT`) fails with
/// probability `1/one_in`, with a kind drawn from `kinds`. Same seed, same calls: same failures.
#[derive(Debug, Clone)]
pub struct FaultPlan {
    state: u64,
    one_in: u64,
    /// Calls numbered from 1 before this one never fail; from it on, every call fails (0: random only).
    from_call: u64,
    kinds: Vec<Injected>,
    /// Calls seen and failures injected so far.
    pub calls: u64,
    /// Failures injected so far.
    pub injected: u64,
}

impl FaultPlan {
    /// A plan failing about one call in `one_in` with one of `kinds`.
    pub fn new(seed: u64, one_in: u64, kinds: &[Injected]) -> FaultPlan {
        FaultPlan {
            // splitmix64 of the seed, so that small seeds give unrelated streams; never 0 (xorshift's fixed point).
            state: splitmix(seed) | 1,
            one_in: one_in.max(1),
            from_call: 0,
            kinds: kinds.to_vec(),
            calls: 0,
            injected: 0,
        }
    }

    /// A plan letting calls 1 to `n - 1` through and failing every call from the `n`th on with `kind` (a fault that
    /// starts at a chosen point of a transaction, and lasts).
    pub fn from_call(n: u64, kind: Injected) -> FaultPlan {
        FaultPlan {
            from_call: n.max(1),
            ..FaultPlan::new(0, u64::MAX, &[kind])
        }
    }

    fn next_u64(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The failure of this call, if it is one that fails.
    pub fn next_failure(&mut self) -> Option<rusqlite::Error> {
        self.calls += 1;
        if self.from_call > 0 {
            if self.calls < self.from_call {
                return None;
            }
            self.injected += 1;
            return self.kinds.first().map(|k| k.error());
        }
        let r = self.next_u64();
        if self.kinds.is_empty() || !r.is_multiple_of(self.one_in) {
            return None;
        }
        self.injected += 1;
        let pick = usize::try_from((r / self.one_in) % self.kinds.len() as u64).unwrap_or(0);
        self.kinds.get(pick).map(|k| k.error())
    }
}

fn splitmix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_is_reproducible_and_classified() {
        let kinds = [Injected::Full, Injected::Busy, Injected::ReadOnly];
        let run = |seed| {
            let mut p = FaultPlan::new(seed, 5, &kinds);
            (0..1000)
                .map(|_| p.next_failure().map(|e| fault_of(&e)))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let faults = run(7);
        let n = faults.iter().flatten().count();
        assert!((100..300).contains(&n), "{n} failures in 1000 calls at 1/5");
        for f in [
            StorageFault::Full,
            StorageFault::Busy,
            StorageFault::ReadOnly,
        ] {
            assert!(faults.contains(&Some(f)), "{f:?} is injected");
        }
    }
}
