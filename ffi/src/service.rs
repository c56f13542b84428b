//! The in-process `/v1` service (`kuatia_service::Service` over a `MemoryStore`) behind an opaque handle.
//!
//! The host side of every call is explicit: the caller passes the current time (`now_unix`), a 32-byte seed from
//! its CSPRNG (from which this call's random ids and keys are drawn) and the signers of each environment. Nothing
//! here decides anything about invoices: requests and answers are converted, the core does the rest.

use crate::abi::{
    bytes_in, call, guard, json_arg, kuatia_bytes, kuatia_error, kuatia_status, opt_text_in, out,
    put, put_json, text_in, Error,
};
use crate::sign::kuatia_signer;
use ::kuatia_service::auth::Environment;
use ::kuatia_service::transmit::{SifenJob, SifenOutcome};
use ::kuatia_service::{Config, Host, MemoryStore, RequestHead, SeedRng, Service, Store};
use kuatia_core::rule;
use kuatia_core::sign::{Signer, SoftwareSigner};
use serde::Serialize;
use std::sync::{Mutex, MutexGuard};
use time::OffsetDateTime;

/// Length in bytes of the per-call random seed (`seed`, `seed_len` must be exactly this).
pub const KUATIA_SEED_LEN: usize = 32;

/// What came of a SIFEN job the host posted (the `outcome` of `kuatia_service_report_sifen`, passed as a
/// `uint32_t`). The numbers are part of the ABI.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum kuatia_sifen_outcome {
    /// SIFEN (or whatever stands in front of it) answered: `http_status` and the raw `body`.
    Answer = 0,
    /// No answer within the host's timeout: the request may or may not have been processed.
    Timeout = 1,
    /// The call failed before any answer (DNS, connection refused, TLS handshake): `message`.
    Failed = 2,
}

/// An in-process kuatia service: the `/v1` API (accounts, API keys, invoices, KuDE, webhooks, the sandbox's
/// simulated SIFEN) kept in memory, for an ERP that runs it without a server. Created by `kuatia_service_new`,
/// freed by `kuatia_service_free`.
///
/// The library has no clock and no randomness: the host passes, on each call that needs them, `now_unix` (the
/// current Unix time in seconds) and `seed`, `KUATIA_SEED_LEN` (32) fresh bytes from its CSPRNG (getrandom(2),
/// arc4random_buf, BCryptGenRandom). The call's ids, API keys and webhook secrets are drawn from the seed
/// (SHA-256 in counter mode), so a predictable or reused seed gives predictable or repeated keys. Signers are
/// borrowed per call (`kuatia_service_handle`), one per environment, so the service never outlives them.
///
/// Thread safety: the state lives behind a mutex inside the handle, so one service may be used by several
/// threads at once (calls are serialized). Free it once, after every call that uses it has returned.
#[allow(non_camel_case_types)]
pub struct kuatia_service {
    inner: Mutex<Service<MemoryStore>>,
}

impl kuatia_service {
    /// The locked service. A panic inside an earlier call (a bug, reported as `KUATIA_STATUS_PANIC`) poisons the
    /// mutex; the store only ever replaces whole records, so the state stays usable and later calls proceed.
    fn lock(&self) -> MutexGuard<'_, Service<MemoryStore>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The `Host` of one call: the caller's clock reading, its seed and its signers.
struct CallHost<'a> {
    now: OffsetDateTime,
    rng: SeedRng,
    sandbox: Option<&'a SoftwareSigner>,
    production: Option<&'a SoftwareSigner>,
}

impl Host for CallHost<'_> {
    fn now(&mut self) -> OffsetDateTime {
        self.now
    }
    fn random_u32(&mut self) -> u32 {
        self.rng.next_u32()
    }
    fn signer(&self, _account_id: &str, env: Environment) -> Option<&dyn Signer> {
        match env {
            Environment::Sandbox => self.sandbox.map(|s| s as &dyn Signer),
            Environment::Production => self.production.map(|s| s as &dyn Signer),
        }
    }
}

