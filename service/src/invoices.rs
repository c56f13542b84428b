//! The invoice reads as typed operations ([`Service::invoice`], [`Service::list_invoices`] with an
//! [`InvoiceFilter`], [`Service::kude`], [`Service::signed_xml`], [`Service::number_gaps`]) and their routes:
//! `GET /v1/facturas` (filters, pages, cursors), `GET /v1/facturas/{id}`, its KuDE and signed XML, and
//! `GET /v1/numbering/gaps`.

use super::*;

/// The query parameters of `GET /v1/facturas`.
const PARAMS: &[&str] = &[
    "page",
    "per_page",
    "limit",
    "starting_after",
    "order",
    "status",
    "created_from",
    "created_to",
    "cdc",
    "numero",
    "receptor_ruc",
    "tipo_documento",
];

/// The filters, order and page of an invoice list (`GET /v1/facturas`, docs/api.md "Listing invoices"), as the
/// query string gives them ([`InvoiceFilter::from_query`]); every value is checked by [`Service::list_invoices`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct InvoiceFilter {
    /// Only invoices in this state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub status: Option<Estado>,
    /// Created at or after this RFC 3339 date-time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub created_from: Option<String>,
    /// Created before this RFC 3339 date-time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub created_to: Option<String>,
    /// Only this CDC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub cdc: Option<String>,
    /// Only this number, `EEE-PPP-NNNNNNN`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub numero: Option<String>,
    /// Only this receiver RUC, `digits-DV`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub receptor_ruc: Option<String>,
    /// Only this document type: 1, 4, 5, 6 or 7.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tipo_documento: Option<u8>,
    /// Creation order: `desc` (newest first, the default) or `asc`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub order: Option<ListOrder>,
    /// Rows per page, 1 to the service's `max_per_page` (default 20); `per_page` is the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub limit: Option<usize>,
    /// Cursor: the previous page's `meta.next_cursor` (or an invoice id); not with `page`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub starting_after: Option<String>,
    /// Offset paging, from 1 (not with `starting_after`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub page: Option<usize>,
    /// Rows per page (the same as `limit`; give one of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub per_page: Option<usize>,
}

/// The order of a list by creation time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ListOrder {
    /// Oldest first.
    Asc,
    /// Newest first.
    #[default]
    Desc,
}

/// A KuDE (the printable representation of an approved invoice) as a PDF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kude {
    /// `<CDC>.pdf`.
    pub file_name: String,
    /// The PDF.
    pub pdf: Vec<u8>,
}

/// An invoice's signed `rDE` as stored and sent to SIFEN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedXml {
    /// `<CDC>.xml`.
    pub file_name: String,
    /// The XML text.
    pub xml: String,
}

/// `page` and `per_page` of a list query (defaults 1 and 20; `limit` is `per_page`), or the 400.
pub(crate) fn paging(
    pairs: &[(String, String)],
    max_per_page: usize,
) -> Result<(usize, usize), ApiError> {
    let mut page = 1usize;
    let mut per_page = None;
    for (k, v) in pairs {
        match k.as_str() {
            "page" => page = positive(k, v, usize::MAX)?,
            "per_page" | "limit" => {
                if per_page.is_some() {
                    return Err(bad_query(rule::api_query_exclusive("", k)));
                }
                per_page = Some(positive(k, v, max_per_page)?);
            }
            _ => {}
        }
    }
    Ok((page, per_page.unwrap_or(20)))
}

/// The checks of each filter value, shared by the query string's reader and [`Service::list_invoices`].
mod check {
    use super::*;

    pub(super) fn time(k: &str, v: &str) -> Result<i64, ApiError> {
        OffsetDateTime::parse(v, &time::format_description::well_known::Rfc3339)
            .map(OffsetDateTime::unix_timestamp)
            .map_err(|_| bad_query(rule::api_query_datetime("", k)))
    }

    pub(super) fn status(v: &str) -> Result<Estado, ApiError> {
        serde_json::from_value(Value::String(v.to_string()))
            .map_err(|_| bad_query(rule::api_query_status("", "status")))
    }

    pub(super) fn cdc(v: &str) -> Result<(), ApiError> {
        kuatia_core::cdc::Cdc::parse(v)
            .map(|_| ())
            .map_err(|e| bad_query_id("cdc", e.to_finding("")))
    }

