//! Production invoices travel to SIFEN through `Service::due_sifen` / `report_sifen`, driven here against a fake
//! SIFEN that answers in SIFEN's format: synchronous approvals and rejections, lots (received, in processing,
//! finished, expired), the gateway's HTML page, SOAP faults, lost answers (query by CDC before any resend), dropped
//! requests, a host that crashes mid-call, and the back-off.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/fake_sifen.rs"]
mod fake_sifen;

use fake_sifen::{FakeSifen, Fault, Reply, Verdict, REJECT_MARKER};
#[path = "common/host.rs"]
mod host;

use host::TestHost;
use kuatia_core::profile::Emisor;
use kuatia_core::sifen;
use kuatia_service::auth::Environment;
use kuatia_service::transmit::{backoff, SifenJob, SifenMode, SifenOutcome, RETRY_SCHEDULE};
use kuatia_service::{Config, HttpRequest, MemoryStore, Service, Store};
use serde_json::{json, Value};

struct World {
    svc: Service<MemoryStore>,
    host: TestHost,
    sifen: FakeSifen,
    live: String,
    sandbox: String,
}

fn world(mode: SifenMode) -> World {
    let mut host = TestHost::new();
    let config = Config {
        base_url: "https://api.example.test".into(),
        sifen_mode: mode,
        ..Config::default()
    };
    let mut svc = Service::new(MemoryStore::default(), config);
    let (mut account, sandbox) = svc.create_account("Emisor", &mut host);
    // The production profile of this test is the sandbox emitter (its RUC matches the test certificate) in SIFEN's
    // test environment, so requests go to sifen-test.
    account.production = Some(Emisor::sandbox());
    svc.store.put_account(account.clone());
    let live = svc
        .create_key(&account.id, Environment::Production, &mut host)
        .unwrap();
    World {
        svc,
        host,
        sifen: FakeSifen::new(),
        live,
        sandbox,
    }
}

fn factura(receptor: &str) -> Value {
    json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": receptor},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
}

impl World {
    /// One request with the sandbox or the live key; the raw answer.
    fn send(
        &mut self,
        method: &str,
        path: &str,
        body: Option<Value>,
        sandbox: bool,
    ) -> kuatia_service::HttpResponse {
        let key = if sandbox { &self.sandbox } else { &self.live };
        let mut headers = vec![("Authorization".to_string(), format!("Bearer {key}"))];
        if sandbox {
            headers.push(("X-Environment".into(), "sandbox".into()));
        }
        let req = HttpRequest {
            method: method.into(),
            path: path.into(),
            headers,
            body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
        };
        self.svc.handle(&req, &mut self.host)
    }

    /// One request that must succeed; its JSON.
    fn call(&mut self, method: &str, path: &str, body: Option<Value>, sandbox: bool) -> Value {
        let r = self.send(method, path, body, sandbox);
        let v = r.json();
        assert!(r.status < 300, "{method} {path}: {} {v}", r.status);
        v
    }

    fn create(&mut self, receptor: &str) -> String {
        let v = self.call("POST", "/v1/facturas", Some(factura(receptor)), false);
        assert_eq!(v["data"]["status"], "pending");
        v["data"]["id"].as_str().unwrap().to_string()
    }

    fn get(&mut self, id: &str) -> Value {
        self.call("GET", &format!("/v1/facturas/{id}"), None, false)["data"].clone()
    }

    fn advance(&mut self, secs: i64) {
        self.host.now += time::Duration::seconds(secs);
    }

    fn due(&mut self) -> Vec<SifenJob> {
        self.svc.due_sifen(&mut self.host, 500)
    }

    /// Posts a job to the fake SIFEN as a host would and reports the outcome.
    fn run(&mut self, job: &SifenJob) {
        let outcome = match self.sifen.answer(&job.body) {
            Reply::Http { status, body, .. } => SifenOutcome::Answer {
                status,
                body: body.into_bytes(),
            },
            Reply::Silence => SifenOutcome::Timeout,
        };
        self.svc.report_sifen(job, &outcome, &mut self.host);
    }

    /// Runs every due job once; returns how many there were.
    fn pump(&mut self) -> usize {
        let jobs = self.due();
        for j in &jobs {
            self.run(j);
        }
        jobs.len()
    }