/// The checked host arguments of a call.
///
/// # Safety
/// `seed` is NULL or points to `seed_len` readable bytes; each signer is NULL or a live signer.
unsafe fn host<'a>(
    now_unix: i64,
    seed: *const u8,
    seed_len: usize,
    sandbox_signer: *const kuatia_signer,
    production_signer: *const kuatia_signer,
) -> Result<CallHost<'a>, Error> {
    let now = OffsetDateTime::from_unix_timestamp(now_unix).map_err(|e| {
        Error::from(rule::host_arg_unix_format(
            "now_unix",
            "now_unix",
            &now_unix.to_string(),
            &e.to_string(),
        ))
    })?;
    // SAFETY: forwarded contract.
    let bytes = unsafe { bytes_in(seed, seed_len, "seed") }?;
    let seed: [u8; KUATIA_SEED_LEN] = bytes.try_into().map_err(|_| {
        Error::of(
            kuatia_status::InvalidArgument,
            rule::host_arg_length("seed", "seed", KUATIA_SEED_LEN, seed_len),
        )
    })?;
    Ok(CallHost {
        now,
        rng: SeedRng::new(seed),
        // SAFETY: NULL or live, by contract.
        sandbox: unsafe { sandbox_signer.as_ref() }.map(|s| &s.inner),
        production: unsafe { production_signer.as_ref() }.map(|s| &s.inner),
    })
}

/// Borrows a live service handle.
///
/// # Safety
/// `svc` is NULL or a live service.
unsafe fn service<'a>(svc: *const kuatia_service) -> Result<&'a kuatia_service, Error> {
    // SAFETY: forwarded contract.
    unsafe { svc.as_ref() }.ok_or_else(|| Error::null("svc"))
}

/// Creates a service kept in memory. `config_json` (NULL: defaults) is
/// `{"base_url","sandbox_send_after","sandbox_answer_after","max_per_page"}`, every field optional: the absolute
/// URL clients use (for `kude_url`; default `http://127.0.0.1:8080`), the seconds after which the simulated SIFEN
/// receives (2) and answers (5) sandbox invoices created without `_simulate`, and the largest `per_page` (100).
/// Production invoices (see `kuatia_service_due_sifen`) also read `sifen_mode` (`"sync"` or `"lote"`),
/// `sifen_lot_poll_after` (600), `sifen_lease` (300) and `sifen_retry` (the back-off in seconds after the 1st, 2nd,
/// ... failure; the last repeats). Unknown fields are refused. Free the service with `kuatia_service_free`.
///
/// # Safety
/// `config_json` is NULL or points to `config_len` readable bytes; `out_service` is writable; `err` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_service_new(
    config_json: *const u8,
    config_len: usize,
    out_service: *mut *mut kuatia_service,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let text = unsafe { opt_text_in(config_json, config_len, "config_json") }?;
        let slot = unsafe { out(out_service, "out_service") }?;
        let config: Config = match text {
            Some(text) => json_arg(text, "config")?,
            None => Config::default(),
        };
        let svc = kuatia_service {
            inner: Mutex::new(Service::new(MemoryStore::default(), config)),
        };
        *slot = Box::into_raw(Box::new(svc));
        Ok(())
    })
}

/// Frees a service and everything it stores. Accepts NULL.
///
/// # Safety
/// `svc` is NULL or a service from kuatia, not yet freed and no longer in use by any thread.
#[no_mangle]
pub unsafe extern "C" fn kuatia_service_free(svc: *mut kuatia_service) {
    guard((), || {
        if !svc.is_null() {
            // SAFETY: created by Box::into_raw in kuatia_service_new, freed once by contract.
            drop(unsafe { Box::from_raw(svc) });
        }
    })
}

/// Creates an account (display name `name`) with the built-in sandbox profile and a sandbox API key, and writes
/// `{"account_id":"acct_…","key":"dk_test_…"}`. The key is shown only here: the service keeps its hash.
/// `now_unix` is the current Unix time; `seed` is `KUATIA_SEED_LEN` (32) fresh bytes from a CSPRNG
/// (getrandom(2), arc4random_buf, BCryptGenRandom), never reused: ids and keys are drawn from it.
///
/// # Safety
/// `svc` is a live service; `name` points to `name_len` readable bytes and `seed` to `seed_len`; `out_json` is
/// writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_service_create_account(
    svc: *const kuatia_service,
    name: *const u8,
    name_len: usize,
    now_unix: i64,
    seed: *const u8,
    seed_len: usize,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let svc = unsafe { service(svc) }?;
        let name = unsafe { text_in(name, name_len, "name") }?;
        let mut host =
            unsafe { host(now_unix, seed, seed_len, std::ptr::null(), std::ptr::null()) }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        #[derive(Serialize)]
        struct Created {
            account_id: String,
            key: String,
        }
        let (account, key) = svc.lock().create_account(name, &mut host);
        put_json(
            slot,
            &Created {
                account_id: account.id,
                key,
            },
        )
    })
}

