//! Rules of numbering and issuing (core/src/numbering.rs, core/src/issue.rs): a sequence that ran out, a number
//! confirmed without its reservation, a production document without a certificate, a state
//! change the invoice's lifecycle does not allow. Catalogs:
//! `core/locales/<lang>/numbering.ftl`.

rules! {
    /// A sequence (`timbrado-establecimiento-punto-tipo`) reached its last number; a new stamp or series is needed.
    numbering_exhausted / NUMBERING_EXHAUSTED = "numbering.exhausted" => NUMBERING_EXHAUSTED { sequence: Text = "12345678-001-001-1", max: Int = "9999999" };
    /// A number is confirmed that is not an open reservation of its sequence (never reserved, or confirmed already).
    numbering_not_reserved / NUMBERING_NOT_RESERVED = "numbering.not_reserved" => NUMBER_NOT_RESERVED { numero: Int = "7", sequence: Text = "12345678-001-001-1" };
    /// A production document is issued without the emitter's certificate (the sandbox simulates the signature).
    cert_production_required / CERT_PRODUCTION_REQUIRED = "cert.production_required" => CERTIFICATE_MISSING {};
    /// A trigger that does not apply to the invoice's state ([`crate::lifecycle::transition`]): terms `estado_*` and
    /// `trigger_*`.
    sifen_transition / SIFEN_TRANSITION = "sifen.transition" => INVALID_TRANSITION { from: Term = "estado_rejected", trigger: Term = "trigger_approved" };
}
