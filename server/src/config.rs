//! What `kuatia serve` can be told: [`ServerConfig`] and its defaults.

use crate::host::Clock;
use crate::{conn, pg, sifen};
use kuatia_core::profile::Emisor;
use kuatia_core::sign::SoftwareSigner;
use kuatia_service::transmit::SifenMode;
use kuatia_service::Config;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Environment variable naming the PostgreSQL database (`kuatia serve` without `--database`, `kuatia keys`,
/// `kuatia accounts`); unset: SQLite in the data directory.
pub const DATABASE_ENV: &str = "KUATIA_DATABASE_URL";

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
    ///
    /// [`Service::tick`]: kuatia_service::Service::tick
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
    /// Seconds an idempotency key's first answer is replayed byte for byte before the sweep drops it (24 h).
    pub idempotency_window: i64,
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
    /// Where to serve `GET /metrics` (`--metrics-addr`); `None`: nowhere. Never on the public listener.
    pub metrics_addr: Option<SocketAddr>,
    /// A bearer token every scrape of `GET /metrics` must present (`--metrics-token-env`); `None`: none asked.
    pub metrics_token: Option<String>,
    /// E-mail to buyers (`--smtp-url`, `--smtp-from`); `None`: messages are stored `captured`, never sent.
    pub smtp: Option<crate::email::SmtpSettings>,
    /// Period of the e-mail worker.
    pub email_interval: Duration,
    /// Seconds a claimed e-mail stays with the node sending it (a whole send: connect, TLS, AUTH, data).
    pub email_lease: i64,
    /// Seconds to wait after the 1st, 2nd, … temporary SMTP failure; past the last, the message is `failed`.
    pub email_retry: Vec<i64>,
}

impl std::fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConfig")
            .field("addr", &self.addr)
            .field("data_dir", &self.data_dir)
            .field("base_url", &self.base_url)
            .field("production_signer", &self.production_signer.is_some())
            .field("metrics_token", &self.metrics_token.is_some())
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
            idempotency_window: core.idempotency_window,
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
            metrics_addr: None,
            metrics_token: None,
            smtp: None,
            email_interval: Duration::from_millis(500),
            email_lease: 600,
            email_retry: core.email_retry,
        }
    }
}
