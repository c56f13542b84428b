"""The ctypes layer is the generated one: every function of include/kuatia.abi.json is declared as _abi.py says,
and a hand-written copy that differs from it is refused at import time."""

import json

import pytest

import kuatia
from kuatia import _abi, _ffi

from cases import ROOT


def test_every_function_of_the_description_is_declared():
    desc = json.loads((ROOT / "include" / "kuatia.abi.json").read_text(encoding="utf-8"))
    names = [f["name"] for f in desc["functions"]]
    assert names == list(_abi.SIGNATURES), "bindings/python/kuatia/_abi.py is stale: bash scripts/ffi-check.sh --write-abi"
    for name in names:
        fn = getattr(_ffi.lib, name)
        restype, argtypes = _abi.SIGNATURES[name]
        assert fn.restype is restype, name
        assert tuple(fn.argtypes or ()) == tuple(argtypes), name
    assert {s.name: s.value for s in kuatia.Status} == {
        v["short"]: v["value"] for e in desc["enums"] if e["name"] == "kuatia_status" for v in e["variants"]
    }
    assert _abi.SEED_LEN == 32 and _abi.ABI_VERSION == desc["abi_version"]
    assert kuatia.version().startswith(_abi.ABI_VERSION + ".")


def test_a_hand_written_declaration_must_match_the_generated_one():
    restype, argtypes = _abi.SIGNATURES["kuatia_ruc_check"]
    _ffi._sig("kuatia_ruc_check", restype, *argtypes)  # the same: accepted
    with pytest.raises(ImportError, match="kuatia_ruc_check differs"):
        _ffi._sig("kuatia_ruc_check", restype, *argtypes[:-1])
    with pytest.raises(ImportError, match="kuatia_no_such_function differs"):
        _ffi._sig("kuatia_no_such_function", restype)
