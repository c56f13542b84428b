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
pub mod backend;
pub mod commit;
pub mod conn;
pub mod faults;
pub mod host;
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

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use axum::Router;
pub use backend::Backend;
pub use host::{Clock, SystemHost};
use kuatia_core::profile::Emisor;
use kuatia_core::sign::SoftwareSigner;
use kuatia_service::auth::Environment;
use kuatia_service::storage::StorageFault;
use kuatia_service::transmit::SifenMode;
use kuatia_service::webhook::{self, Delivery};
use kuatia_service::{Config, HttpRequest, HttpResponse, Service, Step, Store};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
pub use store::SqliteStore;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Environment variable naming the PostgreSQL database (`kuatia serve` without `--database`, `kuatia keys`,
/// `kuatia accounts`); unset: SQLite in the data directory.
pub const DATABASE_ENV: &str = "KUATIA_DATABASE_URL";

/// Meta key of the account created on first start.
const ACCOUNT_META: &str = "default_account_id";

/// Everything `kuatia serve` can be told.
pub struct ServerConfig {
    /// Address to listen on (`127.0.0.1:0` picks a free port).
    pub addr: SocketAddr,
    /// Directory of the SQLite database.
    pub data_dir: PathBuf,
    /// A shared PostgreSQL database instead of SQLite (`--database`): several nodes may serve it together.
    pub database: Option<pg::PgOptions>,
    /// Absolute base URL for `kude_url` (default: `http://<bound address>`).
    pub base_url: Option<String>,
    /// Sandbox: seconds until the simulated SIFEN receives an invoice (`pending → sent`).
    pub sandbox_send_after: i64,
    /// Sandbox: seconds until the simulated SIFEN answers (`sent → approved/rejected`).
    pub sandbox_answer_after: i64,
    /// Period of the background task calling [`Service::tick`].
    pub tick_interval: Duration,
    /// Period of the webhook worker.
    pub webhook_interval: Duration,
    /// Timeout of one webhook POST (connect + answer).
    pub webhook_timeout: Duration,
    /// Largest request body accepted, in bytes.
    pub max_body: usize,
    /// TEST ONLY: deliver webhooks whose parsed host is loopback (`127.0.0.0/8`, `::1`, `localhost`) over plain HTTP,
    /// to the same port.
    pub insecure_webhooks_http: bool,
    /// Accept webhook URLs that name this machine or private, loopback or link-local addresses, at registration and
    /// at delivery (off by default: SSRF). `--allow-private-webhooks`.
    pub allow_private_webhooks: bool,
    /// Webhook POSTs in flight at once to one webhook; other webhooks never wait on it.
    pub webhook_concurrency: usize,
    /// Seconds a rotated webhook secret keeps signing beside the new one (`--webhook-secret-grace`).
    pub webhook_secret_grace: i64,
    /// Whether the webhook worker runs (off: deliveries stay queued in SQLite).
    pub deliver_webhooks: bool,
    /// Signer of production invoices (a P12); `None`: live keys get the core's `CERTIFICATE_MISSING`.
    pub production_signer: Option<SoftwareSigner>,
    /// Production emitter profile stored on the account at start; `None` keeps what is stored.
    pub production_profile: Option<Emisor>,
    /// Production: one synchronous `recibe` per document, or lots.
    pub sifen_mode: SifenMode,
    /// Production, lot mode: seconds before a lot is queried, and between queries.
    pub sifen_lot_poll_after: i64,
    /// Production: seconds to wait after the 1st, 2nd, ... failed SIFEN attempt in a row (the last repeats).
    pub sifen_retry: Vec<i64>,
    /// How production documents reach SIFEN (the worker runs when there is a production signer:
    /// `--p12` or an account's own).
    pub sifen: sifen::SifenTransport,
    /// The clock of the service and of the webhook worker (the system clock; tests make it jump).
    pub clock: Clock,
    /// Production: seconds a SIFEN job stays with the node that took it before another node may query it by CDC;
    /// `None`: the core's default, at least twice the SIFEN timeout.
    pub sifen_lease: Option<i64>,
    /// PostgreSQL: engines (each with its own connection) serving requests at once on this node (`--db-pool`).
    pub db_pool: usize,
    /// Time limits of every connection and request, and the cap on open connections (docs/operations.md).
    pub limits: conn::Limits,
    /// Reverse proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`); the panel throttles sign-ins
    /// by client address.
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

impl std::fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConfig")
            .field("addr", &self.addr)
            .field("data_dir", &self.data_dir)
            .field("base_url", &self.base_url)
            .field("production_signer", &self.production_signer.is_some())
            .finish_non_exhaustive()
    }
}

