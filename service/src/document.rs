//! The parts of the invoice resource that come from its signed XML (items, parties, totals, stamp). The XML never
//! changes once signed, so a status lookup need not parse it again: the parts of recently read invoices are kept,
//! parsed and serialized once.

use super::InvoiceRecord;
use crate::resource::DocumentParts;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// How many invoices' parts are kept at most; beyond that the least recently used half is dropped.
const CAPACITY: usize = 4096;
/// Bytes the kept parts may weigh (estimated, [`weight`]), per engine: a server has one engine per reader plus the
/// writer, so this bounds the cache's memory whatever the invoices' size (the soak run saw ~30 MB per engine at
/// 4 096 invoices before this bound).
const BUDGET: usize = 8 << 20;

/// Estimated bytes one invoice's parts hold: the serialized members, and about twice that in the parsed parts'
/// strings and vectors, plus the map entry.
fn weight(id: &str, parts: &DocumentParts) -> usize {
    3 * parts.members.len() + id.len() + 256
}

/// Parts of recently read invoices, by invoice id (ids are never reused, and a signed XML never changes).
#[derive(Debug, Clone, Default)]
pub(super) struct Parts {
    kept: RefCell<HashMap<String, (u64, Arc<DocumentParts>)>>,
    clock: std::cell::Cell<u64>,
    /// The [`weight`] of everything in `kept`.
    bytes: std::cell::Cell<usize>,
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
        let parts = Arc::new(DocumentParts::of(de));
        let mut kept = self.kept.borrow_mut();
        let added = weight(&inv.id, &parts);
        if kept.len() >= CAPACITY || self.bytes.get().saturating_add(added) > BUDGET {
            // Keep the most recently used half.
            let mut ages: Vec<u64> = kept.values().map(|(used, _)| *used).collect();
            ages.sort_unstable();
            let cut = ages.get(ages.len() / 2).copied().unwrap_or(0);
            kept.retain(|_, (used, _)| *used >= cut);
            self.bytes
                .set(kept.iter().map(|(id, (_, p))| weight(id, p)).sum());
        }
        kept.insert(inv.id.clone(), (tick, parts.clone()));
        self.bytes.set(self.bytes.get().saturating_add(added));
        Some(parts)
    }
}