    fn deliveries(&self) -> Vec<String> {
        self.svc
            .due_deliveries(i64::MAX)
            .into_iter()
            .map(|d| d.body)
            .collect()
    }

    fn cdc(&mut self, id: &str) -> String {
        self.get(id)["cdc"].as_str().unwrap().to_string()
    }
}

/// The default wait after `n` failures.
fn wait(n: u32) -> i64 {
    backoff(&RETRY_SCHEDULE, n)
}

fn hook(w: &mut World) {
    let v = w.call(
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "https://erp.example.test/hook", "events": ["factura.approved", "factura.rejected"]})),
        false,
    );
    assert!(v["data"]["secret"].is_string());
}

#[test]
fn sync_approval_goes_to_sifen_test_and_fires_the_webhook() {
    let mut w = world(SifenMode::Sync);
    hook(&mut w);
    let id = w.create("Cliente S.A.");
    let jobs = w.due();
    assert_eq!(jobs.len(), 1);
    let job = &jobs[0];
    assert_eq!(job.service, sifen::Service::Recibe);
    assert_eq!(
        job.url,
        "https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl"
    );
    assert_eq!(job.content_type, sifen::CONTENT_TYPE);
    assert_eq!(job.invoices, vec![id.clone()]);
    assert!(job.body.starts_with("<?xml"));
    assert!(job.body.contains(&format!("<dId>{}</dId>", job.d_id)));
    // Handed out: nothing more is due while the call is in flight.
    assert!(w.due().is_empty());
    w.run(job);
    let inv = w.get(&id);
    assert_eq!(inv["status"], "approved");
    assert!(inv["protocolo"].as_str().unwrap().starts_with("1000000"));
    assert!(inv.get("transmission").is_none(), "{inv}");
    let events = w.deliveries();
    assert_eq!(events.len(), 1);
    assert!(events[0].contains("factura.approved") && events[0].contains(&id));
    assert!(w.due().is_empty());
    w.advance(86_400);
    assert!(
        w.due().is_empty(),
        "an approved invoice is never sent again"
    );
    // The KuDE is now available.
    let r = w.svc.handle(
        &HttpRequest {
            method: "GET".into(),
            path: format!("/v1/facturas/{id}/kude"),
            headers: vec![("Authorization".into(), format!("Bearer {}", w.live))],
            body: vec![],
        },
        &mut w.host,
    );
    assert_eq!(r.status, 200);
    assert!(r.body.starts_with(b"%PDF-"));
}

#[test]
fn sync_rejection_carries_sifens_code() {
    let mut w = world(SifenMode::Sync);
    hook(&mut w);
    let id = w.create(&format!("Cliente {REJECT_MARKER}"));
    assert_eq!(w.pump(), 1);
    let inv = w.get(&id);
    assert_eq!(inv["status"], "rejected");
    assert_eq!(inv["sifen_errors"][0]["code"], "1003");
    assert_eq!(inv["sifen_errors"][0]["message"], "DV del CDC inválido");
    let events = w.deliveries();
    assert_eq!(events.len(), 1);
    assert!(events[0].contains("factura.rejected"));
    w.advance(86_400);
    assert_eq!(w.pump(), 0);
}

#[test]
fn a_lost_answer_is_queried_by_cdc_never_resent() {
    let mut w = world(SifenMode::Sync);
    let id = w.create("Cliente S.A.");
    let cdc = w.cdc(&id);
    w.sifen.faults.push_back(Fault::LoseAnswer);
    assert_eq!(w.pump(), 1);
    // SIFEN approved it, we did not hear: still pending, an error on record, the next step a query after 30 s.
    let inv = w.get(&id);
    assert_eq!(inv["status"], "pending");
    assert_eq!(inv["transmission"]["attempts"], 1);
    assert!(inv["transmission"]["last_error"]
        .as_str()
        .unwrap()
        .contains("timeout"));
    assert_eq!(w.pump(), 0, "not before the back-off");
    w.advance(wait(1));
    let jobs = w.due();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].service, sifen::Service::Consulta);
    assert!(jobs[0].body.contains(&format!("<dCDC>{cdc}</dCDC>")));
    w.run(&jobs[0]);
    assert_eq!(w.get(&id)["status"], "approved");
    assert_eq!(w.sifen.received[&cdc], 1, "the document reached SIFEN once");
    assert_eq!(w.sifen.calls, ["recibe", "consulta"]);
}

