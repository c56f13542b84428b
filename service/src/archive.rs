//! The month's archive for the accountant (feature `archive`; `kuatia archive`, `GET /v1/archivo`): one zip with every
//! signed XML (`<CDC>.xml`) of the documents *emitted* in a month, the KuDE (`<CDC>.pdf`) of those approved or
//! cancelled, `index.csv` (one row per document) and `manifest.json` (the SHA-256 of every member). The one place
//! that decides the rows, the columns and the manifest: hosts hand it a writer and the store.
//!
//! The month is of `dFeEmiDE`, the emission date written in the signed XML, which is Paraguay's local time
//! (`America/Asuncion`, UTC−03:00 all year since October 2024). Sans-IO and streaming: the documents are read a page
//! at a time ([`month_documents`]) and each member is written and dropped; what stays in memory grows only by the
//! zip's central directory and the manifest's sums (about 300 bytes per member, docs/benchmarks.md).

use crate::auth::Environment;
use crate::store::{InvoiceQuery, InvoiceRecord, Store};
use kuatia_core::error::Finding;
use kuatia_core::lifecycle::Estado;
use sha2::{Digest, Sha256};
use std::io::{Seek, Write};
use time::{Date, OffsetDateTime, PrimitiveDateTime, UtcOffset};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

pub mod check;

/// Documents read from the store per page of the walk.
pub const ARCHIVE_PAGE: usize = 200;

/// `formato` of the manifest.
pub const MANIFEST_FORMAT: &str = "kuatia-archivo/1";

/// The name of the manifest member.
pub const MANIFEST_NAME: &str = "manifest.json";

/// The name of the index member.
pub const INDEX_NAME: &str = "index.csv";

/// The header row of `index.csv` (RFC 4180, UTF-8, CRLF line ends).
pub const INDEX_COLUMNS: [&str; 17] = [
    "cdc",
    "numero",
    "tipo_documento",
    "fecha_emision",
    "ruc_receptor",
    "nombre_receptor",
    "subtotal_10",
    "iva_10",
    "subtotal_5",
    "iva_5",
    "exenta",
    "total",
    "moneda",
    "estado",
    "anulada",
    "fecha_anulacion",
    "kude",
];

/// Paraguay's offset (UTC−03:00 all year since October 2024).
fn paraguay() -> UtcOffset {
    UtcOffset::from_hms(-3, 0, 0).unwrap_or(UtcOffset::UTC)
}

/// A calendar month, `YYYY-MM`, of Paraguay's local time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Month {
    /// The year, 1980 to 2107 (the years a zip member's time can carry).
    pub year: u16,
    /// The month, 1 to 12.
    pub month: u8,
}

impl Month {
    /// `YYYY-MM`, or `None`.
    pub fn parse(text: &str) -> Option<Month> {
        let (y, m) = text.split_once('-')?;
        let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(y, 4) || !digits(m, 2) {
            return None;
        }
        let year: u16 = y.parse().ok()?;
        let month: u8 = m.parse().ok()?;
        ((1980..=2107).contains(&year) && (1..=12).contains(&month))
            .then_some(Month { year, month })
    }

    /// Unix time of its first second in Paraguay.
    fn start(self) -> i64 {
        let first = time::Month::try_from(self.month)
            .ok()
            .and_then(|m| Date::from_calendar_date(i32::from(self.year), m, 1).ok());
        first.map_or(0, |d| {
            d.midnight().assume_offset(paraguay()).unix_timestamp()
        })
    }

    /// The month after.
    fn next(self) -> Month {
        match self.month {
            12 => Month {
                year: self.year.saturating_add(1),
                month: 1,
            },
            m => Month {
                year: self.year,
                month: m + 1,
            },
        }
    }

    /// The creation times (`[from, to)`, Unix) of every document that can be emitted in this month: SIFEN accepts an
    /// emission date at most 720 h before and 120 h after the transmission (MT D002, checked at creation), so such
    /// a document was created from 5 days before the month to 30 days after it; a day more each side.
    pub fn created_window(self) -> (i64, i64) {
        const DAY: i64 = 86_400;
        (self.start() - 6 * DAY, self.next().start() + 31 * DAY)
    }
}