/// Adds an API key to an account, `dk_live_…` when `live`, else `dk_test_…`, and writes it (shown only here).
/// Fails with `KUATIA_STATUS_INVALID_INPUT` and `NOT_FOUND` for an unknown account. `now_unix` and `seed` as for
/// `kuatia_service_create_account`.
///
/// # Safety
/// `svc` is a live service; `account_id` points to `account_id_len` readable bytes and `seed` to `seed_len`;
/// `out_key` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_service_create_key(
    svc: *const kuatia_service,
    account_id: *const u8,
    account_id_len: usize,
    live: bool,
    now_unix: i64,
    seed: *const u8,
    seed_len: usize,
    out_key: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let svc = unsafe { service(svc) }?;
        let account_id = unsafe { text_in(account_id, account_id_len, "account_id") }?;
        let mut host =
            unsafe { host(now_unix, seed, seed_len, std::ptr::null(), std::ptr::null()) }?;
        let slot = unsafe { out(out_key, "out_key") }?;
        let env = if live {
            Environment::Production
        } else {
            Environment::Sandbox
        };
        let key = svc
            .lock()
            .create_key(account_id, env, &mut host)
            .ok_or_else(|| Error::from(rule::api_account_not_found("account_id")))?;
        put(slot, key);
        Ok(())
    })
}

/// Handles one HTTP request of the `/v1` API (the routes, envelope and status codes of `service-api.md`).
///
/// Request: `request_json` is `{"method":"POST","path":"/v1/facturas?page=1","headers":[["Authorization",
/// "Bearer dk_test_…"],["X-Environment","sandbox"]]}` (`headers` optional, names case-insensitive, repeats kept)
/// and the body goes apart as raw bytes in `body`/`body_len` (NULL: empty).
///
/// Response: `out_head` gets `{"status":201,"headers":[["Content-Type","application/json; charset=utf-8"]]}`
/// and `out_body` the raw body: JSON text for every route but `GET /v1/facturas/{id}/kude`, whose body is the
/// PDF (binary, so it travels apart instead of inside JSON; use `len`, not the trailing NUL).
///
/// An HTTP error (401, 404, 422, ...) is still `KUATIA_STATUS_OK`: it is the answer to send. Call errors are for
/// bad arguments only. `now_unix` and `seed` as for `kuatia_service_create_account` (the sandbox's simulated SIFEN
/// is advanced to `now_unix` first). `sandbox_signer` signs invoices of sandbox keys (NULL: they are simulated
/// unsigned); `production_signer` signs those of live keys (NULL: live invoices are refused). The signers are
/// only borrowed during the call.
///
/// # Safety
/// `svc` is a live service; `request_json` points to `request_len` readable bytes, `body` is NULL or points to
/// `body_len`, `seed` to `seed_len`; each signer is NULL or a live signer; `out_head` and `out_body` are
/// writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_service_handle(
    svc: *const kuatia_service,
    request_json: *const u8,
    request_len: usize,
    body: *const u8,
    body_len: usize,
    now_unix: i64,
    seed: *const u8,
    seed_len: usize,
    sandbox_signer: *const kuatia_signer,
    production_signer: *const kuatia_signer,
    out_head: *mut kuatia_bytes,
    out_body: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let svc = unsafe { service(svc) }?;
        let request = unsafe { text_in(request_json, request_len, "request_json") }?;
        let body = if body.is_null() {
            &[][..]
        } else {
            unsafe { bytes_in(body, body_len, "body") }?
        };
        let mut host =
            unsafe { host(now_unix, seed, seed_len, sandbox_signer, production_signer) }?;
        let head_slot = unsafe { out(out_head, "out_head") }?;
        let body_slot = unsafe { out(out_body, "out_body") }?;
        let head: RequestHead = json_arg(request, "request")?;
        let req = head.with_body(body.to_vec());
        let resp = svc.lock().handle(&req, &mut host);
        #[derive(Serialize)]
        struct Head<'a> {
            status: u16,
            headers: &'a [(String, String)],
        }
        put_json(
            head_slot,
            &Head {
                status: resp.status,
                headers: &resp.headers,
            },
        )?;
        put(body_slot, resp.body);
        Ok(())
    })
}