#[test]
fn a_dropped_request_is_queried_then_sent_again() {
    let mut w = world(SifenMode::Sync);
    let id = w.create("Cliente S.A.");
    let cdc = w.cdc(&id);
    w.sifen.faults.push_back(Fault::Drop);
    w.pump();
    w.advance(wait(1));
    // consulta → 0420 (unknown) → sent again at once.
    assert_eq!(w.pump(), 1);
    assert_eq!(w.get(&id)["status"], "pending");
    assert_eq!(w.get(&id)["transmission"]["attempts"], 0);
    assert_eq!(w.pump(), 1);
    assert_eq!(w.get(&id)["status"], "approved");
    assert_eq!(w.sifen.calls, ["recibe", "consulta", "recibe"]);
    assert_eq!(w.sifen.received.get(&cdc), Some(&1));
}

#[test]
fn gateway_html_and_soap_faults_back_off_with_a_visible_error() {
    let mut w = world(SifenMode::Sync);
    let id = w.create("Cliente S.A.");
    w.sifen
        .faults
        .extend([Fault::Html, Fault::Soap, Fault::Html]);
    w.pump();
    let inv = w.get(&id);
    let err = inv["transmission"]["last_error"].as_str().unwrap();
    assert!(
        err.contains(sifen::code::UNEXPECTED_RESPONSE) && err.contains("HTML"),
        "{err}"
    );
    assert_eq!(inv["status"], "pending");
    w.advance(wait(1));
    w.pump();
    let inv = w.get(&id);
    assert_eq!(inv["transmission"]["attempts"], 2);
    assert!(inv["transmission"]["last_error"]
        .as_str()
        .unwrap()
        .contains(sifen::code::SOAP_FAULT));
    w.advance(wait(1));
    assert_eq!(w.pump(), 0, "the second failure waits {} s", wait(2));
    w.advance(wait(2) - wait(1));
    w.pump();
    w.advance(wait(3));
    // Now the fake works: consulta (0420) then recibe.
    w.pump();
    w.pump();
    assert_eq!(w.get(&id)["status"], "approved");
    assert_eq!(
        w.sifen.calls,
        ["recibe", "consulta", "consulta", "consulta", "recibe"]
    );
}

#[test]
fn a_host_that_crashes_mid_call_queries_after_the_lease() {
    let mut w = world(SifenMode::Sync);
    let id = w.create("Cliente S.A.");
    let cdc = w.cdc(&id);
    let jobs = w.due();
    // The host posts it (SIFEN processes it) and dies before reporting.
    let _ = w.sifen.answer(&jobs[0].body);
    let lease = w.svc.config.sifen_lease;
    w.advance(lease - 1);
    assert!(w.due().is_empty());
    w.advance(1);
    let jobs = w.due();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].service, sifen::Service::Consulta);
    w.run(&jobs[0]);
    assert_eq!(w.get(&id)["status"], "approved");
    assert_eq!(w.sifen.received[&cdc], 1);
}