impl std::fmt::Display for Month {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

/// The signed documents of an account's environment emitted in `month`, oldest first, read [`ARCHIVE_PAGE`] at a
/// time; the walk ends after the document `until` when one is given (a second walk then sees the documents of the
/// first even while new ones are created).
pub fn month_documents<'s, S: Store + ?Sized>(
    store: &'s S,
    account_id: &'s str,
    env: Environment,
    month: Month,
    until: Option<&str>,
) -> MonthDocuments<'s, S> {
    let (from, to) = month.created_window();
    MonthDocuments {
        store,
        account_id,
        env,
        prefix: format!("{month}-"),
        query: InvoiceQuery {
            created_from: Some(from),
            created_to: Some(to),
            ascending: true,
            limit: ARCHIVE_PAGE,
            ..InvoiceQuery::default()
        },
        until: until.map(str::to_string),
        page: Vec::new().into_iter(),
        done: false,
    }
}

/// The iterator of [`month_documents`].
pub struct MonthDocuments<'s, S: Store + ?Sized> {
    store: &'s S,
    account_id: &'s str,
    env: Environment,
    prefix: String,
    query: InvoiceQuery,
    until: Option<String>,
    page: std::vec::IntoIter<InvoiceRecord>,
    done: bool,
}

impl<S: Store + ?Sized> Iterator for MonthDocuments<'_, S> {
    type Item = InvoiceRecord;

    fn next(&mut self) -> Option<InvoiceRecord> {
        loop {
            if let Some(r) = self.page.next() {
                if self.until.as_deref() == Some(r.id.as_str()) {
                    self.done = true;
                    self.page = Vec::new().into_iter();
                }
                if r.signed && r.fecha_emision.starts_with(&self.prefix) {
                    return Some(r);
                }
                continue;
            }
            if self.done {
                return None;
            }
            let (rows, _) = self
                .store
                .list_invoices(self.account_id, self.env, &self.query);
            self.done = rows.len() < self.query.limit;
            match rows.last() {
                Some(last) => self.query.starting_after = Some(last.id.clone()),
                None => return None,
            }
            self.page = rows.into_iter();
        }
    }
}

/// What the manifest says besides the members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveHead {
    /// The account.
    pub account_id: String,
    /// Its environment.
    pub environment: Environment,
    /// The month of emission.
    pub month: Month,
    /// Unix time the archive was made (the host's clock).
    pub generated_at: i64,
}

/// What an archive holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ArchiveSummary {
    /// Documents (rows of the index; one XML each).
    pub documents: usize,
    /// KuDE PDFs (approved and cancelled documents).
    pub kudes: usize,
    /// Cancelled documents.
    pub cancelled: usize,
    /// Members, the index and the manifest included.
    pub members: usize,
}

/// The manifest's lines so far: every name in one string and a fixed-size entry per member (two allocations that
/// grow by doubling, rather than a small one per member among each document's transient buffers).
#[derive(Default)]
struct Sums {
    names: String,
    /// End of the name in `names`, SHA-256, size.
    entries: Vec<(usize, [u8; 32], u64)>,
}

impl Sums {
    fn push(&mut self, name: &str, sha256: [u8; 32], bytes: u64) {
        self.names.push_str(name);
        self.entries.push((self.names.len(), sha256, bytes));
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    /// `(name, sha256, bytes)` in the order written.
    fn iter(&self) -> impl Iterator<Item = (&str, &[u8; 32], u64)> {
        let mut start = 0;
        self.entries.iter().map(move |(end, sha, bytes)| {
            let name = self.names.get(start..*end).unwrap_or_default();
            start = *end;
            (name, sha, *bytes)
        })
    }
}

/// A zip member's time: a Paraguay local date-time, or the zip epoch when out of range.
fn zip_time(t: PrimitiveDateTime) -> zip::DateTime {
    let year = u16::try_from(t.year()).unwrap_or(1980);
    zip::DateTime::from_date_and_time(
        year,
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
    )
    .unwrap_or_default()
}

/// A Unix time in Paraguay, `YYYY-MM-DDThh:mm:ss`.
fn local(t: i64) -> Option<PrimitiveDateTime> {
    let at = OffsetDateTime::from_unix_timestamp(t)
        .ok()?
        .to_offset(paraguay());
    Some(PrimitiveDateTime::new(at.date(), at.time()))
}

fn io_error(what: &str, e: impl std::fmt::Display) -> Finding {
    kuatia_core::rule::storage_archive_write("", what, &e.to_string())
}

/// The zip being written and the sums of its members so far.
struct Writer<W: Write + Seek> {
    zip: ZipWriter<W>,
    sums: Sums,
}

impl<W: Write + Seek> Writer<W> {
    fn start(&mut self, name: &str, at: zip::DateTime, deflate: bool) -> Result<(), Finding> {
        let method = match deflate {
            true => CompressionMethod::Deflated,
            false => CompressionMethod::Stored,
        };
        let options = SimpleFileOptions::default()
            .compression_method(method)
            .last_modified_time(at)
            .unix_permissions(0o644);
        self.zip
            .start_file(name, options)
            .map_err(|e| io_error(name, e))
    }

