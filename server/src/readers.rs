//! Status lookups beside the writer. SQLite in WAL mode lets readers run while the writer commits, so
//! `GET /v1/facturas/{id}` is answered from read connections of their own ([`Service::lookup`]) instead of queueing
//! behind creates. Only while the writer's simulated SIFEN has nothing due ([`Service::tick_window`], published by
//! the writer after each transaction): then a lookup through the writer would move nothing either, and the answer is
//! the same. Anything else, or a lookup when every reader is busy or a read fails, goes through the writer.

use crate::backend::Backlog;
use crate::faults::StoreError;
use crate::{Engine, ServerConfig};
use kuatia_service::{HttpRequest, HttpResponse, Service};
use std::sync::{Arc, Mutex};

/// How many read connections a server keeps (one per core of the machine kind: the lookups' parsing and
/// serialization are CPU work).
pub const READERS: usize = 2;

/// The writer's tick window, as it published it last ([`Service::tick_window`]).
#[derive(Debug, Default)]
pub struct TickWindow(Mutex<Option<(i64, i64)>>);

impl TickWindow {
    /// Publishes the writer's window after a transaction.
    pub fn publish<S: kuatia_service::Store>(&self, service: &Service<S>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = service.tick_window();
    }

    fn contains(&self, now: i64) -> bool {
        match *self.0.lock().unwrap_or_else(|p| p.into_inner()) {
            Some((since, until)) => since <= now && now < until,
            None => false,
        }
    }
}

/// The read connections and the writer's window.
#[derive(Debug)]
pub struct Readers {
    engines: Vec<Mutex<Engine>>,
    window: Arc<TickWindow>,
}

impl Readers {
    /// [`READERS`] read engines over the SQLite store of `config`, answering with the writer's `window`.
    pub fn open(
        config: &ServerConfig,
        base_url: &str,
        window: Arc<TickWindow>,
    ) -> Result<Readers, String> {
        let mut engines = Vec::with_capacity(READERS);
        for _ in 0..READERS {
            let mut engine = crate::open_engine(config, base_url)?;
            if let Some(store) = engine.service.store.as_sqlite_mut() {
                store.into_reader();
            }
            engines.push(Mutex::new(engine));
        }
        Ok(Readers { engines, window })
    }

    /// The answer to a status lookup from a free reader, or `None`: not a lookup, nothing free, the simulated SIFEN
    /// has something due, or the read failed (the writer answers those).
    pub fn lookup(&self, req: &HttpRequest) -> Option<HttpResponse> {
        // Creates and the rest never touch a reader (no lock, no clock, no read transaction).
        kuatia_service::lookup_id(req)?;
        for engine in &self.engines {
            let Ok(mut engine) = engine.try_lock() else {
                continue;
            };
            let now = kuatia_service::Host::now(&mut engine.host).unix_timestamp();
            if !self.window.contains(now) {
                return None;
            }
            let sqlite = engine.service.store.as_sqlite();
            let snapshot = sqlite.is_some_and(|s| s.begin_read());
            let answer = engine.service.lookup(req);
            if let (true, Some(s)) = (snapshot, sqlite) {
                s.end_read();
            }
            let answer = answer?;
            return match engine.service.store.take_error() {
                None => Some(answer),
                Some(e) => {
                    tracing::warn!(error = %e, "a lookup's read failed; the writer answers it");
                    None
                }
            };
        }
        None
    }

    /// What `GET /metrics` reads of the store, from a read connection in one snapshot (the writer goes on).
    pub fn backlog(&self) -> Option<Result<Backlog, StoreError>> {
        let engine = self.engines.first()?;
        let engine = engine.lock().unwrap_or_else(|p| p.into_inner());
        let sqlite = engine.service.store.as_sqlite()?;
        let snapshot = sqlite.begin_read();
        let backlog = engine.service.store.backlog();
        if snapshot {
            sqlite.end_read();
        }
        Some(backlog)
    }
}
