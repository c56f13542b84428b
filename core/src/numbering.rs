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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

    /// Reserves the next `count` numbers of `key`'s sequence at once (fewer only where the sequence ends; none is
    /// `NUMBERING_EXHAUSTED`). When it returns, every one of them is a reservation as [`Numbering::reserve`] makes it:
    /// never handed out again, and a listed gap until confirmed — so the unused rest of a block (a process killed
    /// mid-batch) is a gap after any restart. A store does it in one transaction (one sync for the whole block); the
    /// default reserves one at a time. `count` 0 reserves nothing.
    fn reserve_block(&mut self, key: &NumberingKey, count: u32) -> Result<Vec<u32>, Finding> {
        let mut got = Vec::with_capacity(count as usize);
        for _ in 0..count {
            match self.reserve(key) {
                Ok(n) => got.push(n),
                Err(f) if f.code == code::NUMBERING_EXHAUSTED && !got.is_empty() => break,
                Err(f) => return Err(f),
            }
        }
        Ok(got)
    }

    /// Confirms a group of reservations whose documents the host has stored. A store does it in one transaction
    /// (one sync for the group): all are confirmed, or — on an error — none is; the default confirms one at a time
    /// and stops at the first error. Either way a number left unconfirmed stays a listed gap (with its stored
    /// document, which the issuer can find by its CDC).
    fn confirm_all(&mut self, group: &[Confirmation]) -> Result<(), Finding> {
        for c in group {
            self.confirm(&c.key, c.numero, &c.cdc)?;
        }
        Ok(())
    }
}

/// One confirmation of a group ([`Numbering::confirm_all`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmation {
    /// The sequence.
    pub key: NumberingKey,
    /// The reserved number.
    pub numero: u32,
    /// The CDC of the stored document that uses it.
    pub cdc: String,
}

/// A number reserved before issuing, for [`crate::issue::Prepared::issue_reserved`]: taken from a reserved block
/// ([`Blocks::take`]), or reserved by a host that keeps its own sequence ([`Reserved::new`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reserved {
    key: NumberingKey,
    numero: u32,
}

impl Reserved {
    /// A number the host has reserved in `key` for one document (the service's create between its phases, a C
    /// caller that numbers itself). The host confirms it, or keeps it a listed gap.
    pub fn new(key: NumberingKey, numero: u32) -> Reserved {
        Reserved { key, numero }
    }

    /// The sequence.
    pub fn key(&self) -> &NumberingKey {
        &self.key
    }
    /// The number.
    pub fn numero(&self) -> u32 {
        self.numero
    }
}

/// Numbers reserved ahead of use for a group of documents (batch issuing): one block per sequence, sized to the
/// documents of the group that passed the check, each block one [`Numbering::reserve_block`] (one sync). Numbers are
/// handed out in the order the documents were given. What is not taken stays reserved: a listed gap, never reused.
#[derive(Debug, Default)]
pub struct Blocks {
    free: BTreeMap<NumberingKey, std::collections::VecDeque<u32>>,
}

impl Blocks {
    /// Reserves, per sequence, one number for each key given (the keys of the checked documents, in order).
    pub fn reserve<'k>(
        store: &mut dyn Numbering,
        keys: impl IntoIterator<Item = &'k NumberingKey>,
    ) -> Result<Blocks, Finding> {
        let mut counts: BTreeMap<&NumberingKey, u32> = BTreeMap::new();
        for k in keys {
            *counts.entry(k).or_insert(0) += 1;
        }
        let mut free = BTreeMap::new();
        for (key, count) in counts {
            let numbers = store.reserve_block(key, count)?;
            free.insert(key.clone(), numbers.into());
        }
        Ok(Blocks { free })
    }

    /// The next reserved number of `key`'s sequence; `NUMBERING_EXHAUSTED` when its block ran short (the sequence
    /// ended) or none was reserved for it.
    pub fn take(&mut self, key: &NumberingKey) -> Result<Reserved, Finding> {
        match self.free.get_mut(key).and_then(|q| q.pop_front()) {
            Some(numero) => Ok(Reserved {
                key: key.clone(),
                numero,
            }),
            None => Err(exhausted(key)),
        }
    }

    /// How many reserved numbers are not taken yet (they become gaps if never used).
    pub fn unused(&self) -> usize {
        self.free.values().map(|q| q.len()).sum()
    }
}

