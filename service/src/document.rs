//! The parts of the invoice resource that come from its signed XML (items, parties, totals, stamp). The XML never
//! changes once signed, so a status lookup need not parse it again: the parts of recently read invoices are kept,
//! parsed and serialized once.

use super::InvoiceRecord;
use kuatia_core::de::{Condicion, DocumentoElectronico, ItemDoc, ReceptorDoc, Totales};
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// How many invoices' parts are kept (a few MB); beyond that the oldest half is dropped.
const CAPACITY: usize = 4096;

/// The resource fields read from a signed document: one definition for the 201 of a create, the lookups' cache and
/// the lists. Written straight from the document (no `Value` tree per create: it showed in the signing threads'
/// profile); top-level names in alphabetical order, as the `Value` maps of the rest of the resource.
#[derive(Serialize)]
pub(super) struct Fields<'a> {
    condicion: &'a Option<Condicion>,
    emisor: Emisor<'a>,
    items: &'a [ItemDoc],
    receptor: &'a ReceptorDoc,
    timbrado: Timbrado<'a>,
    tipo_cambio: Option<Decimal>,
    totales: &'a Option<Totales>,
}

#[derive(Serialize)]
struct Emisor<'a> {
    razon_social: &'a str,
    ruc: String,
}

#[derive(Serialize)]
struct Timbrado<'a> {
    establecimiento: &'a str,
    numero: &'a str,
    punto: &'a str,
    serie: &'a Option<String>,
}

impl<'a> Fields<'a> {
    /// The fields of `de`.
    pub(super) fn of(de: &'a DocumentoElectronico) -> Fields<'a> {
        Fields {
            condicion: &de.condicion,
            emisor: Emisor {
                razon_social: &de.emisor.razon_social,
                ruc: format!("{}-{}", de.emisor.ruc, de.emisor.dv),
            },
            items: &de.items,
            receptor: &de.receptor,
            timbrado: Timbrado {
                establecimiento: &de.timbrado.establecimiento,
                numero: &de.timbrado.numero_timbrado,
                punto: &de.timbrado.punto,
                serie: &de.timbrado.serie,
            },
            tipo_cambio: de.operacion_comercial.as_ref().and_then(|o| o.tipo_cambio),
            totales: &de.totales,
        }
    }

    /// `"k":v,…`: the fields as members of the resource object.
    pub(super) fn members(&self) -> String {
        let object = serde_json::to_string(self).unwrap_or_default();
        object
            .strip_prefix('{')
            .and_then(|o| o.strip_suffix('}'))
            .unwrap_or_default()
            .to_string()
    }

    /// The fields as a map (the resources of a list, built as values).
    fn map(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }
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

    /// [`Parts::get`] for a record read without its XML ([`crate::Store::invoice_state`]): `load` reads the XML
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
        let de = kuatia_core::xml::parse(xml).ok()?;
        let fields = Fields::of(&de);
        let parts = Arc::new(DocumentParts {
            fields: fields.map(),
            members: fields.members(),
        });
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
