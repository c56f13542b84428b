"""The language of messages: Spanish by default, English after ``set_language("en")``; every finding carries its
rule id and parameters, and a report can be rendered again in another language (``localize``)."""

import json

import pytest

import kuatia

from cases import CASES_DIR

ES = "El dígito verificador del RUC no corresponde: debería ser 1, no 2"
EN = "wrong RUC check digit: expected 1, got 2"


@pytest.fixture(autouse=True)
def spanish_again():
    yield
    kuatia.set_language("es")


# A CDC's fields with the RUC 80069563-2: its check digit is 1 (SIFEN.md §1).
FIELDS = {"tipo_documento": 1, "ruc": "80069563-2", "establecimiento": 1, "punto": 1, "numero": 1,
          "tipo_contribuyente": 2, "fecha": "2025-03-10", "tipo_emision": 1, "codigo_seguridad": 123456789}


def bad_ruc() -> kuatia.KuatiaError:
    assert not kuatia.ruc_check("80069563-2")
    with pytest.raises(kuatia.InvalidInputError) as e:
        kuatia.cdc_build(FIELDS)
    return e.value


def test_a_bad_check_digit_reads_in_spanish_by_default_and_in_english_when_chosen():
    assert kuatia.get_language() == "es"
    e = bad_ruc()
    assert (e.code, e.rule, e.params, e.message) == ("INVALID_RUC", "ruc.check_digit", {"expected": "1", "got": "2"}, ES)
    assert e.findings == [kuatia.Finding("INVALID_RUC", "ruc", ES, "ruc.check_digit", {"expected": "1", "got": "2"})]
    kuatia.set_language("en")
    e = bad_ruc()
    assert (e.rule, e.message, e.findings[0].message) == ("ruc.check_digit", EN, EN)
    assert e.findings[0].params == {"expected": "1", "got": "2"}


def test_a_validation_report_and_localize():
    request = json.loads((CASES_DIR / "fe_spec_example.json").read_text(encoding="utf-8"))["request"]
    request["receptor"]["ruc"] = "80069563-2"
    report = kuatia.validate(request, now="2025-03-10T10:11:00")
    ruc = next(f for f in report.errors if f.rule == "ruc.check_digit")
    assert ruc.message == ES and ruc.path == "receptor.ruc"
    kuatia.set_language("en")
    assert next(f for f in kuatia.validate(request, now="2025-03-10T10:11:00").errors
                if f.rule == "ruc.check_digit").message == EN
    finding = {"code": "INVALID_RUC", "path": "ruc", "message": EN, "rule": "ruc.check_digit",
               "params": {"expected": "1", "got": "2"}}
    assert kuatia.localize({"ok": False, "errors": [finding]}, "es")["errors"][0]["message"] == ES
    assert kuatia.localize([finding], "es-PY")[0]["message"] == ES
    assert kuatia.localize([finding])[0]["message"] == EN
    with pytest.raises(kuatia.InvalidInputError) as e:
        kuatia.localize('{"ok":', "es")
    assert e.value.code == "MALFORMED_JSON"
    with pytest.raises(TypeError):
        kuatia.set_language(None)  # type: ignore[arg-type]


def test_rules_are_the_registry():
    got = kuatia.rules()
    recorded = json.loads((CASES_DIR.parent / "rules.json").read_text(encoding="utf-8"))
    assert all(r in got for r in recorded)
    check = next(r for r in got if r["rule"] == "ruc.check_digit")
    assert check["code"] == "INVALID_RUC"
    assert [p["name"] for p in check["params"]] == ["expected", "got"]


def test_typed_service_calls_ask_for_the_chosen_language():
    # A typed call sends Accept-Language in the chosen language unless the caller sends one; handle() sends what
    # it is given (Spanish, the service's default, without the header).
    with kuatia.Signer.sandbox() as signer, kuatia.Service(sandbox_signer=signer) as svc:
        key = svc.create_account("Empresa de prueba")["key"]
        h = {"Authorization": f"Bearer {key}", "X-Environment": "sandbox"}

        def missing(headers) -> kuatia.ApiError:
            with pytest.raises(kuatia.ApiError) as e:
                svc.get_invoice(headers, "inv_0000000000000000")
            assert e.value.status == 404
            return e.value

        assert missing(h).message == "No existe una factura con ese id"
        kuatia.set_language("en")
        assert missing(h).message == "no invoice with that id"
        assert missing({**h, "accept-language": "es-PY"}).message == "No existe una factura con ese id"
        raw = svc.handle("GET", "/v1/facturas/inv_0000000000000000", h)
        assert raw.header("content-language") == "es-PY"