impl ServerConfig {
    /// Defaults for a data directory: 127.0.0.1:8080, the core's sandbox timings, 500 ms tick, 1 MiB bodies.
    pub fn new(data_dir: PathBuf) -> ServerConfig {
        let core = Config::default();
        ServerConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            data_dir,
            database: None,
            base_url: None,
            sandbox_send_after: core.sandbox_send_after,
            sandbox_answer_after: core.sandbox_answer_after,
            tick_interval: Duration::from_millis(500),
            webhook_interval: Duration::from_millis(500),
            webhook_timeout: Duration::from_secs(10),
            max_body: 1024 * 1024,
            insecure_webhooks_http: false,
            allow_private_webhooks: false,
            webhook_concurrency: 4,
            webhook_secret_grace: core.webhook_secret_grace,
            deliver_webhooks: true,
            production_signer: None,
            production_profile: None,
            sifen_mode: core.sifen_mode,
            sifen_lot_poll_after: core.sifen_lot_poll_after,
            sifen_retry: core.sifen_retry,
            sifen: sifen::SifenTransport::default(),
            clock: Clock::system(),
            sifen_lease: None,
            db_pool: 1,
            limits: conn::Limits::default(),
            trusted_proxies: Vec::new(),
        }
    }
}

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
    tick_window: Option<Arc<readers::TickWindow>>,
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
    fn refresh_signers(&mut self) {
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

#[derive(Clone)]
struct App {
    committer: Arc<commit::Committer>,
    /// Status lookups beside the writer (SQLite).
    readers: Option<Arc<readers::Readers>>,
    /// The threads that sign creates.
    signing: Arc<signing::Signing>,
    max_body: usize,
    /// `--body-timeout` and `--request-timeout` ([`conn::Limits`]).
    limits: conn::Limits,
    /// `--trusted-proxy`.
    trusted_proxies: Arc<[std::net::IpAddr]>,
    /// The account panel at `/panel`: one per node, so a client's failed sign-ins count whichever engine serves it.
    panel: kuatia_panel::Panel,
}

/// Binds, opens the data directory (creating the sandbox account on first start) and spawns the HTTP server, the
/// simulated-SIFEN tick and the webhook worker on the current tokio runtime.
pub async fn start(config: ServerConfig) -> Result<RunningServer, String> {
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .map_err(|e| format!("{}: {e}", config.addr))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
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
        production_profile: None,
        sifen: config.sifen.clone(),
        sifen_retry: config.sifen_retry.clone(),
        database: config.database.clone(),
        data_dir: config.data_dir.clone(),
        trusted_proxies: config.trusted_proxies.clone(),
        clock: config.clock.clone(),
        base_url: None,
        ..config
    };
    let base = base_url.clone();
    let window = Arc::new(readers::TickWindow::default());
    let writer_window = window.clone();
    let (engine, others, readers, account_id, new_sandbox_key) =
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
            Ok::<_, String>((engine, others, readers, account_id, new_sandbox_key))
        })
        .await
        .map_err(|e| format!("opening the store: {e}"))??;
    let engine = Arc::new(Mutex::new(engine));
    let engines = Arc::new(pool::Engines::new(engine.clone(), others));
    let (stop, stopped) = watch::channel(false);

    let committer = Arc::new(commit::Committer::new(&engines)?);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let app = Router::new().fallback(handle).with_state(App {
        committer: committer.clone(),
        readers,
        signing: Arc::new(signing::Signing::start(cores)?),
        max_body: config.max_body,
        limits: config.limits,
        trusted_proxies: config.trusted_proxies.clone().into(),
        panel: kuatia_panel::Panel::new(),
    });
    tracing::info!(limits = ?config.limits, "connection limits");
    let http = tokio::spawn(conn::serve(listener, app, config.limits, stopped.clone()));
    let mut tasks = vec![
        http,
        tokio::spawn(tick_loop(
            engine.clone(),
            config.tick_interval,
            // SQLite has one writer, this engine: its schedule holds every invoice in flight once the first full
            // tick has seen those of a previous life. A periodic walk would only stall the writer (it clones every
            // invoice in flight: ~6 000 under the load test, 40 MB).
            config.database.is_some().then_some(FULL_TICK_EVERY),
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
    )));
    if config.deliver_webhooks {
        let client = webhook_client(config.webhook_timeout, config.allow_private_webhooks)?;
        tasks.push(tokio::spawn(webhook_loop(
            engine.clone(),
            client,
            WebhookPolicy {
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
        )));
    }
    tracing::info!(%addr, base_url = %base_url, data = %config.data_dir.display(), "kuatia serve listening");
    Ok(RunningServer {
        addr,
        base_url,
        account_id,
        new_sandbox_key,
        engine,
        committer,
        stop,
        tasks,
    })
}

