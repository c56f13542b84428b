//! `GET /v1/archivo` (and the panel's `GET /panel/archivo`) served by `kuatia serve` for a month of any size in
//! bounded memory. The engine's own route builds the zip in memory and is capped (`Config::archive_limit`); here the
//! host intercepts the route instead: the service authenticates the caller and reads the query
//! ([`Service::archive_order`], the same code `handle` runs; the panel's download through
//! `kuatia_panel::archive_order`), a store connection of the archive's own (a SQLite reader, or a PostgreSQL
//! connection) feeds the one builder ([`Service::archive`], `write_archive`) into a temporary file in the data
//! directory, and the file is streamed as the answer. The writer is held only for the simulated SIFEN's tick that
//! any request makes first.
//!
//! [`Service::archive_order`]: kuatia_service::Service::archive_order
//! [`Service::archive`]: kuatia_service::Service::archive

use crate::app::App;
use crate::{open_engine, Engine, ServerConfig};
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use kuatia_service::archive::{archive_headers, is_archive_route, ArchiveOrder};
use kuatia_service::storage::{failure_response, StorageFault};
use kuatia_service::{HttpRequest, HttpResponse};
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// Longest a `GET /v1/archivo` may take before its answer starts (the archive is written whole first: a month of
/// 100 000 documents takes minutes); `--request-timeout` when longer. The body's transfer has no limit.
pub const ARCHIVE_TIMEOUT: Duration = Duration::from_secs(3600);

/// Archives built at once (each a blocking thread and a store connection); more wait their turn.
pub const ARCHIVE_BUILDS: usize = 2;

/// Bytes of the file per frame of the answer's body.
pub const ARCHIVE_CHUNK: usize = 64 * 1024;

/// Whether `method path` is an archive this module streams: `GET /v1/archivo` or the panel's `GET /panel/archivo`.
fn streamed(method: &str, path: &str) -> bool {
    is_archive_route(method, path) || kuatia_panel::is_archive_download(method, path)
}

/// The request deadline of `method path`: [`ARCHIVE_TIMEOUT`] for an archive, `limit` for the rest.
pub(crate) fn deadline(method: &str, path: &str, limit: Duration) -> Duration {
    match streamed(method, path) {
        true => limit.max(ARCHIVE_TIMEOUT),
        false => limit,
    }
}

/// What the archives are read from: the store's settings (a connection is opened per archive) and the turns.
pub(crate) struct ArchiveSource {
    config: ServerConfig,
    base_url: String,
    builds: std::sync::Arc<tokio::sync::Semaphore>,
}

impl ArchiveSource {
    /// The archives of the store of `config` (its signer and profile are not used).
    pub(crate) fn new(config: ServerConfig, base_url: String) -> ArchiveSource {
        ArchiveSource {
            config,
            base_url,
            builds: std::sync::Arc::new(tokio::sync::Semaphore::new(ARCHIVE_BUILDS)),
        }
    }

    /// A read engine of its own: a SQLite reader (WAL: the writer goes on), or a PostgreSQL connection.
    fn open(&self) -> Result<Engine, String> {
        let mut engine = open_engine(&self.config, &self.base_url)?;
        if let Some(store) = engine.service.store.as_sqlite_mut() {
            store.into_reader();
        }
        Ok(engine)
    }
}

/// The answer to `GET /v1/archivo` or the panel's `GET /panel/archivo`: the archive streamed from a temporary file,
/// or the error the engine would give. `None` for any other request, and for a panel download the panel answers
/// itself (no session, a malformed month): the engine takes those.
pub(crate) async fn answer(app: &App, request: &HttpRequest) -> Option<Response> {
    if !streamed(&request.method, &request.path) {
        return None;
    }
    // A refusal is written for its reader, as the engine writes its answers.
    let lang = kuatia_service::request_lang(request);
    let refusal = |mut r: HttpResponse| {
        kuatia_service::localize(&mut r, lang);
        crate::app::to_response(r)
    };
    // Every request first advances the simulated SIFEN (through the writer, a moment): the states are current.
    if let Err(crate::commit::Failed::Store(e)) =
        app.committer.call(|svc, host| svc.tick_due(host)).await
    {
        tracing::error!(error = %e, fault = ?e.fault, "storage failure before an archive");
        return Some(refusal(failure_response(e.fault)));
    }
    let source = app.archive.clone();
    let request = request.clone();
    let built = async move {
        let turn = source.builds.clone().acquire_owned().await.ok()?;
        tokio::task::spawn_blocking(move || {
            let built = build(&source, &request);
            drop(turn);
            built
        })
        .await
        .ok()
    };
    Some(match built.await {
        Some(Some(Ok(spool))) => spool.response(),
        Some(Some(Err(r))) => refusal(r),
        Some(None) => return None,
        None => refusal(failure_response(StorageFault::Other)),
    })
}