    /// A whole member.
    fn member(
        &mut self,
        name: String,
        at: zip::DateTime,
        deflate: bool,
        bytes: &[u8],
    ) -> Result<(), Finding> {
        self.start(&name, at, deflate)?;
        self.zip.write_all(bytes).map_err(|e| io_error(&name, e))?;
        self.sums
            .push(&name, Sha256::digest(bytes).into(), bytes.len() as u64);
        Ok(())
    }
}

/// Writes the archive of `head.month` into `out` and gives it back with what it holds. `walk(until)` gives the
/// month's documents in creation order ([`month_documents`] over a store, `until` passed on): it is walked twice, once
/// for `index.csv` (the first member, written row by row) and once, up to the last document of the first walk, for
/// the XMLs and KuDEs; nothing but the sums is kept between members. Errors: `STORAGE_ERROR` when the writer
/// fails, the document's finding (with its CDC) when a stored XML no longer reads.
pub fn write_archive<W, F, I>(
    out: W,
    head: &ArchiveHead,
    mut walk: F,
) -> Result<(W, ArchiveSummary), Finding>
where
    W: Write + Seek,
    F: FnMut(Option<&str>) -> I,
    I: Iterator<Item = InvoiceRecord>,
{
    let made = local(head.generated_at).map_or_else(zip::DateTime::default, zip_time);
    let mut w = Writer {
        zip: ZipWriter::new(out),
        sums: Sums::default(),
    };
    let mut summary = ArchiveSummary::default();
    // index.csv, streamed: each row is hashed and written as it is made.
    w.start(INDEX_NAME, made, true)?;
    let mut sha = Sha256::new();
    let mut size = 0u64;
    let mut last = None;
    let mut put = |w: &mut Writer<W>, line: &str| -> Result<(), Finding> {
        sha.update(line.as_bytes());
        size += line.len() as u64;
        w.zip
            .write_all(line.as_bytes())
            .map_err(|e| io_error(INDEX_NAME, e))
    };
    put(
        &mut w,
        &csv_line(INDEX_COLUMNS.iter().map(|c| c.to_string())),
    )?;
    for record in walk(None) {
        put(&mut w, &csv_line(row(&record)?))?;
        summary.documents += 1;
        summary.cancelled += usize::from(record.status == Estado::Cancelled);
        last = Some(record.id);
    }
    w.sums.push(INDEX_NAME, sha.finalize().into(), size);
    // The documents of the index, each XML and KuDE written and dropped.
    if let Some(last) = last {
        for record in walk(Some(&last)) {
            let at = kuatia_core::fmt::parse_datetime(&record.fecha_emision)
                .map(zip_time)
                .unwrap_or_default();
            if let Some(pdf) = kude(&record)? {
                w.member(format!("{}.pdf", record.cdc), at, false, &pdf)?;
                summary.kudes += 1;
            }
            w.member(
                format!("{}.xml", record.cdc),
                at,
                true,
                record.xml.as_bytes(),
            )?;
            if record.id == last {
                break;
            }
        }
    }
    w.start(MANIFEST_NAME, made, true)?;
    let mut buffered = std::io::BufWriter::new(&mut w.zip);
    write_manifest(&mut buffered, head, &summary, &w.sums)
        .and_then(|()| buffered.flush())
        .map_err(|e| io_error(MANIFEST_NAME, e))?;
    drop(buffered);
    summary.members = w.sums.len() + 1;
    let out = w
        .zip
        .finish()
        .map_err(|e| io_error("central directory", e))?;
    Ok((out, summary))
}

/// The KuDE of an approved or cancelled document (the others have none: a pending one may still be rejected).
fn kude(record: &InvoiceRecord) -> Result<Option<Vec<u8>>, Finding> {
    if !matches!(record.status, Estado::Approved | Estado::Cancelled) {
        return Ok(None);
    }
    let de = parse(record)?;
    kuatia_core::kude::pdf::pdf(&de, &record.qr, &kuatia_core::kude::KudeOptions::default())
        .map(Some)
        .map_err(|f| about(record, f))
}

fn parse(record: &InvoiceRecord) -> Result<kuatia_core::de::DocumentoElectronico, Finding> {
    kuatia_core::xml::parse(&record.xml).map_err(|f| about(record, f))
}

/// A finding about a stored document, naming its CDC (rule `archive.document`, `f`'s rule as its reason).
fn about(record: &InvoiceRecord, f: Finding) -> Finding {
    let mut params = f.params;
    params.insert("cdc", kuatia_core::rule::Param::One(record.cdc.clone()));
    params.insert("reason", kuatia_core::rule::Param::One(f.rule.into_owned()));
    kuatia_core::rule::finding(kuatia_core::rule::ARCHIVE_DOCUMENT, f.path, params)
}

/// One row of `index.csv`, in [`INDEX_COLUMNS`]' order.
fn row(record: &InvoiceRecord) -> Result<Vec<String>, Finding> {
    let de = parse(record)?;
    let amount =
        |d: Option<rust_decimal::Decimal>| d.map(kuatia_core::fmt::dec).unwrap_or_default();
    let t = de.totales.as_ref();
    let receiver = &de.receptor;
    let ruc = match (&receiver.ruc, receiver.dv) {
        (Some(r), Some(dv)) => format!("{r}-{dv}"),
        _ => record.receptor_ruc.clone().unwrap_or_default(),
    };
    let cancelled = record.status == Estado::Cancelled;
    let cancelled_at = match cancelled {
        true => local(record.updated_at)
            .map(kuatia_core::fmt::datetime)
            .unwrap_or_default(),
        false => String::new(),
    };
    let has_kude = matches!(record.status, Estado::Approved | Estado::Cancelled);
    Ok(vec![
        record.cdc.clone(),
        record.numero.clone(),
        record.tipo_documento.to_string(),
        record.fecha_emision.clone(),
        ruc,
        receiver.razon_social.clone(),
        amount(t.and_then(|t| t.sub_10)),
        amount(t.and_then(|t| t.iva_10)),
        amount(t.and_then(|t| t.sub_5)),
        amount(t.and_then(|t| t.iva_5)),
        amount(t.and_then(|t| t.sub_exenta)),
        record
            .total
            .clone()
            .unwrap_or_else(|| amount(t.map(|t| t.total_general))),
        record.moneda.clone().unwrap_or_default(),
        record.status.as_str().to_string(),
        if cancelled { "si" } else { "no" }.to_string(),
        cancelled_at,
        if has_kude {
            format!("{}.pdf", record.cdc)
        } else {
            String::new()
        },
    ])
}

/// A CSV line (RFC 4180): fields joined by commas, a field with a comma, a quote, CR or LF quoted with its quotes
/// doubled, CRLF at the end.
pub fn csv_line(fields: impl IntoIterator<Item = String>) -> String {
    let mut line = String::new();
    for (n, f) in fields.into_iter().enumerate() {
        if n > 0 {
            line.push(',');
        }
        if f.contains([',', '"', '\r', '\n']) {
            line.push('"');
            line.push_str(&f.replace('"', "\"\""));
            line.push('"');
        } else {
            line.push_str(&f);
        }
    }
    line.push_str("\r\n");
    line
}

/// Writes `manifest.json` (the archive's description and the SHA-256 of every other member, in the order written)
/// line by line: one line per member, no document tree of them all in memory.
fn write_manifest(
    out: &mut impl Write,
    head: &ArchiveHead,
    summary: &ArchiveSummary,
    sums: &Sums,
) -> std::io::Result<()> {
    let text = |v: &str| serde_json::Value::from(v).to_string();
    writeln!(out, "{{")?;
    writeln!(out, "  \"formato\": {},", text(MANIFEST_FORMAT))?;
    writeln!(out, "  \"cuenta\": {},", text(&head.account_id))?;
    writeln!(out, "  \"entorno\": {},", text(head.environment.as_str()))?;
    writeln!(out, "  \"mes\": {},", text(&head.month.to_string()))?;
    writeln!(
        out,
        "  \"fecha\": {},",
        text("dFeEmiDE (fecha de emisión), hora local de Paraguay (America/Asuncion, UTC-03:00)")
    )?;
    writeln!(
        out,
        "  \"generado\": {},",
        text(&crate::rfc3339(head.generated_at))
    )?;
    writeln!(out, "  \"documentos\": {},", summary.documents)?;
    writeln!(out, "  \"kudes\": {},", summary.kudes)?;
    writeln!(out, "  \"anulados\": {},", summary.cancelled)?;
    writeln!(out, "  \"archivos\": [")?;
    let mut hex = String::with_capacity(64);
    for (n, (name, sha, bytes)) in sums.iter().enumerate() {
        hex.clear();
        for b in sha {
            hex.push_str(&format!("{b:02x}"));
        }
        let comma = if n + 1 < sums.len() { "," } else { "" };
        writeln!(
            out,
            "    {{\"nombre\": {}, \"sha256\": \"{hex}\", \"bytes\": {bytes}}}{comma}",
            text(name)
        )?;
    }
    writeln!(out, "  ]")?;
    writeln!(out, "}}")
}

impl<S: Store> crate::Service<S> {
    /// The archive of the principal's documents emitted in `month` ([`write_archive`] over this service's store),
    /// made at `generated_at` (Unix time, the host's clock).
    pub fn archive<W: Write + Seek>(
        &self,
        principal: &crate::Principal,
        month: Month,
        generated_at: i64,
        out: W,
    ) -> Result<(W, ArchiveSummary), Finding> {
        let head = ArchiveHead {
            account_id: principal.account.id.clone(),
            environment: principal.env,
            month,
            generated_at,
        };
        let (store, account, env) = (&self.store, principal.account.id.as_str(), principal.env);
        write_archive(out, &head, |until| {
            month_documents(store, account, env, month, until)
        })
    }
}

/// Default of [`crate::Config::archive_limit`], the most documents an archive built in memory holds (the in-process
/// faces' `GET /v1/archivo`, the panel's download): the sans-IO engine answers with the whole zip in memory (about 50
/// KB a document). `kuatia serve` streams the route from a file instead ([`crate::Service::archive_order`]), and
/// `kuatia archive` writes one on the host: neither has a limit.
pub const API_ARCHIVE_LIMIT: usize = 500;

/// The pattern of a month, `YYYY-MM` from 1980-01 to 2107-12 (`mes` of `GET /v1/archivo`).
pub const MONTH_PATTERN: &str = "^(19[89][0-9]|20[0-9][0-9]|210[0-7])-(0[1-9]|1[0-2])$";

/// A month's archive held in memory, as the API and the account panel hand it out ([`crate::Service::month_archive`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonthArchive {
    /// `kuatia-YYYY-MM.zip`.
    pub file_name: String,
    /// The zip.
    pub zip: Vec<u8>,
    /// What it holds.
    pub summary: ArchiveSummary,
}

