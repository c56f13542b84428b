//! The numbering contract: how a host hands out document numbers (`dNumDoc`) so that issuing cannot go legally wrong.
//!
//! A number of a sequence ([`NumberingKey`]: type, stamp, establishment, point) is used by one document at most, ever:
//! across crashes, restarts and concurrent processes. The issuing pipeline ([`crate::issue`]) first **reserves** a
//! number (durable before it is used), builds and signs the document, lets the host store it, and then **confirms**
//! the number with the document's CDC. A number reserved and never confirmed (the process died, signing failed, the
//! disk was full) is a **gap**: it is never handed out again, and [`Numbering::gaps`] lists it so the issuer can void
//! it with an inutilización event (SIFEN.md §7). Every store implements [`Numbering`] and passes
//! [`conformance::check`].

use crate::code;
use crate::error::Finding;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Highest document number of a sequence (`dNumDoc`, 7 digits).
pub const MAX_NUMERO: u32 = 9_999_999;

/// What identifies one numbering sequence: document type, stamp, establishment and point of issue.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NumberingKey {
    /// Document type code.
    pub tipo_documento: u8,
    /// Stamp number.
    pub timbrado: String,
    /// Establishment, 3 digits.
    pub establecimiento: String,
    /// Point of issue, 3 digits.
    pub punto: String,
}

impl NumberingKey {
    /// The sequence as one text (`timbrado-est-punto-tipo`), the column hosts store it under.
    pub fn sequence(&self) -> String {
        format!(
            "{}-{}-{}-{}",
            self.timbrado, self.establecimiento, self.punto, self.tipo_documento
        )
    }
}

/// A number reserved and never confirmed: void it with an inutilización (or find the document it became).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Gap {
    /// The sequence.
    #[serde(flatten)]
    pub key: NumberingKey,
    /// The unused number.
    pub numero: u32,
}

/// A host's document-number store (a database, a locked file, memory in tests). See the module documentation.
pub trait Numbering {
    /// Reserves the next number (1..=[`MAX_NUMERO`]) of `key`'s sequence. When it returns, the reservation is
    /// durable: that number is never handed out again. Fails with `NUMBERING_EXHAUSTED` past the last number and
    /// `NUMBERING_UNAVAILABLE` / `NUMBERING_STATE_CORRUPT` when the state cannot be written or read.
    fn reserve(&mut self, key: &NumberingKey) -> Result<u32, Finding>;
    /// Records that the reserved `numero` became the signed document `cdc`, which the host has stored. A number that
    /// was not reserved (or is already confirmed) is `NUMBER_NOT_RESERVED`.
    fn confirm(&mut self, key: &NumberingKey, numero: u32, cdc: &str) -> Result<(), Finding>;
    /// Every reserved number that was never confirmed, in sequence and number order.
    fn gaps(&self) -> Result<Vec<Gap>, Finding>;
}

/// The finding for a sequence past [`MAX_NUMERO`].
pub fn exhausted(key: &NumberingKey) -> Finding {
    Finding::new(
        code::NUMBERING_EXHAUSTED,
        "numero",
        format!(
            "the sequence {} reached {MAX_NUMERO}; a new stamp (timbrado) or series is needed",
            key.sequence()
        ),
    )
}

/// The finding for a confirmation of a number that is not an open reservation.
pub fn not_reserved(key: &NumberingKey, numero: u32) -> Finding {
    Finding::new(
        code::NUMBER_NOT_RESERVED,
        "numero",
        format!(
            "number {numero} of sequence {} is not reserved (or already confirmed)",
            key.sequence()
        ),
    )
}

/// In-memory numbering (tests, single-process hosts that keep no state): the contract within one process.
#[derive(Debug, Default, Clone)]
pub struct MemoryNumbering {
    last: BTreeMap<NumberingKey, u32>,
    open: BTreeSet<(NumberingKey, u32)>,
}

impl MemoryNumbering {
    /// A numbering whose sequence `key` hands out `first` next (e.g. the number a C host reserved itself).
    pub fn starting_at(key: NumberingKey, first: u32) -> Self {
        let mut last = BTreeMap::new();
        last.insert(key, first.saturating_sub(1));
        MemoryNumbering {
            last,
            open: BTreeSet::new(),
        }
    }
}

impl Numbering for MemoryNumbering {
    fn reserve(&mut self, key: &NumberingKey) -> Result<u32, Finding> {
        let last = self.last.entry(key.clone()).or_insert(0);
        if *last >= MAX_NUMERO {
            return Err(exhausted(key));
        }
        *last += 1;
        self.open.insert((key.clone(), *last));
        Ok(*last)
    }

    fn confirm(&mut self, key: &NumberingKey, numero: u32, _cdc: &str) -> Result<(), Finding> {
        if self.open.remove(&(key.clone(), numero)) {
            Ok(())
        } else {
            Err(not_reserved(key, numero))
        }
    }

    fn gaps(&self) -> Result<Vec<Gap>, Finding> {
        Ok(self
            .open
            .iter()
            .map(|(key, numero)| Gap {
                key: key.clone(),
                numero: *numero,
            })
            .collect())
    }
}

