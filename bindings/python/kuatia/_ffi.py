"""Loading libkuatia (its ctypes declarations are generated: ``_abi.py``) and the helpers every call shares.

Everything here is private: the public API lives in ``kuatia/__init__.py``.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from ctypes import POINTER, byref, c_char_p, c_void_p
from pathlib import Path
from typing import Any, Callable, Optional, Union

from ._abi import Bytes, declare
from .errors import Finding, KuatiaError, error_class

_PKG_DIR = Path(__file__).resolve().parent
_LIB_NAMES = {"darwin": "libkuatia.dylib", "win32": "kuatia.dll"}
LIB_NAME = _LIB_NAMES.get(sys.platform, "libkuatia.so")


def _candidates() -> list[Path]:
    """Where the library is looked for, in order: $KUATIA_LIB, the copy bundled in the package, the repo's target."""
    found: list[Path] = []
    env = os.environ.get("KUATIA_LIB")
    if env:
        found.append(Path(env))
    found.append(_PKG_DIR / LIB_NAME)
    repo = _PKG_DIR.parent.parent.parent  # bindings/python/kuatia -> repository root
    found += [repo / "target" / profile / LIB_NAME for profile in ("release", "debug")]
    return found


def _load() -> ctypes.CDLL:
    env = os.environ.get("KUATIA_LIB")
    if env and not Path(env).is_file():
        # An explicit choice that does not exist is a mistake, not a reason to silently use another copy.
        raise ImportError(f"KUATIA_LIB={env} does not exist")
    for path in _candidates():
        if path.is_file():
            return ctypes.CDLL(str(path))
    tried = ", ".join(str(p) for p in _candidates())
    raise ImportError(
        f"libkuatia not found (tried {tried}); build it with `cargo build -p kuatia-ffi --release` "
        "or set KUATIA_LIB to its path"
    )


lib = _load()
LIB_PATH: str = lib._name
declare(lib)  # every restype/argtypes, generated from include/kuatia.abi.json (_abi.py)

_err_p = POINTER(c_void_p)  # kuatia_error ** (the error itself is opaque)
_bytes_p = POINTER(Bytes)
_u8 = c_char_p  # const uint8_t *: Python bytes (b"" is a valid empty pointer, None is NULL)


Text = Union[str, bytes, bytearray, memoryview]


def arg(value: Optional[Text], name: str) -> tuple[Optional[bytes], int]:
    """A ``(ptr, len)`` input: str is encoded as UTF-8, bytes are passed as they are (the library checks UTF-8).

    Lone surrogates are passed through (``surrogatepass``) so the library reports ``INVALID_UTF8`` for them as it
    does for any other invalid input, instead of a Python-only error.
    """
    if value is None:
        return None, 0
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
    else:
        raise TypeError(f"{name} must be str or bytes, not {type(value).__name__}")
    return data, len(data)


def json_arg(value: Any, name: str) -> tuple[Optional[bytes], int]:
    """A JSON input: a dict/list is serialized; str or bytes are taken as JSON text already."""
    if value is None or isinstance(value, (str, bytes, bytearray, memoryview)):
        return arg(value, name)
    if not isinstance(value, (dict, list)):
        raise TypeError(f"{name} must be a dict or JSON text, not {type(value).__name__}")
    return arg(json.dumps(value, ensure_ascii=False, separators=(",", ":")), name)


def _text(p: Optional[bytes]) -> str:
    return p.decode("utf-8", "replace") if p is not None else ""


# The language messages are read in (kuatia.set_language); a tag the library parses (`es`, `en`, `es-PY`, ...).
language = "es"


def lang_arg(lang: Optional[str]) -> bytes:
    """The NUL-terminated tag of ``lang`` (None: the module's language)."""
    tag = language if lang is None else lang
    if not isinstance(tag, str):
        raise TypeError(f"lang must be str, not {type(tag).__name__}")
    return tag.encode("utf-8", "replace").replace(b"\0", b"")


def raise_for(status: int, err: c_void_p) -> None:
    """Turns a failed call's status and ``kuatia_error`` into the matching exception, freeing the error."""
    if status == 0:
        return
    try:
        if not err.value:
            raise error_class(status)(status, "UNKNOWN", f"kuatia call failed with status {status}", "", [])
        # The error's own status is authoritative (the same number the call returned).
        status = lib.kuatia_error_status(err)
        code = _text(lib.kuatia_error_code(err))
        lang = lang_arg(None)
        message = _text(lib.kuatia_error_message_in(err, lang))
        path = _text(lib.kuatia_error_path(err))
        rule = _text(lib.kuatia_error_rule(err)) or "unclassified"
        raw = lib.kuatia_error_json_in(err, lang)
        findings = [Finding.from_json(f) for f in json.loads(_text(raw) or "[]")]
    finally:
        lib.kuatia_error_free(err)
    raise error_class(status)(status, code, message, path, findings, rule)


def call(fn: Callable[..., int], *args: Any) -> None:
    """Calls ``fn(*args, &err)`` and raises on failure."""
    err = c_void_p()
    status = fn(*args, byref(err))
    raise_for(status, err)


def take(buf: Bytes) -> bytes:
    """Copies an owned buffer into Python and frees it."""
    try:
        return ctypes.string_at(buf.ptr, buf.len) if buf.ptr else b""
    finally:
        lib.kuatia_bytes_free(byref(buf))


def call_bytes(fn: Callable[..., int], *args: Any) -> bytes:
    """Calls ``fn(*args, &out, &err)`` and returns the owned buffer's content."""
    out = Bytes()
    call(fn, *args, byref(out))
    return take(out)
