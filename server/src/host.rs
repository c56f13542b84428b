//! [`SystemHost`]: the core's [`Host`] on a real machine: the system clock, the OS CSPRNG and the signers.

use kuatia_core::sign::{Signer, SoftwareSigner};
use kuatia_service::auth::Environment;
use kuatia_service::Host;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use time::OffsetDateTime;

/// The time a host reads: the system clock, or any other source (a test's clock that jumps).
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> OffsetDateTime + Send + Sync>);

impl Clock {
    /// The system clock (UTC).
    pub fn system() -> Clock {
        Clock(Arc::new(OffsetDateTime::now_utc))
    }

    /// A clock reading `f`.
    pub fn from_fn(f: impl Fn() -> OffsetDateTime + Send + Sync + 'static) -> Clock {
        Clock(Arc::new(f))
    }

    /// The current time.
    pub fn now(&self) -> OffsetDateTime {
        (self.0)()
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::system()
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Clock")
    }
}

/// Size of [`SystemHost`]'s pool of OS random bytes.
const POOL: usize = 256;

/// System clock, `getrandom`, and the signers: one for the sandbox, the server-wide production one (`--p12`), and
/// per-account production ones (`kuatia accounts set-p12`), which take precedence for their account.
pub struct SystemHost {
    sandbox: Option<Arc<SoftwareSigner>>,
    /// Shared with the SIFEN client, which signs the TLS handshake with it.
    production: Option<Arc<SoftwareSigner>>,
    /// Production signers of single accounts.
    per_account: std::collections::HashMap<String, Arc<SoftwareSigner>>,
    /// Secret seed drawn from the OS at start, for the fallback generator below.
    seed: zeroize::Zeroizing<[u8; 32]>,
    counter: u64,
    /// OS random bytes drawn ahead: one `getrandom` call per [`POOL`] bytes instead of one per draw (an id takes six
    /// to eight draws, a create several ids). Each byte is zeroed once handed out, and the pool is wiped on drop
    /// (API keys are drawn from it).
    pool: zeroize::Zeroizing<[u8; POOL]>,
    /// Bytes of `pool` already handed out; at [`POOL`] it is refilled.
    pool_used: usize,
    clock: Clock,
    /// Key sealing the passwords of P12s uploaded through the panel (`None`: uploads are refused).
    seal_key: Option<zeroize::Zeroizing<[u8; 32]>>,
    /// Certificates installed during the current request, for [`crate::panel::persist`].
    installed: Vec<crate::panel::Installed>,
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
        let seed = zeroize::Zeroizing::new(seed);
        Ok(SystemHost {
            sandbox: sandbox.map(Arc::new),
            production,
            per_account: std::collections::HashMap::new(),
            seed,
            counter: 0,
            pool: zeroize::Zeroizing::new([0; POOL]),
            pool_used: POOL,
            clock: Clock::system(),
            seal_key: None,
            installed: Vec::new(),
        })
    }

    /// The same host reading `clock` instead of the system clock.
    pub fn with_clock(mut self, clock: Clock) -> SystemHost {
        self.clock = clock;
        self
    }

    /// Signs `account_id`'s production documents and events with `signer` instead of the server-wide one.
    pub fn set_account_signer(&mut self, account_id: &str, signer: Arc<SoftwareSigner>) {
        self.per_account.insert(account_id.to_string(), signer);
    }

    /// Lets the panel's P12 uploads be kept, their passwords sealed under `key` ([`crate::panel`]).
    pub fn set_seal_key(&mut self, key: zeroize::Zeroizing<[u8; 32]>) {
        self.seal_key = Some(key);
    }

    /// The seal key, if any.
    pub fn seal_key(&self) -> Option<&[u8; 32]> {
        self.seal_key.as_deref()
    }

    /// The certificates installed since the last call.
    pub fn take_installed(&mut self) -> Vec<crate::panel::Installed> {
        std::mem::take(&mut self.installed)
    }

    /// The signer of an account's environment ([`Host::signer`]) as a shared handle, for signing outside the engine's
    /// lock ([`kuatia_service::CreateJob::sign`]).
    pub fn shared_signer(&self, account_id: &str, env: Environment) -> Option<Arc<dyn Signer>> {
        self.chosen(account_id, env)
            .map(|s| s.clone() as Arc<dyn Signer>)
    }

    /// Which signer signs an account's environment: the sandbox one, or the account's own production signer before
    /// the server-wide one.
    fn chosen(&self, account_id: &str, env: Environment) -> Option<&Arc<SoftwareSigner>> {
        match env {
            Environment::Sandbox => self.sandbox.as_ref(),
            Environment::Production => self
                .per_account
                .get(account_id)
                .or(self.production.as_ref()),
        }
    }

    /// An account's own production signer (for the SIFEN client, which authenticates as the account).
    pub fn account_signer(&self, account_id: &str) -> Option<Arc<dyn Signer>> {
        self.per_account
            .get(account_id)
            .map(|s| s.clone() as Arc<dyn Signer>)
    }
}