/// The archive written into a temporary file (unlinked at once: nothing stays behind, even after a crash).
struct Spool {
    file: std::fs::File,
    bytes: u64,
    file_name: String,
}

impl Spool {
    fn response(self) -> Response {
        let mut out = Response::new(Body::new(FileBody::new(
            tokio::fs::File::from_std(self.file),
            self.bytes,
        )));
        *out.status_mut() = StatusCode::OK;
        for (k, v) in archive_headers(&self.file_name) {
            if let (Ok(k), Ok(v)) = (
                axum::http::HeaderName::from_bytes(k.as_bytes()),
                HeaderValue::from_str(&v),
            ) {
                out.headers_mut().insert(k, v);
            }
        }
        out.headers_mut()
            .insert(axum::http::header::CONTENT_LENGTH, self.bytes.into());
        out
    }
}

/// Authenticates, then writes the archive into a spool file (blocking: the store's reads and the zip); `None` when
/// the panel answers the request itself.
fn build(source: &ArchiveSource, request: &HttpRequest) -> Option<Result<Spool, HttpResponse>> {
    let mut engine = match source.open() {
        Ok(e) => e,
        Err(e) => return Some(Err(unavailable(e))),
    };
    let now = kuatia_service::Host::now(&mut engine.host).unix_timestamp();
    let order = match engine.service.archive_order(request) {
        Some(Ok(order)) => order,
        Some(Err(r)) => return Some(Err(r)),
        None => kuatia_panel::archive_order(&engine.service, request, now)?,
    };
    Some(write(&engine, &order, now, &source.config.data_dir))
}

fn unavailable(e: String) -> HttpResponse {
    tracing::error!(error = %e, "an archive's store connection or file failed");
    failure_response(StorageFault::Other)
}

/// The archive of `order` written by the one builder ([`kuatia_service::Service::archive`]) into a spool file in
/// `dir`, rewound.
fn write(
    engine: &Engine,
    order: &ArchiveOrder,
    now: i64,
    dir: &Path,
) -> Result<Spool, HttpResponse> {
    let file = spool_file(dir).map_err(unavailable)?;
    let written = engine.service.archive(
        &order.principal,
        order.month,
        now,
        std::io::BufWriter::new(file),
    );
    // A read that failed ended the walk early: the archive would miss documents.
    if let Some(e) = engine.service.store.take_error() {
        tracing::error!(error = %e, fault = ?e.fault, "storage failure while writing an archive");
        return Err(failure_response(e.fault));
    }
    let (buffered, summary) =
        written.map_err(|f| kuatia_service::ApiError::of(500, f).response())?;
    let mut file = buffered
        .into_inner()
        .map_err(|e| unavailable(e.to_string()))?;
    let bytes = file
        .flush()
        .and_then(|()| file.seek(SeekFrom::Start(0)))
        .and_then(|_| file.metadata())
        .map_err(|e| unavailable(e.to_string()))?
        .len();
    tracing::info!(
        month = %order.month,
        documents = summary.documents,
        bytes,
        "archive written; streaming it"
    );
    Ok(Spool {
        file,
        bytes,
        file_name: order.file_name(),
    })
}

