"""The Python API itself: identifiers, QR, signing, KuDE, errors and the signer's life cycle."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import kuatia
from cases import ROOT, SANDBOX_CSC, CERTS, load

NOW = "2025-03-10T10:11:00"
SPEC = next(c for c in load() if c["name"] == "fe_spec_example")


def test_version_matches_the_header() -> None:
    header = (ROOT / "include" / "kuatia.h").read_text()
    assert f'#define KUATIA_VERSION "{kuatia.version()}"' in header


def test_status_numbers_match_the_header() -> None:
    header = (ROOT / "include" / "kuatia.h").read_text()
    declared = {m[0]: int(m[1]) for m in re.findall(r"(?m)^\s+KUATIA_STATUS_(\w+) = (\d+),", header)}
    assert declared == {s.name: s.value for s in kuatia.Status}


def test_ruc() -> None:
    assert kuatia.ruc_dv("80069563") == 1  # SIFEN.md §1
    assert kuatia.ruc_dv(b"44444401") == 7
    assert kuatia.ruc_check("80069563-1") is True
    assert kuatia.ruc_check("80069563-2") is False
    with pytest.raises(kuatia.InvalidInputError) as info:
        kuatia.ruc_dv("8006-563")
    assert info.value.code == "INVALID_RUC"
    # An empty string is an empty input (a valid pointer of length 0), not a missing argument.
    with pytest.raises(kuatia.InvalidInputError) as info:
        kuatia.ruc_dv("")
    assert info.value.code == "INVALID_RUC"


def test_cdc_build_and_parse() -> None:
    fields = {
        "tipo_documento": 1,
        "ruc": "44444401-7",
        "establecimiento": 1,
        "punto": 1,
        "numero": 1,
        "tipo_contribuyente": 2,
        "fecha": "2025-03-10",
        "tipo_emision": 1,
        "codigo_seguridad": 123456789,
    }
    cdc = kuatia.cdc_build(fields)
    # The same CDC the conformance case records for these fields (SIFEN.md's layout, DV last).
    assert cdc == SPEC["expected"]["cdc"] == "01444444017001001000000122025031011234567890"
    parts = kuatia.cdc_parse(cdc)
    assert parts["cdc"] == cdc and parts["numero"] == 1 and parts["codigo_seguridad"] == 123456789
    assert parts["dv"] == int(cdc[-1])
    with pytest.raises(kuatia.InvalidInputError) as info:
        kuatia.cdc_parse(cdc[:-1] + str((int(cdc[-1]) + 1) % 10))
    assert info.value.code == "INVALID_CDC"
    with pytest.raises(kuatia.InvalidInputError) as info:
        kuatia.cdc_build({**fields, "numero": "uno"})
    assert info.value.path.startswith("numero")


def test_qr_build_matches_the_manuals_example() -> None:
    fields = {
        "cdc": "01444444017001001001452822017012515873260988",
        "fecha_emision": "2017-01-25T09:35:17",
        "receptor": {"ruc": "88899990"},
        "total": "300000",
        "total_iva": "27272",
        "items": 2,
        "digest_value": "yzGYhUx1/XYYzksWB+fPR3Qc50c=",
        "csc_id": "0001",
        "csc": SANDBOX_CSC,
        "ambiente": "test",
    }
    qr = kuatia.qr_build(fields)
    base, _, params = qr.partition("?")
    assert base == "https://ekuatia.set.gov.py/consultas-test/qr"
    # Independent check of cHashQR: SHA-256 over the parameters before it, followed by the CSC (SIFEN.md §5).
    head, _, got_hash = params.rpartition("&cHashQR=")
    assert got_hash == hashlib.sha256((head + SANDBOX_CSC).encode()).hexdigest()
    assert got_hash == "97ddbb3c1e7d65af03a70ffe21f2b34846ab1c89e0566c35222086766b7374ed"
    assert bytes.fromhex(re.search(r"dFeEmiDE=(\w+)", qr)[1]).decode() == "2017-01-25T09:35:17"
    parsed = kuatia.qr_parse(qr, SANDBOX_CSC)
    assert parsed["hash_ok"] is True and parsed["items"] == 2
    assert kuatia.qr_parse(qr, "EFGH0000000000000000000000000000")["hash_ok"] is False
    assert "hash_ok" not in kuatia.qr_parse(qr)
    with pytest.raises(kuatia.InvalidInputError):
        kuatia.qr_parse("https://example.com/")


def test_validate_reports_every_finding_and_checks_now() -> None:
    bad = next(c for c in load() if c["name"] == "invalid_every_finding")
    report = kuatia.validate(bad["request"], now=NOW)
    assert not report.ok and len(report.errors) == len(bad["expected"]["errors"])
    # JSON text and bytes are accepted as well as a dict.
    import json

    assert kuatia.validate(json.dumps(bad["request"]), now=NOW) == report
    assert kuatia.validate(json.dumps(bad["request"]).encode(), now=NOW) == report
    with pytest.raises(kuatia.InvalidInputError) as info:
        kuatia.validate(SPEC["request"], now="yesterday")
    assert info.value.path == "now"
    with pytest.raises(kuatia.InvalidInputError) as info:
        kuatia.validate(SPEC["request"], profile={"nope": 1}, now=NOW)
    assert info.value.path.startswith("profile")
    # now=None reads the host's clock (Paraguay time) and still validates.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", kuatia.paraguay_now())
    assert isinstance(kuatia.validate(SPEC["request"]).ok, bool)


def test_datetime_now_is_paraguay_local_time() -> None:
    from datetime import datetime, timezone

    naive = datetime(2025, 3, 10, 10, 11, 0)
    aware = datetime(2025, 3, 10, 13, 11, 0, tzinfo=timezone.utc)  # Paraguay is UTC-3
    with kuatia.Signer.sandbox() as s:
        a = kuatia.issue(SPEC["request"], s, 1, 123456789, now=naive)
        b = kuatia.issue(SPEC["request"], s, 1, 123456789, now=aware)
    assert a.cdc == b.cdc == SPEC["expected"]["cdc"]
    assert a.fecha_emision == b.fecha_emision == NOW


def test_invalid_utf8_is_reported_by_the_library() -> None:
    with pytest.raises(kuatia.InvalidUtf8Error) as info:
        kuatia.ruc_dv(b"8006\xff9563")
    e = info.value
    assert (e.status, e.code, e.path) == (kuatia.Status.INVALID_UTF8, "INVALID_UTF8", "body")
    assert isinstance(e, UnicodeError) and isinstance(e, kuatia.KuatiaError)
    with pytest.raises(kuatia.InvalidUtf8Error) as info:
        kuatia.validate(b'{"tipo_documento":1,"items":[{"descripcion":"\xc3"}]}', now=NOW)
    assert info.value.path == "request_json"
    # A lone surrogate in a str is invalid UTF-8 too, and reported the same way.
    with pytest.raises(kuatia.InvalidUtf8Error):
        kuatia.cdc_parse("0144\udc80")


def test_wrong_types() -> None:
    for call in (
        lambda: kuatia.ruc_dv(80069563),
        lambda: kuatia.validate(42, now=NOW),
        lambda: kuatia.totals([1, 2][0]),
        lambda: kuatia.validate(SPEC["request"], now=1741612260),
        lambda: kuatia.issue(SPEC["request"], "not a signer", 1, 1, now=NOW),
        lambda: kuatia.Signer.from_p12("not bytes", "pw"),
    ):
        with pytest.raises(TypeError):
            call()
    with kuatia.Signer.sandbox() as s:
        with pytest.raises(TypeError):
            kuatia.issue(SPEC["request"], s, "1", 1, now=NOW)
        with pytest.raises(ValueError):
            kuatia.issue(SPEC["request"], s, 2**32, 1, now=NOW)
    # Wrong JSON types inside the request are findings with the field's path.
    report = kuatia.validate({**SPEC["request"], "items": "x"}, now=NOW)
    assert not report.ok and report.errors[0].path == "items"
    with pytest.raises(kuatia.InvalidInputError) as info:
        kuatia.totals({**SPEC["request"], "items": [{"cantidad": [1]}]})
    assert info.value.findings and info.value.findings[0].path.startswith("items[0]")
    with pytest.raises(kuatia.InvalidInputError) as info:
        kuatia.totals("{not json")
    assert info.value.code == "MALFORMED_JSON"


def test_a_bad_p12_never_echoes_the_password() -> None:
    password = "s3cr3t-Pässwörd"
    for blob in (b"", b"not a pkcs12 file", (CERTS / "sandbox.p12").read_bytes()[:200]):
        with pytest.raises(kuatia.SignError) as info:
            kuatia.Signer.from_p12(blob, password)
        e = info.value
        assert e.code == "P12_INVALID" and e.status == kuatia.Status.SIGN_ERROR
        for text in (str(e), repr(e), e.message, e.path, repr(e.findings)):
            assert password not in text
    with pytest.raises(kuatia.SignError) as info:
        kuatia.Signer.from_p12((CERTS / "sandbox.p12").read_bytes(), password)
    assert info.value.code == "P12_WRONG_PASSWORD" and password not in str(info.value)
    with pytest.raises(kuatia.SignError) as info:
        kuatia.Signer.from_p12((CERTS / "rsa1024.p12").read_bytes(), "kuatia-test")
    assert info.value.code.startswith("KEY_")


def test_signers_from_p12_and_pem_sign_like_the_sandbox() -> None:
    p12 = (CERTS / "sandbox.p12").read_bytes()
    key = (CERTS / "sandbox.key.pem").read_text()
    cert = (CERTS / "sandbox.cert.pem").read_text()
    ctx = SPEC["context"]
    with kuatia.Signer.from_p12(p12, "kuatia-test") as a, kuatia.Signer.from_pem(key, cert) as b:
        xa = kuatia.issue(SPEC["request"], a, ctx["numero"], ctx["codigo_seguridad"], now=NOW).xml
        xb = kuatia.issue(SPEC["request"], b, ctx["numero"], ctx["codigo_seguridad"], now=NOW).xml
    # RSA PKCS#1 v1.5 is deterministic: the same key gives the byte-identical document Rust recorded.
    for xml in (xa, xb):
        assert hashlib.sha256(xml.encode()).hexdigest() == SPEC["expected"]["xml_sha256"]


def test_sign_verify_and_tamper() -> None:
    preview = kuatia.preview_xml(SPEC["request"], 1, 123456789, now=NOW)
    with kuatia.Signer.sandbox() as s:
        signed = s.sign(preview, SPEC["expected"]["cdc"])
        assert kuatia.sign(preview, SPEC["expected"]["cdc"], s) == signed
        with pytest.raises(kuatia.InvalidInputError):
            s.sign(preview, "no-such-id")
    ok = kuatia.verify(signed)
    assert ok.valid and ok.report["digest_ok"] and ok.report["signature_ok"]
    bad = kuatia.verify(signed.replace("<dCodSeg>", "<dCodSeg>9", 1))
    assert not bad.valid and bad.report["digest_ok"] is False
    # xmlsec1, an independent verifier, accepts the signature with the sandbox certificate.
    xmlsec = _which("xmlsec1")
    if xmlsec:
        tmp = Path(os.environ.get("PYTEST_TMP", "/tmp")) / f"kuatia-py-{os.getpid()}.xml"
        tmp.write_text(signed, encoding="utf-8")
        try:
            r = subprocess.run(
                [xmlsec, "--verify", "--id-attr:Id", "DE", "--pubkey-cert-pem",
                 str(CERTS / "sandbox.cert.pem"), str(tmp)],
                capture_output=True, text=True,
            )
        finally:
            tmp.unlink()
        assert r.returncode == 0, r.stderr


def _which(name: str):
    import shutil

    return shutil.which(name)


def test_kude_pdf() -> None:
    ctx = SPEC["context"]
    with kuatia.Signer.sandbox() as s:
        xml = kuatia.issue(SPEC["request"], s, ctx["numero"], ctx["codigo_seguridad"], now=NOW).xml
    for fmt in ("a4", "ticket"):
        pdf = kuatia.kude_pdf(xml, format=fmt, preview=fmt == "ticket")
        assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF") and len(pdf) > 1000
    assert kuatia.kude_pdf(xml) == kuatia.kude_pdf(xml, "a4")
    with pytest.raises(ValueError):
        kuatia.kude_pdf(xml, format="letter")
    with pytest.raises(kuatia.InvalidInputError) as info:
        kuatia.kude_pdf(kuatia.preview_xml(SPEC["request"], 1, 1, now=NOW))
    assert "dCarQR" in info.value.path
    with pytest.raises(kuatia.InvalidInputError):
        kuatia.kude_pdf("<not xml")


def test_signer_life_cycle() -> None:
    s = kuatia.Signer.sandbox()
    assert not s.closed
    s.close()
    s.close()  # idempotent
    assert s.closed
    with pytest.raises(ValueError):
        kuatia.issue(SPEC["request"], s, 1, 1, now=NOW)
    with kuatia.Signer.sandbox() as t:
        pass
    assert t.closed


def test_one_signer_many_threads() -> None:
    ctx = SPEC["context"]
    results: list = []
    with kuatia.Signer.sandbox() as s:

        def work() -> None:
            for _ in range(3):
                issued = kuatia.issue(SPEC["request"], s, ctx["numero"], ctx["codigo_seguridad"], now=NOW)
                results.append(hashlib.sha256(issued.xml.encode()).hexdigest())

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert results == [SPEC["expected"]["xml_sha256"]] * 12


def test_random_security_code_changes_the_cdc() -> None:
    with kuatia.Signer.sandbox() as s:
        cdcs = {kuatia.issue(SPEC["request"], s, 1, now=NOW).cdc for _ in range(4)}
    assert len(cdcs) > 1


def test_kuatia_lib_override() -> None:
    env = {**os.environ, "KUATIA_LIB": "/nonexistent/libkuatia.so"}
    r = subprocess.run([sys.executable, "-c", "import kuatia"], env=env, capture_output=True, text=True,
                       cwd=Path(kuatia.__file__).parent.parent)
    assert r.returncode != 0 and "KUATIA_LIB=/nonexistent/libkuatia.so does not exist" in r.stderr
    env["KUATIA_LIB"] = kuatia.LIB_PATH
    r = subprocess.run([sys.executable, "-c", "import kuatia; print(kuatia.LIB_PATH)"], env=env,
                       capture_output=True, text=True, cwd=Path(kuatia.__file__).parent.parent)
    assert r.returncode == 0 and r.stdout.strip() == kuatia.LIB_PATH


def test_sifen_request_parse_and_describe() -> None:
    cdc = "01444444017001001000000122025031011234567890"
    req = kuatia.sifen_request("consulta", cdc, 7)
    assert req["service"] == "consulta" and f"<dCDC>{cdc}</dCDC>" in req["xml"]
    assert req["url"].startswith("https://sifen-test.")
    assert kuatia.sifen_request("consulta", cdc, 7, production=True)["url"].startswith("https://sifen.set")
    with pytest.raises(kuatia.InvalidInputError) as e:
        kuatia.sifen_request("recibe-lote", [], 1)
    assert e.value.code == "SIFEN_LOT_EMPTY"
    answer = (Path(ROOT) / "core/tests/sifen_samples/consulta_0422.xml").read_bytes()
    parsed = kuatia.sifen_parse_response(answer)
    assert parsed["service"] == "consulta" and "0422" in str(parsed["result"]) and "action" in parsed
    with pytest.raises(kuatia.InvalidInputError) as e:
        kuatia.sifen_parse_response(b"<html></html>")
    assert e.value.code == "SIFEN_UNEXPECTED_RESPONSE"
    assert kuatia.sifen_describe("0160")["code"] == "0160"
    assert kuatia.sifen_describe("9999") is None
    assert "XML mal formado" in kuatia.sifen_describe("0160")["meaning"]
    assert "malformed" in kuatia.sifen_describe("0160", lang="en")["meaning"]


GOLDEN_CDC = "01444444017001001000000122025031011234567890"  # emitted by the sandbox RUC 44444401-7
FOREIGN_CDC = "01800695631001001000000122022081411234567891"  # emitted by 80069563-1


def test_sifen_events_signed_and_sent_in_an_evento_request() -> None:
    with kuatia.Signer.sandbox() as signer:
        cancel = kuatia.sifen_event_sign(
            {"tipo": "cancelacion", "id": 1, "fecha_firma": "2025-03-11T09:00:00", "cdc": GOLDEN_CDC,
             "motivo": "Error en el precio"},
            "44444401-7",
            signer,
        )
        assert cancel["id"] == 1 and cancel["kind"] == "rGeVeCan" and cancel["cdc"] == GOLDEN_CDC
        assert cancel["xml"].startswith('<rGesEve><rEve Id="1">')
        # A receiver event is signed by the receiver: with the sandbox certificate that is 44444401-7, so the
        # document is one 80069563-1 emitted to it. JSON text works as well as a dict.
        conf = kuatia.sifen_event_sign(
            '{"tipo":"conformidad","id":2,"fecha_firma":"2025-03-11T09:00:00","cdc":"%s"}' % FOREIGN_CDC,
            "44444401-7",
            signer,
        )
        assert conf["kind"] == "rGeVeConf"
        req = kuatia.sifen_request("evento", [cancel, conf], 9)
        assert req["service"] == "evento" and req["url"].endswith("/de/ws/eventos/evento.wsdl")
        assert "<dId>9</dId><dEvReg><gGroupGesEve" in req["xml"]
        assert req["xml"].count("<rGesEve>") == 2
        # The signature of the first event verifies inside the envelope.
        assert kuatia.verify(req["xml"]).report["reference_id"] == "1"

        # Refusals carry the code and the JSON path.
        with pytest.raises(kuatia.InvalidInputError) as e:
            kuatia.sifen_event_sign({"tipo": "cancelacion", "id": 1, "fecha_firma": "2025-03-11T09:00:00",
                                     "cdc": GOLDEN_CDC, "motivo": "mal"}, "44444401-7", signer)
        assert (e.value.code, e.value.path) == ("SIFEN_EVENT_INVALID", "motivo")
        with pytest.raises(kuatia.InvalidInputError) as e:
            kuatia.sifen_event_sign({"tipo": "conformidad", "id": 2, "fecha_firma": "2025-03-11T09:00:00",
                                     "cdc": GOLDEN_CDC}, "44444401-7", signer)
        assert e.value.code == "SIFEN_EVENT_SIGNER"  # the emitter cannot agree with its own document
        with pytest.raises(kuatia.InvalidInputError) as e:
            kuatia.sifen_event_sign({"tipo": "anulacion", "id": 1}, "44444401-7", signer)
        assert [(f.code, f.path) for f in e.value.findings] == [
            ("VALIDATION_ERROR.INVALID_VALUE", "tipo"),
            ("VALIDATION_ERROR.REQUIRED", "fecha_firma"),
        ]
        with pytest.raises(kuatia.InvalidInputError) as e:
            kuatia.sifen_request("evento", [cancel, cancel], 9)
        assert e.value.code == "SIFEN_EVENT_DUPLICATE_ID"
        tampered = dict(cancel, xml=cancel["xml"].replace("Error en el precio", "Error en el monto"))
        with pytest.raises(kuatia.InvalidInputError) as e:
            kuatia.sifen_request("evento", [tampered], 9)
        assert (e.value.code, e.value.path) == ("SIFEN_EVENT_INVALID", "arg[0].xml")
    with pytest.raises(ValueError):
        kuatia.sifen_event_sign({"tipo": "cancelacion"}, "44444401-7", signer)  # closed signer
