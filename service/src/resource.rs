//! The resources of the API as typed values: the invoice ([`Invoice`], `GET /v1/facturas/{id}`, the lists, the 201
//! of a create), a page of a list ([`Page`]) and a deletion ([`Deleted`]).
//!
//! An [`Invoice`] is its record's state (the base) and the parts of its signed document ([`InvoiceDocument`]),
//! parsed once and kept with their JSON already written: a lookup writes the base and splices those members in
//! ([`Invoice::response`]), never re-serializing the document. Its `Serialize` writes the same members in the same
//! order, so both give the same bytes.

use super::*;
use kuatia_core::de::{Condicion, ItemDoc, ReceptorDoc, Totales};
use rust_decimal::Decimal;
use serde::ser::{Error as _, SerializeMap, Serializer};
use std::sync::Arc;

/// One page of a list: the items and where the page stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Page<T> {
    /// The items of this page.
    pub data: Vec<T>,
    /// Its place in the whole list.
    pub meta: ListMeta,
}

/// Where a page of a list stands (`meta` of a list answer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ListMeta {
    /// This page's number, from 1; `null` on a page opened with a bare invoice id as `starting_after` (a
    /// `next_cursor` carries the number).
    pub page: Option<usize>,
    /// Items per page asked for.
    pub per_page: usize,
    /// Items in the whole list (that pass its filters).
    pub total: usize,
    /// Whether a later page has items (lists of invoices and webhooks; absent from a delivery log's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub has_more: Option<bool>,
    /// The `starting_after` of the next page, `null` on the last one (lists with cursors: the invoices').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub next_cursor: Option<Option<String>>,
}

impl<T: Serialize> Page<T> {
    /// `{"ok":true,"data":[…],"meta":{…}}`, 200 (members sorted by name, as every list has answered).
    pub(crate) fn response(&self) -> HttpResponse {
        respond(
            200,
            &json!({"ok": true, "data": self.data, "meta": self.meta}),
        )
    }
}

/// What a deletion answers: the id and that it is gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Deleted {
    /// The deleted resource's id.
    pub id: String,
    /// Always `true`.
    pub deleted: bool,
}

/// An invoice as the API shows it (docs/api.md, "Invoice"): the record's state, and the document as issued, read
/// from its signed XML (receiver, items with their computed values, totals and IVA, currency and rate).
///
/// Serialized as one JSON object: the fields below (in this order, with `cancellation`, `protocolo`, `sifen_errors`
/// and `transmission` only when present), then the document's members ([`InvoiceDocument`]) when its XML could be
/// read. Its JSON Schema and TypeScript type (`InvoiceResource`) are those of `InvoiceShape` (features `ts`,
/// `schema`).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "ts",
    derive(ts_rs::TS),
    ts(rename = "InvoiceResource", as = "InvoiceShape")
)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(with = "InvoiceShape")
)]
pub struct Invoice {
    /// When SIFEN approved it, RFC 3339 UTC.
    pub approved_at: Option<String>,
    /// The cancellation asked for, if any.
    pub cancellation: Option<InvoiceCancellation>,
    /// The CDC (44 digits).
    pub cdc: String,
    /// Creation time, RFC 3339 UTC.
    pub created_at: String,
    /// The latest message to the buyer (issue 36), `null` when none was queued (no `receptor.email`, not approved
    /// yet, or a build without the outbox).
    pub email: Option<InvoiceEmail>,
    /// Emission date-time, Paraguay local time (`YYYY-MM-DDThh:mm:ss`).
    pub fecha_emision: String,
    /// `fact_…` identifier.
    pub id: String,
    /// URL of its KuDE (PDF).
    pub kude_url: String,
    /// Currency (none for remission notes).
    pub moneda: Option<String>,
    /// `EEE-PPP-NNNNNNN`.
    pub numero: String,
    /// SIFEN's authorization number once approved.
    pub protocolo: Option<String>,
    /// The QR URL (`dCarQR`) printed on the KuDE.
    pub qr: String,
    /// When SIFEN received it, RFC 3339 UTC.
    pub sent_at: Option<String>,
    /// SIFEN's reasons, when `rejected` (else absent).
    pub sifen_errors: Option<Vec<SifenError>>,
    /// Whether its XML carries an XMLDSig signature.
    pub signed: bool,
    /// Its state.
    pub status: Estado,
    /// Document type code (1, 4, 5, 6, 7).
    pub tipo_documento: u8,
    /// 1 normal, 2 contingency.
    pub tipo_emision: u8,
    /// Grand total as written in the XML (none for remission notes).
    pub total: Option<String>,
    /// Production: the next SIFEN step and when it is due, while one is left.
    pub transmission: Option<InvoiceTransmission>,
    /// Time of the last state change, RFC 3339 UTC.
    pub updated_at: String,
    /// URL of the signed XML, once signed.
    pub xml_url: Option<String>,
    /// The document's parts with their members written (none when the XML could not be read).
    document: Option<Arc<DocumentParts>>,
}

