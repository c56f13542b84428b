//! `GET /metrics`: the server's figures in the Prometheus text format (0.0.4, or OpenMetrics 1.0 when the scraper
//! asks for it), on a listener of its own (`--metrics-addr`, off by default), never on the public one.
//!
//! Built on `prometheus-client`, the Prometheus project's own Rust client: no global registry (each server owns its
//! [`Metrics`], so tests running several servers in one process see their own figures), both text formats, and
//! label sets as plain types. Labels stay bounded: a request is labelled by the route template of the service's
//! route table ([`kuatia_service::route_template`]), never its raw path; an unknown path is `unmatched`.
//!
//! What moves by itself is counted where it happens (requests, storage faults, SIFEN calls, webhook attempts, the
//! signing queue); what is stored (invoices by state, the oldest pending invoice, undelivered webhooks) is read from
//! the store at each scrape, by one grouped query per table ([`crate::backend::Backlog`]).

use crate::engine::{lock, Engine};
use crate::host::Clock;
use kuatia_service::storage::StorageFault;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// Upper bounds (seconds) of the request latency histogram: 1 ms to 10 s.
const LATENCY_BUCKETS: [f64; 13] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The environments and the states whose oldest invoice is reported, present at 0 when there is none.
const ENVIRONMENTS: [&str; 2] = ["sandbox", "production"];
/// States an invoice waits in for SIFEN.
const WAITING: [&str; 2] = ["pending", "sent"];

/// `method`, `route`, `status` of an answered request.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    route: String,
    status: u16,
}

/// `fault` of a storage failure.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FaultLabels {
    fault: &'static str,
}

/// `service`, `outcome` of a SIFEN call.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct SifenLabels {
    service: &'static str,
    outcome: &'static str,
}

/// `service` of a SIFEN retry.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ServiceLabels {
    service: &'static str,
}

/// `outcome` of a webhook delivery attempt.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: String,
}

/// `environment`, `state` of stored invoices.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct InvoiceLabels {
    environment: String,
    state: String,
}

type FloatGauge = Gauge<f64, AtomicU64>;

