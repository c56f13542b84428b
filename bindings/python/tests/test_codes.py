"""codes() is the core's registry: the same list as tests/fixtures/codes.json (checked there against the Rust registry)."""

import json

import kuatia

from cases import ROOT


def test_codes_are_the_registry():
    want = json.loads((ROOT / "tests" / "fixtures" / "codes.json").read_text())
    assert kuatia.codes() == want
    assert {"code": "INVALID_RUC", "description": want[0]["description"]} == kuatia.codes()[0]
