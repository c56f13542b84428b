"""The typed calls of kuatia.Service drive the shared flow of tests/fixtures/service_flow.json (every binding replays
it and compares with the same values): create, list with a filter and a cursor, get, xml, webhook
get/rotate/deliveries/redeliver/delete, and a bad filter answered by the core; then its `email` part: the buyer's
messages captured in-process, a resend, and the month's archive."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

import kuatia

from cases import ROOT

FLOW = json.loads((ROOT / "tests" / "fixtures" / "service_flow.json").read_text(encoding="utf-8"))


def test_shared_service_flow() -> None:
    now = FLOW["now"]
    with kuatia.Signer.sandbox() as signer, kuatia.Service(sandbox_signer=signer) as svc:
        key = svc.create_account("Empresa de prueba", now=now)["key"]
        h = {"Authorization": f"Bearer {key}", "X-Environment": "sandbox"}
        hook = svc.create_webhook(h, FLOW["webhook"]["url"], FLOW["webhook"]["events"], now=now)
        assert hook["secret"].startswith(FLOW["rotate"]["secret_prefix"])
        created = [
            svc.create_invoice(h, {**FLOW["factura"], "_simulate": s}, idempotency_key=f"flow-{i}", now=now)
            for i, s in enumerate(FLOW["simulate"])
        ]
        assert [c["status"] for c in created] == FLOW["simulate"]

        # List with a filter, walking the cursor page by page.
        lst = FLOW["list"]
        pages, more, cursor = [], [], None
        while True:
            page = svc.list_invoices(h, **lst["filters"], starting_after=cursor, now=now)
            pages.append([f["numero"] for f in page.data])
            more.append(page.has_more)
            if not page.has_more:
                break
            cursor = page.next_cursor
        assert (pages, more) == (lst["pages"], lst["has_more"])

        inv = svc.get_invoice(h, created[0]["id"], now=now)
        want = FLOW["invoice"]
        assert (inv["status"], inv["numero"], inv["total"], inv["moneda"]) == (
            want["status"],
            want["numero"],
            want["total"],
            want["moneda"],
        )
        assert inv["receptor"]["ruc"] == want["receptor_ruc"] and len(inv["items"]) == want["items"]
        assert inv["cdc"] == created[0]["cdc"]

        xml = svc.invoice_xml(h, inv["id"], now=now).decode()
        assert all(part in xml for part in FLOW["xml"]["contains"]) and inv["cdc"] in xml
        r = svc.handle("GET", f"/v1/facturas/{inv['id']}/xml", h, now=now)
        assert r.header("content-type").startswith(FLOW["xml"]["content_type"])

        # Webhooks: the approved invoices' deliveries, a rotation, a redelivery, then the deletion.
        assert svc.get_webhook(h, hook["id"], now=now)["url"] == FLOW["webhook"]["url"]
        log = svc.deliveries(h, hook["id"], now=now)
        assert len(log.data) == FLOW["deliveries"]["count"]
        assert {d["type"] for d in log.data} == {FLOW["deliveries"]["type"]}
        rotated = svc.rotate_webhook(h, hook["id"], now=now)
        assert rotated["secret"].startswith(FLOW["rotate"]["secret_prefix"]) and rotated["secret"] != hook["secret"]
        assert rotated["previous_secret_expires_at"] is not None
        first = log.data[-1]
        again = svc.redeliver(h, hook["id"], first["id"], now=now)
        assert again["status"] == FLOW["redeliver"]["status"]
        assert again["event_id"] == first["event_id"] and again["id"] != first["id"]
        assert svc.delete_webhook(h, hook["id"], now=now) == {"id": hook["id"], "deleted": True}

        # Errors are the core's: a bad filter value, a deleted webhook.
        bad = FLOW["bad_filter"]
        with pytest.raises(kuatia.ApiError) as info:
            svc.list_invoices(h, **bad["filters"], now=now)
        assert (info.value.status, info.value.code) == (bad["status"], bad["code"])
        gone = FLOW["deleted_get"]
        with pytest.raises(kuatia.ApiError) as info:
            svc.get_webhook(h, hook["id"], now=now)
        assert (info.value.status, info.value.code) == (gone["status"], gone["code"])


def test_shared_email_flow() -> None:
    mail = FLOW["email"]
    now = FLOW["now"]
    with kuatia.Signer.sandbox() as signer, kuatia.Service(sandbox_signer=signer) as svc:
        key = svc.create_account("Empresa de prueba", now=now)["key"]
        h = {"Authorization": f"Bearer {key}", "X-Environment": "sandbox"}
        factura = {**FLOW["factura"], "receptor": {**FLOW["factura"]["receptor"], "email": mail["to"]}}
        inv = svc.create_invoice(h, factura, now=now)
        assert svc.invoice_emails(h, inv["id"], now=now) == []

        # The simulated SIFEN approves it; the approval captures the buyer's message (nothing sends in-process).
        later = now + mail["tick_after"]
        svc.tick(now=later)
        assert svc.get_invoice(h, inv["id"], now=later)["status"] == mail["status"]
        messages = svc.invoice_emails(h, inv["id"], now=later)
        keys = ("kind", "status", "to", "attempts")
        assert [{k: m[k] for k in keys} for m in messages] == mail["messages"]
        assert all(part in messages[0]["subject"] for part in mail["subject_contains"])
        assert inv["cdc"] in messages[0]["body"]

        later += 1
        again = svc.resend_email(h, inv["id"], mail["resend_to"], now=later)
        assert {k: again[k] for k in keys} == mail["resend"]
        bad = mail["resend_bad"]
        with pytest.raises(kuatia.ApiError) as info:
            svc.resend_email(h, inv["id"], bad["to"], now=later)
        assert (info.value.status, info.value.code) == (bad["status"], bad["code"])
        after = svc.invoice_emails(h, inv["id"], now=later)
        assert [m["id"] for m in after] == [messages[0]["id"], again["id"]]
        email = svc.get_invoice(h, inv["id"], now=later)["email"]
        assert {k: email[k] for k in ("status", "to")} == mail["invoice_email"]

        archive = mail["archive"]
        zipped = svc.month_archive(h, archive["mes"], now=later)
        assert zipped.startswith(archive["magic"].encode("latin-1"))
        names = zipfile.ZipFile(io.BytesIO(zipped)).namelist()
        assert names == [m.replace("{cdc}", inv["cdc"]) for m in archive["members"]]
        r = svc.handle("GET", f"/v1/archivo?mes={archive['mes']}", h, now=later)
        assert r.header("content-type") == archive["content_type"]