/// The figures of one server and their registry (docs/operations.md, "Metrics", lists every one).
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    durations: Family<RequestLabels, Histogram, fn() -> Histogram>,
    storage_faults: Family<FaultLabels, Counter>,
    sifen_calls: Family<SifenLabels, Counter>,
    sifen_retries: Family<ServiceLabels, Counter>,
    webhook_attempts: Family<OutcomeLabels, Counter>,
    signing_queue: Gauge,
    invoices: Family<InvoiceLabels, Gauge>,
    oldest_waiting: Family<InvoiceLabels, FloatGauge>,
    pending_deliveries: Gauge,
    oldest_undelivered: FloatGauge,
    scrape_failures: Counter,
    /// One scrape at a time: the store's figures are written into shared gauges, then encoded.
    scraping: tokio::sync::Mutex<()>,
}

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Every metric registered under the `kuatia_` prefix, all at zero.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("kuatia");
        let m = Metrics {
            requests: Family::default(),
            durations: Family::new_with_constructor(latency_histogram),
            storage_faults: Family::default(),
            sifen_calls: Family::default(),
            sifen_retries: Family::default(),
            webhook_attempts: Family::default(),
            signing_queue: Gauge::default(),
            invoices: Family::default(),
            oldest_waiting: Family::default(),
            pending_deliveries: Gauge::default(),
            oldest_undelivered: FloatGauge::default(),
            scrape_failures: Counter::default(),
            scraping: tokio::sync::Mutex::new(()),
            registry: Registry::default(),
        };
        let r = &mut registry;
        r.register(
            "http_requests",
            "HTTP requests answered, by method, route template and status",
            m.requests.clone(),
        );
        r.register_with_unit(
            "http_request_duration",
            "Time from a request's head to its answer, by method, route template and status",
            Unit::Seconds,
            m.durations.clone(),
        );
        r.register(
            "storage_faults",
            "Requests answered 503 because the store failed (full, read-only, busy, I/O, shutting down, other)",
            m.storage_faults.clone(),
        );
        r.register(
            "sifen_calls",
            "Calls to SIFEN's web services, by service and outcome (ok, http_error, timeout, failed)",
            m.sifen_calls.clone(),
        );
        r.register(
            "sifen_retries",
            "Documents whose SIFEN call failed and is scheduled again, by service",
            m.sifen_retries.clone(),
        );
        r.register(
            "webhook_delivery_attempts",
            "Webhook POSTs made, by outcome (delivered, http_status, timeout, connect, request, forbidden_address, invalid_url)",
            m.webhook_attempts.clone(),
        );
        r.register(
            "signing_queue_depth",
            "Creates waiting for a signing thread",
            m.signing_queue.clone(),
        );
        r.register(
            "invoices",
            "Stored invoices by environment and state (read from the store at the scrape)",
            m.invoices.clone(),
        );
        r.register_with_unit(
            "invoice_oldest_age",
            "Age of the oldest invoice waiting for SIFEN, pending or sent, by environment and state (0: none)",
            Unit::Seconds,
            m.oldest_waiting.clone(),
        );
        r.register(
            "webhook_deliveries_pending",
            "Webhook deliveries not yet delivered and still to be tried (read from the store at the scrape)",
            m.pending_deliveries.clone(),
        );
        r.register_with_unit(
            "webhook_oldest_undelivered_age",
            "Age of the oldest delivery still pending, from its first due time (0: none)",
            Unit::Seconds,
            m.oldest_undelivered.clone(),
        );
        r.register(
            "metrics_store_failures",
            "Scrapes whose store query failed (the stored figures kept their previous values)",
            m.scrape_failures.clone(),
        );
        // Present at 0 from the start, so a rate over them needs no first fault.
        for fault in ["full", "read_only", "busy", "io", "shutting_down", "other"] {
            m.storage_faults
                .get_or_create(&FaultLabels { fault })
                .inc_by(0);
        }
        Metrics { registry, ..m }
    }

    /// Counts an answered request under its route template (`unmatched` for a path no route has).
    pub fn request(&self, method: &str, path: &str, status: u16, elapsed: Duration) {
        let labels = RequestLabels {
            method: method_label(method),
            route: route_label(path),
            status,
        };
        self.requests.get_or_create(&labels).inc();
        self.durations
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
    }

    /// Counts a request refused because the store failed.
    pub fn storage_fault(&self, fault: StorageFault) {
        let fault = match fault {
            StorageFault::Full => "full",
            StorageFault::ReadOnly => "read_only",
            StorageFault::Busy => "busy",
            StorageFault::Io => "io",
            StorageFault::ShuttingDown => "shutting_down",
            // `Other`, and any fault a later engine adds.
            _ => "other",
        };
        self.storage_faults
            .get_or_create(&FaultLabels { fault })
            .inc();
    }

    /// Counts a SIFEN call and the documents it left to retry.
    pub fn sifen_call(&self, service: &'static str, outcome: &'static str, retries: u64) {
        self.sifen_calls
            .get_or_create(&SifenLabels { service, outcome })
            .inc();
        if retries > 0 {
            self.sifen_retries
                .get_or_create(&ServiceLabels { service })
                .inc_by(retries);
        }
    }

    /// Counts a webhook POST by its outcome: `delivered`, or the attempt's error class.
    pub fn webhook_attempt(&self, attempt: &kuatia_service::webhook::Attempt) {
        let outcome = if attempt.succeeded() {
            "delivered".to_string()
        } else {
            attempt
                .error
                .clone()
                .unwrap_or_else(|| "http_status".to_string())
        };
        self.webhook_attempts
            .get_or_create(&OutcomeLabels { outcome })
            .inc();
    }

    /// The gauge of creates waiting for a signing thread.
    pub fn signing_queue(&self) -> Gauge {
        self.signing_queue.clone()
    }

    /// Writes what the store holds into the gauges, as of `now` (Unix time).
    fn set_backlog(&self, backlog: &crate::backend::Backlog, now: i64) {
        let age = |oldest: i64| (now.saturating_sub(oldest)).max(0) as f64;
        self.invoices.clear();
        for (environment, state, count) in &backlog.invoices {
            let labels = InvoiceLabels {
                environment: environment.clone(),
                state: state.clone(),
            };
            self.invoices.get_or_create(&labels).set(*count);
        }
        self.oldest_waiting.clear();
        for env in ENVIRONMENTS {
            for state in WAITING {
                let labels = InvoiceLabels {
                    environment: env.to_string(),
                    state: state.to_string(),
                };
                self.oldest_waiting.get_or_create(&labels).set(0.0);
            }
        }
        for (environment, state, oldest) in &backlog.oldest_waiting {
            let labels = InvoiceLabels {
                environment: environment.clone(),
                state: state.clone(),
            };
            self.oldest_waiting.get_or_create(&labels).set(age(*oldest));
        }
        let (pending, oldest) = backlog.pending_deliveries;
        self.pending_deliveries.set(pending);
        self.oldest_undelivered.set(oldest.map_or(0.0, age));
    }

    /// The registry as text: OpenMetrics 1.0 when `openmetrics`, else the Prometheus text format 0.0.4.
    pub fn encode(&self, openmetrics: bool) -> String {
        let mut out = String::new();
        let written = if openmetrics {
            prometheus_client::encoding::text::encode(&mut out, &self.registry)
        } else {
            prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry)
        };
        if written.is_err() {
            // Writing into a String cannot fail; an empty answer would be the only trace.
            tracing::error!("encoding the metrics failed");
        }
        out
    }
}