impl Host for SystemHost {
    fn now(&mut self) -> OffsetDateTime {
        self.clock.now()
    }

    fn random_u32(&mut self) -> u32 {
        if self.pool_used + 4 > POOL && getrandom::fill(&mut self.pool[..]).is_ok() {
            self.pool_used = 0;
        }
        if let Some(drawn) = self.pool.get_mut(self.pool_used..self.pool_used + 4) {
            let mut b = [0u8; 4];
            b.copy_from_slice(drawn);
            drawn.fill(0);
            self.pool_used += 4;
            return u32::from_le_bytes(b);
        }
        // The OS generator worked at start (see `new`); should it fail later, SHA-256(seed ‖ counter) keeps ids and
        // keys unpredictable instead of panicking or falling back to the clock.
        self.counter = self.counter.wrapping_add(1);
        let mut h = Sha256::new();
        h.update(*self.seed);
        h.update(self.counter.to_le_bytes());
        let d = h.finalize();
        let mut out = [0u8; 4];
        for (o, v) in out.iter_mut().zip(d.iter()) {
            *o = *v;
        }
        u32::from_le_bytes(out)
    }

    fn install_certificate(
        &mut self,
        account_id: &str,
        p12: &[u8],
        password: &str,
    ) -> Result<(), String> {
        let Some(key) = self.seal_key.as_deref() else {
            return Err("este servidor no guarda certificados subidos por el panel".into());
        };
        let sealed = crate::panel::seal(key, account_id, password)?;
        let signer = SoftwareSigner::from_pkcs12(p12, password).map_err(|e| e.to_string())?;
        let info = signer.certificate_info().map_err(|e| e.to_string())?;
        self.installed.push(crate::panel::Installed {
            account_id: account_id.to_string(),
            p12: p12.to_vec(),
            sealed,
            subject: info.subject,
            not_after: info
                .not_after
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default(),
        });
        self.per_account
            .insert(account_id.to_string(), Arc::new(signer));
        Ok(())
    }

    fn check_smtp_settings(
        &mut self,
        account_id: &str,
        env: Environment,
        from: &str,
        url: &str,
        password: Option<&str>,
    ) -> Result<Option<String>, kuatia_core::Finding> {
        // One reading of SMTP settings: `--smtp-url`'s and `--smtp-from`'s.
        crate::email::SmtpSettings::parse(url, from, None).map_err(crate::email::refusal)?;
        let Some(password) = password else {
            return Ok(None);
        };
        let Some(key) = self.seal_key.as_deref() else {
            return Err(kuatia_core::rule::host_smtp_no_seal_key("password"));
        };
        crate::panel::seal(key, &crate::panel::smtp_context(account_id, env), password)
            .map(Some)
            .map_err(|e| kuatia_core::rule::host_smtp_seal("password", &e))
    }

    fn signer(&self, account_id: &str, env: Environment) -> Option<&dyn Signer> {
        self.chosen(account_id, env)
            .map(|s| s.as_ref() as &dyn Signer)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{SystemHost, POOL};
    use kuatia_service::Host;

    /// Draws cross several refills of the pool, are not repeated, and leave no handed-out byte behind.
    #[test]
    fn random_draws_come_from_a_wiped_pool() {
        let mut host = SystemHost::new(None, None).unwrap();
        let draws: Vec<u32> = (0..POOL).map(|_| host.random_u32()).collect();
        let distinct: std::collections::BTreeSet<_> = draws.iter().collect();
        assert_eq!(distinct.len(), draws.len());
        assert!(host.pool_used > 0);
        assert!(host.pool[..host.pool_used].iter().all(|b| *b == 0));
    }
}