/// The finding for a sequence past [`MAX_NUMERO`].
pub fn exhausted(key: &NumberingKey) -> Finding {
    crate::rule::numbering_exhausted("numero", &key.sequence(), MAX_NUMERO)
}

/// The finding for a confirmation of a number that is not an open reservation.
pub fn not_reserved(key: &NumberingKey, numero: u32) -> Finding {
    crate::rule::numbering_not_reserved("numero", numero, &key.sequence())
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

        // Blocks: reserved at once, each number a gap until confirmed; groups confirmed at once.
        let block = n.reserve_block(&a, 3).map_err(|e| e.to_string())?;
        expect(
            block == vec![5, 6, 7],
            &format!("a block continues the sequence: {block:?}"),
        )?;
        expect(
            n.reserve_block(&b, 0) == Ok(vec![]),
            "a block of 0 reserves nothing",
        )?;
        let mut got = gaps(&n)?;
        got.sort();
        expect(
            got == vec![
                (a.clone(), 2),
                (a.clone(), 5),
                (a.clone(), 6),
                (a.clone(), 7),
                (c.clone(), 1),
            ],
            &format!("a block's numbers are gaps until confirmed: {got:?}"),
        )?;
        let group = |nums: &[u32]| -> Vec<Confirmation> {
            nums.iter()
                .map(|&numero| Confirmation {
                    key: a.clone(),
                    numero,
                    cdc: format!("cdc-a{numero}"),
                })
                .collect()
        };
        n.confirm_all(&group(&[5, 6])).map_err(|e| e.to_string())?;
        expect(
            n.confirm_all(&group(&[5]))
                .map(|_| ())
                .err()
                .map(|f| f.code)
                == Some(code::NUMBER_NOT_RESERVED.to_string()),
            "a group confirming a confirmed number is NUMBER_NOT_RESERVED",
        )?;
        // A restart mid-block: the unused rest (7) is a gap, the sequence continues after the block.
        let mut n = reopen(Some(n));
        expect(
            n.reserve(&a) == Ok(8),
            "after a restart the sequence continues after the whole block (8)",
        )?;
        let mut got = gaps(&n)?;
        got.sort();
        expect(
            got == vec![
                (a.clone(), 2),
                (a.clone(), 7),
                (a.clone(), 8),
                (c.clone(), 1),
            ],
            &format!("the unused rest of a block is a gap after a restart: {got:?}"),
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

    #[test]
    fn a_block_stops_at_the_last_number() {
        let k = conformance_key();
        let mut n = MemoryNumbering::starting_at(k.clone(), MAX_NUMERO - 1);
        assert_eq!(n.reserve_block(&k, 5), Ok(vec![MAX_NUMERO - 1, MAX_NUMERO]));
        assert_eq!(
            n.reserve_block(&k, 1).unwrap_err().code,
            code::NUMBERING_EXHAUSTED
        );
    }

    #[test]
    fn blocks_hand_out_per_sequence_in_order_and_leave_the_rest_as_gaps() {
        let a = conformance_key();
        let b = NumberingKey {
            tipo_documento: 5,
            ..a.clone()
        };
        let mut n = MemoryNumbering::default();
        n.reserve(&a).unwrap();
        let mut blocks = Blocks::reserve(&mut n, [&a, &b, &a]).unwrap();
        assert_eq!(blocks.unused(), 3);
        assert_eq!(blocks.take(&a).unwrap().numero(), 2);
        assert_eq!(blocks.take(&b).unwrap().numero(), 1);
        assert_eq!(blocks.take(&a).unwrap().key(), &a);
        assert_eq!(blocks.take(&a).unwrap_err().code, code::NUMBERING_EXHAUSTED);
        // Nothing confirmed: every reserved number is a gap, and the store never hands them out again.
        assert_eq!(n.gaps().unwrap().len(), 4);
        assert_eq!(n.reserve(&a), Ok(4));
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