fn json_error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = serde_json::json!({"ok": false, "error": {"code": code, "message": message}});
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    r
}

fn to_response(r: HttpResponse) -> Response {
    let mut out = Response::new(Body::from(r.body));
    *out.status_mut() = StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    for (k, v) in r.headers {
        if let (Ok(k), Ok(v)) = (
            HeaderName::from_bytes(k.as_bytes()),
            HeaderValue::from_str(&v),
        ) {
            out.headers_mut().append(k, v);
        }
    }
    out
}

/// Header naming each request in the answer and in the log (`req_` + 24 random hex digits).
pub const REQUEST_ID_HEADER: &str = "Request-Id";

fn request_id() -> String {
    let mut b = [0u8; 12];
    // A failed OS generator still yields a well-formed id; it only names a log line.
    let _ = getrandom::fill(&mut b);
    format!("req_{}", kuatia_service::auth::hex(&b))
}

/// Reads a request body to its end, keeping nothing.
async fn drain(mut body: Body) {
    use http_body_util::BodyExt;
    while let Some(Ok(_)) = body.frame().await {}
}

/// The only handler: the request, whole, into [`Service::handle`]; every answer carries a `Request-Id`, also logged.
/// An answer not ready within `--request-timeout` is 503 `REQUEST_TIMEOUT` (the work goes on: a create is stored and
/// its `Idempotency-Key` finds it).
async fn handle(State(app): State<App>, req: Request) -> Response {
    let id = request_id();
    let deadline = app.limits.request;
    let mut response = match tokio::time::timeout(deadline, handle_inner(app, req, &id)).await {
        Ok(r) => r,
        Err(_) => {
            tracing::warn!(request_id = %id, "request timed out");
            let mut r = json_error(
                StatusCode::SERVICE_UNAVAILABLE,
                kuatia_core::code::REQUEST_TIMEOUT,
                &format!(
                    "no answer within {} s; retry (a create with the same Idempotency-Key is not repeated)",
                    deadline.as_secs_f64()
                ),
            );
            r.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                HeaderValue::from_static("1"),
            );
            r
        }
    };
    if let Ok(v) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, v);
    }
    response
}

