//! `kuatia serve`: the `/v1` service of [`kuatia_service`] behind a real HTTP server.
//!
//! The server is a thin host. Every request goes, whole, through one catch-all handler into
//! [`Service::handle`]; the server owns no route, rule or status code of the API. What it adds is the machine's
//! side: the socket ([axum]), durable storage ([`SqliteStore`]), the clock, the CSPRNG and the signers
//! ([`SystemHost`]), a background task that advances the simulated SIFEN ([`Service::tick`]) and a webhook worker
//! that POSTs [`Service::due_deliveries`] and reports each outcome ([`Service::report_delivery`]).
//!
//! Concurrency: the [`Service`] and its store sit behind a `std::sync::Mutex` (one engine over SQLite, `--db-pool`
//! engines over PostgreSQL), and requests reach it through [`commit::Committer`]: the requests waiting together run
//! in one transaction (`BEGIN IMMEDIATE … COMMIT`, one savepoint each) and share its sync, and each is answered only
//! after that commit. A create leaves the engine to be signed ([`Service::handle_step`], then
//! [`kuatia_service::CreateJob::sign`] on the blocking pool) and comes back to be stored
//! ([`Service::finish_create`]), so signatures run on every core while the single writer keeps idempotency keys and
//! numbering race-free without any rule in the host (see docs/benchmarks.md for the measured figures).
// Unsafe code is confined to `sifen_openssl` (the OpenSSL ENGINE that signs through the core's Signer).
#![deny(unsafe_code)]

/// `SELECT` of invoice rows as both stores decode them (`query_invoices` of [`store::SqliteStore`] and
/// [`pg::PgStore`]): the record's JSON and its signed XML, kept apart in `invoice_xml` (SQLite migration 6,
/// PostgreSQL migration 2), followed by the rest of the statement (`FROM invoices …`).
macro_rules! select_invoices {
    ($rest:literal) => {
        concat!(
            "SELECT json, (SELECT xml FROM invoice_xml x WHERE x.seq = invoices.seq) ",
            $rest
        )
    };
}

pub mod accounts;
mod app;
pub mod archive;
mod archive_http;
pub mod backend;
pub mod backup;
pub mod commit;
mod config;
pub mod conn;
mod delivery;
pub mod email;
mod email_test;
mod engine;
pub mod faults;
pub mod host;
pub mod metrics;
pub mod numbering;
pub mod panel;
pub mod pg;
pub mod pool;
pub mod readers;
pub mod schema;
pub mod sifen;
pub mod sifen_openssl;
pub mod signing;
pub mod store;
mod tick;

pub use app::REQUEST_ID_HEADER;
use axum::Router;
pub use backend::Backend;
pub use config::{ServerConfig, DATABASE_ENV};
pub(crate) use engine::lock;
pub use engine::{open_engine, Engine};
pub use host::{Clock, SystemHost};
use kuatia_service::auth::Environment;
// The crate documentation links the service it hosts.
#[cfg(doc)]
use kuatia_service::Service;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
pub use store::SqliteStore;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// `kuatia keys create [--live]`: a new key for the data directory's account, shown once (stored hashed).
pub fn create_key(data_dir: PathBuf, env: Environment) -> Result<String, String> {
    accounts::create_key(data_dir, env, None)
}

/// A running server.
pub struct RunningServer {
    /// The bound address.
    pub addr: SocketAddr,
    /// Base URL used in `kude_url`.
    pub base_url: String,
    /// The account of this data directory.
    pub account_id: String,
    /// The sandbox key created on first start (print it once); `None` on later starts.
    pub new_sandbox_key: Option<String>,
    /// Where `GET /metrics` is served (`--metrics-addr`), if anywhere.
    pub metrics_addr: Option<SocketAddr>,
    engine: Arc<Mutex<Engine>>,
    committer: Arc<commit::Committer>,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for RunningServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningServer")
            .field("addr", &self.addr)
            .field("account_id", &self.account_id)
            .finish_non_exhaustive()
    }
}

impl RunningServer {
    /// Runs `f` on the engine under its lock (tests, admin tasks).
    pub fn with_engine<T>(&self, f: impl FnOnce(&mut Engine) -> T) -> T {
        f(&mut lock(&self.engine))
    }