/// Advances the sandbox's simulated SIFEN to `now_unix` (queueing the webhooks of each change) without a
/// request; `kuatia_service_handle` does the same first. Call it periodically when webhooks must flow while no
/// requests arrive. `seed` as for `kuatia_service_create_account`.
///
/// # Safety
/// `svc` is a live service; `seed` points to `seed_len` readable bytes; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_service_tick(
    svc: *const kuatia_service,
    now_unix: i64,
    seed: *const u8,
    seed_len: usize,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let svc = unsafe { service(svc) }?;
        let mut host =
            unsafe { host(now_unix, seed, seed_len, std::ptr::null(), std::ptr::null()) }?;
        svc.lock().tick(&mut host);
        Ok(())
    })
}

/// Writes the webhook deliveries due at `now_unix` as a JSON array: `[{"id":"dlv_…","url","body","headers":
/// [["Content-Type","application/json"],["Kuatia-Signature","t=…,v1=…"]],"event_id","webhook_id","account_id",
/// "environment","attempts","next_attempt_at","first_due_at","status"}]`. The host POSTs `body` with exactly
/// these `headers` to `url` and reports each outcome with `kuatia_service_report_delivery`.
///
/// # Safety
/// `svc` is a live service; `out_json` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_service_due_deliveries(
    svc: *const kuatia_service,
    now_unix: i64,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let svc = unsafe { service(svc) }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        let due = svc.lock().due_deliveries(now_unix);
        put_json(slot, &due)
    })
}

/// Records the outcome of one delivery attempt (`ok`: the receiver answered 2xx) and writes the delivery as
/// JSON: `status` `delivered`, or `pending` with the next retry's `next_attempt_at` on the backoff schedule, or
/// `failed` once the schedule is exhausted. Fails with `KUATIA_STATUS_INVALID_INPUT` and `NOT_FOUND` for an
/// unknown id.
///
/// # Safety
/// `svc` is a live service; `delivery_id` points to `delivery_id_len` readable bytes; `out_json` is writable;
/// `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_service_report_delivery(
    svc: *const kuatia_service,
    delivery_id: *const u8,
    delivery_id_len: usize,
    ok: bool,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let svc = unsafe { service(svc) }?;
        let id = unsafe { text_in(delivery_id, delivery_id_len, "delivery_id") }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        let d = svc
            .lock()
            .report_delivery(id, ok)
            .ok_or_else(|| Error::from(rule::webhook_delivery_not_found("delivery_id")))?;
        put_json(slot, &d)
    })
}

/// Sets the production profile of an account: the emitter profile (RUC, address, activities, stamps, CSC and
/// `ambiente`, the JSON of `kuatia_invoice_validate`'s `profile_json`) its `dk_live_` keys issue with, or, for NULL,
/// the built-in sandbox profile (TEST ONLY: SIFEN's test environment with a fictitious emitter, for trying the
/// production path against `sifen-test`). Host configuration, like `kuatia serve --production-profile`. Fails with
/// `KUATIA_STATUS_INVALID_INPUT` for a bad profile (paths under `profile`) and `NOT_FOUND` for an unknown account.
///
/// # Safety
/// `svc` is a live service; `account_id` points to `account_id_len` readable bytes; `profile_json` is NULL or
/// points to `profile_len`; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_service_set_production_profile(
    svc: *const kuatia_service,
    account_id: *const u8,
    account_id_len: usize,
    profile_json: *const u8,
    profile_len: usize,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let svc = unsafe { service(svc) }?;
        let account_id = unsafe { text_in(account_id, account_id_len, "account_id") }?;
        let profile = unsafe { crate::invoice::emisor(profile_json, profile_len) }?;
        let mut svc = svc.lock();
        let mut account = svc
            .store
            .account(account_id)
            .ok_or_else(|| Error::from(rule::api_account_not_found("account_id")))?;
        account.production = Some(profile);
        svc.store.put_account(account);
        Ok(())
    })
}

/// Writes the SIFEN calls due at `now_unix` for production invoices (at most `limit` invoices) as a JSON array:
/// `[{"account_id":"acct_…","service":"recibe","url":"https://sifen.set.gov.py/de/ws/sync/recibe.wsdl",
/// "content_type":"application/xml; charset=utf-8","body":"<?xml …","d_id":123,"invoices":["fact_…"]}]`
/// (`service`: `recibe`, `recibe-lote`, `consulta` or `consulta-lote`). The host POSTs each `body` with that
/// `Content-Type` to `url` over TLS 1.2 with the certificate of the account's emitter, then reports what came of
/// it with `kuatia_service_report_sifen`. A job handed out and never reported is not resent: after the lease its
/// invoices are queried by CDC. `seed` as for `kuatia_service_create_account` (the `dId`s are drawn from it).
///
/// # Safety
/// `svc` is a live service; `seed` points to `seed_len` readable bytes; `out_json` is writable; `err` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_service_due_sifen(
    svc: *const kuatia_service,
    now_unix: i64,
    seed: *const u8,
    seed_len: usize,
    limit: usize,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let svc = unsafe { service(svc) }?;
        let mut host =
            unsafe { host(now_unix, seed, seed_len, std::ptr::null(), std::ptr::null()) }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        let jobs = svc.lock().due_sifen(&mut host, limit);
        put_json(slot, &jobs)
    })
}

