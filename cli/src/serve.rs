//! `kuatia serve` (the `/v1` service on a local HTTP server, crate `kuatia-server`) and `kuatia keys create`.

use crate::output::Outcome;
use clap::{Args, Subcommand};
use kuatia_core::sign::SoftwareSigner;
use kuatia_server::ServerConfig;
use kuatia_service::auth::Environment;
use kuatia_service::transmit::SifenMode;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use zeroize::Zeroizing;

/// Arguments of `kuatia serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Serve `GET /metrics` (Prometheus text) on this address, a listener of its own (e.g. 127.0.0.1:9464); off by
    /// default, and never on --addr.
    #[arg(long)]
    pub metrics_addr: Option<SocketAddr>,
    /// Name of an environment variable holding a token that scrapes of /metrics must send as `Authorization:
    /// Bearer <token>` (for a metrics address reachable beyond this machine).
    #[arg(long, requires = "metrics_addr")]
    pub metrics_token_env: Option<String>,
    /// Data directory (SQLite database; created if missing).
    #[arg(long, default_value = "kuatia-data")]
    pub data: PathBuf,
    /// A shared PostgreSQL database instead of SQLite (postgres://user@host:port/db), so several nodes serve one
    /// service; default: the KUATIA_DATABASE_URL environment variable (keeps a password out of the process list).
    #[arg(long)]
    pub database: Option<String>,
    /// PostgreSQL: CA certificates (PEM) trusted for the database's TLS certificate besides the system's (default:
    /// the KUATIA_DATABASE_CA environment variable); add `?sslmode=require` to the URL to refuse a plain connection.
    #[arg(long)]
    pub database_ca: Option<PathBuf>,
    /// This node's name in PostgreSQL's `application_name` and the logs (default: <addr>/<pid>).
    #[arg(long)]
    pub node_id: Option<String>,
    /// Log lines on stderr: text for people, or json (one JSON object per line, for a log collector).
    #[arg(long, value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// PostgreSQL: database connections of this node, each serving one request at a time (SQLite: always one).
    #[arg(long, default_value_t = 4)]
    pub db_pool: usize,
    /// PostgreSQL: longest a statement (lock waits included) may run, in milliseconds.
    #[arg(long, default_value_t = 30_000)]
    pub statement_timeout_ms: u64,
    /// Absolute base URL clients use, for `kude_url` (default: http://<addr>).
    #[arg(long)]
    pub base_url: Option<String>,
    /// Sandbox: seconds until the simulated SIFEN receives an invoice (pending → sent).
    #[arg(long, default_value_t = 2)]
    pub sandbox_send_after: i64,
    /// Sandbox: seconds until the simulated SIFEN answers (sent → approved/rejected).
    #[arg(long, default_value_t = 5)]
    pub sandbox_answer_after: i64,
    /// Period of the simulated SIFEN and of the webhook worker, in milliseconds.
    #[arg(long, default_value_t = 500)]
    pub tick_ms: u64,
    /// Largest request body, in bytes.
    #[arg(long, default_value_t = 1024 * 1024)]
    pub max_body: usize,
    /// Seconds a client has to send a request's head (request line and headers), from the connection's start or,
    /// on a kept-alive connection, from the head's first byte; then the connection is closed.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_read_timeout: u64,
    /// Seconds a client has to send a request's body once its head is in (else 408 and the connection is closed);
    /// also how long an answer the client does not read may wait before the connection is closed.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub body_timeout: u64,
    /// Seconds a kept-alive connection may stay silent between requests before it is closed.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout: u64,
    /// Seconds from a request's head to its answer, waits for the writer and the signing queue included (else 503
    /// REQUEST_TIMEOUT; a create carries on, and a retry with its Idempotency-Key gets it).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout: u64,
    /// Open connections at most: at the cap a new connection closes the oldest one with no request in progress, or
    /// waits in the listen queue (default: 1024, or fewer so that a quarter of the open-file limit, `ulimit -n`, and
    /// at least 128 files stay free for the store and the webhooks).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub max_connections: Option<u64>,
    /// A reverse proxy (IP address, repeatable) whose X-Forwarded-For names the client; the panel throttles failed
    /// sign-ins by client address, which is otherwise the proxy's for everyone.
    #[arg(long = "trusted-proxy", value_name = "IP")]
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// TEST ONLY: deliver webhooks registered as https://127.0.0.1 or https://localhost over plain HTTP.
    #[arg(long)]
    pub insecure_webhooks_http: bool,
    /// Accept webhook URLs naming this machine or private, loopback or link-local addresses (refused by default).
    #[arg(long)]
    pub allow_private_webhooks: bool,
    /// Seconds a webhook's previous secret keeps signing deliveries after a rotation, beside the new one.
    #[arg(long, default_value_t = kuatia_service::DEFAULT_WEBHOOK_SECRET_GRACE,
          value_parser = clap::value_parser!(i64).range(0..))]
    pub webhook_secret_grace: i64,
    /// PKCS#12 certificate signing production invoices (dk_live_ keys).
    #[arg(long, requires = "password_env")]
    pub p12: Option<PathBuf>,
    /// Name of the environment variable holding the P12 password (never pass passwords as arguments).
    #[arg(long, requires = "p12")]
    pub password_env: Option<String>,
    /// Production emitter profile JSON, stored on the account at start.
    #[arg(long)]
    pub production_profile: Option<String>,
    /// Production: how documents travel to SIFEN: one synchronous recibe each, or lots (recibe-lote).
    #[arg(long, value_enum, default_value = "sync")]
    pub sifen_mode: SifenModeArg,
    /// Production, lot mode: seconds before a lot is queried, and between queries (SIFEN asks for ≥ 600).
    #[arg(long, default_value_t = 600)]
    pub sifen_lot_poll_after: i64,
    /// Production: timeout of one SIFEN call (connect + answer), in seconds.
    #[arg(long, default_value_t = 60)]
    pub sifen_timeout: u64,
    /// Production: seconds a SIFEN job stays with the node that took it (at least twice --sifen-timeout); a node
    /// that dies mid-call leaves its documents to another node after it, which queries them by CDC first.
    #[arg(long, default_value_t = 300)]
    pub sifen_lease: i64,
    /// Extra root certificate (PEM or DER) trusted for SIFEN's server, besides the system's.
    #[arg(long)]
    pub sifen_ca: Option<PathBuf>,
    /// Post SIFEN requests under this origin instead of SIFEN's (a proxy, or a fake SIFEN in tests).
    #[arg(long)]
    pub sifen_url: Option<String>,
    /// TLS stack for SIFEN: rustls (ECDHE + AEAD suites only, no renegotiation) or the system's OpenSSL (its default
    /// suites, CBC and RSA key exchange included; accepts renegotiation). The key stays in the signer either way.
    #[arg(long, value_enum, default_value = "rustls")]
    pub sifen_tls: SifenTlsArg,
    /// SMTP server e-mailing approved documents to their buyers: smtp://[user@]host[:port] (STARTTLS required, except
    /// to loopback) or smtps://… (implicit TLS); the password comes from KUATIA_SMTP_PASSWORD. The default: an
    /// account's own settings (panel, "Correo") go first. Without either, messages are captured (stored, never sent).
    #[arg(long, requires = "smtp_from", value_name = "URL")]
    pub smtp_url: Option<String>,
    /// Sender of those messages, "Name <address>".
    #[arg(long, requires = "smtp_url", value_name = "MAILBOX")]
    pub smtp_from: Option<String>,
    /// Seconds a claimed e-mail stays with this node (a whole SMTP exchange); one whose sender died is sent again
    /// after it, unless the SMTP server had acknowledged it.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(i64).range(1..))]
    pub smtp_lease: i64,
    /// Seconds to wait after the 1st, 2nd, … temporary SMTP failure (4xx, connection); failed after the last.
    #[arg(long, value_delimiter = ',', default_values_t = kuatia_service::email::RETRY_SCHEDULE)]
    pub smtp_retry: Vec<i64>,
}

