//! `GET /v1/facturas` (filters, pages, cursors), `GET /v1/facturas/{id}`, its KuDE and signed XML, and
//! `GET /v1/numbering/gaps`.

use super::*;

impl<S: Store> Service<S> {
    /// `GET /v1/facturas/{id}` of an authenticated caller.
    pub(crate) fn invoice_lookup(&self, caller: &Caller, id: &str) -> HttpResponse {
        match self.store.invoice_state(&caller.account.id, id) {
            Some(inv) if inv.environment == caller.env => {
                // The signed XML is read only while its parts are not cached.
                let parts = self.documents.get_or_load(&inv, || {
                    self.store
                        .invoice(&caller.account.id, id)
                        .map(|full| full.xml)
                });
                Invoice::of(&self.config.base_url, inv, parts).response(200)
            }
            _ => err(404, code::NOT_FOUND, "no invoice with that id"),
        }
    }

    /// `page` and `per_page` of a list query (defaults 1 and 20; `limit` is `per_page`), or the 400 answer.
    pub(crate) fn paging(
        &self,
        pairs: &[(String, String)],
    ) -> Result<(usize, usize), HttpResponse> {
        let mut page = 1usize;
        let mut per_page = None;
        for (k, v) in pairs {
            match k.as_str() {
                "page" => page = positive(k, v, usize::MAX)?,
                "per_page" | "limit" => {
                    if per_page.is_some() {
                        return Err(bad_query(k, "give per_page or limit, not both"));
                    }
                    per_page = Some(positive(k, v, self.config.max_per_page)?);
                }
                _ => {}
            }
        }
        Ok((page, per_page.unwrap_or(20)))
    }

