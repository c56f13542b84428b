//! Validated once (issue 30): every create runs validation, the stamp choice and the certificate check exactly once,
//! counted by the `probe` feature's per-thread counters, with a counting [`Signer`] (its `certificate_info` calls) as a
//! second witness. The service's create in three phases (`handle_step` → `CreateJob::sign` → `finish_create`) in the
//! sandbox and in production, the typed `Service::create_invoice`, `issue_pending`, and a create signed by another signer than the one it was checked
//! with (checked then, once).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/host.rs"]
mod host;

use kuatia_core::issue::{issue_pending, MemoryNumbering};
use kuatia_core::probe::{self, Counts};
use kuatia_core::profile::{Ambiente, Emisor};
use kuatia_core::sign::{sandbox_test_signer, CertificateInfo, SignError, Signer, SoftwareSigner};
use kuatia_service::auth::Environment;
use kuatia_service::{Config, Host, HttpRequest, MemoryStore, Service, Step, Store};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU32, Ordering};
use time::OffsetDateTime;

/// Each decision once.
const ONCE: Counts = Counts {
    validate: 1,
    stamp: 1,
    certificate: 1,
};

/// The sandbox TEST-ONLY signer, counting how often its certificate is read for a check.
struct Counting {
    inner: SoftwareSigner,
    checks: AtomicU32,
}

impl Counting {
    fn new() -> Counting {
        Counting {
            inner: sandbox_test_signer().unwrap(),
            checks: AtomicU32::new(0),
        }
    }
    fn take(&self) -> u32 {
        self.checks.swap(0, Ordering::SeqCst)
    }
}

impl Signer for Counting {
    fn certificate_der(&self) -> &[u8] {
        self.inner.certificate_der()
    }
    fn sign_rsa_sha256(&self, data: &[u8]) -> Result<Vec<u8>, SignError> {
        self.inner.sign_rsa_sha256(data)
    }
    fn certificate_info(&self) -> Result<CertificateInfo, SignError> {
        self.checks.fetch_add(1, Ordering::SeqCst);
        self.inner.certificate_info()
    }
}

/// The test host's clock and randomness with a counting signer (or none).
struct CountingHost {
    inner: host::TestHost,
    signer: Option<Counting>,
}

impl Host for CountingHost {
    fn now(&mut self) -> OffsetDateTime {
        self.inner.now()
    }
    fn random_u32(&mut self) -> u32 {
        self.inner.random_u32()
    }
    fn signer(&self, _account: &str, _env: Environment) -> Option<&dyn Signer> {
        self.signer.as_ref().map(|s| s as &dyn Signer)
    }
}

fn factura() -> Value {
    json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
}

/// A service with one account whose production profile is the sandbox certificate's RUC, its sandbox and live keys.
fn service(host: &mut CountingHost) -> (Service<MemoryStore>, String, String) {
    let mut svc = Service::new(MemoryStore::default(), Config::default());
    let (account, sandbox) = svc.create_account("Empresa", host);
    let live = svc
        .create_key(&account.id, Environment::Production, host)
        .unwrap();
    let mut profile = Emisor::sandbox();
    profile.ambiente = Ambiente::Produccion;
    let mut a = svc.store.account(&account.id).unwrap();
    a.production = Some(profile);
    svc.store.put_account(a);
    (svc, sandbox, live)
}

fn create(key: &str, sandbox: bool) -> HttpRequest {
    let mut headers = vec![("Authorization".into(), format!("Bearer {key}"))];
    if sandbox {
        headers.push(("X-Environment".into(), "sandbox".into()));
    }
    HttpRequest {
        method: "POST".into(),
        path: "/v1/facturas".into(),
        headers,
        body: factura().to_string().into_bytes(),
    }
}

/// A create in the service's three phases, as `kuatia serve` runs them (the signature on another thread there), each
/// phase with the signer the host gives at that moment. Returns the status.
fn three_phases(
    svc: &mut Service<MemoryStore>,
    host: &mut CountingHost,
    req: &HttpRequest,
    sign_with: Option<&Counting>,
) -> u16 {
    let Step::Sign(job) = svc.handle_step(req, host) else {
        panic!("a valid create waits for its signature");
    };
    let signed = job.sign(sign_with.map(|s| s as &dyn Signer));
    svc.finish_create(signed, host).status
}

