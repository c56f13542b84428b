"""kuatia.Service: the in-process /v1 API driven like an HTTP client (spec flow, 401, webhooks, errors)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading

import pytest

import kuatia

from cases import ROOT

NOW = 1_741_612_260  # 2025-03-10 13:11:00 UTC = 10:11 in Asunción

FACTURA = {
    "tipo_documento": 1,
    "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
    "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
    "condicion_pago": 1,
}


def sandbox_headers(key: str) -> dict:
    return {"Authorization": f"Bearer {key}", "X-Environment": "sandbox"}


def test_spec_flow_simulate_approved_get_and_kude() -> None:
    with kuatia.Signer.sandbox() as signer, kuatia.Service(
        {"base_url": "https://erp.example.test"}, sandbox_signer=signer
    ) as svc:
        acct = svc.create_account("Empresa de prueba", now=NOW)
        assert acct["account_id"].startswith("acct_") and acct["key"].startswith("dk_test_")
        h = sandbox_headers(acct["key"])
        r = svc.handle("POST", "/v1/facturas", h, {**FACTURA, "_simulate": "approved"}, now=NOW)
        assert r.status == 201, r.body
        assert r.header("content-type") == "application/json; charset=utf-8"
        data = r.json()["data"]
        assert data["status"] == "approved"
        assert data["numero"] == "001-001-0000001"
        assert data["kude_url"] == f"https://erp.example.test/v1/facturas/{data['id']}/kude"
        # The CDC is valid for the library's own parser (check digit) and carries the sandbox emitter.
        assert kuatia.cdc_parse(data["cdc"])["ruc"] == "44444401-7"

        g = svc.handle("GET", f"/v1/facturas/{data['id']}", h, now=NOW + 1)
        assert g.status == 200
        assert g.json()["data"]["cdc"] == data["cdc"]

        k = svc.handle("GET", f"/v1/facturas/{data['id']}/kude", h, now=NOW + 2)
        assert k.status == 200
        assert k.header("Content-Type") == "application/pdf"
        assert k.body.startswith(b"%PDF-") and b"%%EOF" in k.body[-64:]


def test_401_without_or_with_an_unknown_key() -> None:
    with kuatia.Service() as svc:
        svc.create_account("A", now=NOW)
        r = svc.handle("GET", "/v1/facturas", now=NOW)
        assert r.status == 401
        assert r.json()["error"]["code"] == "UNAUTHORIZED"
        assert r.header("www-authenticate") == "Bearer"
        other = kuatia.Service()
        foreign = other.create_account("B", now=NOW)["key"]
        other.close()
        assert svc.handle("GET", "/v1/facturas", sandbox_headers(foreign), now=NOW).status == 401


def test_sandbox_advances_with_the_given_clock() -> None:
    with kuatia.Service({"sandbox_send_after": 10, "sandbox_answer_after": 20}) as svc:
        h = sandbox_headers(svc.create_account("A", now=NOW)["key"])
        fid = svc.handle("POST", "/v1/facturas", h, json.dumps(FACTURA), now=NOW).json()["data"]["id"]
        status = lambda t: svc.handle("GET", f"/v1/facturas/{fid}", h, now=t).json()["data"]["status"]  # noqa: E731
        assert status(NOW + 9) == "pending"
        assert status(NOW + 10) == "sent"
        svc.tick(now=NOW + 20)
        assert status(NOW + 20) == "approved"


def test_webhooks_due_signed_and_reported() -> None:
    with kuatia.Service() as svc:
        h = sandbox_headers(svc.create_account("A", now=NOW)["key"])
        w = svc.handle("POST", "/v1/webhooks", h, {"url": "https://erp.example.test/h", "events": ["factura.approved"]},
                       now=NOW)
        assert w.status == 201
        secret = w.json()["data"]["secret"]
        assert svc.handle("POST", "/v1/facturas", h, {**FACTURA, "_simulate": "approved"}, now=NOW).status == 201
        (d,) = svc.due_deliveries(now=NOW)
        assert json.loads(d["body"])["type"] == "factura.approved"
        sig = dict(d["headers"])["Kuatia-Signature"]
        # Recomputed with Python's own HMAC: t=<timestamp>,v1=hex(HMAC-SHA256(secret, "t.body")).
        expected = hmac.new(secret.encode(), f"{NOW}.{d['body']}".encode(), hashlib.sha256).hexdigest()
        assert sig == f"t={NOW},v1={expected}"
        again = svc.report_delivery(d["id"], False)
        assert again["status"] == "pending" and again["next_attempt_at"] == NOW + 60
        assert svc.due_deliveries(now=NOW + 59) == []
        assert svc.report_delivery(d["id"], True)["status"] == "delivered"
        with pytest.raises(kuatia.InvalidInputError) as info:
            svc.report_delivery("dlv_nope", True)
        assert info.value.code == "NOT_FOUND"


def test_keys_errors_and_life_cycle() -> None:
    svc = kuatia.Service()
    acct = svc.create_account("A", now=NOW)
    assert svc.create_key(acct["account_id"], live=True).startswith("dk_live_")
    assert svc.create_key(acct["account_id"]).startswith("dk_test_")
    with pytest.raises(kuatia.InvalidInputError) as info:
        svc.create_key("acct_nobody")
    assert (info.value.code, info.value.path) == ("NOT_FOUND", "account_id")
    with pytest.raises(kuatia.InvalidInputError) as info:
        kuatia.Service({"colour": "red"})
    assert info.value.path == "config.colour"
    with pytest.raises(TypeError):
        kuatia.Service(sandbox_signer="not a signer")  # type: ignore[arg-type]
    svc.close()
    svc.close()
    assert svc.closed
    with pytest.raises(ValueError):
        svc.create_account("B")


def test_one_service_many_threads() -> None:
    with kuatia.Service() as svc:
        h = sandbox_headers(svc.create_account("A", now=NOW)["key"])
        numbers: list = []
        lock = threading.Lock()

        def work() -> None:
            for _ in range(3):
                r = svc.handle("POST", "/v1/facturas", h, {**FACTURA, "_simulate": "approved"}, now=NOW)
                with lock:
                    numbers.append(r.json()["data"]["numero"])

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(numbers) == [f"001-001-{n:07d}" for n in range(1, 13)]


# --- production invoices through the host: due_sifen / report_sifen ------------------------------------------------

SAMPLES = ROOT / "core" / "tests" / "sifen_samples"
SAMPLE_CDC = "01444444017001001000000122025031011234567890"


def live_service(signer: kuatia.Signer) -> tuple:
    """A service whose account issues live invoices with the built-in sandbox profile (SIFEN's test environment),
    signed by the sandbox test certificate as the production one; returns (service, live headers)."""
    svc = kuatia.Service({"sifen_retry": [1]}, production_signer=signer)
    acct = svc.create_account("Emisor", now=NOW)
    live = svc.create_key(acct["account_id"], live=True, now=NOW)
    svc.set_production_profile(acct["account_id"])
    return svc, {"Authorization": f"Bearer {live}"}


def test_sifen_approval_round_trip() -> None:
    with kuatia.Signer.sandbox() as signer:
        svc, h = live_service(signer)
        with svc:
            created = svc.handle("POST", "/v1/facturas", h, FACTURA, now=NOW)
            assert created.status == 201, created.body
            fid, cdc = created.json()["data"]["id"], created.json()["data"]["cdc"]
            assert created.json()["data"]["status"] == "pending"

            (job,) = svc.due_sifen(10, now=NOW)
            assert job["service"] == "recibe"
            assert job["url"] == "https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl"
            assert job["invoices"] == [fid]
            assert f'<DE Id="{cdc}"' in job["body"]
            assert svc.due_sifen(10, now=NOW) == []  # in flight

            answer = (SAMPLES / "recibe_aprobado.xml").read_bytes().replace(SAMPLE_CDC.encode(), cdc.encode())
            (progress,) = svc.report_sifen(job, kuatia.SifenOutcome.answer(200, answer), now=NOW + 1)
            assert progress["invoice_id"] == fid
            assert progress["status"] == "approved"
            assert progress["transmission"]["next"] == "idle"
            inv = svc.handle("GET", f"/v1/facturas/{fid}", h, now=NOW + 2).json()["data"]
            assert inv["status"] == "approved" and inv["protocolo"] == "1234567890"


def test_sifen_timeout_is_queried_by_cdc_after_the_backoff() -> None:
    with kuatia.Signer.sandbox() as signer:
        svc, h = live_service(signer)
        with svc:
            data = svc.handle("POST", "/v1/facturas", h, FACTURA, now=NOW).json()["data"]
            (job,) = svc.due_sifen(10, now=NOW)
            (p,) = svc.report_sifen(json.dumps(job), kuatia.SifenOutcome.timeout(), now=NOW)
            assert p["status"] == "pending"
            assert p["transmission"]["next"] == "query" and p["transmission"]["due_at"] == NOW + 1
            assert svc.due_sifen(10, now=NOW) == []
            (query,) = svc.due_sifen(10, now=NOW + 1)
            assert query["service"] == "consulta" and data["cdc"] in query["body"]
            # Raw bytes that are not UTF-8 travel as they are; a transport failure keeps its message.
            (p,) = svc.report_sifen(query, kuatia.SifenOutcome.answer(502, b"<html>\xff</html>"), now=NOW + 1)
            assert p["transmission"]["last_error"].startswith("HTTP 502")
            (query,) = svc.due_sifen(10, now=NOW + 2)
            (p,) = svc.report_sifen(query, kuatia.SifenOutcome.failed("connection refused"), now=NOW + 2)
            assert p["transmission"]["last_error"] == "transport: connection refused"
            assert p["transmission"]["attempts"] == 3


def test_sifen_argument_errors() -> None:
    with kuatia.Service() as svc:
        acct = svc.create_account("A", now=NOW)
        with pytest.raises(kuatia.InvalidInputError) as info:
            svc.set_production_profile("acct_nobody")
        assert info.value.code == "NOT_FOUND"
        with pytest.raises(kuatia.InvalidInputError) as info:
            svc.set_production_profile(acct["account_id"], {"ruc": 1})
        assert info.value.path.startswith("profile")
        with pytest.raises(kuatia.InvalidInputError) as info:
            svc.report_sifen("{", kuatia.SifenOutcome.timeout())
        assert info.value.code == "MALFORMED_JSON"
        job = {"account_id": "acct_x", "service": "recibe", "url": "https://x", "content_type": "application/xml",
               "body": "<x/>", "d_id": 1, "invoices": []}
        assert svc.report_sifen(job, kuatia.SifenOutcome.timeout()) == []
        with pytest.raises(kuatia.InvalidArgumentError) as info:
            svc.report_sifen(job, kuatia.SifenOutcome(7))
        assert info.value.path == "outcome"
        with pytest.raises(ValueError):
            kuatia.SifenOutcome.answer(70000, b"")
        with pytest.raises(TypeError):
            kuatia.SifenOutcome.answer(200, "text")  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            svc.report_sifen(job, "timeout")  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            svc.due_sifen(-1)



def test_an_idempotency_key_never_crosses_environments() -> None:
    """Issue 14 #5 through the binding: one Idempotency-Key sent first with a test key, then with a live key, is two
    invoices (one per environment), never the sandbox answer replayed to the production call."""
    with kuatia.Signer.sandbox() as signer, kuatia.Service(
        {}, sandbox_signer=signer, production_signer=signer
    ) as svc:
        acct = svc.create_account("Emisor", now=NOW)
        live = {"Authorization": "Bearer " + svc.create_key(acct["account_id"], live=True, now=NOW)}
        svc.set_production_profile(acct["account_id"])
        idem = {"Idempotency-Key": "order-7"}
        sandbox = svc.handle("POST", "/v1/facturas", {**sandbox_headers(acct["key"]), **idem}, FACTURA, now=NOW)
        assert sandbox.status == 201, sandbox.body
        prod = svc.handle("POST", "/v1/facturas", {**live, **idem}, FACTURA, now=NOW)
        assert prod.status == 201, prod.body
        assert prod.json()["data"]["id"] != sandbox.json()["data"]["id"]
        assert prod.header("Idempotent-Replayed") is None
        again = svc.handle("POST", "/v1/facturas", {**live, **idem}, FACTURA, now=NOW + 1)
        assert again.json()["data"]["id"] == prod.json()["data"]["id"]
        assert again.header("Idempotent-Replayed") == "true"