#[test]
fn lots_of_one_type_are_received_then_queried() {
    let mut w = world(SifenMode::Lote);
    hook(&mut w);
    let ok1 = w.create("Cliente Uno");
    let bad = w.create(&format!("Cliente {REJECT_MARKER}"));
    let ok2 = w.create("Cliente Dos");
    let jobs = w.due();
    assert_eq!(jobs.len(), 1, "one lot for three FE");
    assert_eq!(jobs[0].service, sifen::Service::RecibeLote);
    assert_eq!(
        jobs[0].url,
        "https://sifen-test.set.gov.py/de/ws/async/recibe-lote.wsdl"
    );
    assert_eq!(jobs[0].invoices.len(), 3);
    w.run(&jobs[0]);
    for id in [&ok1, &bad, &ok2] {
        let inv = w.get(id);
        assert_eq!(inv["status"], "sent");
        assert!(inv["transmission"]["lote"]
            .as_str()
            .unwrap()
            .starts_with("1000"));
    }
    // The first query waits for the poll period (GMP: ≥ 10 min).
    let poll = w.svc.config.sifen_lot_poll_after;
    assert_eq!(poll, 600);
    w.advance(poll - 1);
    assert_eq!(w.pump(), 0);
    w.advance(1);
    let jobs = w.due();
    assert_eq!(jobs.len(), 1, "one consulta-lote for the whole lot");
    assert_eq!(jobs[0].service, sifen::Service::ConsultaLote);
    w.run(&jobs[0]); // 0361: in processing
    assert_eq!(w.get(&ok1)["status"], "sent");
    assert_eq!(w.get(&ok1)["transmission"]["attempts"], 0);
    w.advance(poll);
    assert_eq!(w.pump(), 1); // 0362
    assert_eq!(w.get(&ok1)["status"], "approved");
    assert_eq!(w.get(&ok2)["status"], "approved");
    assert_eq!(w.get(&bad)["status"], "rejected");
    assert_eq!(w.get(&bad)["sifen_errors"][0]["code"], "1003");
    let events = w.deliveries();
    assert_eq!(
        events
            .iter()
            .filter(|e| e.contains("factura.approved"))
            .count(),
        2
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| e.contains("factura.rejected"))
            .count(),
        1
    );
    assert_eq!(
        w.sifen.calls,
        ["recibe-lote", "consulta-lote", "consulta-lote"]
    );
}

#[test]
fn an_unknown_or_expired_lot_falls_back_to_each_cdc() {
    let mut w = world(SifenMode::Lote);
    let a = w.create("Cliente Uno");
    let b = w.create("Cliente Dos");
    w.pump();
    // SIFEN forgets the lot (0360, as after 48 h it answers 0364): each CDC is queried.
    w.sifen.lots.clear();
    w.advance(600);
    w.pump();
    let jobs = w.due();
    assert_eq!(jobs.len(), 2);
    assert!(jobs.iter().all(|j| j.service == sifen::Service::Consulta));
    for j in &jobs {
        w.run(j);
    }
    assert_eq!(w.get(&a)["status"], "approved");
    assert_eq!(w.get(&b)["status"], "approved");
}

#[test]
fn lots_hold_at_most_fifty_and_one_document_type() {
    let mut w = world(SifenMode::Lote);
    for _ in 0..52 {
        w.create("Cliente");
    }
    let mut nc = factura("Cliente");
    nc["tipo_documento"] = json!(5);
    nc["motivo"] = json!(2);
    nc.as_object_mut().unwrap().remove("condicion_pago");
    // A credit note needs its associated document: the first FE's CDC.
    let first = w.call("GET", "/v1/facturas?per_page=100", None, false)["data"][51]["cdc"].clone();
    nc["documentos_asociados"] = json!([{ "cdc": first }]);
    let v = w.call("POST", "/v1/facturas", Some(nc), false);
    assert_eq!(v["data"]["status"], "pending");
    let jobs = w.due();
    let sizes: Vec<usize> = jobs.iter().map(|j| j.invoices.len()).collect();
    assert_eq!(sizes.iter().sum::<usize>(), 53);
    assert!(sizes
        .iter()
        .all(|s| *s <= sifen::request::MAX_LOT_DOCUMENTS));
    assert_eq!(jobs.len(), 3, "{sizes:?}: 50 + 2 FE and 1 NCE");
    for j in &jobs {
        w.run(j);
    }
    assert_eq!(w.sifen.lots.len(), 3);
}

#[test]
fn sandbox_invoices_never_reach_sifen() {
    let mut w = world(SifenMode::Sync);
    let v = w.call("POST", "/v1/facturas", Some(factura("Cliente")), true);
    assert_eq!(v["data"]["status"], "pending");
    w.advance(3600);
    assert!(w.due().is_empty());
    assert!(w.sifen.calls.is_empty());
    assert_eq!(w.svc.store.sifen_due(i64::MAX, 100).len(), 0);
}

