//! Accounts and API keys: creation, revocation, the production profile and certificate, and the authentication of
//! a request's key.

use super::*;

/// What makes an emitter profile fit for an account's production environment, as findings (the preflight's
/// `production_profile` and `timbrado` checks, and what `kuatia accounts set-profile` refuses): `ambiente` must be
/// `produccion`, the RUC valid, and an active stamp must cover factura electrónica (1) at `now`.
pub fn production_profile_findings(
    emisor: &kuatia_core::profile::Emisor,
    now: PrimitiveDateTime,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if emisor.ambiente != kuatia_core::profile::Ambiente::Produccion {
        out.push(rule::api_profile_ambiente("ambiente"));
    }
    if let Err(e) = kuatia_core::ruc::Ruc::parse(&emisor.ruc) {
        out.push(e.to_finding("ruc"));
    }
    if emisor.timbrado_for(1, None, None, now.date()).is_none() {
        out.push(rule::api_profile_timbrado("timbrados"));
    }
    out
}

/// Who an operation runs for: an account in one environment (what a request's API key names, or what a host that
/// authenticated the user itself, such as the account panel, says).
#[derive(Debug, Clone, PartialEq)]
pub struct Principal {
    /// The account.
    pub account: Account,
    /// The environment its data lives in.
    pub env: Environment,
}

/// The authenticated caller of a request (the routes' name for a [`Principal`]).
pub(crate) type Caller = Principal;

impl<S: Store> Service<S> {
    /// The principal of an account in an environment, `None` for an unknown account (for typed operations called
    /// by a host that authenticated the user itself).
    pub fn principal(&self, account_id: &str, env: Environment) -> Option<Principal> {
        self.store
            .account(account_id)
            .map(|account| Principal { account, env })
    }

    /// Creates an account with the built-in sandbox profile and returns it with a new sandbox key (shown once).
    pub fn create_account(&mut self, name: &str, host: &mut dyn Host) -> (Account, String) {
        let id = random_id(host, "acct_", 16);
        let (key, mut stored) = auth::new_key(Environment::Sandbox, &mut || host.random_u32());
        let now = host.now().unix_timestamp();
        stored.created_at = now;
        let account = Account {
            created_at: now,
            id,
            name: name.to_string(),
            sandbox: kuatia_core::profile::Emisor::sandbox(),
            production: None,
            sandbox_completed: false,
            ruc_enabled: false,
            keys: vec![stored],
        };
        self.store.put_account(account.clone());
        (account, key)
    }

    /// Adds a key of `env` to an account; returns the key (shown once) or `None` for an unknown account.
    pub fn create_key(
        &mut self,
        account_id: &str,
        env: Environment,
        host: &mut dyn Host,
    ) -> Option<String> {
        let mut account = self.store.account(account_id)?;
        let (key, mut stored) = auth::new_key(env, &mut || host.random_u32());
        stored.created_at = host.now().unix_timestamp();
        account.keys.push(stored);
        self.store.put_account(account);
        Some(key)
    }

    /// Revokes a key by its public id (the 8 characters after `dk_test_`/`dk_live_`, or the whole prefix): from the
    /// next request on it authenticates nothing. Returns the owning account and the revoked key, `None` for an
    /// unknown id; revoking a revoked key keeps its first revocation time.
    pub fn revoke_key(
        &mut self,
        key_id: &str,
        host: &mut dyn Host,
    ) -> Option<(String, auth::StoredKey)> {
        let key_id = key_id
            .strip_prefix(auth::TEST_PREFIX)
            .or_else(|| key_id.strip_prefix(auth::LIVE_PREFIX))
            .unwrap_or(key_id);
        let (account_id, _) = self.store.find_key(key_id)?;
        let mut account = self.store.account(&account_id)?;
        let now = host.now().unix_timestamp();
        let key = account.keys.iter_mut().find(|k| k.key_id == key_id)?;
        key.revoked_at.get_or_insert(now);
        let revoked = key.clone();
        self.store.put_account(account);
        Some((account_id, revoked))
    }

    /// Stores an account's production emitter profile once it passes [`production_profile_findings`].
    pub fn set_production_profile(
        &mut self,
        account_id: &str,
        emisor: kuatia_core::profile::Emisor,
        host: &mut dyn Host,
    ) -> Result<(), Vec<Finding>> {
        let Some(mut account) = self.store.account(account_id) else {
            return Err(vec![rule::api_account_not_found("account")]);
        };
        let findings = production_profile_findings(&emisor, paraguay(host.now()));
        if !findings.is_empty() {
            return Err(findings);
        }
        account.production = Some(emisor);
        self.store.put_account(account);
        Ok(())
    }

    /// Checks a certificate for an account's production environment with the issuing pipeline's rules
    /// ([`kuatia_core::issue::check_signer`]: valid now, carrying the production profile's RUC); the profile comes first.
    pub fn check_production_certificate(
        &self,
        account_id: &str,
        signer: &dyn Signer,
        host: &mut dyn Host,
    ) -> Result<kuatia_core::sign::CertificateInfo, Vec<Finding>> {
        let Some(account) = self.store.account(account_id) else {
            return Err(vec![rule::api_account_not_found("account")]);
        };
        let Some(profile) = account.production.as_ref() else {
            return Err(vec![rule::api_profile_first("account")]);
        };
        kuatia_core::issue::check_signer(profile, signer, paraguay(host.now())).map_err(|f| f.0)?;
        signer
            .certificate_info()
            .map_err(|e| vec![e.to_finding("certificate")])
    }

    pub(crate) fn authenticate(&self, req: &HttpRequest) -> Result<Caller, HttpResponse> {
        let unauthorized = |f: Finding| {
            let mut r = refuse(401, f);
            r.headers.push(("WWW-Authenticate".into(), "Bearer".into()));
            r
        };
        let Some(value) = req.header("Authorization") else {
            return Err(unauthorized(rule::api_auth_missing("")));
        };
        // The scheme is case-insensitive (RFC 9110 §11.1): `bearer`, `BEARER` and `Bearer` are one.
        let key = value
            .trim()
            .split_once(' ')
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("Bearer"))
            .map(|(_, k)| k.trim());
        let Some(key) = key else {
            return Err(unauthorized(rule::api_auth_scheme("")));
        };
        let Some(parsed) = parse_key(key) else {
            return Err(unauthorized(rule::api_auth_malformed("")));
        };
        let found = self.store.find_key(parsed.key_id).filter(|(_, stored)| {
            stored.environment == parsed.environment && auth::key_matches(parsed.full, stored)
        });
        let Some((account_id, stored)) = found.filter(|(_, k)| k.revoked_at.is_none()) else {
            return Err(unauthorized(rule::api_auth_unknown("")));
        };
        let Some(account) = self.store.account(&account_id) else {
            return Err(unauthorized(rule::api_auth_unknown("")));
        };
        let sandbox_header = req.header("X-Environment");
        match (stored.environment, sandbox_header) {
            (Environment::Sandbox, Some(h)) if h.eq_ignore_ascii_case("sandbox") => {}
            (Environment::Sandbox, _) => {
                return Err(refuse(400, rule::api_auth_sandbox_header("")))
            }
            (Environment::Production, None) => {}
            (Environment::Production, Some(_)) => {
                return Err(refuse(400, rule::api_auth_live_key("")))
            }
        }
        Ok(Caller {
            account,
            env: stored.environment,
        })
    }
}
