"""The adversarial table (tests/adversarial/*.json) replayed through the Python binding.

Every vector goes to the function that reaches its core entry point (request: ``validate``, and up to 1 MiB also
``totals`` and ``issue``; validate: ``validate``'s report; xml: ``kude_pdf``; verify: ``verify``'s report;
sifen_response: ``sifen_parse_response``; ruc: ``ruc_check``; cdc: ``cdc_parse``; p12: ``Signer.from_p12``) and
must give the code (and path) the Rust replay asserts, within a time bound, without a crash. The C boundary's two
rules apply first (tests/adversarial/README.md): an input longer than KUATIA_MAX_INPUT_LEN is TOO_LARGE, and bytes
that are not UTF-8 given to a text argument are INVALID_UTF8. Then None for every argument that cannot be omitted,
wrong Python types, and the peak RSS of the process.
"""

from __future__ import annotations

import base64
import json
import re
import resource
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

import kuatia
from kuatia import _ffi
from cases import ROOT, CERTS

TABLE = ROOT / "tests" / "adversarial"
NOW = "2025-03-10T10:11:00"
TIME_BOUND_S = 10.0  # generous: the slowest vector takes about a second; this only catches quadratic behaviour
SMALL = 1 << 20  # larger inputs (the 100 MB vectors) go through one function only
RSS_BOUND_KB = 1024 * 1024  # peak RSS of the process after the table (about 400 MiB measured)
BYTES_TARGETS = {"sifen_response", "p12"}  # the only targets whose C argument is raw bytes, not UTF-8 text


def _max_input_len() -> int:
    header = (ROOT / "include" / "kuatia.h").read_text(encoding="utf-8")
    m = re.search(r"#define KUATIA_MAX_INPUT_LEN \(\((\d+) \* (\d+)\) \* (\d+)\)", header)
    assert m, "KUATIA_MAX_INPUT_LEN not found in include/kuatia.h"
    return int(m[1]) * int(m[2]) * int(m[3])


MAX_INPUT_LEN = _max_input_len()


def _vectors() -> List[Dict[str, Any]]:
    out, names = [], set()
    for path in sorted(TABLE.glob("*.json")):
        for v in json.loads(path.read_text(encoding="utf-8"))["vectors"]:
            assert v["name"] not in names, f"duplicate vector {v['name']}"
            names.add(v["name"])
            out.append(v)
    assert len(out) >= 100, f"only {len(out)} vectors"
    return out


VECTORS = _vectors()


def input_of(v: Dict[str, Any]) -> Any:
    """Text vectors as ``str`` (the usual Python argument), raw and generated ones as ``bytes``."""
    inp = v["input"]
    if "text" in inp:
        return inp["text"]
    if "base64" in inp:
        return base64.b64decode(inp["base64"])
    r = inp["repeat"]
    if "{i}" in r["unit"]:  # numbered copies: "{i}" is the copy's index
        body = "".join(r["unit"].replace("{i}", str(i)) for i in range(r["count"])).encode()
    else:
        body = r["unit"].encode() * r["count"]
    return b"".join([r["prefix"].encode(), body, r["suffix"].encode()])


def as_bytes(data: Any) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def expected(v: Dict[str, Any], data: bytes) -> Tuple[bool, Optional[str], Optional[str]]:
    """(ok, code, path) for this face: the table's, unless a rule of the C boundary answers first."""
    if len(data) > MAX_INPUT_LEN:
        return False, "TOO_LARGE", None
    if v["target"] not in BYTES_TARGETS:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False, "INVALID_UTF8", None
    e = v["expect"]
    return bool(e.get("ok")), e.get("code"), e.get("path")


# An outcome: None when accepted, else (code, path, message, status or None for a report).
Outcome = Optional[Tuple[str, str, str, Any]]


def raised(fn: Callable[[], Any]) -> Outcome:
    """The exception ``fn`` raises as an outcome; what it returns when it does not raise (an outcome or None)."""
    try:
        got = fn()
    except kuatia.KuatiaError as e:
        assert not isinstance(e, kuatia.PanicError), f"PANIC: {e}"
        return e.code, e.path, e.message, e.status
    return got if isinstance(got, tuple) else None


def report_outcome(report: kuatia.Report) -> Outcome:
    if report.ok:
        return None
    f = report.errors[0]
    return f.code, f.path, f.message, None


def calls(v: Dict[str, Any], data: Any, signer: kuatia.Signer) -> Iterator[Tuple[str, Callable[[], Outcome]]]:
    """(function name, call) pairs for one vector."""
    t, small = v["target"], len(as_bytes(data)) <= SMALL
    if t in ("request", "validate"):
        # Findings are the report; only the boundary (size, UTF-8) raises.
        yield "validate", lambda: raised(lambda: report_outcome(kuatia.validate(data, now=NOW)))
    if t == "request" and small:
        yield "totals", lambda: raised(lambda: kuatia.totals(data))
        yield "issue", lambda: raised(lambda: kuatia.issue(data, signer, 1, 123456789, now=NOW))
    if t == "xml":
        yield "kude_pdf", lambda: raised(lambda: kuatia.kude_pdf(data))
    if t == "verify":

        def verify() -> Outcome:
            r = kuatia.verify(data)
            assert r.valid == (r.report["error"] is None)
            e = r.report["error"]
            return None if r.valid else (e["code"], e["path"], e["message"], None)

        yield "verify", lambda: raised(verify)
    if t == "sifen_response":
        yield "sifen_parse_response", lambda: raised(lambda: kuatia.sifen_parse_response(data))
    if t == "ruc":
        # ruc_check answers a bool; the code comes from the same C call through the binding's error conversion.
        def ruc() -> Outcome:
            code = raised(lambda: _ffi.call(_ffi.lib.kuatia_ruc_check, *_ffi.arg(data, "ruc")))
            if code is None or code[0] != "INVALID_UTF8":
                assert kuatia.ruc_check(data) is (code is None)
            return code

        yield "ruc_check", ruc
    if t == "cdc":
        yield "cdc_parse", lambda: raised(lambda: kuatia.cdc_parse(data))
    if t == "p12":
        yield "Signer.from_p12", lambda: raised(lambda: kuatia.Signer.from_p12(data, v["password"]).close())


