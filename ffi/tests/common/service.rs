//! Set-up of the `kuatia_service` tests: a service, accounts and keys, requests through `kuatia_service_handle`,
//! and the host's side of SIFEN transmission (live requests, the production profile, due jobs and their reports).

use super::*;
use kuatia::*;
use std::ptr::{null, null_mut};

/// 2025-03-10 13:11:00 UTC = 10:11 in Asunción.
pub const NOW_UNIX: i64 = 1_741_612_260;

pub fn new_service(config: Option<&str>) -> *mut kuatia_service {
    let mut svc = null_mut();
    let (p, n) = config.map_or((null(), 0), |c| (c.as_ptr(), c.len()));
    assert_eq!(
        unsafe { kuatia_service_new(p, n, &mut svc, null_mut()) },
        kuatia_status::Ok
    );
    assert!(!svc.is_null());
    svc
}

/// A distinct seed per call, as a host's CSPRNG would give (tests only need them distinct).
pub fn seed(n: u8) -> [u8; KUATIA_SEED_LEN] {
    let mut s = [0u8; KUATIA_SEED_LEN];
    s[0] = n;
    s[31] = 0xA5;
    s
}

pub fn create_account(svc: *mut kuatia_service, n: u8) -> (String, String) {
    let mut out = zero();
    let s = seed(n);
    let name = "Empresa de prueba";
    let st = unsafe {
        kuatia_service_create_account(
            svc,
            name.as_ptr(),
            name.len(),
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            &mut out,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let v: serde_json::Value = serde_json::from_str(&text(out)).unwrap();
    (
        v["account_id"].as_str().unwrap().to_string(),
        v["key"].as_str().unwrap().to_string(),
    )
}

/// A new key of `account` (live or sandbox; seed `n`): the key, or the failed call's status and error (nothing
/// written to the output then).
pub fn create_key(
    svc: *mut kuatia_service,
    account: &str,
    live: bool,
    n: u8,
) -> Result<String, (kuatia_status, *mut kuatia_error)> {
    let s = seed(n);
    let (mut out, mut err) = (zero(), null_mut());
    let st = unsafe {
        kuatia_service_create_key(
            svc,
            account.as_ptr(),
            account.len(),
            live,
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            &mut out,
            &mut err,
        )
    };
    if st == kuatia_status::Ok {
        return Ok(text(out));
    }
    assert!(out.ptr.is_null());
    Err((st, err))
}

pub struct Answer {
    pub status: u64,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[allow(clippy::too_many_arguments)]
pub fn handle(
    svc: *mut kuatia_service,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: Option<&serde_json::Value>,
    now: i64,
    n: u8,
    signer: *const kuatia_signer,
) -> Answer {
    let mut headers = vec![("X-Environment".to_string(), "sandbox".to_string())];
    if let Some(k) = key {
        headers.push(("Authorization".into(), format!("Bearer {k}")));
    }
    let req = serde_json::json!({"method": method, "path": path, "headers": headers}).to_string();
    call_handle(svc, &req, body, now, n, (signer, null()))
}

/// `kuatia_service_handle` of the request head `req` and `body` at `now` (seed `n`), with the sandbox and production
/// signers; the answer.
fn call_handle(
    svc: *mut kuatia_service,
    req: &str,
    body: Option<&serde_json::Value>,
    now: i64,
    n: u8,
    (sandbox_signer, production_signer): (*const kuatia_signer, *const kuatia_signer),
) -> Answer {
    let body = body.map(|b| b.to_string());
    let (bp, bn) = body.as_ref().map_or((null(), 0), |b| (b.as_ptr(), b.len()));
    let s = seed(n);
    let (mut head, mut out) = (zero(), zero());
    let st = unsafe {
        kuatia_service_handle(
            svc,
            req.as_ptr(),
            req.len(),
            bp,
            bn,
            now,
            s.as_ptr(),
            s.len(),
            sandbox_signer,
            production_signer,
            &mut head,
            &mut out,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let head: serde_json::Value = serde_json::from_str(&text(head)).unwrap();
    Answer {
        status: head["status"].as_u64().unwrap(),
        headers: serde_json::from_value(head["headers"].clone()).unwrap(),
        body: take(out),
    }
}

/// `kuatia_service_handle` of the raw request head `req` (no body, no signer) at [`NOW_UNIX`] with the seed `s`,
/// into `head` and `body` (either may be NULL): the status and the error.
pub fn handle_raw(
    svc: *mut kuatia_service,
    (req, req_len): (*const u8, usize),
    s: &[u8],
    head: *mut kuatia_bytes,
    body: *mut kuatia_bytes,
) -> (kuatia_status, *mut kuatia_error) {
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_handle(
            svc,
            req,
            req_len,
            null(),
            0,
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            null(),
            null(),
            head,
            body,
            &mut err,
        )
    };
    (st, err)
}

/// A GET with `key` at `now` (seed `n`, no signer).
pub fn get(svc: *mut kuatia_service, path: &str, key: Option<&str>, now: i64, n: u8) -> Answer {
    handle(svc, "GET", path, key, None, now, n, null())
}

/// A POST of `body` with `key` at [`NOW_UNIX`] (seed `n`), signed by `signer` (NULL: unsigned).
pub fn post(
    svc: *mut kuatia_service,
    path: &str,
    key: Option<&str>,
    body: &serde_json::Value,
    n: u8,
    signer: *const kuatia_signer,
) -> Answer {
    handle(svc, "POST", path, key, Some(body), NOW_UNIX, n, signer)
}

pub fn factura(simulate: &str) -> serde_json::Value {
    serde_json::json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1,
        "_simulate": simulate
    })
}

// --- SIFEN transmission through the host (kuatia_service_due_sifen / report_sifen) -----------------------------

/// A request of a live key (no `X-Environment`), signed by `signer` as the production signer.
pub fn handle_live(
    svc: *mut kuatia_service,
    method: &str,
    path: &str,
    key: &str,
    body: Option<&serde_json::Value>,
    now: i64,
    signer: *const kuatia_signer,
) -> Answer {
    let req = serde_json::json!({"method": method, "path": path,
        "headers": [["Authorization", format!("Bearer {key}")]]})
    .to_string();
    call_handle(svc, &req, body, now, 0x40, (null(), signer))
}

/// A live create of `body` at [`NOW_UNIX`], signed by `signer` as the production signer.
pub fn post_live(
    svc: *mut kuatia_service,
    live: &str,
    body: &serde_json::Value,
    signer: *const kuatia_signer,
) -> Answer {
    handle_live(
        svc,
        "POST",
        "/v1/facturas",
        live,
        Some(body),
        NOW_UNIX,
        signer,
    )
}

pub fn set_production_profile(
    svc: *mut kuatia_service,
    account: &str,
    profile: Option<&str>,
) -> Result<(), (kuatia_status, String, String)> {
    let (p, n) = profile.map_or((null(), 0), |p| (p.as_ptr(), p.len()));
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_set_production_profile(svc, account.as_ptr(), account.len(), p, n, &mut err)
    };
    if st == kuatia_status::Ok {
        assert!(err.is_null());
        Ok(())
    } else {
        let parts = err_parts(err);
        assert_eq!(parts.0, st);
        Err(parts)
    }
}

pub fn due_sifen(svc: *mut kuatia_service, now: i64, n: u8) -> Vec<serde_json::Value> {
    let s = seed(n);
    let mut out = zero();
    let st = unsafe {
        kuatia_service_due_sifen(svc, now, s.as_ptr(), s.len(), 50, &mut out, null_mut())
    };
    assert_eq!(st, kuatia_status::Ok);
    serde_json::from_str(&text(out)).unwrap()
}

/// An outcome as the C caller passes it: kind, HTTP status, body, message.
pub enum Outcome<'a> {
    Answer(u16, &'a [u8]),
    Timeout,
    Failed(&'a str),
    Raw(u32, u16, *const u8, usize, *const u8, usize),
}

pub fn report_sifen(
    svc: *mut kuatia_service,
    job: &str,
    outcome: Outcome,
    now: i64,
) -> Result<serde_json::Value, (kuatia_status, String, String)> {
    let (kind, status, bp, bn, mp, mn) = match outcome {
        Outcome::Answer(st, body) => (
            kuatia_sifen_outcome::Answer as u32,
            st,
            body.as_ptr(),
            body.len(),
            null(),
            0,
        ),
        Outcome::Timeout => (
            kuatia_sifen_outcome::Timeout as u32,
            0,
            null(),
            0,
            null(),
            0,
        ),
        Outcome::Failed(m) => (
            kuatia_sifen_outcome::Failed as u32,
            0,
            null(),
            0,
            m.as_ptr(),
            m.len(),
        ),
        Outcome::Raw(k, st, bp, bn, mp, mn) => (k, st, bp, bn, mp, mn),
    };
    let s = seed(0x50);
    let (mut out, mut err) = (zero(), null_mut());
    let st = unsafe {
        kuatia_service_report_sifen(
            svc,
            job.as_ptr(),
            job.len(),
            kind,
            status,
            bp,
            bn,
            mp,
            mn,
            now,
            s.as_ptr(),
            s.len(),
            &mut out,
            &mut err,
        )
    };
    if st == kuatia_status::Ok {
        Ok(serde_json::from_str(&text(out)).unwrap())
    } else {
        assert!(out.ptr.is_null(), "out written on failure");
        let parts = err_parts(err);
        assert_eq!(parts.0, st);
        Err(parts)
    }
}

/// SIFEN's synchronous approval (core/tests/sifen_samples/recibe_aprobado.xml) of `cdc`.
pub fn approval_of(cdc: &str) -> Vec<u8> {
    let sample =
        std::fs::read_to_string(root().join("core/tests/sifen_samples/recibe_aprobado.xml"))
            .unwrap();
    let sample_cdc = "01444444017001001000000122025031011234567890";
    assert!(sample.contains(sample_cdc));
    sample.replace(sample_cdc, cdc).into_bytes()
}

/// An account whose live key issues with the sandbox profile in SIFEN's test environment, like core's transmit
/// tests: returns (account id, live key).
pub fn production_account(svc: *mut kuatia_service) -> (String, String) {
    let (account, _) = create_account(svc, 0x30);
    let live = create_key(svc, &account, true, 0x31).unwrap();
    set_production_profile(svc, &account, None).unwrap();
    (account, live)
}

pub fn create_live(
    svc: *mut kuatia_service,
    live: &str,
    signer: *const kuatia_signer,
) -> (String, String) {
    let mut f = factura("approved");
    f.as_object_mut().unwrap().remove("_simulate");
    let r = post_live(svc, live, &f, signer);
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let d = r.json()["data"].clone();
    assert_eq!(d["status"], "pending");
    (
        d["id"].as_str().unwrap().to_string(),
        d["cdc"].as_str().unwrap().to_string(),
    )
}