/// `cancellation` of an invoice: the cancellation event asked for and where it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InvoiceCancellation {
    /// SIFEN's reason for a refusal, else `null`.
    pub error: Option<SifenError>,
    /// The reason given (`mOtEve`).
    pub motivo: String,
    /// When it was asked for, RFC 3339 UTC.
    pub requested_at: String,
    /// Its state.
    pub status: CancellationStatus,
}

/// `email` of an invoice: where its latest message to the buyer stands (`GET /v1/facturas/{id}/emails` has them all).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InvoiceEmail {
    /// `pending`, `sent`, `failed` or `captured` (no SMTP settings: stored, never sent).
    pub status: String,
    /// The address it goes to.
    pub to: String,
    /// Why it failed (the SMTP server's reply), when `failed`; the last temporary failure while `pending`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reason: Option<String>,
    /// When it last changed (its latest attempt, else its queuing), RFC 3339 UTC.
    pub updated_at: String,
}

impl InvoiceEmail {
    /// The `email` of an invoice whose messages are `messages` (oldest first): its latest one.
    pub(crate) fn latest(messages: &[crate::email::EmailMessage]) -> Option<InvoiceEmail> {
        let m = messages.last()?;
        Some(InvoiceEmail {
            status: m.status.clone(),
            to: m.to.clone(),
            reason: m.reason.clone(),
            updated_at: rfc3339(m.log.last().map_or(m.created_at, |a| a.at)),
        })
    }
}

/// `transmission` of a production invoice: its transmission to SIFEN while a step is left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InvoiceTransmission {
    /// Failed attempts in a row.
    pub attempts: u32,
    /// What went wrong last (transport messages and SIFEN codes), else `null`.
    pub last_error: Option<String>,
    /// `dProtConsLote` of the lot it travelled in, else `null`.
    pub lote: Option<String>,
    /// When the next SIFEN call is due, RFC 3339 UTC.
    pub next_attempt_at: String,
}

/// The parts of an invoice read from its signed XML: items, parties, totals, stamp. Members of the invoice object
/// (not nested), in this order.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InvoiceDocument {
    /// `gCamCond`: contado with its payments, or crédito (none for remission notes).
    pub condicion: Option<Condicion>,
    /// The emitter as issued.
    pub emisor: InvoiceEmisor,
    /// Items with their computed values (`valor`) and IVA (`iva`), as signed.
    pub items: Vec<ItemDoc>,
    /// The receiver as issued.
    pub receptor: ReceptorDoc,
    /// The stamp and the number's parts.
    pub timbrado: InvoiceTimbrado,
    /// Exchange rate to PYG (foreign currency only).
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub tipo_cambio: Option<Decimal>,
    /// Subtotals per rate, `total_operacion`, `total_general`, IVA, bases (none for remission notes).
    pub totales: Option<Totales>,
}

/// `emisor` of an invoice: the emitter's legal name and RUC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InvoiceEmisor {
    /// `dNomEmi`.
    pub razon_social: String,
    /// `digits-DV`.
    pub ruc: String,
}

/// `timbrado` of an invoice: the stamp and where the number was issued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InvoiceTimbrado {
    /// Establishment (`EEE`).
    pub establecimiento: String,
    /// Stamp number (`dNumTim`).
    pub numero: String,
    /// Point of issue (`PPP`).
    pub punto: String,
    /// Series (`dSerieNum`), when the numbering has one.
    pub serie: Option<String>,
}

impl InvoiceDocument {
    /// The parts of a document.
    pub fn of(de: kuatia_core::de::DocumentoElectronico) -> InvoiceDocument {
        let emisor = InvoiceEmisor {
            ruc: format!("{}-{}", de.emisor.ruc, de.emisor.dv),
            razon_social: de.emisor.razon_social,
        };
        let t = de.timbrado;
        InvoiceDocument {
            condicion: de.condicion,
            emisor,
            items: de.items,
            receptor: de.receptor,
            timbrado: InvoiceTimbrado {
                establecimiento: t.establecimiento,
                numero: t.numero_timbrado,
                punto: t.punto,
                serie: t.serie,
            },
            tipo_cambio: de.operacion_comercial.and_then(|o| o.tipo_cambio),
            totales: de.totales,
        }
    }