    /// The filters, order and page of `GET /v1/facturas` (docs/api.md, "Listing invoices").
    pub(crate) fn invoice_query(
        &self,
        caller: &Caller,
        pairs: &[(String, String)],
    ) -> Result<(InvoiceQuery, Option<usize>), HttpResponse> {
        let (page, limit) = self.paging(pairs)?;
        // The page number: `page`'s, the one a cursor carries, or none for a bare invoice id as cursor.
        let mut at_page = Some(page);
        let mut q = InvoiceQuery {
            limit,
            offset: (page - 1).saturating_mul(limit),
            ..InvoiceQuery::default()
        };
        for (k, v) in pairs {
            let time = || {
                OffsetDateTime::parse(v, &time::format_description::well_known::Rfc3339)
                    .map(OffsetDateTime::unix_timestamp)
                    .map_err(|_| bad_query(k, "an RFC 3339 date-time such as 2025-01-31T12:00:00Z"))
            };
            match k.as_str() {
                "status" => {
                    q.status = Some(serde_json::from_value(json!(v)).map_err(|_| {
                        bad_query(k, "one of pending, sent, approved, rejected, cancelled")
                    })?)
                }
                "created_from" => q.created_from = Some(time()?),
                "created_to" => q.created_to = Some(time()?),
                "cdc" => {
                    kuatia_core::cdc::Cdc::parse(v).map_err(|e| bad_query(k, &e.to_string()))?;
                    q.cdc = Some(v.clone());
                }
                "numero" => {
                    let digits =
                        |p: &str, n: usize| p.len() == n && p.bytes().all(|b| b.is_ascii_digit());
                    let parts: Vec<&str> = v.split('-').collect();
                    let ok = matches!(parts.as_slice(), [e, p, n] if digits(e, 3) && digits(p, 3) && digits(n, 7));
                    if !ok {
                        return Err(bad_query(k, "EEE-PPP-NNNNNNN, e.g. 001-001-0000001"));
                    }
                    q.numero = Some(v.clone());
                }
                "receptor_ruc" => {
                    kuatia_core::ruc::Ruc::parse(v).map_err(|e| bad_query(k, &e.to_string()))?;
                    q.receptor_ruc = Some(v.clone());
                }
                "tipo_documento" => {
                    let t = v
                        .parse::<u8>()
                        .ok()
                        .filter(|t| kuatia_core::de::TipoDocumento::from_code(*t).is_some())
                        .ok_or_else(|| bad_query(k, "a document type code: 1, 4, 5, 6 or 7"))?;
                    q.tipo_documento = Some(t);
                }
                "order" => {
                    q.ascending = match v.as_str() {
                        "asc" => true,
                        "desc" => false,
                        _ => return Err(bad_query(k, "asc or desc")),
                    }
                }
                "starting_after" => {
                    if pairs.iter().any(|(k, _)| k == "page") {
                        return Err(bad_query(k, "a cursor walk takes no page"));
                    }
                    let mine = |id: &str| {
                        self.store
                            .invoice(&caller.account.id, id)
                            .is_some_and(|i| i.environment == caller.env)
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
                            _ => return Err(bad_query(k, "no invoice with that id")),
                        }
                    };
                    q.starting_after = Some(id.to_string());
                    at_page = cursor_page;
                }
                _ => {}
            }
        }
        Ok((q, at_page))
    }

    pub(crate) fn list_invoices(&self, caller: &Caller, query: &str) -> HttpResponse {
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
        let (mut q, page) =
            match query_pairs(query, PARAMS).and_then(|pairs| self.invoice_query(caller, &pairs)) {
                Ok(q) => q,
                Err(r) => return r,
            };
        let per_page = q.limit;
        // One row more than asked says whether there is a next page.
        q.limit = per_page.saturating_add(1);
        let (mut items, total) = self.store.list_invoices(&caller.account.id, caller.env, &q);
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
        let data: Vec<Invoice> = items
            .into_iter()
            .map(|i| self.invoice_resource(i))
            .collect();
        respond(
            200,
            &json!({"ok": true, "data": data, "meta": {
                "page": page, "per_page": per_page, "total": total,
                "has_more": has_more, "next_cursor": next_cursor,
            }}),
        )
    }

    pub(crate) fn kude(&self, caller: &Caller, id: &str) -> HttpResponse {
        let Some(inv) = self
            .store
            .invoice(&caller.account.id, id)
            .filter(|i| i.environment == caller.env)
        else {
            return err(404, code::NOT_FOUND, "no invoice with that id");
        };
        if inv.status != Estado::Approved {
            return err(
                409,
                code::KUDE_NOT_AVAILABLE,
                &format!(
                    "the KuDE is delivered only for approved invoices; this one is '{}'",
                    inv.status
                ),
            );
        }
        let de = match kuatia_core::xml::parse(&inv.xml) {
            Ok(d) => d,
            Err(f) => return err(500, &f.code, &f.message),
        };
        match kuatia_core::kude::pdf::pdf(&de, &inv.qr, &kuatia_core::kude::KudeOptions::default())
        {
            Ok(bytes) => HttpResponse {
                status: 200,
                headers: vec![
                    ("Content-Type".into(), "application/pdf".into()),
                    (
                        "Content-Disposition".into(),
                        format!("inline; filename=\"{}.pdf\"", inv.cdc),
                    ),
                ],
                body: bytes,
            },
            Err(f) => err(500, &f.code, &f.message),
        }
    }

    /// `GET /v1/facturas/:id/xml`: the signed `rDE` as stored and sent to SIFEN, which the issuer must keep and give
    /// the buyer. 409 for a document that was never signed (a sandbox without a signer).
    pub(crate) fn signed_xml(&self, caller: &Caller, id: &str) -> HttpResponse {
        let Some(inv) = self
            .store
            .invoice(&caller.account.id, id)
            .filter(|i| i.environment == caller.env)
        else {
            return err(404, code::NOT_FOUND, "no invoice with that id");
        };
        if !inv.signed {
            return err(
                409,
                code::XML_NOT_AVAILABLE,
                "this document was never signed (a sandbox without a certificate): there is no signed XML",
            );
        }
        HttpResponse {
            status: 200,
            headers: vec![
                (
                    "Content-Type".into(),
                    "application/xml; charset=utf-8".into(),
                ),
                (
                    "Content-Disposition".into(),
                    format!("attachment; filename=\"{}.xml\"", inv.cdc),
                ),
            ],
            body: inv.xml.into_bytes(),
        }
    }

    /// The numbers reserved in the principal's environment and never confirmed (each one to void with an
    /// inutilización event).
    pub fn number_gaps(&self, principal: &Principal) -> Result<Vec<Gap>, ApiError> {
        self.store
            .number_gaps(&principal.account.id, principal.env)
            .map_err(|f| ApiError::new(503, &f.code, &f.message))
    }
}