/// A request through the engine: its store work in the writer's next group; a create leaves it to be signed on a
/// signing thread (its number reserved and committed) and comes back to be stored.
async fn serve(
    app: &App,
    request: HttpRequest,
    client: Option<std::net::IpAddr>,
) -> Result<HttpResponse, commit::Failed> {
    let panel = app.panel.clone();
    let (step, signer) = app
        .committer
        .call(move |svc, host| {
            // `/panel*` is the panel's, anything else the service's.
            let step = panel.handle_step(svc, &request, client, host);
            // A P12 uploaded through the panel is written in the same transaction.
            panel::persist(svc, host);
            let signer = match &step {
                Step::Sign(job) => host.shared_signer(job.account_id(), job.environment()),
                Step::Done(_) => None,
            };
            (step, signer)
        })
        .await?;
    match step {
        Step::Done(response) => Ok(response),
        Step::Sign(job) => {
            let signed = app
                .signing
                .sign(job, signer)
                .await
                .ok_or(commit::Failed::Panic)?;
            app.committer
                .call(move |svc, host| svc.finish_create(signed, host))
                .await
        }
    }
}

async fn handle_inner(app: App, req: Request, request_id: &str) -> Response {
    let started = Instant::now();
    let (parts, body) = req.into_parts();
    let client = parts.extensions.get::<conn::Peer>().map(|p| {
        let forwarded = parts
            .headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok());
        conn::client_address(p.0.ip(), forwarded, &app.trusted_proxies)
    });
    // The body within `--body-timeout` of the head; a client that sends it slower is answered 408 and closed.
    let timed_out = || {
        let mut r = json_error(
            StatusCode::REQUEST_TIMEOUT,
            kuatia_core::code::REQUEST_TIMEOUT,
            &format!(
                "the request body did not arrive within {} s",
                app.limits.body.as_secs_f64()
            ),
        );
        r.headers_mut().insert(
            axum::http::header::CONNECTION,
            HeaderValue::from_static("close"),
        );
        r
    };
    let declared = parts
        .headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    let too_large = || {
        json_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            kuatia_core::code::TOO_LARGE,
            &format!("request bodies are limited to {} bytes", app.max_body),
        )
    };
    if let Some(n) = declared.filter(|n| *n > app.max_body) {
        // A body up to four times the limit is read and dropped first, so the client (still sending) gets the 413
        // rather than a broken pipe; a larger one is cut off.
        if n <= app.max_body.saturating_mul(4)
            && tokio::time::timeout(app.limits.body, drain(body))
                .await
                .is_err()
        {
            return timed_out();
        }
        return too_large();
    }
    let Ok(read) =
        tokio::time::timeout(app.limits.body, axum::body::to_bytes(body, app.max_body)).await
    else {
        return timed_out();
    };
    let Ok(bytes) = read else {
        return too_large();
    };
    let path = parts.uri.path().to_string();
    let method = parts.method.to_string();
    let request = HttpRequest {
        method: method.clone(),
        path: parts
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_string())
            .unwrap_or_else(|| path.clone()),
        // Header values that are not text (never sent by real clients) cannot carry anything the API reads.
        headers: parts
            .headers
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect(),
        body: bytes.to_vec(),
    };
    // A lookup from a reader takes tens of microseconds (a cached page, one row): answered here. Everything else
    // waits for the writer's commit without holding a thread.
    let outcome = match app.readers.as_ref().and_then(|r| r.lookup(&request)) {
        Some(answer) => Ok(answer),
        // A task of its own: a client that hangs up does not stop a create half-way (its number would be a gap).
        None => {
            let app = app.clone();
            tokio::spawn(async move { serve(&app, request, client).await })
                .await
                .unwrap_or(Err(commit::Failed::Panic))
        }
    };
    let response = match outcome {
        Ok(r) => to_response(r),
        Err(commit::Failed::Store(e)) => {
            if e.fault == StorageFault::ShuttingDown {
                tracing::warn!("shutting down; request refused");
            } else {
                tracing::error!(error = %e, fault = ?e.fault, "storage failure; request rolled back");
            }
            to_response(kuatia_service::storage::failure_response(e.fault))
        }
        Err(commit::Failed::Panic) => {
            tracing::error!("request panicked; rolled back");
            json_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                kuatia_core::code::INTERNAL_ERROR,
                "internal error",
            )
        }
    };
    // Method, path and status only: headers carry keys and bodies carry customer data.
    tracing::info!(
        request_id,
        %method,
        %path,
        status = response.status().as_u16(),
        ms = started.elapsed().as_secs_f64() * 1e3,
        "request"
    );
    response
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

