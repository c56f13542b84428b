//! The invoice state machine of the user's service (spec §3): `pending → sent → approved | rejected`, plus
//! `cancelled` after an approved document's cancellation event.
//!
//! One pure function, [`transition`], maps `(state, trigger)` to the new state and the events to deliver.
//! Decisions where the spec is silent:
//! - a rejection may come while `pending` (a synchronous answer) or `sent`;
//! - a `rejected` document leaves that state only by [`Trigger::Resubmitted`] (the fix changed no CDC field, so it
//!   is resent with the same CDC, SIFEN.md §2.5) back to `pending`; a fix that changes the CDC is a new invoice;
//! - `approved` and `cancelled` are final except approved → cancelled.

use serde::{Deserialize, Serialize};
use std::fmt;

/// State of an invoice in the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Estado {
    /// Created and signed, not yet received by SIFEN.
    Pending,
    /// Received by SIFEN (lot queued or sent), waiting for the answer.
    Sent,
    /// Approved by SIFEN: the document is valid and its KuDE may be delivered.
    Approved,
    /// Rejected by SIFEN: see `sifen_errors`.
    Rejected,
    /// Cancelled by a cancellation event after approval.
    Cancelled,
}

impl Estado {
    /// The wire name (`pending`, `sent`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Estado::Pending => "pending",
            Estado::Sent => "sent",
            Estado::Approved => "approved",
            Estado::Rejected => "rejected",
            Estado::Cancelled => "cancelled",
        }
    }

    /// Whether no SIFEN answer can change the state any more (approved only moves by an explicit cancellation).
    pub fn is_final(self) -> bool {
        matches!(
            self,
            Estado::Approved | Estado::Rejected | Estado::Cancelled
        )
    }
}

impl fmt::Display for Estado {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One reason SIFEN gave for a rejection (the element of `sifen_errors`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SifenError {
    /// SIFEN's response code (`dCodRes`, e.g. `1003`, `0160`).
    pub code: String,
    /// SIFEN's message (`dMsgRes`).
    pub message: String,
    /// The XML element or request field concerned, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// What happened to an invoice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Trigger {
    /// SIFEN received the document (sync reception or lot queued).
    Submitted,
    /// SIFEN approved it (`0260` / lot result `Aprobado`); `protocolo` is `dProtAut`.
    Approved {
        /// Authorization number (`dProtAut`).
        protocolo: Option<String>,
    },
    /// SIFEN rejected it with these reasons.
    Rejected {
        /// The reasons (SIFEN returns the first one for a rejected DE).
        errors: Vec<SifenError>,
    },
    /// The caller corrected data that is not part of the CDC and resends with the same CDC.
    Resubmitted,
    /// A cancellation event (`rGeVeCan`) was approved.
    Cancelled,
}

impl Trigger {
    fn name(&self) -> &'static str {
        match self {
            Trigger::Submitted => "submitted",
            Trigger::Approved { .. } => "approved",
            Trigger::Rejected { .. } => "rejected",
            Trigger::Resubmitted => "resubmitted",
            Trigger::Cancelled => "cancelled",
        }
    }
}

/// Event kinds delivered to webhooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum EventKind {
    /// `factura.approved`.
    #[serde(rename = "factura.approved")]
    FacturaApproved,
    /// `factura.rejected`.
    #[serde(rename = "factura.rejected")]
    FacturaRejected,
    /// `factura.cancelled`.
    #[serde(rename = "factura.cancelled")]
    FacturaCancelled,
    /// `factura.emailed`: the SMTP server acknowledged the e-mail to the buyer.
    #[serde(rename = "factura.emailed")]
    FacturaEmailed,
    /// `factura.email_failed`: the e-mail to the buyer was given up (a permanent refusal, or the retries ran out).
    #[serde(rename = "factura.email_failed")]
    FacturaEmailFailed,
}

impl EventKind {
    /// Every kind, for validating webhook registrations.
    pub const ALL: [EventKind; 5] = [
        EventKind::FacturaApproved,
        EventKind::FacturaRejected,
        EventKind::FacturaCancelled,
        EventKind::FacturaEmailed,
        EventKind::FacturaEmailFailed,
    ];

    /// The wire name (`factura.approved`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::FacturaApproved => "factura.approved",
            EventKind::FacturaRejected => "factura.rejected",
            EventKind::FacturaCancelled => "factura.cancelled",
            EventKind::FacturaEmailed => "factura.emailed",
            EventKind::FacturaEmailFailed => "factura.email_failed",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<EventKind> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A trigger that does not apply to the current state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransitionError {
    /// The state the invoice is in.
    pub from: Estado,
    /// The trigger's name.
    pub trigger: &'static str,
}

impl TransitionError {
    /// Stable error code.
    pub fn code(&self) -> &'static str {
        crate::code::INVALID_TRANSITION
    }
}