    pub(super) fn numero(v: &str) -> Result<(), ApiError> {
        let digits = |p: &str, n: usize| p.len() == n && p.bytes().all(|b| b.is_ascii_digit());
        let parts: Vec<&str> = v.split('-').collect();
        let ok =
            matches!(parts.as_slice(), [e, p, n] if digits(e, 3) && digits(p, 3) && digits(n, 7));
        match ok {
            true => Ok(()),
            false => Err(bad_query(rule::api_query_numero("", "numero"))),
        }
    }

    pub(super) fn receptor_ruc(v: &str) -> Result<(), ApiError> {
        kuatia_core::ruc::Ruc::parse(v)
            .map(|_| ())
            .map_err(|e| bad_query_id("receptor_ruc", e.to_finding("")))
    }

    pub(super) fn tipo_documento(t: Option<u8>) -> Result<u8, ApiError> {
        t.filter(|t| kuatia_core::de::TipoDocumento::from_code(*t).is_some())
            .ok_or_else(|| bad_query(rule::api_query_tipo_documento("", "tipo_documento")))
    }

    pub(super) fn order(v: &str) -> Result<ListOrder, ApiError> {
        match v {
            "asc" => Ok(ListOrder::Asc),
            "desc" => Ok(ListOrder::Desc),
            _ => Err(bad_query(rule::api_query_order("", "order"))),
        }
    }

    pub(super) fn cursor_alone(page: Option<usize>) -> Result<(), ApiError> {
        match page {
            Some(_) => Err(bad_query(rule::api_query_cursor_page("", "starting_after"))),
            None => Ok(()),
        }
    }
}

impl InvoiceFilter {
    /// The filter of a `GET /v1/facturas` query string, each value checked in the query's order (400
    /// `INVALID_QUERY` naming the first bad or unknown parameter; `per_page` and `limit` up to `max_per_page`).
    pub fn from_query(query: &str, max_per_page: usize) -> Result<InvoiceFilter, ApiError> {
        let pairs = query_pairs(query, PARAMS)?;
        paging(&pairs, max_per_page)?;
        let mut f = InvoiceFilter::default();
        for (k, v) in &pairs {
            let text = || Some(v.clone());
            match k.as_str() {
                "page" => f.page = v.parse().ok(),
                "per_page" => f.per_page = v.parse().ok(),
                "limit" => f.limit = v.parse().ok(),
                "status" => f.status = Some(check::status(v)?),
                "created_from" | "created_to" => {
                    check::time(k, v)?;
                    match k.as_str() {
                        "created_from" => f.created_from = text(),
                        _ => f.created_to = text(),
                    }
                }
                "cdc" => {
                    check::cdc(v)?;
                    f.cdc = text();
                }
                "numero" => {
                    check::numero(v)?;
                    f.numero = text();
                }
                "receptor_ruc" => {
                    check::receptor_ruc(v)?;
                    f.receptor_ruc = text();
                }
                "tipo_documento" => f.tipo_documento = Some(check::tipo_documento(v.parse().ok())?),
                "order" => f.order = Some(check::order(v)?),
                "starting_after" => {
                    let page = pairs.iter().any(|(k, _)| k == "page").then_some(1);
                    check::cursor_alone(page)?;
                    f.starting_after = text();
                }
                _ => {}
            }
        }
        Ok(f)
    }