/// A method as a bounded label: the HTTP methods by name, anything else `other`.
fn method_label(method: &str) -> &'static str {
    const KNOWN: [&str; 7] = ["GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"];
    KNOWN
        .iter()
        .find(|m| m.eq_ignore_ascii_case(method))
        .copied()
        .unwrap_or("other")
}

/// A path as a bounded label: its `/v1` route template, `/panel` for the account panel, else `unmatched`.
fn route_label(path: &str) -> String {
    if let Some(template) = kuatia_service::route_template(path) {
        return template;
    }
    if path == "/panel" || path.starts_with("/panel/") {
        return "/panel".to_string();
    }
    "unmatched".to_string()
}

/// What the metrics listener serves from.
#[derive(Clone)]
pub(crate) struct Scrape {
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) engine: Arc<Mutex<Engine>>,
    /// SQLite's read connections: the store's figures are read there, beside the writer.
    pub(crate) readers: Option<Arc<crate::readers::Readers>>,
    pub(crate) clock: Clock,
    /// `--metrics-token-env`: the bearer token a scrape must present, if any.
    pub(crate) token: Option<Arc<str>>,
}

/// Whether `headers` carry `Authorization: Bearer <token>` (compared in constant time).
fn authorized(headers: &axum::http::HeaderMap, token: &str) -> bool {
    headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|given| kuatia_service::auth::ct_eq(given.as_bytes(), token.as_bytes()))
}

/// `GET /metrics`: the store's figures read, then everything encoded in the format the `Accept` header asks for.
async fn metrics_handler(
    axum::extract::State(scrape): axum::extract::State<Scrape>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    if let Some(token) = &scrape.token {
        if !authorized(&headers, token) {
            let mut r = axum::response::Response::new(axum::body::Body::from("unauthorized\n"));
            *r.status_mut() = axum::http::StatusCode::UNAUTHORIZED;
            r.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
            return r;
        }
    }
    let openmetrics = headers
        .get_all(axum::http::header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("application/openmetrics-text"));
    let _one = scrape.metrics.scraping.lock().await;
    let (engine, readers) = (scrape.engine.clone(), scrape.readers.clone());
    let read = tokio::task::spawn_blocking(move || {
        // SQLite: from a reader, so the writer does not wait; PostgreSQL: in a transaction of the first engine.
        match readers.and_then(|r| r.backlog()) {
            Some(b) => Ok(b),
            None => lock(&engine).transact(|svc, _| svc.store.backlog()),
        }
    })
    .await;
    match read {
        Ok(Ok(Ok(backlog))) => scrape
            .metrics
            .set_backlog(&backlog, scrape.clock.now().unix_timestamp()),
        Ok(Ok(Err(e)) | Err(e)) => {
            tracing::warn!(error = %e, "metrics: reading the store failed");
            scrape.metrics.scrape_failures.inc();
        }
        Err(_) => {
            scrape.metrics.scrape_failures.inc();
        }
    }
    let body = scrape.metrics.encode(openmetrics);
    let content_type = if openmetrics {
        "application/openmetrics-text; version=1.0.0; charset=utf-8"
    } else {
        "text/plain; version=0.0.4; charset=utf-8"
    };
    let mut r = axum::response::Response::new(axum::body::Body::from(body));
    r.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static(content_type),
    );
    r
}