/// `--log-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One line of text per event: time, level, the request's span (`request{request_id=…}`), message, fields.
    Text,
    /// One JSON object per line: `timestamp`, `level`, the event's fields at the top, the request's in `span`.
    Json,
}

/// `--sifen-tls`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum SifenTlsArg {
    /// rustls: TLS 1.2 with ECDHE and AES-GCM/ChaCha20 only.
    Rustls,
    /// The system's OpenSSL: TLS 1.2 with OpenSSL's default suites, renegotiation allowed.
    Openssl,
}

impl From<SifenTlsArg> for kuatia_server::sifen::SifenTls {
    fn from(a: SifenTlsArg) -> Self {
        match a {
            SifenTlsArg::Rustls => kuatia_server::sifen::SifenTls::Rustls,
            SifenTlsArg::Openssl => kuatia_server::sifen::SifenTls::Openssl,
        }
    }
}

/// `--sifen-mode`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum SifenModeArg {
    /// One synchronous `recibe` per document.
    Sync,
    /// Lots of up to 50 documents (`recibe-lote`, then `consulta-lote`).
    Lote,
}

/// `kuatia keys …`: API keys of a data directory's accounts.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Create a key (sandbox by default, --live for production); printed once, stored hashed.
    Create {
        /// A production key (dk_live_) instead of a sandbox key (dk_test_).
        #[arg(long)]
        live: bool,
        /// Account (acct_…); default: the data directory's first account.
        #[arg(long)]
        account: Option<String>,
        /// Data directory of `kuatia serve`.
        #[arg(long, default_value = "kuatia-data")]
        data: PathBuf,
    },
    /// List an account's keys: prefix, environment, creation and revocation dates (never a secret).
    List {
        /// Account (acct_…).
        #[arg(long)]
        account: String,
        /// Data directory of `kuatia serve`.
        #[arg(long, default_value = "kuatia-data")]
        data: PathBuf,
    },
    /// Revoke a key by its id or prefix (dk_test_XXXXXXXX); a running server refuses it from its next request.
    Revoke {
        /// The key's 8-character id, or its prefix as `keys list` shows it.
        key_id: String,
        /// Data directory of `kuatia serve`.
        #[arg(long, default_value = "kuatia-data")]
        data: PathBuf,
    },
}