impl TransitionError {
    /// The finding at `path` (rule `sifen.transition`).
    pub fn to_finding(&self, path: impl Into<String>) -> crate::Finding {
        let from = match self.from {
            Estado::Pending => "estado_pending",
            Estado::Sent => "estado_sent",
            Estado::Approved => "estado_approved",
            Estado::Rejected => "estado_rejected",
            Estado::Cancelled => "estado_cancelled",
        };
        let trigger = match self.trigger {
            "submitted" => "trigger_submitted",
            "approved" => "trigger_approved",
            "rejected" => "trigger_rejected",
            "resubmitted" => "trigger_resubmitted",
            _ => "trigger_cancelled",
        };
        crate::rule::sifen_transition(path, from, trigger)
    }
}

/// The English message of [`TransitionError::to_finding`].
impl fmt::Display for TransitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_finding("").message_in(crate::msg::Lang::En))
    }
}

impl std::error::Error for TransitionError {}

/// Applies `trigger` to `from`: the new state and the events to deliver, or an error for an invalid transition.
pub fn transition(
    from: Estado,
    trigger: &Trigger,
) -> Result<(Estado, Vec<EventKind>), TransitionError> {
    use Estado::*;
    let to = match (from, trigger) {
        (Pending, Trigger::Submitted) => (Sent, vec![]),
        (Sent, Trigger::Approved { .. }) => (Approved, vec![EventKind::FacturaApproved]),
        (Pending | Sent, Trigger::Rejected { .. }) => (Rejected, vec![EventKind::FacturaRejected]),
        (Rejected, Trigger::Resubmitted) => (Pending, vec![]),
        (Approved, Trigger::Cancelled) => (Cancelled, vec![EventKind::FacturaCancelled]),
        _ => {
            return Err(TransitionError {
                from,
                trigger: trigger.name(),
            })
        }
    };
    Ok(to)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn happy_path_and_events() {
        let (s, e) = transition(Estado::Pending, &Trigger::Submitted).unwrap();
        assert_eq!((s, e), (Estado::Sent, vec![]));
        let (s, e) = transition(
            s,
            &Trigger::Approved {
                protocolo: Some("123".into()),
            },
        )
        .unwrap();
        assert_eq!((s, e), (Estado::Approved, vec![EventKind::FacturaApproved]));
        let (s, e) = transition(s, &Trigger::Cancelled).unwrap();
        assert_eq!(
            (s, e),
            (Estado::Cancelled, vec![EventKind::FacturaCancelled])
        );
    }

    #[test]
    fn rejection_from_pending_or_sent_and_resubmission() {
        let r = Trigger::Rejected {
            errors: vec![SifenError {
                code: "1003".into(),
                message: "DV".into(),
                field: None,
            }],
        };
        for from in [Estado::Pending, Estado::Sent] {
            assert_eq!(
                transition(from, &r).unwrap(),
                (Estado::Rejected, vec![EventKind::FacturaRejected])
            );
        }
        assert_eq!(
            transition(Estado::Rejected, &Trigger::Resubmitted)
                .unwrap()
                .0,
            Estado::Pending
        );
    }

    #[test]
    fn invalid_transitions_are_errors() {
        let all = [
            Estado::Pending,
            Estado::Sent,
            Estado::Approved,
            Estado::Rejected,
            Estado::Cancelled,
        ];
        let triggers = [
            Trigger::Submitted,
            Trigger::Approved { protocolo: None },
            Trigger::Rejected { errors: vec![] },
            Trigger::Resubmitted,
            Trigger::Cancelled,
        ];
        let mut ok = 0;
        for s in all {
            for t in &triggers {
                match transition(s, t) {
                    Ok(_) => ok += 1,
                    Err(e) => {
                        assert_eq!(e.code(), "INVALID_TRANSITION");
                        assert!(e.to_string().contains(s.as_str()));
                    }
                }
            }
        }
        // Exactly the six edges of the documented machine.
        assert_eq!(ok, 6);
        assert!(transition(Estado::Approved, &Trigger::Rejected { errors: vec![] }).is_err());
        assert!(transition(Estado::Pending, &Trigger::Approved { protocolo: None }).is_err());
    }

    #[test]
    fn wire_names() {
        assert_eq!(
            serde_json::to_string(&Estado::Approved).unwrap(),
            "\"approved\""
        );
        assert_eq!(
            serde_json::to_string(&EventKind::FacturaRejected).unwrap(),
            "\"factura.rejected\""
        );
        assert_eq!(
            EventKind::parse("factura.approved"),
            Some(EventKind::FacturaApproved)
        );
        assert_eq!(EventKind::parse("factura.paid"), None);
    }
}
