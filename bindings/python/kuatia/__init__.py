"""kuatia: Paraguayan electronic invoices (SIFEN / e-Kuatia) from Python, over the C library ``libkuatia``.

A thin ctypes layer: every rule lives in the Rust core, this module converts types and errors. Text inputs are
``str`` (or UTF-8 ``bytes``), JSON inputs are ``dict`` (or JSON text), failures raise :class:`KuatiaError`
subclasses carrying the stable code, the field path and every finding.

>>> import kuatia
>>> kuatia.ruc_dv("80069563")
1
"""

from __future__ import annotations

import ctypes
import json
import secrets
import threading
from ctypes import byref, c_bool, c_uint8, c_void_p
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, List, Optional, Union

from . import _ffi
from ._abi import KudeFormat
from ._ffi import Bytes, Text, arg, call, call_bytes, json_arg, lib, take
from .errors import (
    Finding,
    InvalidArgumentError,
    InvalidInputError,
    InvalidUtf8Error,
    KuatiaError,
    PanicError,
    SignError,
    Status,
    TooLargeError,
)

__all__ = [
    "ApiError",
    "codes",
    "Finding",
    "InvalidArgumentError",
    "InvalidInputError",
    "InvalidUtf8Error",
    "Issued",
    "KuatiaError",
    "PanicError",
    "Page",
    "Report",
    "Response",
    "Service",
    "SifenOutcome",
    "SignError",
    "Signer",
    "Status",
    "TooLargeError",
    "Verification",
    "cdc_build",
    "cdc_parse",
    "issue",
    "get_language",
    "kude_pdf",
    "localize",
    "numbering_key",
    "paraguay_now",
    "preview_xml",
    "qr_build",
    "qr_parse",
    "random_security_code",
    "ruc_check",
    "ruc_dv",
    "rules",
    "sifen_describe",
    "sifen_event_sign",
    "sifen_parse_response",
    "sifen_request",
    "set_language",
    "sign",
    "totals",
    "validate",
    "verify",
    "version",
]

Json = Union[Dict[str, Any], str, bytes]
"""A JSON input: a dict, or JSON text."""
Now = Union[str, datetime, None]
"""Paraguay local time: ``"YYYY-MM-DDThh:mm:ss"``, a datetime (aware ones are converted), or None for the clock."""

_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S"


def version() -> str:
    """The version of the loaded libkuatia (``"0.1.0"``)."""
    return (lib.kuatia_version() or b"").decode()


def set_language(lang: str) -> None:
    """Chooses the language of every message this module reads from now on: ``"es"`` (Spanish of Paraguay, the
    default) or ``"en"``; any tag the library parses (``"es-PY"``, ``"en-US"``), an unknown one reads as Spanish."""
    if not isinstance(lang, str):
        raise TypeError(f"lang must be str, not {type(lang).__name__}")
    _ffi.language = lang


def get_language() -> str:
    """The language chosen with :func:`set_language` (``"es"`` by default)."""
    return _ffi.language


def localize(report: Union[Json, List[Any]], lang: Optional[str] = None) -> Any:
    """A report kuatia wrote (a validation report, a verification, a findings list; dict, list or JSON text) with
    every finding's message rendered again in ``lang`` (None: the module's language), for one reader's language."""
    if isinstance(report, list):
        report = json.dumps(report, ensure_ascii=False)
    return _json_out(call_bytes(lib.kuatia_findings_localize, *json_arg(report, "report"), _ffi.lang_arg(lang)))


def codes() -> List[Dict[str, str]]:
    """Every error code kuatia answers with, ``[{"code", "description"}]``: the core's one registry."""
    return _json_out(call_bytes(lib.kuatia_error_codes))


def rules() -> List[Dict[str, Any]]:
    """Every rule a finding can name, ``[{"rule", "code", "params": [{"name", "kind"}]}]``: the core's one registry
    (docs/errors.md), for an application that writes its own text from a finding's ``rule`` and ``params``."""
    return _json_out(call_bytes(lib.kuatia_rules))