@pytest.fixture(scope="module")
def signer() -> Iterator[kuatia.Signer]:
    with kuatia.Signer.sandbox() as s:
        yield s


@pytest.mark.parametrize("v", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector(v: Dict[str, Any], signer: kuatia.Signer) -> None:
    data = input_of(v)
    want_ok, want_code, want_path = expected(v, as_bytes(data))
    ran = 0
    for fn, call in calls(v, data, signer):
        ran += 1
        start = time.monotonic()
        got = call()
        elapsed = time.monotonic() - start
        assert elapsed < TIME_BOUND_S, f"{v['name']} via {fn}: {elapsed:.2f} s"
        if want_ok:
            assert got is None, f"{v['name']} via {fn}: expected ok, got {got[:2]}"
            continue
        assert got is not None, f"{v['name']} via {fn}: accepted, expected {want_code}"
        code, path, message, status = got
        assert code == want_code, f"{v['name']} via {fn}: expected {want_code}, got {code} at {path!r}: {message}"
        if want_path is not None:
            assert path == want_path, f"{v['name']} via {fn}: expected path {want_path}, got {path!r}"
        assert len(message) <= 4096, f"{v['name']} via {fn}: message of {len(message)} characters"
        if status is not None:
            want_status = {
                "TOO_LARGE": kuatia.Status.TOO_LARGE,
                "INVALID_UTF8": kuatia.Status.INVALID_UTF8,
            }.get(code, kuatia.Status.SIGN_ERROR if code.startswith("P12_") else kuatia.Status.INVALID_INPUT)
            assert status == want_status, f"{v['name']} via {fn}: status {status!r} for {code}"
    assert ran >= 1, f"{v['name']}: no function for target {v['target']}"


def test_none_for_every_required_argument(signer: kuatia.Signer) -> None:
    """None is NULL at the C boundary: INVALID_ARGUMENT naming the C argument (Signer.from_p12 checks its type)."""
    cases: List[Tuple[str, Callable[[], Any]]] = [
        ("request_json", lambda: kuatia.validate(None, now=NOW)),  # type: ignore[arg-type]
        ("request_json", lambda: kuatia.totals(None)),  # type: ignore[arg-type]
        ("request_json", lambda: kuatia.issue(None, signer, 1, now=NOW)),  # type: ignore[arg-type]
        ("xml", lambda: kuatia.kude_pdf(None)),  # type: ignore[arg-type]
        ("xml", lambda: kuatia.verify(None)),  # type: ignore[arg-type]
        ("bytes", lambda: kuatia.sifen_parse_response(None)),  # type: ignore[arg-type]
        ("ruc", lambda: kuatia.ruc_check(None)),  # type: ignore[arg-type]
        ("cdc", lambda: kuatia.cdc_parse(None)),  # type: ignore[arg-type]
        ("password", lambda: kuatia.Signer.from_p12((CERTS / "sandbox.p12").read_bytes(), None)),  # type: ignore
    ]
    for arg, call in cases:
        with pytest.raises(kuatia.InvalidArgumentError) as info:
            call()
        assert (info.value.code, info.value.path) == ("INVALID_ARGUMENT", arg), info.value
    with pytest.raises(TypeError):
        kuatia.Signer.from_p12(None, "x")  # type: ignore[arg-type]
    # The optional arguments may be None: the sandbox profile, and no date check in verify.
    assert kuatia.validate("{}", profile=None, now=NOW).errors[0].code == "VALIDATION_ERROR.REQUIRED"
    assert kuatia.verify("<rDE/>", at=None).valid is False


def test_wrong_python_types_are_type_errors() -> None:
    for call in [
        lambda: kuatia.validate(123, now=NOW),
        lambda: kuatia.totals(1.5),
        lambda: kuatia.ruc_check(80069563),
        lambda: kuatia.cdc_parse(["0144"]),
        lambda: kuatia.kude_pdf(object()),
        lambda: kuatia.sifen_parse_response({"x": 1}),
        lambda: kuatia.verify(3.0),
    ]:
        with pytest.raises(TypeError):
            call()  # type: ignore[arg-type]


def test_lone_surrogates_are_invalid_utf8() -> None:
    """The one way a Python str is not UTF-8: it is passed through (surrogatepass) and refused by the library."""
    with pytest.raises(kuatia.InvalidUtf8Error) as info:
        kuatia.validate('{"tipo_documento":1,"observacion":"\ud800"}', now=NOW)
    assert (info.value.code, info.value.path) == ("INVALID_UTF8", "request_json")
    with pytest.raises(kuatia.InvalidUtf8Error):
        kuatia.cdc_parse("\udcff" * 44)


def test_peak_rss_is_bounded() -> None:
    """Runs after the table (pytest keeps file order; this file is collected first): the 100 MB inputs are built
    here and refused unread, so the process never holds more than a few copies of them."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    assert peak < RSS_BOUND_KB, f"peak RSS {peak // 1024} MiB"