/// A `GET /v1/archivo` authenticated and read ([`crate::Service::archive_order`]): whose archive, of which month, for
/// a host that writes it itself ([`crate::Service::archive`]) rather than in memory.
#[derive(Debug, Clone)]
pub struct ArchiveOrder {
    /// The caller: its account and environment.
    pub principal: crate::Principal,
    /// The month of emission.
    pub month: Month,
}

impl ArchiveOrder {
    /// The attachment's name, `kuatia-YYYY-MM.zip`.
    pub fn file_name(&self) -> String {
        file_name(self.month)
    }
}

fn file_name(month: Month) -> String {
    format!("kuatia-{month}.zip")
}

/// `mes` as a month, or 400 `INVALID_QUERY` naming it.
fn parse_mes(mes: &str) -> Result<Month, crate::ApiError> {
    Month::parse(mes)
        .ok_or_else(|| crate::http::bad_query(kuatia_core::rule::api_query_month("", "mes")))
}

/// The month of `GET /v1/archivo`'s query: 400 `INVALID_QUERY` for a missing or malformed `mes` or another parameter.
fn archive_query(query: &str) -> Result<Month, crate::ApiError> {
    let pairs = crate::http::query_pairs(query, &["mes"])?;
    let Some(mes) = pairs.iter().find(|(k, _)| k == "mes").map(|(_, v)| v) else {
        return Err(crate::http::bad_query(
            kuatia_core::rule::api_query_month_required("", "mes"),
        ));
    };
    parse_mes(mes)
}