#[test]
fn backoff_grows_and_caps_without_giving_up() {
    let steps: Vec<i64> = (1..=9).map(|n| backoff(&RETRY_SCHEDULE, n)).collect();
    assert_eq!(steps, [30, 60, 120, 300, 600, 1800, 3600, 3600, 3600]);
    assert_eq!(backoff(&RETRY_SCHEDULE, u32::MAX), 3600);
    assert_eq!(backoff(&[], 1), 60);
    assert_eq!(backoff(&[5, 0], 9), 1, "never a zero wait");
    let mut w = world(SifenMode::Sync);
    let id = w.create("Cliente");
    for _ in 0..12 {
        w.sifen.faults.push_back(Fault::Html);
        assert_eq!(w.pump(), 1);
        w.advance(3600);
    }
    let inv = w.get(&id);
    assert_eq!(inv["status"], "pending");
    assert_eq!(inv["transmission"]["attempts"], 12);
    w.pump();
    w.pump();
    assert_eq!(w.get(&id)["status"], "approved");
    assert!(matches!(
        w.sifen.documents.values().next(),
        Some(Verdict::Approved(_))
    ));
}

fn cancel(w: &mut World, id: &str, motivo: &str, sandbox: bool) -> kuatia_service::HttpResponse {
    let path = format!("/v1/facturas/{id}/cancel");
    w.send("POST", &path, Some(json!({ "motivo": motivo })), sandbox)
}

#[test]
fn a_production_cancellation_is_a_signed_event_sent_to_sifen() {
    let mut w = world(SifenMode::Sync);
    let v = w.call(
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "https://erp.example.test/hook", "events": ["factura.cancelled"]})),
        false,
    );
    assert_eq!(v["data"]["events"], json!(["factura.cancelled"]));
    let id = w.create("Cliente S.A.");
    // Not approved yet: nothing to cancel.
    let r = cancel(&mut w, &id, "Error en el precio", false);
    assert_eq!(r.status, 409);
    assert_eq!(r.json()["error"]["code"], "NOT_CANCELLABLE");
    w.pump();
    assert_eq!(w.get(&id)["status"], "approved");
    let cdc = w.cdc(&id);

    // The motive follows SIFEN's rule (5 to 500 characters).
    let r = cancel(&mut w, &id, "mal", false);
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["error"]["details"][0]["path"], "motivo");

    w.advance(3600);
    let r = cancel(&mut w, &id, "Error en el precio", false);
    assert_eq!(r.status, 202, "{}", r.json());
    let inv = r.json()["data"].clone();
    assert_eq!(
        inv["status"], "approved",
        "approved until SIFEN registers the event"
    );
    assert_eq!(inv["cancellation"]["status"], "pending");
    let again = cancel(&mut w, &id, "Error en el precio", false);
    assert_eq!(again.json()["error"]["code"], "CANCELLATION_PENDING");

    // The event's answer is lost once: it is sent again, and SIFEN's 4003 ("already cancelled") completes it.
    w.sifen.faults.push_back(Fault::LoseAnswer);
    let jobs = w.due();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].service, sifen::Service::Evento);
    assert_eq!(
        jobs[0].url,
        "https://sifen-test.set.gov.py/de/ws/eventos/evento.wsdl"
    );
    assert!(jobs[0].body.contains("<rGeVeCan>") && jobs[0].body.contains(&cdc));
    assert!(jobs[0].body.contains("<mOtEve>Error en el precio</mOtEve>"));
    assert!(jobs[0].body.contains("<Signature"), "the event is signed");
    w.run(&jobs[0]);
    assert_eq!(w.get(&id)["status"], "approved");
    w.advance(wait(1));
    assert_eq!(w.pump(), 1);
    let inv = w.get(&id);
    assert_eq!(inv["status"], "cancelled", "{inv}");
    assert_eq!(inv["cancellation"]["status"], "approved");
    assert!(inv.get("transmission").is_none());
    assert_eq!(w.sifen.cancelled, [cdc]);
    assert_eq!(w.sifen.calls, ["recibe", "evento", "evento"]);
    let events = w.deliveries();
    assert_eq!(events.len(), 1);
    assert!(events[0].contains("factura.cancelled"));
    w.advance(86_400);
    assert_eq!(w.pump(), 0);
}

#[test]
fn a_refused_cancellation_leaves_the_invoice_approved_with_the_reason() {
    let mut w = world(SifenMode::Sync);
    let id = w.create("Cliente S.A.");
    w.pump();
    let cdc = w.cdc(&id);
    // SIFEN no longer holds it as approved (here: forgotten by the fake), so it answers 4002.
    w.sifen.documents.remove(&cdc);
    assert_eq!(cancel(&mut w, &id, "Operación anulada", false).status, 202);
    w.pump();
    let inv = w.get(&id);
    assert_eq!(inv["status"], "approved");
    assert_eq!(inv["cancellation"]["status"], "rejected");
    assert_eq!(inv["cancellation"]["error"]["code"], "4002");
    assert!(inv.get("transmission").is_none());
    assert_eq!(w.pump(), 0);
}