/// `kuatia accounts …`: the accounts of a data directory.
#[derive(Debug, Subcommand)]
pub enum AccountsCommand {
    /// Create an account (built-in sandbox profile) and print its first sandbox key, once.
    Create {
        /// Display name.
        name: String,
        /// Data directory of `kuatia serve`.
        #[arg(long, default_value = "kuatia-data")]
        data: PathBuf,
    },
    /// List the accounts: id, name, creation date.
    List {
        /// Data directory of `kuatia serve`.
        #[arg(long, default_value = "kuatia-data")]
        data: PathBuf,
    },
    /// Set an account's production emitter profile (checked as the API checks it).
    SetProfile {
        /// Account (acct_…).
        account: String,
        /// Emitter profile JSON.
        profile: String,
        /// Data directory of `kuatia serve`.
        #[arg(long, default_value = "kuatia-data")]
        data: PathBuf,
    },
    /// Set an account's production P12 (checked against its profile); `kuatia serve` reads the password from the
    /// same environment variable at start. The password is never stored.
    SetP12 {
        /// Account (acct_…).
        account: String,
        /// PKCS#12 file.
        p12: PathBuf,
        /// Name of the environment variable holding the P12 password (never pass passwords as arguments).
        #[arg(long)]
        password_env: String,
        /// Data directory of `kuatia serve`.
        #[arg(long, default_value = "kuatia-data")]
        data: PathBuf,
    },
    /// Print a one-time sign-in link to the account panel (/panel): valid 15 minutes, once.
    PanelLogin {
        /// Account id (acct_…) or its exact name.
        account: String,
        /// Base URL the server is reached at (default: the one `kuatia serve` recorded in the data directory at its
        /// last start, `serve.json`; without it, http://127.0.0.1:8080).
        #[arg(long)]
        base_url: Option<String>,
        /// Data directory of `kuatia serve`.
        #[arg(long, default_value = "kuatia-data")]
        data: PathBuf,
    },
}

fn p12_signer(args: &ServeArgs) -> Result<Option<SoftwareSigner>, Outcome> {
    let (Some(path), Some(var)) = (&args.p12, &args.password_env) else {
        return Ok(None);
    };
    let bytes = std::fs::read(path)
        .map_err(|e| Outcome::unreadable(format!("{}: cannot read: {e}", path.display())))?;
    let password = Zeroizing::new(
        std::env::var(var)
            .map_err(|_| Outcome::unreadable(format!("environment variable {var} is not set")))?,
    );
    SoftwareSigner::from_pkcs12(&bytes, &password)
        .map(Some)
        .map_err(|e| Outcome::unreadable(format!("{}: {e}", path.display())))
}