/// At most how many batches of the simulated SIFEN ([`kuatia_service::TICK_BATCH`] moves each) the tick loop runs
/// per period.
const DRAIN_BATCHES: usize = 256;

/// Every how many tick periods the simulated SIFEN looks at every invoice in flight, not only its schedule, when other
/// engines or nodes share the store (PostgreSQL).
const FULL_TICK_EVERY: u32 = 10;

/// Advances the simulated SIFEN every `period`.
async fn tick_loop(
    engine: Arc<Mutex<Engine>>,
    period: Duration,
    full_every: Option<u32>,
    mut stop: watch::Receiver<bool>,
) {
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut round = 0u32;
    loop {
        tokio::select! {
            _ = interval.tick() => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        let engine = engine.clone();
        // What this engine scheduled, every period; everything in the store (other engines' and nodes' invoices)
        // at the first period and then every `full_every` periods, so the walk over every invoice in flight stays rare.
        let full = round == 0 || full_every.is_some_and(|n| round.is_multiple_of(n));
        round = round.wrapping_add(1);
        let r = tokio::task::spawn_blocking(move || {
            // Everything due, a batch per transaction (the lock is released between them, so requests interleave):
            // without requests this loop is what moves the simulated SIFEN.
            for _ in 0..DRAIN_BATCHES {
                let more = lock(&engine).transact(|svc, host| {
                    if full {
                        svc.tick(host)
                    } else {
                        svc.tick_due(host)
                    }
                    let now = kuatia_service::Host::now(host).unix_timestamp();
                    svc.tick_window().is_some_and(|(_, next)| next <= now)
                });
                if !more.map_err(|e| e.to_string())? || full {
                    break;
                }
            }
            Ok::<_, String>(())
        })
        .await;
        if let Ok(Err(e)) = r {
            tracing::error!(error = %e, "tick rolled back");
        }
    }
}

/// How the webhook worker delivers.
#[derive(Debug, Clone, Copy)]
struct WebhookPolicy {
    period: Duration,
    insecure_http: bool,
    allow_private: bool,
    per_endpoint: usize,
    /// Seconds a claimed delivery is left to this node ([`Service::claim_deliveries`]).
    lease: i64,
}

/// What is being POSTed now: delivery ids, and how many per webhook.
#[derive(Default)]
struct InFlight {
    deliveries: std::collections::HashSet<String>,
    per_webhook: std::collections::HashMap<String, usize>,
}

impl InFlight {
    /// Frees the slot of a delivery whose POST ended (or was never started).
    fn release(&mut self, delivery: &str, webhook: &str) {
        self.deliveries.remove(delivery);
        if let Some(n) = self.per_webhook.get_mut(webhook) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.per_webhook.remove(webhook);
            }
        }
    }
}