def paraguay_now() -> str:
    """The current Paraguay local time as kuatia expects it (``YYYY-MM-DDThh:mm:ss``); the host owns the clock."""
    from zoneinfo import ZoneInfo

    return datetime.now(ZoneInfo("America/Asuncion")).strftime(_TIME_FORMAT)


def _now(now: Now) -> str:
    if now is None:
        return paraguay_now()
    if isinstance(now, datetime):
        if now.tzinfo is not None:
            from zoneinfo import ZoneInfo

            now = now.astimezone(ZoneInfo("America/Asuncion"))
        return now.strftime(_TIME_FORMAT)
    if isinstance(now, (str, bytes)):
        return now if isinstance(now, str) else now.decode("utf-8", "surrogateescape")
    raise TypeError(f"now must be str, datetime or None, not {type(now).__name__}")


def random_security_code() -> int:
    """A security code (``dCodSeg``) draw from the OS CSPRNG; the library maps it into 1..999999999."""
    return secrets.randbits(32)


def _u32(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be int, not {type(value).__name__}")
    if not 0 <= value <= 0xFFFFFFFF:
        raise ValueError(f"{name} must fit in 32 bits, got {value}")
    return value


def _json_out(data: bytes) -> Any:
    return json.loads(data.decode("utf-8"))


# --- identifiers ---------------------------------------------------------------------------------------------


def ruc_dv(body: Text) -> int:
    """The mod-11 check digit (DV) of a RUC body: ``ruc_dv("80069563") == 1``. Raises InvalidInputError."""
    dv = c_uint8()
    call(lib.kuatia_ruc_dv, *arg(body, "body"), byref(dv))
    return dv.value


def ruc_check(ruc: Text) -> bool:
    """True when ``ruc`` (``"80069563-1"``) is a well-formed RUC with the right DV, False otherwise."""
    try:
        call(lib.kuatia_ruc_check, *arg(ruc, "ruc"))
    except InvalidInputError:
        return False
    return True


def cdc_build(fields: Json) -> str:
    """The 44-digit CDC from its fields (``tipo_documento``, ``ruc``, ``establecimiento``, ``punto``, ``numero``,
    ``tipo_contribuyente``, ``fecha`` ``YYYY-MM-DD``, ``tipo_emision``, ``codigo_seguridad``)."""
    return call_bytes(lib.kuatia_cdc_build, *json_arg(fields, "fields")).decode()


def cdc_parse(cdc: Text) -> Dict[str, Any]:
    """Checks a CDC and returns its parts (``cdc``, ``grouped``, ``dv`` and the fields). Raises InvalidInputError."""
    return _json_out(call_bytes(lib.kuatia_cdc_parse, *arg(cdc, "cdc")))


# --- invoices ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """A validation report: ``ok`` is True when ``errors`` is empty."""

    ok: bool
    errors: List[Finding] = field(default_factory=list)


def validate(request: Json, profile: Optional[Json] = None, now: Now = None) -> Report:
    """Validates a request (the body of ``POST /v1/facturas``) against ``profile`` (None: the sandbox profile) at
    ``now``. A request with problems is a Report with ``ok=False``; bad arguments (profile, now) raise."""
    report = call_bytes(
        lib.kuatia_invoice_validate,
        *json_arg(request, "request"),
        *json_arg(profile, "profile"),
        *arg(_now(now), "now"),
    )
    raw = localize(report)
    return Report(bool(raw["ok"]), [Finding.from_json(e) for e in raw["errors"]])


def totals(request: Json) -> Dict[str, Any]:
    """Item values and document totals (``{"tipo_documento","moneda","items","totales"}``, amounts as strings)."""
    return _json_out(call_bytes(lib.kuatia_invoice_totals, *json_arg(request, "request")))


def numbering_key(request: Json, profile: Optional[Json] = None, now: Now = None) -> Dict[str, Any]:
    """The numbering sequence (``tipo_documento``, ``timbrado``, ``establecimiento``, ``punto``) the request draws
    its number from; reserve the next number of it before :func:`issue`."""
    return _json_out(
        call_bytes(
            lib.kuatia_invoice_numbering_key,
            *json_arg(request, "request"),
            *json_arg(profile, "profile"),
            *arg(_now(now), "now"),
        )
    )


def preview_xml(
    request: Json,
    numero: int,
    codigo_seguridad: int,
    profile: Optional[Json] = None,
    now: Now = None,
) -> str:
    """The unsigned ``rDE`` XML the request would become (no signature, no QR), with the CDC issuing will give."""
    return call_bytes(
        lib.kuatia_invoice_preview_xml,
        *json_arg(request, "request"),
        *json_arg(profile, "profile"),
        *arg(_now(now), "now"),
        _u32(numero, "numero"),
        _u32(codigo_seguridad, "codigo_seguridad"),
    ).decode()


@dataclass(frozen=True)
class Issued:
    """An issued document: the signed ``rDE`` ``xml`` and its ``cdc``, ``numero``, ``qr``, ``digest_value``,
    ``fecha_emision``."""

    xml: str
    cdc: str
    numero: str
    qr: str
    digest_value: str
    fecha_emision: str


def issue(
    request: Json,
    signer: "Signer",
    numero: int,
    codigo_seguridad: Optional[int] = None,
    profile: Optional[Json] = None,
    now: Now = None,
) -> Issued:
    """Validates, builds, signs and QR-completes one document. ``numero`` is reserved by the caller from the
    sequence :func:`numbering_key` names; ``codigo_seguridad`` defaults to a CSPRNG draw (never pass a counter).
    ``profile`` None is the built-in sandbox profile (TEST ONLY). Raises InvalidInputError with every finding."""
    code = random_security_code() if codigo_seguridad is None else codigo_seguridad
    req, prof, now_b = json_arg(request, "request"), json_arg(profile, "profile"), arg(_now(now), "now")
    xml, summary = Bytes(), Bytes()
    with _InUse(signer) as handle:
        call(
            lib.kuatia_invoice_issue,
            *req,
            *prof,
            handle,
            *now_b,
            _u32(numero, "numero"),
            _u32(code, "codigo_seguridad"),
            byref(xml),
            byref(summary),
        )
    text = take(xml).decode()
    s = _json_out(take(summary))
    return Issued(text, s["cdc"], s["numero"], s["qr"], s["digest_value"], s["fecha_emision"])


# --- signing -------------------------------------------------------------------------------------------------


class Signer:
    """A signing key and its certificate (``kuatia_signer``). Use it as a context manager or call :meth:`close`;
    it is also freed when garbage-collected. One signer may be used by several threads at once."""

    def __init__(self, handle: c_void_p) -> None:
        """Wraps a live handle; use :meth:`from_p12`, :meth:`from_pem` or :meth:`sandbox` instead."""
        self._handle: Optional[c_void_p] = handle
        self._users = 0
        self._cond = threading.Condition()

    @classmethod
    def from_p12(cls, p12: bytes, password: Text) -> "Signer":
        """Loads a PKCS#12 (``.p12``/``.pfx``) key and certificate. Raises SignError (``P12_INVALID``,
        ``P12_WRONG_PASSWORD``, ``KEY_UNSUPPORTED``, ...); the password is never part of the message."""
        if not isinstance(p12, (bytes, bytearray, memoryview)):
            raise TypeError(f"p12 must be bytes, not {type(p12).__name__}")
        handle = c_void_p()
        call(lib.kuatia_signer_from_p12, *arg(p12, "p12"), *arg(password, "password"), byref(handle))
        return cls(handle)

    @classmethod
    def from_pem(cls, key_pem: Text, cert_pem: Text) -> "Signer":
        """Loads an unencrypted PEM private key and a PEM certificate."""
        handle = c_void_p()
        call(lib.kuatia_signer_from_pem, *arg(key_pem, "key_pem"), *arg(cert_pem, "cert_pem"), byref(handle))
        return cls(handle)

    @classmethod
    def sandbox(cls) -> "Signer":
        """TEST ONLY: the public sandbox key and self-signed certificate (SIFEN rejects its signatures)."""
        handle = c_void_p()
        call(lib.kuatia_signer_sandbox, byref(handle))
        return cls(handle)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self._handle is None

    def close(self) -> None:
        """Frees the key (wiped by the library); waits for calls running in other threads. Idempotent."""
        cond = getattr(self, "_cond", None)
        if cond is None:  # __init__ did not finish
            return
        with cond:
            while self._users:
                cond.wait()
            handle, self._handle = self._handle, None
        if handle is not None:
            lib.kuatia_signer_free(handle)

    def sign(self, xml: Text, id: Text) -> str:
        """Signs the element whose ``Id`` is ``id`` (enveloped XMLDSig, RSA-SHA256, exclusive C14N)."""
        return sign(xml, id, self)

    def __enter__(self) -> "Signer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


class _InUse:
    """Holds a signer open for one call (``close`` in another thread waits instead of freeing under it)."""

    def __init__(self, signer: Signer) -> None:
        if not isinstance(signer, Signer):
            raise TypeError(f"signer must be a kuatia.Signer, not {type(signer).__name__}")
        self.signer = signer

    def __enter__(self) -> c_void_p:
        s = self.signer
        with s._cond:
            if s._handle is None:
                raise ValueError("the signer is closed")
            s._users += 1
            return s._handle

    def __exit__(self, *exc: Any) -> None:
        s = self.signer
        with s._cond:
            s._users -= 1
            s._cond.notify_all()


def sign(xml: Text, id: Text, signer: Signer) -> str:
    """Signs the element of ``xml`` whose ``Id`` attribute is ``id`` and returns the document with its Signature."""
    x, i = arg(xml, "xml"), arg(id, "id")
    with _InUse(signer) as handle:
        return call_bytes(lib.kuatia_xml_sign, *x, *i, handle).decode()


@dataclass(frozen=True)
class Verification:
    """The verdict on a signature (``valid``) and the library's full ``report`` (``digest_ok``,
    ``signature_ok``, ``certificate``, ``reference_id``, ``error``, ...)."""

    valid: bool
    report: Dict[str, Any]


def verify(xml: Text, at: Now = None) -> Verification:
    """Verifies the first XMLDSig signature of ``xml``; ``at`` (optional) is when the certificate must have been
    valid. An invalid signature is a Verification with ``valid=False``, not an exception."""
    valid = c_bool(False)
    at_arg = arg(_now(at), "at") if at is not None else (None, 0)
    report = call_bytes(lib.kuatia_xml_verify, *arg(xml, "xml"), *at_arg, byref(valid))
    return Verification(bool(valid.value), _json_out(report))


# --- QR and KuDE ---------------------------------------------------------------------------------------------


def qr_build(fields: Json) -> str:
    """The ``dCarQR`` URL from its parts (``cdc``, ``fecha_emision``, ``receptor``, ``total``, ``total_iva``,
    ``items``, ``digest_value``, ``csc_id``, ``csc``, ``ambiente``)."""
    return call_bytes(lib.kuatia_qr_build, *json_arg(fields, "fields")).decode()


def qr_parse(dcarqr: Text, csc: Optional[Text] = None) -> Dict[str, Any]:
    """The parts of a ``dCarQR``; with ``csc`` also ``hash_ok`` (the ``cHashQR`` check)."""
    return _json_out(call_bytes(lib.kuatia_qr_parse, *arg(dcarqr, "dcarqr"), *arg(csc, "csc")))


# --- SIFEN web services ------------------------------------------------------------------------------------


def sifen_request(
    kind: str, arg: Union[Text, List[str], List[Dict[str, Any]]], d_id: int, production: bool = False
) -> Dict[str, Any]:
    """The SOAP request of a SIFEN web service, ``{"service", "url", "content_type", "xml"}`` (plus ``"cdcs"`` for a
    lot), for the host to ``POST`` over mutual TLS. ``kind`` is ``"recibe"`` (``arg``: a signed rDE),
    ``"recibe-lote"`` (a list of signed rDEs, or their JSON array), ``"consulta"`` (a CDC), ``"consulta-lote"``
    (the lot number), ``"consulta-ruc"`` (a RUC) or ``"evento"`` (a list of 1 to 15 signed events as
    :func:`sifen_event_sign` returns them, or their JSON array); ``d_id`` is the request identifier."""
    if isinstance(arg, list):
        arg = json.dumps(arg, ensure_ascii=False)
    if not isinstance(d_id, int) or isinstance(d_id, bool) or not 0 <= d_id < 2**64:
        raise ValueError(f"d_id must be an integer in 0..2**64, not {d_id!r}")
    return _json_out(
        call_bytes(lib.kuatia_sifen_request, *_ffi.arg(kind, "kind"), *_ffi.arg(arg, "arg"), d_id, bool(production))
    )


def sifen_event_sign(event: Json, firmante_ruc: Text, signer: Signer) -> Dict[str, Any]:
    """Builds and signs one SIFEN event from its JSON form (a dict or JSON text with ``"tipo"``: ``cancelacion``,
    ``inutilizacion``, ``nominacion``, ``transporte``, ``notificacion_recepcion``, ``conformidad``,
    ``disconformidad`` or ``desconocimiento``; ``"id"``; ``"fecha_firma"`` in Paraguay local time; and the fields of
    its kind) and returns ``{"id", "kind", "cdc", "xml"}`` for :func:`sifen_request` ``"evento"``. ``firmante_ruc`` is
    who must sign: the emitter for emitter events, the receiver for receiver events; the signer's certificate must
    carry that RUC. Raises InvalidInputError with every finding (``SIFEN_EVENT_INVALID``, ``SIFEN_EVENT_SIGNER``,
    ``INVALID_CDC``, ``VALIDATION_ERROR.*``, ...) and its path."""
    e, r = json_arg(event, "event"), arg(firmante_ruc, "firmante_ruc")
    with _InUse(signer) as handle:
        return _json_out(call_bytes(lib.kuatia_sifen_event_sign, *e, *r, handle))


def sifen_parse_response(data: Text) -> Dict[str, Any]:
    """SIFEN's answer (the SOAP XML of the HTTP response) as ``{"service", "result", "action"}``: the typed result
    and what it means for the invoice lifecycle. Raises InvalidInputError (``SIFEN_UNEXPECTED_RESPONSE``,
    ``SIFEN_SOAP_FAULT``) for anything else."""
    return _json_out(call_bytes(lib.kuatia_sifen_parse_response, *_ffi.arg(data, "bytes")))


def sifen_describe(code: Text, lang: Optional[str] = None) -> Optional[Dict[str, str]]:
    """What a SIFEN response code means and its usual fix, ``{"code", "meaning", "fix"}``, in ``lang`` (None: the
    language chosen with set_language); None when undocumented."""
    return _json_out(
        call_bytes(lib.kuatia_sifen_describe_in, *_ffi.arg(code, "code"), _ffi.lang_arg(lang))
    )


_FORMATS = {f.name.lower(): int(f) for f in KudeFormat}  # kuatia_kude_format, from _abi.py


def kude_pdf(xml: Text, format: str = "a4", preview: bool = False) -> bytes:
    """The KuDE (printed representation) of a signed ``rDE`` as PDF bytes; ``format`` is ``"a4"`` or ``"ticket"``;
    ``preview`` adds a "not valid" watermark for documents SIFEN has not approved."""
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {sorted(_FORMATS)}, not {format!r}")
    return call_bytes(lib.kuatia_kude_pdf, *arg(xml, "xml"), _FORMATS[format], bool(preview))


LIB_PATH = _ffi.LIB_PATH
"""The path of the loaded libkuatia."""

# Last: service.py builds on Signer and _InUse above.
from .service import ApiError, Page, Response, Service, SifenOutcome  # noqa: E402

del ctypes
