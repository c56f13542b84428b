//! The engine: the service, its store and the host, used under one lock.

use crate::backend::{self, Backend};
use crate::config::ServerConfig;
use crate::host::SystemHost;
use crate::store::SqliteStore;
use crate::{accounts, faults, pg, readers};
use kuatia_service::{Config, Service, Store};
use std::sync::{Arc, Mutex, MutexGuard};

/// Meta key of the account created on first start.
pub(crate) const ACCOUNT_META: &str = "default_account_id";

/// The service, its store and the host, used under one lock.
pub struct Engine {
    /// The core's service over SQLite or PostgreSQL.
    pub service: Service<Backend>,
    /// Clock, CSPRNG, signers.
    pub host: SystemHost,
    /// The certificates marker ([`backend::CERTIFICATES_META`]) when the accounts' signers were last loaded; `None`
    /// until they are loaded once (key-management commands never load them).
    certificates_seen: Option<Option<String>>,
    /// Where this engine publishes its simulated SIFEN's window after each transaction, for the readers.
    pub(crate) tick_window: Option<Arc<readers::TickWindow>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").finish_non_exhaustive()
    }
}

impl Engine {
    /// Runs `f` inside one SQLite transaction; a failed statement rolls everything back and becomes `Err`.
    pub fn transact<T>(
        &mut self,
        f: impl FnOnce(&mut Service<Backend>, &mut SystemHost) -> T,
    ) -> Result<T, faults::StoreError> {
        self.service.store.begin()?;
        self.refresh_signers();
        let out = f(&mut self.service, &mut self.host);
        if let Err(e) = self.service.store.finish() {
            // Rolled back: the simulated SIFEN's moves made meanwhile were undone too.
            self.service.reschedule();
            return Err(e);
        }
        self.publish_tick_window();
        Ok(out)
    }

    /// Tells the readers when a lookup would move nothing in the simulated SIFEN (after a commit).
    pub(crate) fn publish_tick_window(&self) {
        if let Some(w) = &self.tick_window {
            w.publish(&self.service);
        }
    }

    /// Records the certificates marker the signers are being loaded for.
    pub(crate) fn set_certificates_seen(&mut self, marker: Option<String>) {
        self.certificates_seen = Some(marker);
    }

    /// Reloads the accounts' signers when a certificate was stored since they were loaded: by another node's panel
    /// or a `kuatia accounts set-p12` while serving. One indexed read per request.
    pub(crate) fn refresh_signers(&mut self) {
        let Some(seen) = &self.certificates_seen else {
            return;
        };
        if self.service.store.meta(backend::CERTIFICATES_META) != *seen {
            if let Err(e) = accounts::load_account_signers(self) {
                // The signers loaded before stay; the account's documents get the core's answer until it is fixed.
                tracing::error!(error = %e, "reloading the accounts' certificates failed");
            }
        }
    }

    /// The account created on first start; creates it (with the built-in sandbox profile) and returns its new
    /// sandbox key when there is none yet.
    pub fn ensure_account(&mut self) -> Result<(String, Option<String>), String> {
        self.transact(|svc, host| {
            // Nodes of one shared database starting together create one account.
            svc.store.lock_setup();
            if let Some(id) = svc.store.meta(ACCOUNT_META) {
                if svc.store.account(&id).is_some() {
                    return (id, None);
                }
            }
            let (account, key) = svc.create_account("kuatia serve", host);
            svc.store.set_meta(ACCOUNT_META, &account.id);
            (account.id, Some(key))
        })
        .map_err(String::from)
    }
}

pub(crate) fn lock(engine: &Mutex<Engine>) -> MutexGuard<'_, Engine> {
    // Every critical section is a whole SQLite transaction that `begin` rolls back if it was left open, so the data
    // behind a poisoned lock is consistent.
    engine.lock().unwrap_or_else(|p| p.into_inner())
}

/// Opens the store of a data directory with a host that has no signer and reads `config`'s clock (key management
/// commands, the readers; `start` gives the serving engines their signers).
pub fn open_engine(config: &ServerConfig, base_url: &str) -> Result<Engine, String> {
    let store: Backend = match &config.database {
        Some(options) => Box::new(pg::PgStore::open(options.clone())?),
        None => Box::new(SqliteStore::open(&config.data_dir)?),
    };
    let defaults = Config::default();
    let core = Config {
        base_url: base_url.to_string(),
        sandbox_send_after: config.sandbox_send_after,
        sandbox_answer_after: config.sandbox_answer_after,
        sifen_mode: config.sifen_mode,
        sifen_lot_poll_after: config.sifen_lot_poll_after,
        sifen_retry: config.sifen_retry.clone(),
        allow_private_webhooks: config.allow_private_webhooks,
        webhook_secret_grace: config.webhook_secret_grace,
        idempotency_window: config.idempotency_window,
        email_outbox: config.smtp.is_some(),
        email_retry: config.email_retry.clone(),
        // A job may stay unreported for a whole call (connect + answer) and the report's turn at the lock.
        sifen_lease: config.sifen_lease.unwrap_or(defaults.sifen_lease).max(
            i64::try_from(config.sifen.timeout.as_secs().saturating_mul(2)).unwrap_or(i64::MAX),
        ),
        ..defaults
    };
    Ok(Engine {
        service: Service::new(store, core),
        host: SystemHost::new(None, None)?.with_clock(config.clock.clone()),
        certificates_seen: None,
        tick_window: None,
    })
}