/// Reports what came of one job of `kuatia_service_due_sifen` and writes where each of its invoices stands:
/// `[{"invoice_id":"fact_…","status":"approved","transmission":{"next":"idle","due_at":0,"attempts":0}}]`
/// (`transmission.next` `send`, `query` or `query_lot` with `due_at`, `attempts` and `last_error` while something
/// is left to do). SIFEN's verdicts approve or reject the invoices (queueing their webhooks); anything else
/// schedules a query by CDC after the `sifen_retry` back-off.
///
/// `job_json` is the job exactly as `kuatia_service_due_sifen` wrote it. `outcome` is a `kuatia_sifen_outcome`:
/// `KUATIA_SIFEN_OUTCOME_ANSWER` with the HTTP `http_status` and the raw response `body` (bytes as received, not
/// JSON-escaped; NULL: empty), `KUATIA_SIFEN_OUTCOME_TIMEOUT`, or `KUATIA_SIFEN_OUTCOME_FAILED` with the
/// transport's `message` (UTF-8, not NULL). Arguments the outcome does not use are ignored; another `outcome` is
/// `KUATIA_STATUS_INVALID_ARGUMENT`. `now_unix` and `seed` as for `kuatia_service_create_account`.
///
/// # Safety
/// `svc` is a live service; `job_json` points to `job_len` readable bytes, `body` is NULL or points to `body_len`,
/// `message` is NULL or points to `message_len`, `seed` points to `seed_len`; `out_json` is writable; `err` is NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_service_report_sifen(
    svc: *const kuatia_service,
    job_json: *const u8,
    job_len: usize,
    outcome: u32,
    http_status: u16,
    body: *const u8,
    body_len: usize,
    message: *const u8,
    message_len: usize,
    now_unix: i64,
    seed: *const u8,
    seed_len: usize,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let svc = unsafe { service(svc) }?;
        let job = unsafe { text_in(job_json, job_len, "job_json") }?;
        let outcome = match outcome {
            o if o == kuatia_sifen_outcome::Answer as u32 => SifenOutcome::Answer {
                status: http_status,
                body: if body.is_null() {
                    Vec::new()
                } else {
                    unsafe { bytes_in(body, body_len, "body") }?.to_vec()
                },
            },
            o if o == kuatia_sifen_outcome::Timeout as u32 => SifenOutcome::Timeout,
            o if o == kuatia_sifen_outcome::Failed as u32 => SifenOutcome::Failed {
                message: unsafe { text_in(message, message_len, "message") }?.to_string(),
            },
            o => {
                return Err(Error::of(
                    kuatia_status::InvalidArgument,
                    rule::host_arg_enum(
                        "outcome",
                        "outcome",
                        &o.to_string(),
                        &["0 answer", "1 timeout", "2 failed"],
                    ),
                ))
            }
        };
        let mut host =
            unsafe { host(now_unix, seed, seed_len, std::ptr::null(), std::ptr::null()) }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        let job: SifenJob = json_arg(job, "job")?;
        let progress = svc.lock().report_sifen(&job, &outcome, &mut host);
        put_json(slot, &progress)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use sha2::{Digest, Sha256};

    #[test]
    fn seed_rng_is_sha256_in_counter_mode() {
        let seed = [7u8; 32];
        let mut rng = SeedRng::new(seed);
        let words: Vec<u32> = (0..10).map(|_| rng.next_u32()).collect();
        let block = |n: u64| -> [u8; 32] {
            let mut h = Sha256::new();
            h.update(seed);
            h.update(n.to_le_bytes());
            h.finalize().into()
        };
        let mut expected = block(0).to_vec();
        expected.extend(block(1));
        for (i, w) in words.iter().enumerate() {
            let b: [u8; 4] = expected[i * 4..i * 4 + 4].try_into().unwrap();
            assert_eq!(*w, u32::from_le_bytes(b));
        }
        assert_ne!(SeedRng::new([8u8; 32]).next_u32(), words[0]);
    }
}