    /// Stops accepting connections, lets in-flight requests finish, stops the background tasks.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        for t in self.tasks {
            let _ = t.await;
        }
        // The writers hold the engines (and SQLite's connection): released before this returns.
        let committer = self.committer;
        let _ = tokio::task::spawn_blocking(move || committer.stop()).await;
    }
}

/// Binds, opens the data directory (creating the sandbox account on first start) and spawns the HTTP server, the
/// simulated-SIFEN tick and the webhook worker on the current tokio runtime.
pub async fn start(config: ServerConfig) -> Result<RunningServer, String> {
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .map_err(|e| format!("{}: {e}", config.addr))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let metrics_listener = match config.metrics_addr {
        Some(a) => Some(metrics::bind(a).await?),
        None => None,
    };
    let metrics_addr = match &metrics_listener {
        Some(l) => Some(l.local_addr().map_err(|e| e.to_string())?),
        None => None,
    };
    let figures = Arc::new(metrics::Metrics::new());
    let base_url = config
        .base_url
        .clone()
        .unwrap_or_else(|| format!("http://{addr}"));
    let sandbox = kuatia_core::sign::sandbox_test_signer()
        .map_err(|e| format!("built-in sandbox certificate: {e}"))?;
    let production_signer = config.production_signer.map(Arc::new);
    let production_profile = config.production_profile;
    // Each account's documents travel under its own certificate; `--p12` covers the accounts without one.
    let sifen_clients = sifen::SifenClients::new(
        production_signer
            .clone()
            .map(|s| s as Arc<dyn kuatia_core::sign::Signer>),
        &config.sifen,
    )?;
    // The stores block (PostgreSQL's client on a runtime of its own): opened and set up off the async threads.
    let setup = ServerConfig {
        production_signer: None,
        metrics_token: None,
        production_profile: None,
        sifen: config.sifen.clone(),
        sifen_retry: config.sifen_retry.clone(),
        database: config.database.clone(),
        data_dir: config.data_dir.clone(),
        trusted_proxies: config.trusted_proxies.clone(),
        clock: config.clock.clone(),
        base_url: None,
        smtp: config.smtp.clone(),
        email_retry: config.email_retry.clone(),
        ..config
    };
    let base = base_url.clone();
    let window = Arc::new(readers::TickWindow::default());
    let writer_window = window.clone();
    let (engine, others, readers, account_id, new_sandbox_key, setup) =
        tokio::task::spawn_blocking(move || {
            let mut engine = open_engine(&setup, &base)?;
            engine.tick_window = Some(writer_window);
            engine.host = SystemHost::new(Some(sandbox), production_signer.clone())?
                .with_clock(setup.clock.clone());
            let (account_id, new_sandbox_key) = engine.ensure_account()?;
            engine
                .host
                .set_seal_key(panel::server_key(&setup.data_dir)?);
            accounts::load_account_signers(&mut engine)?;
            if let Some(profile) = production_profile {
                // Host configuration, not a rule: the account's production profile comes from the operator's file.
                let id = account_id.clone();
                engine.transact(|svc, _| {
                    if let Some(mut account) = svc.store.account(&id) {
                        account.production = Some(profile);
                        svc.store.put_account(account);
                    }
                })?;
            }
            // More engines over PostgreSQL (`--db-pool`): the same host set-up, each with its own connection.
            let mut others = Vec::new();
            if setup.database.is_some() {
                for _ in 1..setup.db_pool.max(1) {
                    let mut more = open_engine(&setup, &base)?;
                    let sandbox = kuatia_core::sign::sandbox_test_signer()
                        .map_err(|e| format!("built-in sandbox certificate: {e}"))?;
                    more.host = SystemHost::new(Some(sandbox), production_signer.clone())?
                        .with_clock(setup.clock.clone());
                    more.host.set_seal_key(panel::server_key(&setup.data_dir)?);
                    accounts::load_account_signers(&mut more)?;
                    others.push(more);
                }
            }
            let readers = match setup.database {
                None => Some(Arc::new(readers::Readers::open(&setup, &base, window)?)),
                Some(_) => None,
            };
            Ok::<_, String>((engine, others, readers, account_id, new_sandbox_key, setup))
        })
        .await
        .map_err(|e| format!("opening the store: {e}"))??;
    let engine = Arc::new(Mutex::new(engine));
    let engines = Arc::new(pool::Engines::new(engine.clone(), others));
    let (stop, stopped) = watch::channel(false);

    let committer = Arc::new(commit::Committer::new(&engines)?);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let app = Router::new().fallback(app::handle).with_state(app::App {
        committer: committer.clone(),
        readers: readers.clone(),
        archive: Arc::new(archive_http::ArchiveSource::new(setup, base_url.clone())),
        signing: Arc::new(signing::Signing::start(cores, figures.signing_queue())?),
        metrics: figures.clone(),
        max_body: config.max_body,
        limits: config.limits,
        trusted_proxies: config.trusted_proxies.clone().into(),
        panel: kuatia_panel::Panel::new(),
        smtp: config.smtp.clone().map(Arc::new),
    });
    tracing::info!(limits = ?config.limits, "connection limits");
    let http = tokio::spawn(conn::serve(listener, app, config.limits, stopped.clone()));
    let mut tasks = vec![
        http,
        tokio::spawn(tick::tick_loop(
            engine.clone(),
            config.tick_interval,
            // SQLite has one writer, this engine: its schedule holds every invoice in flight once the first full
            // tick has seen those of a previous life. A periodic walk would only stall the writer (it clones every
            // invoice in flight: ~6 000 under the load test, 40 MB).
            config.database.is_some().then_some(tick::FULL_TICK_EVERY),
            stopped.clone(),
        )),
    ];
    if config.database.is_none() {
        let checkpointer = store::Checkpointer::open(&config.data_dir)?;
        lock(&engine).service.store.defer_checkpoints()?;
        tasks.push(tokio::spawn(checkpoint_loop(checkpointer, stopped.clone())));
    }
    // Always running: a certificate may arrive at run time (panel upload), and with none there is no due job.
    tasks.push(tokio::spawn(sifen::sifen_loop(
        engine.clone(),
        sifen_clients,
        config.sifen.clone(),
        stopped.clone(),
        figures.clone(),
    )));
    if let Some(listener) = metrics_listener {
        let scrape = metrics::Scrape {
            metrics: figures.clone(),
            engine: engine.clone(),
            readers,
            clock: config.clock.clone(),
            token: config.metrics_token.as_deref().map(Arc::from),
        };
        tasks.push(tokio::spawn(metrics::serve(
            listener,
            scrape,
            stopped.clone(),
        )));
    }
    // Always running: an account may save its own SMTP settings at run time (panel), with or without `--smtp-url`.
    tasks.push(tokio::spawn(email::email_loop(
        engine.clone(),
        config.smtp.clone().map(Arc::new),
        email::EmailPolicy {
            period: config.email_interval,
            lease: config.email_lease.max(1),
        },
        stopped.clone(),
        config.clock.clone(),
    )));
    if config.deliver_webhooks {
        let client =
            delivery::webhook_client(config.webhook_timeout, config.allow_private_webhooks)?;
        tasks.push(tokio::spawn(delivery::webhook_loop(
            engine.clone(),
            client,
            delivery::WebhookPolicy {
                period: config.webhook_interval,
                insecure_http: config.insecure_webhooks_http,
                allow_private: config.allow_private_webhooks,
                per_endpoint: config.webhook_concurrency.max(1),
                // A claimed delivery stays with this node for one POST (connect + answer) and its report.
                lease: i64::try_from(config.webhook_timeout.as_secs().saturating_mul(2))
                    .unwrap_or(i64::MAX)
                    .saturating_add(5),
            },
            stopped,
            config.clock.clone(),
            figures,
        )));
    }
    tracing::info!(%addr, base_url = %base_url, data = %config.data_dir.display(), "kuatia serve listening");
    Ok(RunningServer {
        addr,
        base_url,
        account_id,
        new_sandbox_key,
        metrics_addr,
        engine,
        committer,
        stop,
        tasks,
    })
}

/// Checkpoints the SQLite WAL from its own connection every 200 ms (see [`store::Checkpointer`]).
async fn checkpoint_loop(checkpointer: store::Checkpointer, mut stop: watch::Receiver<bool>) {
    let checkpointer = Arc::new(Mutex::new(checkpointer));
    let mut interval = tokio::time::interval(Duration::from_millis(200));
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = interval.tick() => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        let c = checkpointer.clone();
        let r =
            tokio::task::spawn_blocking(move || c.lock().unwrap_or_else(|p| p.into_inner()).run())
                .await;
        if let Ok(Err(e)) = r {
            // The writer checkpoints by itself past 64 MB of WAL; this only delays the copy.
            tracing::warn!(error = %e, "WAL checkpoint failed");
        }
    }
}