    /// Its members, in the one order every writer uses.
    fn entries<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        m.serialize_entry("condicion", &self.condicion)?;
        m.serialize_entry("emisor", &self.emisor)?;
        m.serialize_entry("items", &self.items)?;
        m.serialize_entry("receptor", &self.receptor)?;
        m.serialize_entry("timbrado", &self.timbrado)?;
        m.serialize_entry("tipo_cambio", &self.tipo_cambio)?;
        m.serialize_entry("totales", &self.totales)
    }

    /// `"k":v,…`: its members as JSON text, without the braces (what a lookup splices into the invoice object).
    pub(crate) fn members(&self) -> String {
        let object = serde_json::to_string(self).unwrap_or_default();
        object
            .strip_prefix('{')
            .and_then(|o| o.strip_suffix('}'))
            .unwrap_or_default()
            .to_string()
    }
}

impl Serialize for InvoiceDocument {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        self.entries(&mut m)?;
        m.end()
    }
}

/// A value written through a `serde_json::Value`, whose objects keep their keys sorted: the nested SIFEN errors of
/// an invoice have always been written that way.
struct Sorted<'a, T>(&'a T);

impl<T: Serialize> Serialize for Sorted<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde_json::to_value(self.0)
            .map_err(S::Error::custom)?
            .serialize(s)
    }
}

/// The base of an invoice alone (its members but the document's).
struct Base<'a>(&'a Invoice);

impl Serialize for Base<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        self.0.base_entries(&mut m)?;
        m.end()
    }
}

impl Serialize for Invoice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        self.base_entries(&mut m)?;
        if let Some(parts) = &self.document {
            parts.doc.entries(&mut m)?;
        }
        m.end()
    }
}

impl Invoice {
    /// The resource of a record, with its document's parts when its XML could be read; links under `base_url`.
    pub(crate) fn of(
        base_url: &str,
        inv: InvoiceRecord,
        document: Option<Arc<DocumentParts>>,
    ) -> Invoice {
        let base = base_url.trim_end_matches('/');
        let transmission = (!inv.transmission.is_idle()).then(|| InvoiceTransmission {
            attempts: inv.transmission.attempts,
            last_error: inv.transmission.last_error,
            lote: inv.transmission.lote,
            next_attempt_at: rfc3339(inv.transmission.due_at),
        });
        Invoice {
            approved_at: inv.approved_at.map(rfc3339),
            cancellation: inv.cancellation.map(|c| InvoiceCancellation {
                error: c.error,
                motivo: c.motivo,
                requested_at: rfc3339(c.requested_at),
                status: c.status,
            }),
            created_at: rfc3339(inv.created_at),
            email: None,
            fecha_emision: inv.fecha_emision,
            kude_url: format!("{base}/v1/facturas/{}/kude", inv.id),
            xml_url: inv
                .signed
                .then(|| format!("{base}/v1/facturas/{}/xml", inv.id)),
            id: inv.id,
            cdc: inv.cdc,
            moneda: inv.moneda,
            numero: inv.numero,
            protocolo: inv.protocolo,
            qr: inv.qr,
            sent_at: inv.sent_at.map(rfc3339),
            sifen_errors: (inv.status == Estado::Rejected).then_some(inv.sifen_errors),
            signed: inv.signed,
            status: inv.status,
            tipo_documento: inv.tipo_documento,
            tipo_emision: inv.tipo_emision,
            total: inv.total,
            transmission,
            updated_at: rfc3339(inv.updated_at),
            document,
        }
    }

    /// The document as issued; `None` when its XML could not be read.
    pub fn document(&self) -> Option<&InvoiceDocument> {
        self.document.as_deref().map(|p| &p.doc)
    }