/// A new file in `dir`, unlinked at once (it lives as long as its handle).
fn spool_file(dir: &Path) -> Result<std::fs::File, String> {
    let mut b = [0u8; 12];
    getrandom::fill(&mut b).map_err(|e| e.to_string())?;
    let path = dir.join(format!(".archive-{}.zip", kuatia_service::auth::hex(&b)));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(file)
}

/// A response body read from a file [`ARCHIVE_CHUNK`] bytes at a time: never more than one chunk in memory.
pub(crate) struct FileBody {
    file: tokio::fs::File,
    buf: Vec<u8>,
    left: u64,
}

impl FileBody {
    /// The first `bytes` of `file` (positioned at its start).
    pub(crate) fn new(file: tokio::fs::File, bytes: u64) -> FileBody {
        FileBody {
            file,
            buf: vec![0; ARCHIVE_CHUNK],
            left: bytes,
        }
    }
}

impl http_body::Body for FileBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, std::io::Error>>> {
        let this = self.get_mut();
        if this.left == 0 {
            return Poll::Ready(None);
        }
        let want = usize::try_from(this.left).map_or(this.buf.len(), |n| n.min(this.buf.len()));
        let mut read = tokio::io::ReadBuf::new(&mut this.buf[..want]);
        match tokio::io::AsyncRead::poll_read(Pin::new(&mut this.file), cx, &mut read) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Some(Err(e))),
            Poll::Ready(Ok(())) if read.filled().is_empty() => {
                Poll::Ready(Some(Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "archive file shorter than announced",
                ))))
            }
            Poll::Ready(Ok(())) => {
                let chunk = Bytes::copy_from_slice(read.filled());
                this.left -= chunk.len() as u64;
                Poll::Ready(Some(Ok(http_body::Frame::data(chunk))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.left == 0
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.left)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use http_body::Body as _;
    use http_body_util::BodyExt;

    #[test]
    fn only_the_archive_route_gets_the_long_deadline() {
        let limit = Duration::from_secs(30);
        assert_eq!(deadline("GET", "/v1/archivo", limit), ARCHIVE_TIMEOUT);
        assert_eq!(
            deadline("get", "/v1/archivo?mes=2026-11", limit),
            ARCHIVE_TIMEOUT
        );
        assert_eq!(deadline("GET", "/v1/facturas", limit), limit);
        assert_eq!(deadline("POST", "/v1/archivo", limit), limit);
        assert_eq!(
            deadline("GET", "/panel/archivo?mes=2026-11", limit),
            ARCHIVE_TIMEOUT
        );
        assert_eq!(deadline("GET", "/panel/facturas", limit), limit);
    }

    /// The answer's body is read from the file a chunk at a time, never held whole (a `Full` body would come as one
    /// frame), with its exact length announced; the spool file is gone from the directory from the start.
    #[tokio::test]
    async fn an_archive_body_streams_from_its_file_in_chunks() {
        let dir = std::env::temp_dir().join(format!("kuatia-archive-body-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut file = spool_file(&dir).unwrap();
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "the spool file is unlinked"
        );
        let content: Vec<u8> = (0..5 * ARCHIVE_CHUNK + 123)
            .map(|i| (i % 251) as u8)
            .collect();
        file.write_all(&content).unwrap();
        file.seek(SeekFrom::Start(0)).unwrap();
        let spool = Spool {
            file,
            bytes: content.len() as u64,
            file_name: "kuatia-2026-11.zip".into(),
        };
        let response = spool.response();
        assert_eq!(response.headers()["content-type"], "application/zip");
        assert_eq!(
            response.headers()["content-disposition"],
            "attachment; filename=\"kuatia-2026-11.zip\""
        );
        assert_eq!(
            response.headers()["content-length"],
            content.len().to_string().as_str()
        );
        let mut body = response.into_body();
        assert_eq!(body.size_hint().exact(), Some(content.len() as u64));
        let mut frames = Vec::new();
        while let Some(frame) = body.frame().await {
            frames.push(frame.unwrap().into_data().unwrap());
        }
        assert!(frames.len() >= 6, "{} frames", frames.len());
        assert!(frames.iter().all(|f| f.len() <= ARCHIVE_CHUNK));
        assert_eq!(frames.concat(), content);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
