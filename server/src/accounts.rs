//! Accounts and API keys of a data directory, for `kuatia accounts …` and `kuatia keys …`: thin calls into the
//! core's [`Service`](kuatia_service::Service) (which owns every rule: profiles, certificates, key revocation) in
//! one SQLite transaction each. A running server sees the result at its next request: it reads keys and accounts
//! from SQLite per request and keeps no cache of them.
//!
//! Production certificates: the P12 is stored in the database as given (PKCS#12 is itself encrypted under its
//! password) with the *name* of the environment variable holding the password; `kuatia serve` reads that variable
//! at start and signs the account's documents and events with it. The password is never stored.

use crate::{open_engine, Engine, ServerConfig};
use kuatia_core::profile::Emisor;
use kuatia_core::sign::{CertificateInfo, SoftwareSigner};
use kuatia_core::Finding;
use kuatia_service::auth::{Environment, StoredKey};
use kuatia_service::{Account, Store};
use std::path::PathBuf;
use std::sync::Arc;
use zeroize::Zeroizing;

/// The engine of a data directory (or of the database `KUATIA_DATABASE_URL` names), for administration commands.
pub(crate) fn engine(data_dir: PathBuf) -> Result<Engine, String> {
    let mut config = ServerConfig::new(data_dir);
    // The same database `kuatia serve --database` uses, when the operator keeps it in the environment.
    if let Some(url) = std::env::var(crate::DATABASE_ENV)
        .ok()
        .filter(|u| !u.is_empty())
    {
        config.database = Some(crate::pg::PgOptions {
            url,
            statement_timeout: None,
            node_id: format!("admin/{}", std::process::id()),
            ca_file: std::env::var_os("KUATIA_DATABASE_CA").map(Into::into),
        });
    }
    open_engine(&config, "http://127.0.0.1")
}

/// An account by id, or the error naming it.
fn known(engine: &Engine, account_id: &str) -> Result<Account, String> {
    engine
        .service
        .store
        .account(account_id)
        .ok_or_else(|| format!("no account '{account_id}' in this data directory"))
}

/// `kuatia accounts create NAME`: a new account with the built-in sandbox profile and its first sandbox key (shown
/// once).
pub fn create_account(data_dir: PathBuf, name: &str) -> Result<(Account, String), String> {
    let mut engine = engine(data_dir)?;
    // The data directory's default account exists first, so `kuatia serve` keeps its meaning of "the" account.
    engine.ensure_account()?;
    engine
        .transact(|svc, host| svc.create_account(name, host))
        .map_err(String::from)
}

/// `kuatia accounts list`: every account, oldest first.
pub fn list_accounts(data_dir: PathBuf) -> Result<Vec<Account>, String> {
    let engine = engine(data_dir)?;
    let all = engine.service.store.accounts();
    match engine.service.store.take_error() {
        Some(e) => Err(e.into()),
        None => Ok(all),
    }
}

/// `kuatia accounts panel-login ACCOUNT`: a one-time sign-in link to the panel of the account with this id or this
/// exact name (a name shared by several accounts must be given as the id). Returns the account id and the link.
pub fn panel_login(
    data_dir: PathBuf,
    account: &str,
    base_url: &str,
) -> Result<(String, String), String> {
    // The database of KUATIA_DATABASE_URL when set, as the other administration commands.
    let mut engine = engine(data_dir)?;
    engine.service.config.base_url = base_url.to_string();
    let id = match engine.service.store.account(account) {
        Some(a) => a.id,
        None => {
            let named: Vec<Account> = engine
                .service
                .store
                .accounts()
                .into_iter()
                .filter(|a| a.name == account)
                .collect();
            match named.as_slice() {
                [one] => one.id.clone(),
                [] => return Err(format!("no account '{account}' in this data directory")),
                _ => {
                    return Err(format!(
                        "several accounts are named '{account}': give its id"
                    ))
                }
            }
        }
    };
    let link = engine
        .transact(|svc, host| kuatia_panel::login_link(svc, &id, host))?
        .ok_or_else(|| "the account vanished".to_string())?;
    Ok((id, link))
}

