"""Replays every conformance case through the Python binding; the results must equal what Rust records: each finding's
code, path, rule, params and message, in Spanish and in English. Every rule's sample of tests/fixtures/messages.json
renders through ``localize`` as the file says, so rules no case reaches are covered too."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Dict

import pytest

import kuatia
from cases import CASES_DIR, SANDBOX_CSC, load

CASES = load()


def test_the_cases_are_there() -> None:
    # A silent empty glob would make every parametrized test vanish.
    assert sum(1 for c in CASES if c["expected"]["ok"]) >= 10
    assert sum(1 for c in CASES if not c["expected"]["ok"]) >= 2


@pytest.fixture(scope="module")
def signer():
    with kuatia.Signer.sandbox() as s:
        yield s


@pytest.fixture(autouse=True)
def spanish_again():
    yield
    kuatia.set_language("es")


def _pairs(findings) -> list:
    return [(f.code, f.path) for f in findings]


def _expected_in(exp: Dict[str, Any], lang: str) -> list:
    """The findings a refused case expects, with the message in ``lang``."""
    return [kuatia.Finding(e["code"], e["path"], e["message"][lang], e["rule"], e["params"]) for e in exp["errors"]]


MESSAGES = json.loads((CASES_DIR.parent / "messages.json").read_text(encoding="utf-8"))


def test_every_rule_renders_in_both_languages_through_localize() -> None:
    assert len(MESSAGES) >= 400
    findings = [{"code": "X", "path": "", "message": "", "rule": m["rule"], "params": m["params"]} for m in MESSAGES]
    for lang in ("es", "en"):
        got = [f["message"] for f in kuatia.localize(findings, lang)]
        assert got == [m[lang] for m in MESSAGES]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case: Dict[str, Any], signer: kuatia.Signer) -> None:
    ctx, exp = case["context"], case["expected"]
    report = kuatia.validate(case["request"], now=ctx["now"])
    assert report.ok is exp["ok"]
    if not exp["ok"]:
        expected = [(e["code"], e["path"]) for e in exp["errors"]]
        for lang in ("es", "en"):
            kuatia.set_language(lang)
            assert kuatia.validate(case["request"], now=ctx["now"]).errors == _expected_in(exp, lang), lang
            with pytest.raises(kuatia.InvalidInputError) as info:
                kuatia.issue(case["request"], signer, ctx["numero"], ctx["codigo_seguridad"], now=ctx["now"])
            e = info.value
            assert e.status == kuatia.Status.INVALID_INPUT
            assert e.findings == _expected_in(exp, lang), lang
            assert (e.code, e.path, e.rule, e.message) == (*expected[0], exp["errors"][0]["rule"],
                                                            exp["errors"][0]["message"][lang])
        return

    assert report.errors == []
    # As the Rust replay: the recorded totals are a subset of the computed ones (null for a remisión).
    t = kuatia.totals(case["request"])["totales"]
    if exp["totales"] is None:
        assert t is None
    else:
        for key, value in exp["totales"].items():
            assert t[key] == value, key

    issued = kuatia.issue(case["request"], signer, ctx["numero"], ctx["codigo_seguridad"], now=ctx["now"])
    assert issued.cdc == exp["cdc"]
    assert issued.numero == exp["numero"]
    assert issued.qr == exp["qr"]
    assert hashlib.sha256(issued.xml.encode("utf-8")).hexdigest() == exp["xml_sha256"]
    assert issued.fecha_emision == ctx["now"]

    # Downstream: the numbering key, the signature, the QR hash with the sandbox CSC, the CDC's own fields.
    assert kuatia.numbering_key(case["request"], now=ctx["now"])["timbrado"] == "12558946"
    v = kuatia.verify(issued.xml, at=ctx["now"])
    assert v.valid and v.report["reference_id"] == exp["cdc"]
    assert kuatia.qr_parse(issued.qr, SANDBOX_CSC)["hash_ok"] is True
    parts = kuatia.cdc_parse(issued.cdc)
    assert parts["cdc"] == exp["cdc"]
    assert f'<dCodSeg>{parts["codigo_seguridad"]:09d}</dCodSeg>' in issued.xml

    # The unsigned preview carries the same CDC.
    preview = kuatia.preview_xml(case["request"], ctx["numero"], ctx["codigo_seguridad"], now=ctx["now"])
    assert f'Id="{exp["cdc"]}"' in preview and "<Signature" not in preview