/// Whether `method` and `path` (its query included or not) are `GET /v1/archivo`: lets a host send only those to
/// [`crate::Service::archive_order`], before touching a store.
pub fn is_archive_route(method: &str, path: &str) -> bool {
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    method.eq_ignore_ascii_case("GET")
        && crate::router::route_segments(path)[..] == ["v1", "archivo"]
}

impl<S: Store> crate::Service<S> {
    /// `GET /v1/archivo` authenticated and its query read exactly as [`crate::Service::handle`] does, writing
    /// nothing: the order, or the error answer `handle` would give (401, 400 `INVALID_QUERY`, ...). `None` for any
    /// other request. For a host that writes the archive itself with [`crate::Service::archive`] (to a file, then
    /// streamed: `kuatia serve`), so the route has no [`crate::Config::archive_limit`] there.
    pub fn archive_order(
        &self,
        req: &crate::HttpRequest,
    ) -> Option<Result<ArchiveOrder, crate::HttpResponse>> {
        if !is_archive_route(&req.method, &req.path) {
            return None;
        }
        let query = req.path.split_once('?').map_or("", |(_, q)| q);
        let order = self.authenticate(req).and_then(|principal| {
            archive_query(query)
                .map(|month| ArchiveOrder { principal, month })
                .map_err(|e| e.response())
        });
        // Written for the reader, as `handle` writes its answers.
        Some(order.map_err(|mut r| {
            crate::localize(&mut r, crate::request_lang(req));
            r
        }))
    }