#[test]
fn a_service_create_is_validated_once_in_the_sandbox_and_in_production() {
    let mut host = CountingHost {
        inner: host::TestHost::new(),
        signer: Some(Counting::new()),
    };
    let (mut svc, sandbox, live) = service(&mut host);
    for (key, is_sandbox) in [(&sandbox, true), (&live, false)] {
        let req = create(key, is_sandbox);
        probe::take();
        host.signer.as_ref().unwrap().take();
        let Step::Sign(job) = svc.handle_step(&req, &mut host) else {
            panic!("a valid create waits for its signature");
        };
        // The job moves to the signing thread as `kuatia serve` does; the signer comes from the host there.
        let signer = host.signer.take().unwrap();
        let (signed, signer, on_signing_thread) = std::thread::spawn(move || {
            let signed = job.sign(Some(&signer));
            (signed, signer, probe::take())
        })
        .join()
        .unwrap();
        // Signing decides nothing again.
        assert_eq!(on_signing_thread, Counts::default(), "sandbox {is_sandbox}");
        host.signer = Some(signer);
        let r = svc.finish_create(signed, &mut host);
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        assert_eq!(probe::take(), ONCE, "sandbox {is_sandbox}");
        assert_eq!(
            host.signer.as_ref().unwrap().take(),
            1,
            "sandbox {is_sandbox}"
        );
    }
}

#[test]
fn handle_runs_each_decision_once() {
    let mut host = CountingHost {
        inner: host::TestHost::new(),
        signer: Some(Counting::new()),
    };
    let (mut svc, sandbox, live) = service(&mut host);
    for (key, is_sandbox) in [(&sandbox, true), (&live, false)] {
        probe::take();
        let r = svc.handle(&create(key, is_sandbox), &mut host);
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        assert_eq!(probe::take(), ONCE, "sandbox {is_sandbox}");
        assert_eq!(host.signer.as_ref().unwrap().take(), 1);
    }
}

#[test]
fn a_typed_create_runs_each_decision_once() {
    let mut host = CountingHost {
        inner: host::TestHost::new(),
        signer: Some(Counting::new()),
    };
    let (mut svc, _, _) = service(&mut host);
    let account = svc.store.accounts().into_iter().next().unwrap().id;
    for env in [Environment::Sandbox, Environment::Production] {
        let principal = svc.principal(&account, env).unwrap();
        let request = kuatia_core::invoice::parse_request(&factura().to_string()).unwrap();
        probe::take();
        host.signer.as_ref().unwrap().take();
        let invoice = svc.create_invoice(&principal, request, &mut host).unwrap();
        assert!(invoice.document().is_some(), "{env:?}");
        assert_eq!(probe::take(), ONCE, "{env:?}");
        assert_eq!(host.signer.as_ref().unwrap().take(), 1, "{env:?}");
    }
}

#[test]
fn a_signer_that_changed_between_the_phases_is_checked_then_once() {
    // Checked without a signer (the sandbox simulates), signed with one: its certificate is checked at signing.
    let mut host = CountingHost {
        inner: host::TestHost::new(),
        signer: None,
    };
    let (mut svc, sandbox, live) = service(&mut host);
    let late = Counting::new();
    probe::take();
    assert_eq!(
        three_phases(&mut svc, &mut host, &create(&sandbox, true), Some(&late)),
        201
    );
    assert_eq!(probe::take(), ONCE);
    assert_eq!(late.take(), 1);
    // Checked with a signer, signed with none: production refuses (the number stays a listed gap).
    host.signer = Some(Counting::new());
    assert_eq!(
        three_phases(&mut svc, &mut host, &create(&live, false), None),
        422
    );
    assert_eq!(probe::take(), ONCE);
}

#[test]
fn issue_pending_runs_each_decision_once() {
    let signer = Counting::new();
    let emisor = Emisor::sandbox();
    let req = kuatia_core::invoice::parse_request(&factura().to_string()).unwrap();
    let now = time::macros::datetime!(2025-03-10 10:11:00);
    let mut numbering = MemoryNumbering::default();
    probe::take();
    let pending = issue_pending(
        &emisor,
        &req,
        Some(&signer),
        now,
        &mut kuatia_core::cdc::FixedSecurityCode(123_456_789),
        &mut numbering,
    )
    .unwrap();
    pending.confirm(&mut numbering).unwrap();
    assert_eq!(probe::take(), ONCE);
    assert_eq!(signer.take(), 1);
}