    /// Its base members, in the one order every writer uses (sorted by name).
    fn base_entries<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        m.serialize_entry("approved_at", &self.approved_at)?;
        if let Some(c) = &self.cancellation {
            m.serialize_entry("cancellation", &Sorted(c))?;
        }
        m.serialize_entry("cdc", &self.cdc)?;
        m.serialize_entry("created_at", &self.created_at)?;
        m.serialize_entry("email", &self.email)?;
        m.serialize_entry("fecha_emision", &self.fecha_emision)?;
        m.serialize_entry("id", &self.id)?;
        m.serialize_entry("kude_url", &self.kude_url)?;
        m.serialize_entry("moneda", &self.moneda)?;
        m.serialize_entry("numero", &self.numero)?;
        if let Some(p) = &self.protocolo {
            m.serialize_entry("protocolo", p)?;
        }
        m.serialize_entry("qr", &self.qr)?;
        m.serialize_entry("sent_at", &self.sent_at)?;
        if let Some(errors) = &self.sifen_errors {
            m.serialize_entry("sifen_errors", &Sorted(errors))?;
        }
        m.serialize_entry("signed", &self.signed)?;
        m.serialize_entry("status", &self.status)?;
        m.serialize_entry("tipo_documento", &self.tipo_documento)?;
        m.serialize_entry("tipo_emision", &self.tipo_emision)?;
        m.serialize_entry("total", &self.total)?;
        if let Some(t) = &self.transmission {
            m.serialize_entry("transmission", t)?;
        }
        m.serialize_entry("updated_at", &self.updated_at)?;
        m.serialize_entry("xml_url", &self.xml_url)
    }

    /// `{"ok":true,"data":<invoice>}` with `status`: the base written, the document's members spliced in as cached
    /// (the same bytes as serializing the invoice, without re-serializing its document).
    pub(crate) fn response(&self, status: u16) -> HttpResponse {
        let mut body = Vec::with_capacity(4096);
        body.extend_from_slice(br#"{"ok":true,"data":"#);
        // Writing into a Vec fails only for a map key that is not a string; every key here is one.
        let _ = serde_json::to_writer(&mut body, &Base(self));
        if let Some(parts) = self.document.as_deref().filter(|p| !p.members.is_empty()) {
            // The base is a non-empty object: its closing brace gives way to the members.
            body.pop();
            body.push(b',');
            body.extend_from_slice(parts.members.as_bytes());
            body.push(b'}');
        }
        body.push(b'}');
        json_response(status, body)
    }
}

/// The JSON shape of an [`Invoice`] for its JSON Schema and TypeScript type (`InvoiceResource`): the base, then the
/// document's members, present whenever the signed XML is stored (always, for invoices created by kuatia). Code
/// generation only: `Invoice` writes its own JSON (its document's members are spliced in already written).
#[cfg(any(feature = "ts", feature = "schema"))]
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "Invoice")
)]
pub struct InvoiceShape {
    /// When SIFEN approved it, RFC 3339 UTC.
    pub approved_at: Option<String>,
    /// The cancellation asked for, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub cancellation: Option<InvoiceCancellation>,
    /// The CDC (44 digits).
    pub cdc: String,
    /// Creation time, RFC 3339 UTC.
    pub created_at: String,
    /// The latest message to the buyer, `null` when none was queued.
    pub email: Option<InvoiceEmail>,
    /// Emission date-time, Paraguay local time (`YYYY-MM-DDThh:mm:ss`).
    pub fecha_emision: String,
    /// `fact_…` identifier.
    pub id: String,
    /// URL of its KuDE (PDF).
    pub kude_url: String,
    /// Currency (none for remission notes).
    pub moneda: Option<String>,
    /// `EEE-PPP-NNNNNNN`.
    pub numero: String,
    /// SIFEN's authorization number once approved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub protocolo: Option<String>,
    /// The QR URL (`dCarQR`) printed on the KuDE.
    pub qr: String,
    /// When SIFEN received it, RFC 3339 UTC.
    pub sent_at: Option<String>,
    /// SIFEN's reasons, when `rejected`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub sifen_errors: Option<Vec<SifenError>>,
    /// Whether its XML carries an XMLDSig signature.
    pub signed: bool,
    /// Its state.
    pub status: Estado,
    /// Document type code (1, 4, 5, 6, 7).
    pub tipo_documento: u8,
    /// 1 normal, 2 contingency.
    pub tipo_emision: u8,
    /// Grand total as written in the XML (none for remission notes).
    pub total: Option<String>,
    /// Production: the next SIFEN step and when it is due, while one is left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub transmission: Option<InvoiceTransmission>,
    /// Time of the last state change, RFC 3339 UTC.
    pub updated_at: String,
    /// URL of the signed XML, once signed.
    pub xml_url: Option<String>,
    /// `gCamCond`: contado with its payments, or crédito (`null` for remission notes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub condicion: Option<Option<Condicion>>,
    /// The emitter as issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub emisor: Option<InvoiceEmisor>,
    /// Items with their computed values (`valor`) and IVA (`iva`), as signed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub items: Option<Vec<ItemDoc>>,
    /// The receiver as issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub receptor: Option<ReceptorDoc>,
    /// The stamp and the number's parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub timbrado: Option<InvoiceTimbrado>,
    /// Exchange rate to PYG (foreign currency only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "ts", ts(as = "Option<Option<String>>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<Option<String>>"))]
    pub tipo_cambio: Option<Option<Decimal>>,
    /// Subtotals per rate, `total_operacion`, `total_general`, IVA, bases (`null` for remission notes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub totales: Option<Option<Totales>>,
}

