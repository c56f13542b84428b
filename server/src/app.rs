//! The HTTP face: the one catch-all handler, a request through the engine, and the engine's answer as a response.

use crate::{commit, conn, panel, readers, signing};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use kuatia_core::msg::Lang;
use kuatia_core::rule;
use kuatia_service::storage::StorageFault;
use kuatia_service::{HttpRequest, HttpResponse, Step};
use std::sync::Arc;
use std::time::Instant;
use tracing::Instrument;

#[derive(Clone)]
pub(crate) struct App {
    pub(crate) committer: Arc<commit::Committer>,
    /// Status lookups beside the writer (SQLite).
    pub(crate) readers: Option<Arc<readers::Readers>>,
    /// The threads that sign creates.
    pub(crate) signing: Arc<signing::Signing>,
    pub(crate) max_body: usize,
    /// `--body-timeout` and `--request-timeout` ([`conn::Limits`]).
    pub(crate) limits: conn::Limits,
    /// `--trusted-proxy`.
    pub(crate) trusted_proxies: Arc<[std::net::IpAddr]>,
    /// The account panel at `/panel`: one per node, so a client's failed sign-ins count whichever engine serves it.
    pub(crate) panel: kuatia_panel::Panel,
    /// Request counts and latencies, storage faults (`--metrics-addr`).
    pub(crate) metrics: Arc<crate::metrics::Metrics>,
    /// `GET /v1/archivo`, streamed from a file ([`crate::archive_http`]).
    pub(crate) archive: Arc<crate::archive_http::ArchiveSource>,
    /// The server-wide SMTP settings (`--smtp-url`), for the panel's test message when an account has none.
    pub(crate) smtp: Option<Arc<crate::email::SmtpSettings>>,
}

/// An answer of the server's own with the message of rule finding `f`, written in `lang` as the service writes its
/// answers (`Content-Language`, `Vary`).
fn json_error(status: StatusCode, f: kuatia_core::Finding, lang: Lang) -> Response {
    let mut r = kuatia_service::ApiError::of(status.as_u16(), f).response();
    kuatia_service::localize(&mut r, lang);
    to_response(r)
}

/// The language a request's answers are written in: its `Accept-Language` (Spanish of Paraguay by default).
fn header_lang(headers: &HeaderMap) -> Lang {
    headers
        .get(axum::http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .map_or_else(Lang::default, Lang::negotiate)
}

pub(crate) fn to_response(r: HttpResponse) -> Response {
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

/// Header a client (or its proxy) names its request with; a sane value becomes the [`REQUEST_ID_HEADER`].
pub const CLIENT_REQUEST_ID_HEADER: &str = "X-Request-Id";

/// Longest client request id taken.
pub const MAX_REQUEST_ID: usize = 128;

/// A client's request id fit for a header and a log line: 1 to [`MAX_REQUEST_ID`] characters of `A-Z a-z 0-9 . _ : -`.
pub fn sane_request_id(id: &str) -> bool {
    (1..=MAX_REQUEST_ID).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

/// The request's id: the client's `X-Request-Id` when it sent exactly one and it is [sane](sane_request_id), else a
/// fresh one (anything else the client sent is ignored, never echoed).
fn request_id(headers: &HeaderMap) -> String {
    let mut sent = headers.get_all(CLIENT_REQUEST_ID_HEADER).iter();
    if let (Some(v), None) = (sent.next(), sent.next()) {
        if let Some(id) = v.to_str().ok().filter(|v| sane_request_id(v)) {
            return id.to_string();
        }
    }
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

/// The only handler: the request, whole, into [`Service::handle`]; every answer carries a `Request-Id` (also in its
/// error body), and every log line of the request its `request` span with the `request_id`; one access line ends it.
/// An answer not ready within `--request-timeout` is 503 `REQUEST_TIMEOUT` (the work goes on: a create is stored and
/// its `Idempotency-Key` finds it).
///
/// [`Service::handle`]: kuatia_service::Service::handle
pub(crate) async fn handle(State(app): State<App>, req: Request) -> Response {
    let started = Instant::now();
    let id = request_id(req.headers());
    let span = tracing::info_span!("request", request_id = %id);
    // Method and path only (no query string): headers carry keys and bodies carry customer data.
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    let lang = header_lang(req.headers());
    let deadline = crate::archive_http::deadline(method.as_str(), &path, app.limits.request);
    let metrics = app.metrics.clone();
    let inner = handle_inner(app, req).instrument(span.clone());
    let mut response = match tokio::time::timeout(deadline, inner).await {
        Ok(r) => r,
        Err(_) => {
            span.in_scope(|| tracing::warn!("request timed out"));
            let mut r = json_error(
                StatusCode::SERVICE_UNAVAILABLE,
                rule::host_request_timeout("", &deadline.as_secs_f64().to_string()),
                lang,
            );
            r.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                HeaderValue::from_static("1"),
            );
            r
        }
    };
    if response.status().is_client_error() || response.status().is_server_error() {
        response = with_request_id(response, &id).await;
    }
    if let Ok(v) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, v);
    }
    let status = response.status().as_u16();
    let elapsed = started.elapsed();
    metrics.request(method.as_str(), &path, status, elapsed);
    span.in_scope(|| {
        tracing::info!(%method, %path, status, duration_ms = elapsed.as_secs_f64() * 1e3, "request");
    });
    response
}

/// An error answer with `request_id` in its `error` object ([`kuatia_service::error_body_with_request_id`]); its body
/// is already in memory (built here or by the engine), so reading it does not wait.
async fn with_request_id(response: Response, id: &str) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return Response::from_parts(parts, Body::empty());
    };
    match kuatia_service::error_body_with_request_id(&bytes, id) {
        Some(stamped) => {
            parts.headers.remove(axum::http::header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(stamped))
        }
        None => Response::from_parts(parts, Body::from(bytes)),
    }
}