/// `kuatia serve`: runs until Ctrl-C (or SIGTERM), then stops gracefully.
pub fn run(args: ServeArgs) -> Outcome {
    let run = || -> Result<Outcome, Outcome> {
        // Logs go to stderr; stdout carries the startup document (with the first key) and the stop document. A thread
        // of their own writes them, in batches; `_flush` writes what is left when `kuatia serve` returns.
        let (stderr, _flush) = tracing_appender::non_blocking::NonBlockingBuilder::default()
            .lossy(false)
            .finish(std::io::stderr());
        let logs = tracing_subscriber::fmt()
            .with_writer(stderr)
            .with_target(false);
        let _ = match args.log_format {
            LogFormat::Text => logs
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
                .try_init(),
            // The innermost span only (`request`, with its `request_id`): one level, so a collector finds the id at
            // `span.request_id` on every line of a request.
            LogFormat::Json => logs
                .json()
                .flatten_event(true)
                .with_current_span(true)
                .with_span_list(false)
                .try_init(),
        };
        let production_profile = match &args.production_profile {
            Some(_) => Some(crate::invoice::profile(&args.production_profile)?),
            None => None,
        };
        let mut config = ServerConfig::new(args.data.clone());
        config.database = database(args.database.clone()).map(|url| kuatia_server::pg::PgOptions {
            url,
            statement_timeout: Some(Duration::from_millis(args.statement_timeout_ms.max(1))),
            node_id: args
                .node_id
                .clone()
                .unwrap_or_else(|| format!("{}/{}", args.addr, std::process::id())),
            ca_file: args
                .database_ca
                .clone()
                .or_else(|| std::env::var_os("KUATIA_DATABASE_CA").map(Into::into)),
        });
        config.db_pool = args.db_pool.max(1);
        config.addr = args.addr;
        config.metrics_addr = args.metrics_addr;
        if let Some(var) = &args.metrics_token_env {
            let token = std::env::var(var)
                .ok()
                .filter(|t| !t.is_empty())
                .ok_or_else(|| {
                    Outcome::unreadable(format!("environment variable {var} is not set"))
                })?;
            config.metrics_token = Some(token);
        }
        config.base_url = args.base_url.clone();
        config.sandbox_send_after = args.sandbox_send_after;
        config.sandbox_answer_after = args.sandbox_answer_after;
        config.tick_interval = Duration::from_millis(args.tick_ms.max(10));
        config.webhook_interval = config.tick_interval;
        config.max_body = args.max_body;
        config.limits = kuatia_server::conn::Limits {
            header_read: Duration::from_secs(args.header_read_timeout),
            body: Duration::from_secs(args.body_timeout),
            idle: Duration::from_secs(args.idle_timeout),
            request: Duration::from_secs(args.request_timeout),
            max_connections: match args.max_connections {
                Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
                None => kuatia_server::conn::default_max_connections(),
            },
        };
        config.trusted_proxies = args.trusted_proxies.clone();
        config.insecure_webhooks_http = args.insecure_webhooks_http;
        config.allow_private_webhooks = args.allow_private_webhooks;
        config.webhook_secret_grace = args.webhook_secret_grace;
        config.production_signer = p12_signer(&args)?;
        config.production_profile = production_profile;
        config.sifen_mode = match args.sifen_mode {
            SifenModeArg::Sync => SifenMode::Sync,
            SifenModeArg::Lote => SifenMode::Lote,
        };
        config.sifen_lot_poll_after = args.sifen_lot_poll_after;
        config.sifen.timeout = Duration::from_secs(args.sifen_timeout.max(1));
        config.sifen_lease = Some(args.sifen_lease.max(1));
        config.sifen.base_url = args.sifen_url.clone();
        config.sifen.tls = args.sifen_tls.into();
        if let Some(ca) = &args.sifen_ca {
            let bytes = std::fs::read(ca)
                .map_err(|e| Outcome::unreadable(format!("{}: cannot read: {e}", ca.display())))?;
            config.sifen.extra_roots = kuatia_server::sifen::certificates(&bytes)
                .map_err(|e| Outcome::unreadable(format!("{}: {e}", ca.display())))?;
        }
        if let (Some(url), Some(from)) = (&args.smtp_url, &args.smtp_from) {
            let password = std::env::var(kuatia_server::email::PASSWORD_ENV).ok();
            config.smtp = Some(
                kuatia_server::email::SmtpSettings::parse(url, from, password)
                    .map_err(Outcome::unreadable)?,
            );
        }
        config.email_interval = config.tick_interval;
        config.email_lease = args.smtp_lease;
        config.email_retry = args.smtp_retry.clone();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| Outcome::unreadable(format!("tokio runtime: {e}")))?;
        runtime.block_on(async {
            // Listening before the start document is printed: a signal sent as soon as that line is read (a
            // supervisor, a test) must stop the server gracefully, not kill it by the signal's default action (which
            // it did under load: the handler was installed only after the line, and the request in flight was lost).
            let stop = StopSignals::listen();
            let server = kuatia_server::start(config)
                .await
                .map_err(Outcome::unreadable)?;
            let started = serde_json::json!({
                "listening": server.addr.to_string(),
                "base_url": server.base_url,
                "metrics": server.metrics_addr.map(|a| a.to_string()),
                "account_id": server.account_id,
                // Shown once, on the first start of a data directory; only its hash is stored.
                "sandbox_key": server.new_sandbox_key,
            });
            record_address(&args.data, &started);
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{started}").and_then(|()| out.flush());
            drop(out);
            stop.wait().await;
            let addr = server.addr.to_string();
            server.shutdown().await;
            Ok(Outcome::ok(&serde_json::json!({"stopped": addr})))
        })
    };
    run().unwrap_or_else(|o| o)
}

