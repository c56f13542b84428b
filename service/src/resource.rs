//! The invoice resource of the API (`GET /v1/facturas/{id}`, the lists, the 201 of a create): its base members and
//! the cached members of the signed document, spliced into one answer.

use super::*;

/// One page of a list: the items and where the page stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page<T> {
    /// The items of this page.
    pub data: Vec<T>,
    /// Its place in the whole list.
    pub meta: ListMeta,
}

/// Where a page of a list stands (`meta` of a list answer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ListMeta {
    /// This page's number, from 1.
    pub page: usize,
    /// Items per page asked for.
    pub per_page: usize,
    /// Items in the whole list.
    pub total: usize,
    /// Whether a later page has items.
    pub has_more: bool,
}

/// What a deletion answers: the id and that it is gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Deleted {
    /// The deleted resource's id.
    pub id: String,
    /// Always `true`.
    pub deleted: bool,
}

/// `{"ok":true,"data":<invoice>}`: the resource's base with the document's fields spliced in already serialized
/// (`members`, from [`document::Fields::members`]; empty when the XML could not be read). The one writer of an
/// invoice's answer: a create's 201 and every lookup.
pub(crate) fn invoice_body(status: u16, base: &Value, members: &str) -> HttpResponse {
    let mut body = Vec::with_capacity(4096);
    body.extend_from_slice(br#"{"ok":true,"data":"#);
    // Writing a Value into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut body, base);
    if !members.is_empty() {
        // The base is a non-empty object: its closing brace gives way to the members.
        body.pop();
        body.push(b',');
        body.extend_from_slice(members.as_bytes());
        body.push(b'}');
    }
    body.push(b'}');
    json_response(status, body)
}

/// The 201 of a create: the resource from its record and its document (the pipeline's own, not re-parsed), with
/// links under `base_url`.
pub(crate) fn created_response(
    base_url: &str,
    inv: &InvoiceRecord,
    de: &kuatia_core::de::DocumentoElectronico,
) -> HttpResponse {
    invoice_body(
        201,
        &resource_base(base_url, inv),
        &document::Fields::of(de).members(),
    )
}

/// The invoice resource without the parts read from its signed XML ([`document::Fields`]).
pub(crate) fn resource_base(base_url: &str, inv: &InvoiceRecord) -> Value {
    let base = base_url.trim_end_matches('/');
    let mut v = json!({
        "id": inv.id,
        "status": inv.status,
        "cdc": inv.cdc,
        "numero": inv.numero,
        "kude_url": format!("{base}/v1/facturas/{}/kude", inv.id),
        "xml_url": inv.signed.then(|| format!("{base}/v1/facturas/{}/xml", inv.id)),
        "tipo_documento": inv.tipo_documento,
        "fecha_emision": inv.fecha_emision,
        "tipo_emision": inv.tipo_emision,
        "total": inv.total,
        "moneda": inv.moneda,
        "qr": inv.qr,
        "signed": inv.signed,
        "created_at": rfc3339(inv.created_at),
        "updated_at": rfc3339(inv.updated_at),
        "sent_at": inv.sent_at.map(rfc3339),
        "approved_at": inv.approved_at.map(rfc3339),
    });
    if inv.status == Estado::Rejected {
        v["sifen_errors"] = json!(inv.sifen_errors);
    }
    if let Some(p) = &inv.protocolo {
        v["protocolo"] = json!(p);
    }
    if let Some(t) = transmit::transmission_json(&inv.transmission) {
        v["transmission"] = t;
    }
    if let Some(c) = &inv.cancellation {
        v["cancellation"] = json!({
            "status": c.status,
            "motivo": c.motivo,
            "requested_at": rfc3339(c.requested_at),
            "error": c.error,
        });
    }
    v
}

impl<S: Store> Service<S> {
    /// The invoice resource (docs/api.md, "Invoice"): the record's state plus the document as issued, read from the
    /// stored XML (the one source of truth of what was signed and sent: receiver, items with their computed values,
    /// totals and IVA, currency and rate).
    pub(crate) fn invoice_json(&self, inv: &InvoiceRecord) -> Value {
        let mut v = self.invoice_base(inv);
        if let (Some(parts), Value::Object(m)) = (self.documents.get(inv), &mut v) {
            m.extend(parts.fields.iter().map(|(k, x)| (k.clone(), x.clone())));
        }
        v
    }

    /// `{"ok":true,"data":<invoice>}` for a status lookup, the document's parts spliced in already serialized
    /// (the same resource as [`Service::invoice_json`], without re-parsing or re-serializing the signed XML's parts).
    pub(crate) fn invoice_response(&self, status: u16, inv: &InvoiceRecord) -> HttpResponse {
        let parts = self.documents.get(inv);
        invoice_body(
            status,
            &self.invoice_base(inv),
            parts.as_ref().map_or("", |p| p.members.as_str()),
        )
    }

    /// The invoice resource without the parts read from its signed XML ([`document::Fields`]).
    pub(crate) fn invoice_base(&self, inv: &InvoiceRecord) -> Value {
        resource_base(&self.config.base_url, inv)
    }
}