/// The webhook worker: every `period` it takes the due deliveries from SQLite (the durable outbox) and starts a POST
/// for each one not already in flight, at most `per_endpoint` at once per webhook. Each POST reports its own attempt
/// when it ends, so a slow or dead receiver holds only its own slots: no delivery waits for another endpoint's.
async fn webhook_loop(
    engine: Arc<Mutex<Engine>>,
    client: reqwest::Client,
    policy: WebhookPolicy,
    mut stop: watch::Receiver<bool>,
    clock: Clock,
) {
    let in_flight = Arc::new(Mutex::new(InFlight::default()));
    loop {
        tokio::select! {
            _ = tokio::time::sleep(policy.period) => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        let (e, slots, now) = (
            engine.clone(),
            in_flight.clone(),
            clock.now().unix_timestamp(),
        );
        let due = tokio::task::spawn_blocking(move || {
            // Claimed in one transaction, so nodes sharing a database never POST the same delivery at once; only
            // what gets a slot here is claimed (the rest stays due for the next round, or another node).
            let mut taken = Vec::new();
            let claimed = lock(&e).transact(|svc, _| {
                svc.claim_deliveries(now, policy.lease, |d| {
                    let mut f = slots.lock().unwrap_or_else(|p| p.into_inner());
                    let busy = f.per_webhook.get(&d.webhook_id).copied().unwrap_or(0);
                    if f.deliveries.contains(&d.id) || busy >= policy.per_endpoint {
                        return false;
                    }
                    f.deliveries.insert(d.id.clone());
                    *f.per_webhook.entry(d.webhook_id.clone()).or_default() += 1;
                    taken.push((d.id.clone(), d.webhook_id.clone()));
                    true
                })
            });
            if claimed.is_err() {
                // Rolled back: nothing was claimed, so the slots go back.
                let mut f = slots.lock().unwrap_or_else(|p| p.into_inner());
                for (id, hook) in taken {
                    f.release(&id, &hook);
                }
            }
            claimed
        })
        .await;
        let due: Vec<Delivery> = match due {
            Ok(Ok(d)) => d,
            Ok(Err(err)) => {
                tracing::error!(error = %err, "reading due deliveries failed");
                continue;
            }
            Err(_) => continue,
        };
        for d in due {
            let (client, engine, in_flight) = (client.clone(), engine.clone(), in_flight.clone());
            let at = clock.now().unix_timestamp();
            tokio::spawn(async move {
                let attempt = post(&client, &d, policy, at).await;
                let id = d.id.clone();
                let r = tokio::task::spawn_blocking(move || {
                    lock(&engine).transact(|svc, _| svc.report_attempt(&id, attempt))
                })
                .await;
                if let Ok(Err(err)) = r {
                    tracing::error!(error = %err, delivery = %d.id, "recording a delivery attempt failed; it will be retried");
                }
                let mut f = in_flight.lock().unwrap_or_else(|p| p.into_inner());
                f.release(&d.id, &d.webhook_id);
            });
        }
    }
}

/// The webhook client. A webhook answer is its status code: redirects are not followed (a 3xx is a failed attempt),
/// so a receiver cannot bounce the payload anywhere. No proxy: the SSRF check is about the address connected to.
/// Names are resolved by [`GuardedResolver`], so the addresses checked are the addresses connected to.
fn webhook_client(timeout: Duration, allow_private: bool) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(GuardedResolver { allow_private }))
        .user_agent(sifen::USER_AGENT)
        .build()
        .map_err(|e| format!("webhook client: {e}"))
}

/// The webhook client's resolver: resolves a name once and, unless private addresses are allowed, refuses it when
/// ANY of its addresses is one a webhook must not reach ([`webhook::forbidden_ip`]); otherwise hands exactly those
/// addresses to the connector. Check and connection use the same answer, so a name re-pointed between the two
/// (DNS rebinding) reaches nothing. Chosen over a per-request `ClientBuilder::resolve_to_addrs` because it keeps one
/// client (one connection pool, one TLS configuration) and covers every connection the client makes.
struct GuardedResolver {
    allow_private: bool,
}

/// The resolver's refusal, found again in the error chain to log the attempt as `forbidden_address`.
#[derive(Debug)]
struct ForbiddenAddress;

impl std::fmt::Display for ForbiddenAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the webhook host resolves to an address webhooks may not reach")
    }
}

