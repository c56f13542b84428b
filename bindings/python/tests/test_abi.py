"""The ctypes layer is the generated one: every function of include/kuatia.abi.json is declared as _abi.py says,
and no module declares one by hand."""

import json
import re

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



def test_no_module_declares_a_native_function_by_hand():
    # argtypes/restype set anywhere but the generated _abi.py (applied by _ffi.declare) would be a second copy.
    pkg = ROOT / "bindings" / "python" / "kuatia"
    hand = [p.name for p in pkg.glob("*.py") if p.name != "_abi.py" and p.name != "_ffi.py"
            and re.search(r"\.(argtypes|restype)\s*=", p.read_text(encoding="utf-8"))]
    assert hand == []
