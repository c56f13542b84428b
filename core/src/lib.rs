//! kuatia-core: the pure heart of kuatia, a library for Paraguayan electronic invoices (SIFEN / e-Kuatia).
//!
//! Everything here is deterministic: no network, no filesystem, no clock and no hidden randomness.
//! Time, document numbers, security codes and signers are passed in by the host.
#![forbid(unsafe_code)]

pub mod cdc;
pub mod code;
pub mod codes;
pub mod de;
pub mod document;
pub mod error;
pub mod fmt;
pub mod geo;
pub mod invoice;
pub mod issue;
pub mod kude;
pub mod lifecycle;
pub mod msg;
pub mod numbering;
pub mod probe;
pub mod profile;
pub mod qr;
pub mod ruc;
pub mod rule;
#[cfg(feature = "schema")]
pub mod schema;
pub mod shape;
pub mod sifen;
pub mod sign;
pub mod totals;
#[cfg(feature = "ts")]
pub mod ts;
pub mod validate;
pub mod xml;

pub use error::{Finding, Findings};

/// The README's Rust examples, compiled and run as doctests so the quickstart never rots.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
