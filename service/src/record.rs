//! The records the store keeps and the transmission reads and writes: an invoice ([`InvoiceRecord`]), its
//! cancellation and its SIFEN [`Transmission`]. Neither `store` nor `transmit` imports the other: both use these.

use crate::auth::Environment;
use kuatia_core::lifecycle::{Estado, SifenError};
use serde::{Deserialize, Serialize};

/// A stored invoice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoiceRecord {
    /// `fact_…` identifier.
    pub id: String,
    /// Owning account.
    pub account_id: String,
    /// Environment it was created in.
    pub environment: Environment,
    /// Current state.
    pub status: Estado,
    /// CDC.
    pub cdc: String,
    /// `EEE-PPP-NNNNNNN`.
    pub numero: String,
    /// Document type code.
    pub tipo_documento: u8,
    /// Emission date-time (Paraguay local, `YYYY-MM-DDThh:mm:ss`).
    pub fecha_emision: String,
    /// Grand total as written in the XML (absent for remission notes).
    pub total: Option<String>,
    /// Currency.
    pub moneda: Option<String>,
    /// The `_simulate` value given at creation (sandbox).
    pub simulate: Option<String>,
    /// Reasons of a rejection.
    pub sifen_errors: Vec<SifenError>,
    /// SIFEN authorization number once approved.
    pub protocolo: Option<String>,
    /// The signed XML (or the unsigned simulation in a sandbox without a signer).
    pub xml: String,
    /// `dCarQR`.
    pub qr: String,
    /// Whether `xml` carries an XMLDSig signature.
    pub signed: bool,
    /// Unix time of creation.
    pub created_at: i64,
    /// Unix time of the last state change.
    pub updated_at: i64,
    /// Production: where the document stands in its transmission to SIFEN (idle in the sandbox).
    #[serde(default, skip_serializing_if = "Transmission::is_idle")]
    pub transmission: Transmission,
    /// `iTipEmi`: 1 normal, 2 contingency (issued while SIFEN was unreachable; the KuDE carries the legend).
    #[serde(default = "normal_emission")]
    pub tipo_emision: u8,
    /// Unix time SIFEN received the document (`pending → sent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_at: Option<i64>,
    /// The receiver's RUC (`dRucRec-dDVRec`), `None` for a receiver without RUC; kept apart from the XML for filters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receptor_ruc: Option<String>,
    /// Unix time of the approval (the cancellation window counts from it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_at: Option<i64>,
    /// The cancellation asked for, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancellation: Option<Cancellation>,
}

fn normal_emission() -> u8 {
    1
}

impl InvoiceRecord {
    /// Whether the sandbox's simulated SIFEN still has to move it (the contract of
    /// [`crate::Store::simulated_in_flight`]: a sandbox invoice without `_simulate`, pending or sent).
    pub fn is_simulated_in_flight(&self) -> bool {
        self.environment == Environment::Sandbox
            && self.simulate.is_none()
            && matches!(self.status, Estado::Pending | Estado::Sent)
    }

    /// When its next SIFEN step is due ([`crate::Store::sifen_due`]), `None` when there is none.
    pub fn sifen_due_at(&self) -> Option<i64> {
        (!self.transmission.is_idle()).then_some(self.transmission.due_at)
    }
}

/// Where a cancellation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CancellationStatus {
    /// The signed event waits for SIFEN's answer.
    Pending,
    /// SIFEN registered it: the invoice is `cancelled`.
    Approved,
    /// SIFEN refused it (see `error`): the invoice stays `approved`.
    Rejected,
}

/// A cancellation event (`rGeVeCan`) of an approved invoice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cancellation {
    /// Its state.
    pub status: CancellationStatus,
    /// The reason (`mOtEve`).
    pub motivo: String,
    /// Unix time of the request.
    pub requested_at: i64,
    /// The event `Id` (production).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_id: Option<u64>,
    /// The signed `rGesEve` (production).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xml: Option<String>,
    /// SIFEN's reason for a refusal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<SifenError>,
}

/// The next SIFEN call an invoice needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Nothing: sandbox invoices, and production invoices with a final answer.
    #[default]
    Idle,
    /// Send the document (`recibe`, or in a lot).
    Send,
    /// Ask SIFEN about the CDC (`consulta`) before anything else.
    Query,
    /// Ask for the result of the lot it travelled in (`consulta-lote`).
    QueryLot,
    /// Send the invoice's signed cancellation event (`evento`).
    SendEvent,
}

/// Where a production invoice stands in its transmission to SIFEN.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Transmission {
    /// The next call.
    pub next: Step,
    /// Unix time when it is due.
    pub due_at: i64,
    /// Failed attempts in a row (transport errors, unexpected answers, transient SIFEN codes).
    pub attempts: u32,
    /// `dProtConsLote` of the lot the document travelled in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lote: Option<String>,
    /// What went wrong last (no secret: transport messages and SIFEN codes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

impl Transmission {
    /// Whether nothing is left to do.
    pub fn is_idle(&self) -> bool {
        self.next == Step::Idle
    }

    /// A production invoice just created: send it now.
    pub fn start(now: i64) -> Transmission {
        Transmission {
            next: Step::Send,
            due_at: now,
            ..Transmission::default()
        }
    }

    pub(crate) fn schedule(&mut self, next: Step, due_at: i64) {
        self.next = next;
        self.due_at = due_at;
    }

    pub(crate) fn fail(&mut self, next: Step, now: i64, error: String, schedule: &[i64]) {
        self.attempts = self.attempts.saturating_add(1);
        self.last_error = Some(error);
        self.schedule(next, now + backoff(schedule, self.attempts));
    }
}

/// Delay after `attempts` failures in a row: the schedule's entry, its last one once exhausted (60 s if empty).
pub fn backoff(schedule: &[i64], attempts: u32) -> i64 {
    let i = usize::try_from(attempts.saturating_sub(1)).unwrap_or(usize::MAX);
    schedule
        .get(i)
        .or(schedule.last())
        .copied()
        .unwrap_or(60)
        .max(1)
}
