//! The production checklist ([`Service::preflight`]).

use super::*;

/// One item of the production-readiness check (spec §1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Stable name of the prerequisite.
    pub name: String,
    /// Whether it is met.
    pub ok: bool,
    /// What to do when it is not.
    pub message: String,
}

impl<S: Store> Service<S> {
    /// Production readiness of an account (spec §1): what is missing before live traffic.
    pub fn preflight(&self, account_id: &str, host: &mut dyn Host) -> Vec<Check> {
        let mut out = Vec::new();
        let account = self.store.account(account_id);
        let check = |name: &str, ok: bool, message: &str| Check {
            name: name.into(),
            ok,
            message: message.into(),
        };
        let Some(account) = account else {
            return vec![check("account", false, "unknown account")];
        };
        out.push(check(
            "sandbox_completed",
            account.sandbox_completed,
            "complete one sandbox flow up to an approved invoice",
        ));
        let now = paraguay(host.now());
        let profile = account.production.as_ref();
        let findings = profile.map(|p| production_profile_findings(p, now));
        let passes = |paths: &[&str]| {
            findings
                .as_ref()
                .is_some_and(|fs| fs.iter().all(|f| !paths.contains(&f.path.as_str())))
        };
        out.push(check(
            "production_profile",
            passes(&["ambiente", "ruc"]),
            "load the production emitter profile (RUC, address, activities, stamps, CSC)",
        ));
        let cert_ok = match (profile, host.signer(account_id, Environment::Production)) {
            (Some(p), Some(s)) => kuatia_core::issue::check_signer(p, s, now).is_ok(),
            _ => false,
        };
        out.push(check(
            "certificate",
            cert_ok,
            "load a valid P12 certificate carrying the emitter's RUC",
        ));
        out.push(check(
            "timbrado",
            passes(&["timbrados"]),
            "an active stamp (timbrado) must cover factura electrónica (1)",
        ));
        out.push(check(
            "ruc_enabled",
            account.ruc_enabled,
            "the RUC must be enabled for the authority's API programme",
        ));
        let hooks = self.store.webhooks(account_id, Environment::Production);
        let covers = |k: EventKind| hooks.iter().any(|h| h.events.contains(&k));
        out.push(check(
            "webhooks",
            covers(EventKind::FacturaApproved) && covers(EventKind::FacturaRejected),
            "register a production webhook for factura.approved and factura.rejected",
        ));
        let live_key = account
            .keys
            .iter()
            .any(|k| k.environment == Environment::Production);
        out.push(check(
            "live_key",
            live_key,
            "create a dk_live_ key and keep it server-side (never in front-end code)",
        ));
        out
    }
}