    /// The query string of this filter (`?k=v&…`, empty when it has no member), as [`InvoiceFilter::from_query`]
    /// reads it.
    pub fn to_query(&self) -> String {
        let Ok(Value::Object(members)) = serde_json::to_value(self) else {
            return String::new();
        };
        let mut out = String::new();
        for name in PARAMS {
            let Some(v) = members.get(*name) else {
                continue;
            };
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.push(if out.is_empty() { '?' } else { '&' });
            out.push_str(name);
            out.push('=');
            for b in text.bytes() {
                if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b':') {
                    out.push(char::from(b));
                } else {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
        out
    }
}

impl<S: Store> Service<S> {
    /// One of the principal's invoices (404 when it has none with that id in its environment).
    pub fn invoice(&self, principal: &Principal, id: &str) -> Result<Invoice, ApiError> {
        match self.store.invoice_state(&principal.account.id, id) {
            Some(inv) if inv.environment == principal.env => {
                // The signed XML is read only while its parts are not cached.
                let parts = self.documents.get_or_load(&inv, || {
                    self.store
                        .invoice(&principal.account.id, id)
                        .map(|full| full.xml)
                });
                Ok(self.with_email(Invoice::of(&self.config.base_url, inv, parts)))
            }
            _ => Err(ApiError::of(404, rule::api_invoice_not_found(""))),
        }
    }

    /// `GET /v1/facturas?…`: [`Service::list_invoices`] of the query string's filter ([`InvoiceFilter::from_query`]).
    pub(crate) fn list_invoices_route(&self, caller: &Caller, query: &str) -> HttpResponse {
        match InvoiceFilter::from_query(query, self.config.max_per_page)
            .and_then(|filter| self.list_invoices(caller, &filter))
        {
            Ok(page) => page.response(),
            Err(e) => e.response(),
        }
    }

    /// `GET /v1/facturas/{id}/kude`: [`Service::kude`], the PDF shown inline.
    pub(crate) fn kude_route(&self, caller: &Caller, id: &str) -> HttpResponse {
        self.kude(caller, id)
            .map_or_else(|e| e.response(), kude_response)
    }

    /// `GET /v1/facturas/{id}/xml`: [`Service::signed_xml`], as an attachment.
    pub(crate) fn signed_xml_route(&self, caller: &Caller, id: &str) -> HttpResponse {
        self.signed_xml(caller, id)
            .map_or_else(|e| e.response(), signed_xml_response)
    }

    /// `GET /v1/facturas/{id}` of an authenticated caller.
    pub(crate) fn invoice_lookup(&self, caller: &Caller, id: &str) -> HttpResponse {
        match self.invoice(caller, id) {
            Ok(invoice) => invoice.response(200),
            Err(e) => e.response(),
        }
    }

    /// The store's query for a filter, every value checked (400 `INVALID_QUERY` naming the parameter), and the page
    /// number the answer reports: `page`'s, the one a cursor carries, or none for a bare invoice id as cursor.
    fn store_query(
        &self,
        principal: &Principal,
        f: &InvoiceFilter,
    ) -> Result<(InvoiceQuery, Option<usize>), ApiError> {
        let max = self.config.max_per_page;
        if f.page == Some(0) {
            return Err(bad_query(rule::api_query_range("", "page", usize::MAX)));
        }
        let limit = match (f.per_page, f.limit) {
            (Some(_), Some(_)) => return Err(bad_query(rule::api_query_exclusive("", "limit"))),
            (Some(n), None) => positive("per_page", &n.to_string(), max)?,
            (None, Some(n)) => positive("limit", &n.to_string(), max)?,
            (None, None) => 20,
        };
        let page = f.page.unwrap_or(1);
        let mut q = InvoiceQuery {
            limit,
            offset: (page - 1).saturating_mul(limit),
            status: f.status,
            ascending: f.order == Some(ListOrder::Asc),
            ..InvoiceQuery::default()
        };
        if let Some(v) = &f.created_from {
            q.created_from = Some(check::time("created_from", v)?);
        }
        if let Some(v) = &f.created_to {
            q.created_to = Some(check::time("created_to", v)?);
        }
        if let Some(v) = &f.cdc {
            check::cdc(v)?;
            q.cdc = Some(v.clone());
        }
        if let Some(v) = &f.numero {
            check::numero(v)?;
            q.numero = Some(v.clone());
        }
        if let Some(v) = &f.receptor_ruc {
            check::receptor_ruc(v)?;
            q.receptor_ruc = Some(v.clone());
        }
        if f.tipo_documento.is_some() {
            q.tipo_documento = Some(check::tipo_documento(f.tipo_documento)?);
        }
        let mut at_page = Some(page);
        if let Some(v) = &f.starting_after {
            check::cursor_alone(f.page)?;
            let mine = |id: &str| {
                self.store
                    .invoice(&principal.account.id, id)
                    .is_some_and(|i| i.environment == principal.env)
            };
            // `meta.next_cursor` is `<id>.<page>` (the page it opens); a bare invoice id says no page.
            let (id, cursor_page) = if mine(v) {
                (v.as_str(), None)
            } else {
                match v
                    .rsplit_once('.')
                    .and_then(|(id, p)| Some((id, p.parse::<usize>().ok()?)))
                {
                    Some((id, p)) if p >= 2 && mine(id) => (id, Some(p)),
                    _ => {
                        return Err(bad_query(rule::api_query_cursor_unknown(
                            "",
                            "starting_after",
                        )))
                    }
                }
            };
            q.starting_after = Some(id.to_string());
            at_page = cursor_page;
        }
        Ok((q, at_page))
    }

    /// The principal's invoices that pass `filter`, a page of them: newest first unless `order` says `asc`, with
    /// `meta.has_more` and `meta.next_cursor` (`null` on the last page), `meta.page` `null` on a page opened with a
    /// bare invoice id as cursor.
    pub fn list_invoices(
        &self,
        principal: &Principal,
        filter: &InvoiceFilter,
    ) -> Result<Page<Invoice>, ApiError> {
        let (mut q, page) = self.store_query(principal, filter)?;
        let per_page = q.limit;
        // One row more than asked says whether there is a next page.
        q.limit = per_page.saturating_add(1);
        let (mut items, total) = self
            .store
            .list_invoices(&principal.account.id, principal.env, &q);
        let has_more = items.len() > per_page;
        items.truncate(per_page);
        // The cursor carries the number of the page it opens, so every page of a walk reports its own.
        let next_cursor = has_more
            .then(|| {
                items.last().map(|i| match page {
                    Some(p) => format!("{}.{}", i.id, p.saturating_add(1)),
                    None => i.id.clone(),
                })
            })
            .flatten();
        let data = items
            .into_iter()
            .map(|i| self.invoice_resource(i))
            .collect();
        Ok(Page {
            data,
            meta: ListMeta {
                page,
                per_page,
                total,
                has_more: Some(has_more),
                next_cursor: Some(next_cursor),
            },
        })
    }

    /// The KuDE of one of the principal's invoices: 409 `KUDE_NOT_AVAILABLE` unless it is approved.
    pub fn kude(&self, principal: &Principal, id: &str) -> Result<Kude, ApiError> {
        let Some(inv) = self
            .store
            .invoice(&principal.account.id, id)
            .filter(|i| i.environment == principal.env)
        else {
            return Err(ApiError::of(404, rule::api_invoice_not_found("")));
        };
        if inv.status != Estado::Approved {
            return Err(ApiError::of(
                409,
                rule::api_kude_status("", &inv.status.to_string()),
            ));
        }
        let de = kuatia_core::xml::parse(&inv.xml).map_err(|f| ApiError::of(500, f))?;
        let pdf =
            kuatia_core::kude::pdf::pdf(&de, &inv.qr, &kuatia_core::kude::KudeOptions::default())
                .map_err(|f| ApiError::of(500, f))?;
        Ok(Kude {
            file_name: format!("{}.pdf", inv.cdc),
            pdf,
        })
    }

    /// The signed `rDE` of one of the principal's invoices, as stored and sent to SIFEN, which the issuer must keep
    /// and give the buyer. 409 `XML_NOT_AVAILABLE` for a document that was never signed (a sandbox without a
    /// signer).
    pub fn signed_xml(&self, principal: &Principal, id: &str) -> Result<SignedXml, ApiError> {
        let Some(inv) = self
            .store
            .invoice(&principal.account.id, id)
            .filter(|i| i.environment == principal.env)
        else {
            return Err(ApiError::of(404, rule::api_invoice_not_found("")));
        };
        if !inv.signed {
            return Err(ApiError::of(409, rule::api_xml_unsigned("")));
        }
        Ok(SignedXml {
            file_name: format!("{}.xml", inv.cdc),
            xml: inv.xml,
        })
    }

    /// The numbers reserved in the principal's environment and never confirmed (each one to void with an
    /// inutilización event).
    pub fn number_gaps(&self, principal: &Principal) -> Result<Vec<Gap>, ApiError> {
        self.store
            .number_gaps(&principal.account.id, principal.env)
            .map_err(|f| ApiError::of(503, f))
    }
}

/// The answer of a KuDE: the PDF, shown inline.
fn kude_response(kude: Kude) -> HttpResponse {
    HttpResponse {
        status: 200,
        headers: vec![
            ("Content-Type".into(), "application/pdf".into()),
            (
                "Content-Disposition".into(),
                format!("inline; filename=\"{}\"", kude.file_name),
            ),
        ],
        body: kude.pdf,
    }
}

/// The answer of a signed XML: the document, as an attachment.
fn signed_xml_response(xml: SignedXml) -> HttpResponse {
    HttpResponse {
        status: 200,
        headers: vec![
            (
                "Content-Type".into(),
                "application/xml; charset=utf-8".into(),
            ),
            (
                "Content-Disposition".into(),
                format!("attachment; filename=\"{}\"", xml.file_name),
            ),
        ],
        body: xml.xml.into_bytes(),
    }
}
