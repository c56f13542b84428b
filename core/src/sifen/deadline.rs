//! SIFEN's time windows (SIFEN.md §3.8, §7.3), as pure checks over times the caller passes in (Paraguay local
//! time, the zone-less form SIFEN writes).

use crate::error::Finding;
use crate::rule;
use time::{Duration, PrimitiveDateTime};

/// Cancellation window of an FE (iTiDE 1) from its approval: 48 h (SIFEN 4009).
pub const CANCEL_WINDOW_FE: Duration = Duration::hours(48);
/// Cancellation window of the other documents (AFE, NCE, NDE, NRE) from approval: 168 h (SIFEN 4010).
pub const CANCEL_WINDOW_OTHERS: Duration = Duration::hours(168);
/// Transmission later than this after signing is "extemporánea": approved with observation 1005 (MT A004).
pub const TRANSMISSION_ON_TIME: Duration = Duration::hours(72);
/// `dFeEmiDE` may be at most this much earlier than the transmission (MT D002: 720 h).
pub const EMISSION_MAX_BEFORE: Duration = Duration::hours(720);
/// `dFeEmiDE` may be at most this much later than the transmission (MT D002: 120 h).
pub const EMISSION_MAX_AFTER: Duration = Duration::hours(120);
/// The window to transmit a document issued in contingency (`iTipEmi` 2). **Unknown**: the MT lists
/// contingency as "Futuro" and rejects it with 1050 "not allowed in this stage" (SIFEN.md §3.4 B002); no
/// transmission deadline for it is published, so none is assumed.
pub const CONTINGENCY_WINDOW: Option<Duration> = None;

/// The cancellation window of a document type.
pub fn cancel_window(tipo_documento: u8) -> Duration {
    if tipo_documento == 1 {
        CANCEL_WINDOW_FE
    } else {
        CANCEL_WINDOW_OTHERS
    }
}

/// Whether a cancellation sent at `now` is still inside the window that opened at `aprobado` (SIFEN's approval
/// time of the DTE). `SIFEN_CANCEL_WINDOW_EXPIRED` otherwise, or when `now` precedes the approval.
pub fn check_cancel_window(
    tipo_documento: u8,
    aprobado: PrimitiveDateTime,
    now: PrimitiveDateTime,
) -> Result<(), Finding> {
    let window = cancel_window(tipo_documento);
    if now < aprobado {
        return Err(rule::sifen_cancel_before_approval("aprobado"));
    }
    if now - aprobado > window {
        let (hours, elapsed) = (window.whole_hours(), (now - aprobado).whole_hours());
        return Err(rule::sifen_cancel_window(
            "aprobado",
            tipo_documento,
            hours,
            elapsed,
        ));
    }
    Ok(())
}

/// What the transmission windows say about sending a document now.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WindowCheck {
    /// SIFEN will reject the document (`SIFEN_OUT_OF_WINDOW`).
    pub errors: Vec<Finding>,
    /// SIFEN will approve with an observation, or the rule is not published.
    pub warnings: Vec<Finding>,
}

/// Checks the windows of a DE about to be sent at `now`: signing not in the future (1004), emission date within
/// 720 h before / 120 h after (D002), transmission within 72 h of signing (later ⇒ approved with observation
/// 1005), and for contingency (`tipo_emision` 2) a warning that its window is not published.
pub fn check_transmission(
    fecha_firma: PrimitiveDateTime,
    fecha_emision: PrimitiveDateTime,
    tipo_emision: u8,
    now: PrimitiveDateTime,
) -> WindowCheck {
    let mut c = WindowCheck::default();
    if fecha_firma > now {
        c.errors.push(rule::sifen_signed_in_future("fecha_firma"));
    } else if now - fecha_firma > TRANSMISSION_ON_TIME {
        c.warnings.push(rule::sifen_late("fecha_firma"));
    }
    if now - fecha_emision > EMISSION_MAX_BEFORE {
        c.errors.push(rule::sifen_emission_too_old("fecha_emision"));
    }
    if fecha_emision - now > EMISSION_MAX_AFTER {
        c.errors.push(rule::sifen_emission_too_far("fecha_emision"));
    }
    if tipo_emision == 2 && CONTINGENCY_WINDOW.is_none() {
        c.warnings.push(rule::sifen_contingency("tipo_emision"));
    }
    c
}