/// Where `kuatia serve` records, at each start, the address it listens on and its base URL (for `kuatia accounts
/// panel-login`): `<data>/serve.json`.
pub const ADDRESS_FILE: &str = "serve.json";

/// Records the listening address and base URL in the data directory (written whole under a private name, then
/// renamed). A failure is logged, never fatal: the server runs without it.
fn record_address(data: &std::path::Path, started: &serde_json::Value) {
    let record = serde_json::json!({
        "listening": started["listening"],
        "base_url": started["base_url"],
        "pid": std::process::id(),
    });
    let tmp = data.join(format!(".{ADDRESS_FILE}.{}", std::process::id()));
    let written = std::fs::create_dir_all(data)
        .and_then(|()| std::fs::write(&tmp, record.to_string()))
        .and_then(|()| std::fs::rename(&tmp, data.join(ADDRESS_FILE)));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        eprintln!(
            "kuatia serve: cannot record the address in {}: {e}",
            data.display()
        );
    }
}

/// The base URL for a panel link: `--base-url`, else the one `kuatia serve` recorded in `data`, else the default
/// address's (with a note saying so).
fn panel_base_url(data: &std::path::Path, given: Option<String>) -> (String, Option<String>) {
    if let Some(url) = given {
        return (url, None);
    }
    let recorded = std::fs::read_to_string(data.join(ADDRESS_FILE))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["base_url"].as_str().map(str::to_string));
    match recorded {
        Some(url) => (url, None),
        None => (
            "http://127.0.0.1:8080".to_string(),
            Some(format!(
                "no address recorded in {} (kuatia serve writes it at start): the link assumes http://127.0.0.1:8080; \
                 give --base-url otherwise",
                data.join(ADDRESS_FILE).display()
            )),
        ),
    }
}

/// `--database`, else `KUATIA_DATABASE_URL` (also what `kuatia keys`/`accounts` use), else SQLite.
fn database(flag: Option<String>) -> Option<String> {
    flag.or_else(|| std::env::var(kuatia_server::DATABASE_ENV).ok())
        .filter(|u| !u.is_empty())
}

