//! The engines that serve requests: one over SQLite (its single writer serialises requests anyway), or `--db-pool N`
//! over PostgreSQL, each with its own connection, so a node has up to N requests in flight. Background work (the
//! simulated SIFEN's tick, the SIFEN and webhook workers) uses the first.

use crate::{lock, Engine};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

/// A fixed set of engines, handed out free one first.
#[derive(Debug)]
pub struct Engines {
    all: Vec<Arc<Mutex<Engine>>>,
    next: AtomicUsize,
}

impl Engines {
    /// `first` (shared with the background tasks) and the others.
    pub fn new(first: Arc<Mutex<Engine>>, others: Vec<Engine>) -> Engines {
        let mut all = vec![first];
        all.extend(others.into_iter().map(|e| Arc::new(Mutex::new(e))));
        Engines {
            all,
            next: AtomicUsize::new(0),
        }
    }

    /// Every engine, the first one first.
    pub fn all(&self) -> &[Arc<Mutex<Engine>>] {
        &self.all
    }

    /// How many engines there are.
    pub fn len(&self) -> usize {
        self.all.len()
    }

    /// Whether there is none (never: `new` takes a first one).
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// A free engine if there is one, else the next one in turn (waiting for it).
    pub fn lock(&self) -> MutexGuard<'_, Engine> {
        let n = self.all.len().max(1);
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        for i in 0..n {
            if let Some(engine) = self.all.get((start + i) % n) {
                match engine.try_lock() {
                    Ok(guard) => return guard,
                    // Every critical section is a whole transaction, rolled back if left open (see `lock`).
                    Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                    Err(TryLockError::WouldBlock) => {}
                }
            }
        }
        // `new` always stores a first engine.
        lock(&self.all[start])
    }
}
