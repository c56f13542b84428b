//! The parts of the invoice resource that come from its signed XML (items, parties, totals, stamp). The XML never
//! changes once signed, so a status lookup need not parse it again: the parts of recently read invoices are kept,
//! parsed and serialized once.

use super::InvoiceRecord;
use crate::de::DocumentoElectronico;
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// How many invoices' parts are kept (a few MB); beyond that the oldest half is dropped.
const CAPACITY: usize = 4096;

/// The resource fields read from a signed document.
pub(super) fn fields(de: &DocumentoElectronico) -> Map<String, Value> {
    let tipo_cambio = de.operacion_comercial.as_ref().and_then(|o| o.tipo_cambio);
    let mut m = Map::new();
    m.insert("tipo_cambio".into(), json!(tipo_cambio));
    m.insert(
        "timbrado".into(),
        json!({
            "numero": de.timbrado.numero_timbrado,
            "establecimiento": de.timbrado.establecimiento,
            "punto": de.timbrado.punto,
            "serie": de.timbrado.serie,
        }),
    );
    m.insert(
        "emisor".into(),
        json!({
            "ruc": format!("{}-{}", de.emisor.ruc, de.emisor.dv),
            "razon_social": de.emisor.razon_social,
        }),
    );
    m.insert("receptor".into(), json!(de.receptor));
    m.insert("condicion".into(), json!(de.condicion));
    m.insert("items".into(), json!(de.items));
    m.insert("totales".into(), json!(de.totales));
    m
}

/// One invoice's document parts, as fields and as serialized object members (no braces).
#[derive(Debug)]
pub(super) struct DocumentParts {
    /// The fields.
    pub(super) fields: Map<String, Value>,
    /// `"k":v,…` of the same fields.
    pub(super) members: String,
}

/// Parts of recently read invoices, by invoice id (ids are never reused, and a signed XML never changes).
#[derive(Debug, Clone, Default)]
pub(super) struct Parts {
    kept: RefCell<HashMap<String, (u64, Arc<DocumentParts>)>>,
    clock: std::cell::Cell<u64>,
}

impl Parts {
    /// The parts of `inv`'s document, parsed once; `None` when its XML cannot be read (the resource then has none).
    pub(super) fn get(&self, inv: &InvoiceRecord) -> Option<Arc<DocumentParts>> {
        self.get_or_load(inv, || None)
    }

    /// [`Parts::get`] for a record read without its XML ([`crate::api::Store::invoice_state`]): `load` reads the XML
    /// when the parts are not cached.
    pub(super) fn get_or_load(
        &self,
        inv: &InvoiceRecord,
        load: impl FnOnce() -> Option<String>,
    ) -> Option<Arc<DocumentParts>> {
        let tick = self.clock.get().wrapping_add(1);
        self.clock.set(tick);
        if let Some((used, parts)) = self.kept.borrow_mut().get_mut(&inv.id) {
            *used = tick;
            return Some(parts.clone());
        }
        let loaded;
        let xml = match inv.xml.is_empty() {
            true => {
                loaded = load()?;
                &loaded
            }
            false => &inv.xml,
        };
        let de = crate::xml::parse(xml).ok()?;
        let fields = fields(&de);
        let object = serde_json::to_string(&fields).unwrap_or_default();
        let members = object
            .strip_prefix('{')
            .and_then(|o| o.strip_suffix('}'))
            .unwrap_or_default()
            .to_string();
        let parts = Arc::new(DocumentParts { fields, members });
        let mut kept = self.kept.borrow_mut();
        if kept.len() >= CAPACITY {
            // Keep the most recently used half.
            let mut ages: Vec<u64> = kept.values().map(|(used, _)| *used).collect();
            ages.sort_unstable();
            let cut = ages.get(ages.len() / 2).copied().unwrap_or(0);
            kept.retain(|_, (used, _)| *used >= cut);
        }
        kept.insert(inv.id.clone(), (tick, parts.clone()));
        Some(parts)
    }
}