/// The generic conformance suite every [`Numbering`] implementation runs (in-memory, the CLI's file, SQLite,
/// PostgreSQL), as one contract with several implementations.
pub mod conformance {
    use super::*;

    fn key(tipo: u8, punto: &str) -> NumberingKey {
        NumberingKey {
            tipo_documento: tipo,
            timbrado: "12345678".into(),
            establecimiento: "001".into(),
            punto: punto.into(),
        }
    }

    fn expect(cond: bool, what: &str) -> Result<(), String> {
        if cond {
            Ok(())
        } else {
            Err(what.to_string())
        }
    }

    /// Runs the contract against a store. `reopen(previous)` returns the store to test: given `None`, a fresh,
    /// empty one; given the previous instance, the same state as a restarted process sees it (a durable store drops
    /// it and opens its file or database again; an in-memory one hands the instance back).
    pub fn check<N: Numbering>(reopen: &mut dyn FnMut(Option<N>) -> N) -> Result<(), String> {
        let (a, b, c) = (key(1, "001"), key(1, "002"), key(5, "001"));
        let mut n = reopen(None);
        expect(
            n.gaps().map_err(|e| e.to_string())?.is_empty(),
            "a fresh store lists no gap",
        )?;
        for want in 1..=3 {
            let got = n.reserve(&a).map_err(|e| e.to_string())?;
            expect(
                got == want,
                &format!("sequence a: expected {want}, got {got}"),
            )?;
        }
        expect(n.reserve(&b) == Ok(1), "each sequence starts at 1 (b)")?;
        expect(n.reserve(&c) == Ok(1), "each sequence starts at 1 (c)")?;
        n.confirm(&a, 1, "cdc-a1").map_err(|e| e.to_string())?;
        n.confirm(&b, 1, "cdc-b1").map_err(|e| e.to_string())?;
        let twice = n.confirm(&a, 1, "cdc-a1");
        expect(
            twice.as_ref().err().map(|f| f.code.as_str()) == Some(code::NUMBER_NOT_RESERVED),
            "confirming a number twice is NUMBER_NOT_RESERVED",
        )?;
        let never = n.confirm(&a, 9, "cdc-a9");
        expect(
            never.as_ref().err().map(|f| f.code.as_str()) == Some(code::NUMBER_NOT_RESERVED),
            "confirming a number never reserved is NUMBER_NOT_RESERVED",
        )?;
        let wrong_key = n.confirm(&b, 2, "cdc-b2");
        expect(
            wrong_key.is_err(),
            "a number is confirmed only in its own sequence",
        )?;
        let gaps = |n: &N| -> Result<Vec<(NumberingKey, u32)>, String> {
            Ok(n.gaps()
                .map_err(|e| e.to_string())?
                .into_iter()
                .map(|g| (g.key, g.numero))
                .collect())
        };
        let want = vec![(a.clone(), 2), (a.clone(), 3), (c.clone(), 1)];
        let mut got = gaps(&n)?;
        got.sort();
        expect(
            got == want,
            &format!("gaps are the unconfirmed reservations: {got:?}"),
        )?;

        // A restart: nothing reserved is handed out again, gaps survive, confirmations too.
        let mut n = reopen(Some(n));
        expect(
            n.reserve(&a) == Ok(4),
            "after a restart the sequence continues after every reservation (4), never reusing a gap",
        )?;
        let mut got = gaps(&n)?;
        got.sort();
        let want = vec![
            (a.clone(), 2),
            (a.clone(), 3),
            (a.clone(), 4),
            (c.clone(), 1),
        ];
        expect(got == want, &format!("gaps survive a restart: {got:?}"))?;
        n.confirm(&a, 3, "cdc-a3")
            .map_err(|e| format!("a reservation survives a restart and can be confirmed: {e}"))?;
        expect(
            n.confirm(&b, 1, "cdc-b1").is_err(),
            "a confirmation survives a restart",
        )?;
        n.confirm(&a, 4, "cdc-a4").map_err(|e| e.to_string())?;
        let mut got = gaps(&n)?;
        got.sort();
        expect(
            got == vec![(a.clone(), 2), (c.clone(), 1)],
            &format!("confirmed numbers leave the gap list: {got:?}"),
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn memory_numbering_keeps_the_contract() {
        conformance::check::<MemoryNumbering>(&mut |prev| prev.unwrap_or_default()).unwrap();
    }

    #[test]
    fn memory_numbering_stops_at_the_last_number() {
        let k = conformance_key();
        let mut n = MemoryNumbering::starting_at(k.clone(), MAX_NUMERO);
        assert_eq!(n.reserve(&k), Ok(MAX_NUMERO));
        assert_eq!(n.reserve(&k).unwrap_err().code, code::NUMBERING_EXHAUSTED);
    }

    fn conformance_key() -> NumberingKey {
        NumberingKey {
            tipo_documento: 1,
            timbrado: "12345678".into(),
            establecimiento: "001".into(),
            punto: "001".into(),
        }
    }
}