/// SIGTERM and Ctrl-C (SIGINT), listened to from the moment this is made.
struct StopSignals {
    #[cfg(unix)]
    unix: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl StopSignals {
    /// Installs the handlers now (inside the runtime).
    fn listen() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let unix = signal(SignalKind::terminate())
                .and_then(|term| Ok((term, signal(SignalKind::interrupt())?)))
                .ok();
            StopSignals { unix }
        }
        #[cfg(not(unix))]
        StopSignals {}
    }

    /// Resolves at the first stop signal received since [`StopSignals::listen`].
    async fn wait(self) {
        #[cfg(unix)]
        if let Some((mut term, mut int)) = self.unix {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            return;
        }
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn unix(t: i64) -> Option<String> {
    (t > 0)
        .then(|| time::OffsetDateTime::from_unix_timestamp(t).ok())
        .flatten()
        .and_then(|d| {
            d.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
}

/// Exit 1 with the first finding as the error and all of them as `findings`.
fn findings(fs: &[kuatia_core::Finding]) -> Outcome {
    let mut fs = fs.to_vec();
    crate::output::localize_all(&mut fs);
    let first = fs
        .first()
        .cloned()
        .unwrap_or_else(|| kuatia_core::rule::host_internal(""));
    Outcome::invalid(
        &serde_json::json!({"error": {"code": first.code, "message": first.message, "path": first.path}, "findings": fs}),
        &first,
    )
}

/// `kuatia accounts …`.
pub fn accounts(command: AccountsCommand) -> Outcome {
    use kuatia_server::accounts as a;
    let run = || -> Result<Outcome, String> {
        Ok(match command {
            AccountsCommand::Create { name, data } => {
                let (account, key) = a::create_account(data, &name)?;
                Outcome::ok(&serde_json::json!({
                    "id": account.id,
                    "name": account.name,
                    "created_at": unix(account.created_at),
                    "sandbox_key": key,
                    "note": "the key is shown once: only its hash is stored",
                }))
            }
            AccountsCommand::List { data } => {
                let list: Vec<serde_json::Value> = a::list_accounts(data)?
                    .iter()
                    .map(|acc| {
                        serde_json::json!({
                            "id": acc.id,
                            "name": acc.name,
                            "created_at": unix(acc.created_at),
                            "production_profile": acc.production.is_some(),
                        })
                    })
                    .collect();
                Outcome::ok(&serde_json::json!({ "accounts": list }))
            }
            AccountsCommand::SetProfile {
                account,
                profile,
                data,
            } => {
                let emisor = match crate::invoice::profile(&Some(profile)) {
                    Ok(e) => e,
                    Err(o) => return Ok(o),
                };
                match a::set_profile(data, &account, emisor)? {
                    Ok(()) => Outcome::ok(
                        &serde_json::json!({"account": account, "production_profile": true}),
                    ),
                    Err(fs) => findings(&fs),
                }
            }
            AccountsCommand::SetP12 {
                account,
                p12,
                password_env,
                data,
            } => {
                let bytes = std::fs::read(&p12)
                    .map_err(|e| format!("{}: cannot read: {e}", p12.display()))?;
                match a::set_p12(data, &account, &bytes, &password_env)? {
                    Ok(info) => Outcome::ok(&serde_json::json!({
                        "account": account,
                        "certificate": info,
                        "password_env": password_env,
                        "note": "kuatia serve reads the password from this variable at start",
                    })),
                    Err(fs) => findings(&fs),
                }
            }
            AccountsCommand::PanelLogin {
                account,
                base_url,
                data,
            } => {
                let (base_url, assumed) = panel_base_url(&data, base_url);
                let (id, link) = a::panel_login(data, &account, &base_url)?;
                let note = match assumed {
                    Some(why) => format!("open the link in a browser; it works once. {why}"),
                    None => "open the link in a browser; it works once".to_string(),
                };
                Outcome::ok(&serde_json::json!({
                    "account": id,
                    "link": link,
                    "expires_in": kuatia_panel::LINK_TTL,
                    "note": note,
                }))
            }
        })
    };
    run().unwrap_or_else(Outcome::unreadable)
}

/// `kuatia keys create|list|revoke`.
pub fn keys(command: KeysCommand) -> Outcome {
    match command {
        KeysCommand::List { account, data } => {
            match kuatia_server::accounts::list_keys(data, &account) {
                Ok(keys) => {
                    let list: Vec<serde_json::Value> = keys
                        .iter()
                        .map(|k| {
                            serde_json::json!({
                                "key_id": k.key_id,
                                "prefix": k.prefix(),
                                "environment": k.environment,
                                "created_at": unix(k.created_at),
                                "revoked_at": k.revoked_at.and_then(unix),
                            })
                        })
                        .collect();
                    Outcome::ok(&serde_json::json!({"account": account, "keys": list}))
                }
                Err(e) => Outcome::unreadable(e),
            }
        }
        KeysCommand::Revoke { key_id, data } => {
            match kuatia_server::accounts::revoke_key(data, &key_id) {
                Ok(Some((account, k))) => Outcome::ok(&serde_json::json!({
                    "account": account,
                    "key_id": k.key_id,
                    "prefix": k.prefix(),
                    "revoked_at": k.revoked_at.and_then(unix),
                })),
                Ok(None) => {
                    Outcome::error(&kuatia_core::rule::cli_key_not_found("key_id", &key_id))
                }
                Err(e) => Outcome::unreadable(e),
            }
        }
        KeysCommand::Create {
            live,
            account,
            data,
        } => {
            let env = if live {
                Environment::Production
            } else {
                Environment::Sandbox
            };
            match kuatia_server::accounts::create_key(data, env, account.as_deref()) {
                Ok(key) => Outcome::ok(&serde_json::json!({
                    "key": key,
                    "environment": env,
                    "note": "shown once: only its hash is stored",
                })),
                Err(e) => Outcome::unreadable(e),
            }
        }
    }
}