impl<S: Store> Service<S> {
    /// The invoice resource of a record (docs/api.md, "Invoice"), its document's parts read from the stored XML
    /// (parsed once, then cached).
    pub(crate) fn invoice_resource(&self, inv: InvoiceRecord) -> Invoice {
        let parts = self.documents.get(&inv);
        self.with_email(Invoice::of(&self.config.base_url, inv, parts))
    }

    /// `inv` with its `email`: the latest of its messages in the store's outbox.
    pub(crate) fn with_email(&self, mut inv: Invoice) -> Invoice {
        inv.email = InvoiceEmail::latest(&self.store.invoice_emails(&inv.id));
        inv
    }
}

#[cfg(all(test, feature = "schema"))]
mod schema_tests {
    #![allow(clippy::unwrap_used)]

    #[test]
    fn the_invoice_schema_is_its_shape_with_the_document_optional() {
        // An answer's schema: what serializing writes (`Option` without `skip_serializing_if` is there, as `null`).
        let schema = schemars::generate::SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<crate::Invoice>();
        let v = serde_json::to_value(&schema).unwrap();
        assert_eq!(v["title"], "Invoice", "{v}");
        let props = v["properties"].as_object().unwrap();
        for name in [
            "id",
            "status",
            "items",
            "receptor",
            "totales",
            "sifen_errors",
        ] {
            assert!(props.contains_key(name), "{name} in {v}");
        }
        let required: Vec<&str> = v["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r.as_str())
            .collect();
        assert!(
            required.contains(&"id") && required.contains(&"xml_url"),
            "{required:?}"
        );
        for optional in ["items", "sifen_errors", "cancellation", "tipo_cambio"] {
            assert!(
                !required.contains(&optional),
                "{optional} required: {required:?}"
            );
        }
    }

    #[test]
    fn every_resource_has_a_schema_and_answers_show_no_stored_secret() {
        let mut g = schemars::generate::SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator();
        let created = serde_json::to_value(g.root_schema_for::<crate::webhook::Webhook>()).unwrap();
        assert_eq!(created["title"], "WebhookCreated");
        let props = created["properties"].as_object().unwrap();
        assert!(
            props.contains_key("secret") && !props.contains_key("previous_secret"),
            "{created}"
        );
        let page =
            serde_json::to_value(g.root_schema_for::<crate::Page<crate::Invoice>>()).unwrap();
        assert!(page["properties"]["meta"].is_object(), "{page}");
        for schema in [
            g.root_schema_for::<crate::webhook::WebhookResource>(),
            g.root_schema_for::<crate::webhook::DeliveryResource>(),
            g.root_schema_for::<crate::InvoiceFilter>(),
            g.root_schema_for::<crate::ApiError>(),
            g.root_schema_for::<crate::Deleted>(),
            g.root_schema_for::<crate::CancelInput>(),
            g.root_schema_for::<crate::webhook::WebhookInput>(),
        ] {
            let v = serde_json::to_value(&schema).unwrap();
            assert!(v["properties"].is_object(), "{v}");
        }
    }
}

/// One invoice's document parts, typed and as serialized object members (no braces).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DocumentParts {
    /// The parts.
    pub(crate) doc: InvoiceDocument,
    /// `"k":v,…` of the same parts ([`InvoiceDocument::members`]).
    pub(crate) members: String,
}

impl DocumentParts {
    /// The parts of `de`, their members written once.
    pub(crate) fn of(de: kuatia_core::de::DocumentoElectronico) -> DocumentParts {
        let doc = InvoiceDocument::of(de);
        let members = doc.members();
        DocumentParts { doc, members }
    }
}