impl std::error::Error for ForbiddenAddress {}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let (host, allow_private) = (name.as_str().to_string(), self.allow_private);
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if !allow_private && addrs.iter().any(|a| webhook::forbidden_ip(a.ip())) {
                return Err(Box::new(ForbiddenAddress) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// Whether the resolver refused the name somewhere down an error's chain of causes.
fn refused_by_resolver(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if c.is::<ForbiddenAddress>() {
            return true;
        }
        cause = c.source();
    }
    false
}

/// One POST, timed, as the attempt the core records. The stored URL is parsed once ([`webhook::WebhookTarget`]),
/// checked, and that parsed URL is what the client connects to; an IP literal is checked here, a name by the
/// resolver. A refused target is refused before any connection, with duration 0: its log says nothing about what
/// listens there.
async fn post(
    client: &reqwest::Client,
    d: &Delivery,
    policy: WebhookPolicy,
    at: i64,
) -> webhook::Attempt {
    let started = Instant::now();
    let attempt = |status: Option<u16>, error: Option<&str>| webhook::Attempt {
        at,
        status,
        error: error.map(String::from),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    let refused = |error: &str| webhook::Attempt {
        at,
        status: None,
        error: Some(error.to_string()),
        duration_ms: 0,
    };
    let target = match webhook::WebhookTarget::parse(&d.url) {
        Ok(t) => t,
        Err(_) => {
            tracing::warn!(delivery = %d.id, webhook = %d.webhook_id, "webhook URL is not a valid https URL; refused");
            return refused("invalid_url");
        }
    };
    if !policy.allow_private && target.host().forbidden() {
        tracing::warn!(delivery = %d.id, webhook = %d.webhook_id, "webhook URL names an inside address; refused");
        return refused("forbidden_address");
    }
    let url = match policy
        .insecure_http
        .then(|| target.loopback_http())
        .flatten()
    {
        Some(u) => u,
        None => target.url().clone(),
    };
    let mut req = client.post(url).body(d.body.clone());
    for (k, v) in &d.headers {
        req = req.header(k, v);
    }
    match req.send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            tracing::info!(delivery = %d.id, webhook = %d.webhook_id, status, attempt = d.attempts + 1, "webhook delivery");
            let failed = (!r.status().is_success()).then_some("http_status");
            attempt(Some(status), failed)
        }
        Err(e) if refused_by_resolver(&e) => {
            tracing::warn!(delivery = %d.id, webhook = %d.webhook_id, "webhook URL resolves to an inside address; refused");
            refused("forbidden_address")
        }
        Err(e) => {
            // reqwest errors name the URL, which the account registered; it carries no secret of ours.
            tracing::warn!(delivery = %d.id, webhook = %d.webhook_id, error = %e, attempt = d.attempts + 1, "webhook delivery failed");
            let class = if e.is_timeout() {
                "timeout"
            } else if e.is_connect() {
                "connect"
            } else {
                "request"
            };
            attempt(None, Some(class))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{refused_by_resolver, GuardedResolver};
    use kuatia_service::webhook::WebhookTarget;
    use reqwest::dns::Resolve;

    /// A name with an inside address is refused by the resolver itself (the answer checked is the answer connected
    /// to), and the refusal is recognised down the error chain; with private addresses allowed it resolves.
    #[tokio::test]
    async fn the_resolver_refuses_names_resolving_inside() {
        let refused = GuardedResolver {
            allow_private: false,
        }
        .resolve("localhost".parse().unwrap())
        .await
        .err()
        .unwrap();
        assert!(refused_by_resolver(&*refused), "{refused}");
        let allowed = GuardedResolver {
            allow_private: true,
        }
        .resolve("localhost".parse().unwrap())
        .await
        .unwrap();
        assert!(allowed.into_iter().all(|a| a.ip().is_loopback()));
    }

    fn downgraded(url: &str) -> Option<String> {
        WebhookTarget::parse(url)
            .ok()?
            .loopback_http()
            .map(|u| u.to_string())
    }

    #[test]
    fn only_loopback_https_is_downgraded() {
        assert_eq!(
            downgraded("https://127.0.0.1:9000/hook").as_deref(),
            Some("http://127.0.0.1:9000/hook")
        );
        // The default https port stays the port connected to.
        assert_eq!(
            downgraded("https://localhost/x").as_deref(),
            Some("http://localhost:443/x")
        );
        assert_eq!(
            downgraded("https://[::1]:9/x").as_deref(),
            Some("http://[::1]:9/x")
        );
        assert_eq!(downgraded("https://127.0.0.1.evil.com/x"), None);
        assert_eq!(downgraded("https://example.com/x"), None);
        assert_eq!(downgraded("http://127.0.0.1/x"), None);
        assert_eq!(downgraded("https://user@127.0.0.1/x"), None);
    }
}