/// `kuatia keys create [--live] [--account A]`: a new key of an account (default: the data directory's account).
pub fn create_key(
    data_dir: PathBuf,
    env: Environment,
    account: Option<&str>,
) -> Result<String, String> {
    let mut engine = engine(data_dir)?;
    let account = match account {
        Some(a) => known(&engine, a)?.id,
        None => engine.ensure_account()?.0,
    };
    engine
        .transact(|svc, host| svc.create_key(&account, env, host))?
        .ok_or_else(|| "the account vanished".to_string())
}

/// `kuatia keys list --account A`: the account's keys (hashes only; callers show the prefix and dates).
pub fn list_keys(data_dir: PathBuf, account_id: &str) -> Result<Vec<StoredKey>, String> {
    let engine = engine(data_dir)?;
    Ok(known(&engine, account_id)?.keys)
}

/// `kuatia keys revoke KEY_ID`: the owning account and the revoked key, `None` for an unknown key.
pub fn revoke_key(data_dir: PathBuf, key_id: &str) -> Result<Option<(String, StoredKey)>, String> {
    let mut engine = engine(data_dir)?;
    engine
        .transact(|svc, host| svc.revoke_key(key_id, host))
        .map_err(String::from)
}

/// `kuatia accounts set-profile`: the production profile, if the core accepts it (else its findings).
pub fn set_profile(
    data_dir: PathBuf,
    account_id: &str,
    emisor: Emisor,
) -> Result<Result<(), Vec<Finding>>, String> {
    let mut engine = engine(data_dir)?;
    known(&engine, account_id)?;
    engine
        .transact(|svc, host| svc.set_production_profile(account_id, emisor, host))
        .map_err(String::from)
}

/// `kuatia accounts set-p12`: opens the P12 with the password in `password_env`, checks it with the core's
/// certificate rules against the account's production profile and stores it (see the module docs).
pub fn set_p12(
    data_dir: PathBuf,
    account_id: &str,
    p12: &[u8],
    password_env: &str,
) -> Result<Result<CertificateInfo, Vec<Finding>>, String> {
    let mut engine = engine(data_dir)?;
    known(&engine, account_id)?;
    let signer = open_p12(p12, password_env)?;
    let checked =
        engine
            .service
            .check_production_certificate(account_id, &signer, &mut engine.host);
    let info = match checked {
        Ok(i) => i,
        Err(f) => return Ok(Err(f)),
    };
    let not_after = info
        .not_after
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    engine.transact(|svc, _| {
        svc.store
            .put_certificate(account_id, p12, password_env, &info.subject, &not_after)
    })?;
    Ok(Ok(info))
}

fn open_p12(p12: &[u8], password_env: &str) -> Result<SoftwareSigner, String> {
    let password = Zeroizing::new(
        std::env::var(password_env)
            .map_err(|_| format!("environment variable {password_env} is not set"))?,
    );
    SoftwareSigner::from_pkcs12(p12, &password).map_err(|e| format!("P12: {e}"))
}

/// At start: each account's stored P12, opened with the password from its environment variable. A missing
/// variable or a P12 that no longer opens stops the start (better than live keys failing one by one).
pub fn load_account_signers(engine: &mut Engine) -> Result<(), String> {
    let marker = engine.service.store.meta(crate::backend::CERTIFICATES_META);
    engine.set_certificates_seen(marker);
    let certificates = engine.service.store.certificates();
    if let Some(e) = engine.service.store.take_error() {
        return Err(e.into());
    }
    for (account, p12, password_env) in certificates {
        let opened = if password_env.starts_with(crate::panel::SEALED_PREFIX) {
            // Uploaded through the panel: the password is sealed under the data directory's key.
            let key = engine.host.seal_key().ok_or_else(|| {
                "no panel.key to open a certificate uploaded through the panel".to_string()
            });
            key.and_then(|k| crate::panel::unseal(k, &account, &password_env))
                .and_then(|pw| {
                    SoftwareSigner::from_pkcs12(&p12, &pw).map_err(|e| format!("P12: {e}"))
                })
        } else {
            open_p12(&p12, &password_env)
        };
        let signer =
            opened.map_err(|e| format!("production certificate of account {account}: {e}"))?;
        engine.host.set_account_signer(&account, Arc::new(signer));
    }
    Ok(())
}
