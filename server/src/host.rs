//! [`SystemHost`]: the core's [`Host`] on a real machine: the system clock, the OS CSPRNG and the signers.

use kuatia_core::api::auth::Environment;
use kuatia_core::api::Host;
use kuatia_core::sign::{Signer, SoftwareSigner};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use time::OffsetDateTime;

/// System clock, `getrandom`, and the signers: one for the sandbox, the server-wide production one (`--p12`), and
/// per-account production ones (`kuatia accounts set-p12`), which take precedence for their account.
pub struct SystemHost {
    sandbox: Option<SoftwareSigner>,
    /// Shared with the SIFEN client, which signs the TLS handshake with it.
    production: Option<Arc<SoftwareSigner>>,
    /// Production signers of single accounts.
    per_account: std::collections::HashMap<String, Arc<SoftwareSigner>>,
    /// Secret seed drawn from the OS at start, for the fallback generator below.
    seed: [u8; 32],
    counter: u64,
}

impl std::fmt::Debug for SystemHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print key material or the seed.
        f.debug_struct("SystemHost")
            .field("sandbox_signer", &self.sandbox.is_some())
            .field("production_signer", &self.production.is_some())
            .field("account_signers", &self.per_account.len())
            .finish_non_exhaustive()
    }
}

impl SystemHost {
    /// A host with these signers; fails only when the OS random generator is unavailable.
    pub fn new(
        sandbox: Option<SoftwareSigner>,
        production: Option<Arc<SoftwareSigner>>,
    ) -> Result<SystemHost, String> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| format!("OS random generator: {e}"))?;
        Ok(SystemHost {
            sandbox,
            production,
            per_account: std::collections::HashMap::new(),
            seed,
            counter: 0,
        })
    }

    /// Signs `account_id`'s production documents and events with `signer` instead of the server-wide one.
    pub fn set_account_signer(&mut self, account_id: &str, signer: Arc<SoftwareSigner>) {
        self.per_account.insert(account_id.to_string(), signer);
    }

    /// The accounts' own production signers (for the SIFEN clients, which authenticate as each account).
    pub fn account_signers(&self) -> std::collections::HashMap<String, Arc<dyn Signer>> {
        self.per_account
            .iter()
            .map(|(id, s)| (id.clone(), s.clone() as Arc<dyn Signer>))
            .collect()
    }
}

impl Host for SystemHost {
    fn now(&mut self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }

    fn random_u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        if getrandom::fill(&mut b).is_ok() {
            return u32::from_le_bytes(b);
        }
        // The OS generator worked at start (see `new`); should it fail later, SHA-256(seed ‖ counter) keeps ids and
        // keys unpredictable instead of panicking or falling back to the clock.
        self.counter = self.counter.wrapping_add(1);
        let mut h = Sha256::new();
        h.update(self.seed);
        h.update(self.counter.to_le_bytes());
        let d = h.finalize();
        let mut out = [0u8; 4];
        for (o, v) in out.iter_mut().zip(d.iter()) {
            *o = *v;
        }
        u32::from_le_bytes(out)
    }

    fn signer(&self, account_id: &str, env: Environment) -> Option<&dyn Signer> {
        match env {
            Environment::Sandbox => self.sandbox.as_ref().map(|s| s as &dyn Signer),
            Environment::Production => self
                .per_account
                .get(account_id)
                .or(self.production.as_ref())
                .map(|s| s.as_ref() as &dyn Signer),
        }
    }
}