    /// The archive of the principal's documents emitted in the month `mes` (`YYYY-MM`), in memory: 400
    /// `INVALID_QUERY` (naming `mes`) for a malformed month and for a month of more than
    /// [`crate::Config::archive_limit`] documents (`kuatia serve` and `kuatia archive` stream those to a file), 500
    /// when it cannot be written.
    pub fn month_archive(
        &self,
        principal: &crate::Principal,
        mes: &str,
        now: i64,
    ) -> Result<MonthArchive, crate::ApiError> {
        let month = parse_mes(mes)?;
        let limit = self.config.archive_limit;
        let count = month_documents(
            &self.store,
            &principal.account.id,
            principal.env,
            month,
            None,
        )
        .take(limit.saturating_add(1))
        .count();
        if count > limit {
            return Err(crate::http::bad_query(
                kuatia_core::rule::api_query_archive_limit("", "mes", limit),
            ));
        }
        let (zip, summary) = self
            .archive(principal, month, now, std::io::Cursor::new(Vec::new()))
            .map_err(|f| crate::ApiError::of(500, f))?;
        Ok(MonthArchive {
            file_name: file_name(month),
            zip: zip.into_inner(),
            summary,
        })
    }

    /// `GET /v1/archivo?mes=YYYY-MM`: [`crate::Service::month_archive`] as an attachment; 400 `INVALID_QUERY` for a
    /// missing `mes` or another parameter.
    pub(crate) fn archive_route(
        &self,
        caller: &crate::Principal,
        query: &str,
        now: i64,
    ) -> crate::HttpResponse {
        let month = match archive_query(query) {
            Ok(m) => m,
            Err(e) => return e.response(),
        };
        match self.month_archive(caller, &month.to_string(), now) {
            Ok(a) => crate::HttpResponse {
                status: 200,
                headers: archive_headers(&a.file_name),
                body: a.zip,
            },
            Err(e) => e.response(),
        }
    }
}

/// The headers of an archive's answer (`Content-Type: application/zip`, `Content-Disposition: attachment; ...`), for
/// the engine and for hosts that stream it.
pub fn archive_headers(file_name: &str) -> Vec<(String, String)> {
    vec![
        ("Content-Type".into(), "application/zip".into()),
        (
            "Content-Disposition".into(),
            format!("attachment; filename=\"{file_name}\""),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_parse_and_bound_their_window() {
        assert_eq!(
            Month::parse("2026-11"),
            Some(Month {
                year: 2026,
                month: 11
            })
        );
        for bad in [
            "2026-13",
            "2026-00",
            "26-11",
            "2026-1",
            "2026/11",
            "",
            "1979-12",
            "2026-11-01",
        ] {
            assert_eq!(Month::parse(bad), None, "{bad}");
        }
        let nov = Month::parse("2026-11").map(Month::created_window);
        // 2026-11-01T00:00-03:00 is 1 793 502 000; minus 6 days. 2026-12-01T00:00-03:00 plus 31 days.
        assert_eq!(
            nov,
            Some((1_793_502_000 - 6 * 86_400, 1_796_094_000 + 31 * 86_400))
        );
        assert_eq!(
            Month::parse("2026-12").map(|m| m.next().to_string()),
            Some("2027-01".into())
        );
    }

    #[test]
    fn csv_quotes_what_rfc_4180_asks() {
        let line = csv_line([
            "a".into(),
            "b,c".into(),
            "say \"hi\"".into(),
            "x\ny".into(),
            "Ñandutí".into(),
        ]);
        assert_eq!(line, "a,\"b,c\",\"say \"\"hi\"\"\",\"x\ny\",Ñandutí\r\n");
    }
}