/// A request through the engine: its store work in the writer's next group; a create leaves it to be signed on a
/// signing thread (its number reserved and committed) and comes back to be stored.
async fn serve(
    app: &App,
    request: HttpRequest,
    client: Option<std::net::IpAddr>,
) -> Result<HttpResponse, commit::Failed> {
    if kuatia_panel::is_email_test(&request.method, &request.path) {
        return crate::email_test::serve(app, request).await;
    }
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

async fn handle_inner(app: App, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let lang = header_lang(&parts.headers);
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
            rule::host_body_timeout("", &app.limits.body.as_secs_f64().to_string()),
            lang,
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
            rule::host_too_large("", app.max_body),
            lang,
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
    let request = HttpRequest {
        method: parts.method.to_string(),
        path: parts
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_string())
            .unwrap_or_else(|| parts.uri.path().to_string()),
        // Header values that are not text (never sent by real clients) cannot carry anything the API reads.
        headers: parts
            .headers
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect(),
        body: bytes.to_vec(),
    };
    if let Some(answer) = crate::archive_http::answer(&app, &request).await {
        return answer;
    }
    // A lookup from a reader takes tens of microseconds (a cached page, one row): answered here. Everything else
    // waits for the writer's commit without holding a thread.
    let outcome = match app.readers.as_ref().and_then(|r| r.lookup(&request)) {
        Some(answer) => Ok(answer),
        // A task of its own: a client that hangs up does not stop a create half-way (its number would be a gap).
        None => {
            let app = app.clone();
            tokio::spawn(async move { serve(&app, request, client).await }.in_current_span())
                .await
                .unwrap_or(Err(commit::Failed::Panic))
        }
    };
    match outcome {
        Ok(r) => to_response(r),
        Err(commit::Failed::Store(e)) => {
            app.metrics.storage_fault(e.fault);
            if e.fault == StorageFault::ShuttingDown {
                tracing::warn!("shutting down; request refused");
            } else {
                tracing::error!(error = %e, fault = ?e.fault, "storage failure; request rolled back");
            }
            let mut r = kuatia_service::storage::failure_response(e.fault);
            kuatia_service::localize(&mut r, lang);
            to_response(r)
        }
        Err(commit::Failed::Panic) => {
            tracing::error!("request panicked; rolled back");
            json_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                rule::host_internal(""),
                lang,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The server's own answers are written like the service's: in the request's language, from their rules.
    #[tokio::test]
    async fn the_servers_own_answers_speak_the_readers_language() {
        for (lang, tag, text) in [
            (
                Lang::EsPy,
                "es-PY",
                "El cuerpo de una solicitud no puede superar 10 bytes",
            ),
            (Lang::En, "en", "request bodies are limited to 10 bytes"),
        ] {
            let r = json_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                rule::host_too_large("", 10),
                lang,
            );
            assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
            assert_eq!(r.headers()["content-language"], tag);
            let body = axum::body::to_bytes(r.into_body(), 4096).await.unwrap();
            let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(v["error"]["message"], text);
            assert_eq!(v["error"]["code"], kuatia_core::code::TOO_LARGE);
            assert_eq!(v["error"]["rule"], "host.request.too_large");
        }
    }
}
