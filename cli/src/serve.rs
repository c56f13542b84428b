//! `kuatia serve` (the `/v1` service on a local HTTP server, crate `kuatia-server`) and `kuatia keys create`.

use crate::output::Outcome;
use clap::{Args, Subcommand};
use kuatia_core::api::auth::Environment;
use kuatia_core::api::transmit::SifenMode;
use kuatia_core::sign::SoftwareSigner;
use kuatia_server::ServerConfig;
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
    /// Data directory (SQLite database; created if missing).
    #[arg(long, default_value = "kuatia-data")]
    pub data: PathBuf,
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
    /// TEST ONLY: deliver webhooks registered as https://127.0.0.1 or https://localhost over plain HTTP.
    #[arg(long)]
    pub insecure_webhooks_http: bool,
    /// Accept webhook URLs naming this machine or private, loopback or link-local addresses (refused by default).
    #[arg(long)]
    pub allow_private_webhooks: bool,
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

/// `kuatia keys …`: API keys of a data directory's account.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Create a key (sandbox by default, --live for production); printed once, stored hashed.
    Create {
        /// A production key (dk_live_) instead of a sandbox key (dk_test_).
        #[arg(long)]
        live: bool,
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
        // Logs go to stderr; stdout carries the startup document (with the first key) and the stop document.
        let _ = tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_target(false)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init();
        let production_profile = match &args.production_profile {
            Some(_) => Some(crate::invoice::profile(&args.production_profile)?),
            None => None,
        };
        let mut config = ServerConfig::new(args.data.clone());
        config.addr = args.addr;
        config.base_url = args.base_url.clone();
        config.sandbox_send_after = args.sandbox_send_after;
        config.sandbox_answer_after = args.sandbox_answer_after;
        config.tick_interval = Duration::from_millis(args.tick_ms.max(10));
        config.webhook_interval = config.tick_interval;
        config.max_body = args.max_body;
        config.insecure_webhooks_http = args.insecure_webhooks_http;
        config.allow_private_webhooks = args.allow_private_webhooks;
        config.production_signer = p12_signer(&args)?;
        config.production_profile = production_profile;
        config.sifen_mode = match args.sifen_mode {
            SifenModeArg::Sync => SifenMode::Sync,
            SifenModeArg::Lote => SifenMode::Lote,
        };
        config.sifen_lot_poll_after = args.sifen_lot_poll_after;
        config.sifen.timeout = Duration::from_secs(args.sifen_timeout.max(1));
        config.sifen.base_url = args.sifen_url.clone();
        config.sifen.tls = args.sifen_tls.into();
        if let Some(ca) = &args.sifen_ca {
            let bytes = std::fs::read(ca)
                .map_err(|e| Outcome::unreadable(format!("{}: cannot read: {e}", ca.display())))?;
            config.sifen.extra_roots = kuatia_server::sifen::certificates(&bytes)
                .map_err(|e| Outcome::unreadable(format!("{}: {e}", ca.display())))?;
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| Outcome::unreadable(format!("tokio runtime: {e}")))?;
        runtime.block_on(async {
            let server = kuatia_server::start(config)
                .await
                .map_err(Outcome::unreadable)?;
            let started = serde_json::json!({
                "listening": server.addr.to_string(),
                "base_url": server.base_url,
                "account_id": server.account_id,
                // Shown once, on the first start of a data directory; only its hash is stored.
                "sandbox_key": server.new_sandbox_key,
            });
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{started}").and_then(|()| out.flush());
            drop(out);
            wait_for_stop().await;
            let addr = server.addr.to_string();
            server.shutdown().await;
            Ok(Outcome::ok(&serde_json::json!({"stopped": addr})))
        })
    };
    run().unwrap_or_else(|o| o)
}

async fn wait_for_stop() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// `kuatia keys create [--live] [--data DIR]`.
pub fn keys(command: KeysCommand) -> Outcome {
    match command {
        KeysCommand::Create { live, data } => {
            let env = if live {
                Environment::Production
            } else {
                Environment::Sandbox
            };
            match kuatia_server::create_key(data, env) {
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