/// Binds the metrics listener (`--metrics-addr`): `GET /metrics` only, everything else 404.
pub(crate) async fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener, String> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("--metrics-addr {addr}: {e}"))
}

/// Serves `GET /metrics` on `listener` until `stop`.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    scrape: Scrape,
    mut stop: watch::Receiver<bool>,
) {
    let app = axum::Router::new()
        .route("/metrics", axum::routing::get(metrics_handler))
        .with_state(scrape);
    let stopped = async move {
        let _ = stop.wait_for(|s| *s).await;
    };
    if let Err(e) = axum::serve(listener, app)
        .with_graceful_shutdown(stopped)
        .await
    {
        tracing::error!(error = %e, "metrics listener failed");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn requests_are_counted_under_their_route_template() {
        let m = Metrics::new();
        m.request("GET", "/v1/facturas/fact_1", 200, Duration::from_millis(3));
        m.request("GET", "/v1/facturas/fact_2", 404, Duration::from_millis(3));
        m.request("GET", "/v1/facturas/fact_3", 404, Duration::from_millis(3));
        m.request("BREW", "/etc/passwd", 404, Duration::from_millis(3));
        let text = m.encode(false);
        assert!(
            text.contains(
                "kuatia_http_requests_total{method=\"GET\",route=\"/v1/facturas/{id}\",status=\"404\"} 2\n"
            ),
            "{text}"
        );
        assert!(text.contains(
            "kuatia_http_requests_total{method=\"other\",route=\"unmatched\",status=\"404\"} 1\n"
        ));
        assert!(!text.contains("fact_1"), "{text}");
        assert!(text.contains("kuatia_http_request_duration_seconds_bucket{"));
        let open = m.encode(true);
        assert!(open.ends_with("# EOF\n"), "{open}");
    }

    #[test]
    fn the_backlog_sets_counts_and_ages_and_forgets_what_is_gone() {
        let m = Metrics::new();
        let backlog = crate::backend::Backlog {
            invoices: vec![
                ("sandbox".into(), "pending".into(), 3),
                ("sandbox".into(), "approved".into(), 7),
            ],
            oldest_waiting: vec![("sandbox".into(), "pending".into(), 1_000)],
            pending_deliveries: (2, Some(1_100)),
        };
        m.set_backlog(&backlog, 1_200);
        let text = m.encode(false);
        for line in [
            "kuatia_invoices{environment=\"sandbox\",state=\"pending\"} 3\n",
            "kuatia_invoices{environment=\"sandbox\",state=\"approved\"} 7\n",
            "kuatia_invoice_oldest_age_seconds{environment=\"sandbox\",state=\"pending\"} 200.0\n",
            "kuatia_invoice_oldest_age_seconds{environment=\"production\",state=\"sent\"} 0.0\n",
            "kuatia_webhook_deliveries_pending 2\n",
            "kuatia_webhook_oldest_undelivered_age_seconds 100.0\n",
        ] {
            assert!(text.contains(line), "{line} not in\n{text}");
        }
        m.set_backlog(&crate::backend::Backlog::default(), 1_300);
        let text = m.encode(false);
        assert!(!text.contains("state=\"approved\""), "{text}");
        assert!(text.contains("kuatia_webhook_oldest_undelivered_age_seconds 0.0\n"));
        assert!(text.contains("kuatia_webhook_deliveries_pending 0\n"));
    }

    #[test]
    fn counts_per_account_are_summed() {
        let rows = vec![
            ("sandbox".into(), "approved".into(), 2),
            ("production".into(), "sent".into(), 1),
            ("sandbox".into(), "approved".into(), 5),
        ];
        assert_eq!(
            crate::backend::Backlog::sum_counts(rows),
            vec![
                ("production".into(), "sent".into(), 1),
                ("sandbox".into(), "approved".into(), 7)
            ]
        );
    }
}