#[test]
fn the_cancellation_window_is_48_hours_for_a_factura() {
    let mut w = world(SifenMode::Sync);
    let id = w.create("Cliente S.A.");
    w.pump();
    w.advance(48 * 3600 + 1);
    let r = cancel(&mut w, &id, "Fuera de plazo", false);
    assert_eq!(r.status, 422);
    let e = r.json()["error"].clone();
    assert_eq!(e["details"][0]["code"], sifen::code::CANCEL_WINDOW_EXPIRED);
    assert!(e["message"].as_str().unwrap().contains("4009"), "{e}");
    assert!(w.sifen.calls.iter().all(|c| c != "evento"));
}

#[test]
fn a_sandbox_cancellation_is_immediate() {
    let mut w = world(SifenMode::Sync);
    let v = w.call(
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "https://erp.example.test/hook", "events": ["factura.cancelled"]})),
        true,
    );
    assert!(v["ok"].as_bool().unwrap());
    let mut body = factura("Cliente");
    body["_simulate"] = json!("approved");
    let id = w.call("POST", "/v1/facturas", Some(body), true)["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = cancel(&mut w, &id, "Pedido anulado por el cliente", true);
    assert_eq!(r.status, 200, "{}", r.json());
    assert_eq!(r.json()["data"]["status"], "cancelled");
    assert_eq!(r.json()["data"]["cancellation"]["status"], "approved");
    assert!(w.deliveries()[0].contains("factura.cancelled"));
    let r = cancel(&mut w, &id, "Pedido anulado por el cliente", true);
    assert_eq!(r.status, 409);
    // The other environment's key does not see it.
    let r = cancel(&mut w, &id, "Pedido anulado por el cliente", false);
    assert_eq!(r.status, 404);
    assert!(w.sifen.calls.is_empty());
}

#[test]
fn contingency_documents_are_tracked_and_sent_when_sifen_is_back() {
    let mut w = world(SifenMode::Sync);
    let mut body = factura("Cliente S.A.");
    body["tipo_emision"] = json!(2);
    let v = w.call("POST", "/v1/facturas", Some(body), false);
    let id = v["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(v["data"]["tipo_emision"], 2);
    // SIFEN unreachable for a while: the document waits, with the reason, and is never lost.
    for _ in 0..4 {
        w.sifen.faults.push_back(Fault::Drop);
    }
    for n in 1..=4 {
        assert_eq!(w.pump(), 1);
        w.advance(wait(n));
    }
    let inv = w.get(&id);
    assert_eq!(inv["status"], "pending");
    assert_eq!(inv["tipo_emision"], 2);
    assert_eq!(inv["transmission"]["attempts"], 4);
    // Back: consulta (unknown) → recibe → approved; the signed XML says iTipEmi 2.
    w.pump();
    let jobs = w.due();
    assert_eq!(jobs[0].service, sifen::Service::Recibe);
    assert!(jobs[0].body.contains("<iTipEmi>2</iTipEmi>"));
    w.run(&jobs[0]);
    assert_eq!(w.get(&id)["status"], "approved");
}

#[test]
fn a_lost_lot_answer_is_queried_only_after_a_lot_poll() {
    let mut w = world(SifenMode::Lote);
    let id = w.create("Cliente S.A.");
    w.sifen.faults.push_back(Fault::LoseAnswer);
    assert_eq!(w.pump(), 1);
    let poll = w.svc.config.sifen_lot_poll_after;
    // The lot may be in processing: no query (and no resend) before a lot poll has passed.
    w.advance(poll - 1);
    assert_eq!(w.pump(), 0);
    w.advance(1);
    // SIFEN processed the lot: the CDC is found approved without a second send.
    let jobs = w.due();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].service, sifen::Service::Consulta);
    w.run(&jobs[0]);
    assert_eq!(w.get(&id)["status"], "approved");
    assert_eq!(w.sifen.calls, ["recibe-lote", "consulta"]);
}
