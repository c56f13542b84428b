"""The in-process ``/v1`` service (``kuatia_service``): accounts, API keys, invoices, KuDE and webhooks kept in
memory, answering HTTP-shaped requests without a server.

Conversions only: the clock reading (Unix seconds) and a 32-byte seed from :func:`secrets.token_bytes` are passed
on each call, as the C API asks; every rule lives in the Rust core.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from ctypes import byref, c_void_p
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Dict, Iterable, List, Mapping, Optional, Tuple, Union
from urllib.parse import quote

from . import Signer, _InUse, _ffi
from ._abi import SifenOutcome as _Outcome
from ._ffi import Bytes, Text, arg, call, call_bytes, json_arg, lib, take

SEED_LEN = 32
"""``KUATIA_SEED_LEN``: bytes of fresh CSPRNG output passed with each call."""

When = Union[int, float, datetime, None]
"""A moment: Unix seconds, a datetime (naive ones are taken as local time), or None for the system clock."""
Headers = Union[Mapping[str, str], Iterable[Tuple[str, str]], None]
"""Request headers: a dict, or (name, value) pairs (repeats kept)."""
Body = Union[Dict[str, Any], List[Any], str, bytes, bytearray, memoryview, None]
"""A request body: a dict or list (sent as JSON), text, or raw bytes."""


def _unix(now: When) -> int:
    if now is None:
        return int(time.time())
    if isinstance(now, datetime):
        return int(now.timestamp())
    if isinstance(now, bool) or not isinstance(now, (int, float)):
        raise TypeError(f"now must be Unix seconds, a datetime or None, not {type(now).__name__}")
    return int(now)


def _seed() -> bytes:
    return secrets.token_bytes(SEED_LEN)


def _pairs(headers: Headers) -> List[Tuple[str, str]]:
    """Request headers as (name, value) pairs of text, in order (repeats kept)."""
    items = headers.items() if isinstance(headers, Mapping) else headers or []
    return [(str(k), str(v)) for k, v in items]


def _typed_headers(headers: Headers) -> List[Tuple[str, str]]:
    """The headers of a typed call: the caller's, plus ``Accept-Language`` in the language chosen with
    :func:`kuatia.set_language` unless the caller sent one, so an :class:`ApiError` reads like every other error of
    the binding. :meth:`Service.handle` sends exactly what it is given."""
    pairs = _pairs(headers)
    if not any(k.lower() == "accept-language" for k, _ in pairs):
        pairs.append(("Accept-Language", _ffi.language))
    return pairs


@dataclass(frozen=True)
class Response:
    """An answer of the service: HTTP ``status``, ``headers`` as (name, value) pairs, raw ``body`` bytes (JSON
    text, or the PDF of ``GET /v1/facturas/{id}/kude``)."""

    status: int
    headers: List[Tuple[str, str]]
    body: bytes

    def header(self, name: str) -> Optional[str]:
        """The first header with this name (case-insensitive), or None."""
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def json(self) -> Any:
        """The body parsed as JSON (the ``{ok, data, meta, error}`` envelope)."""
        return json.loads(self.body)


@dataclass(frozen=True)
class SifenOutcome:
    """What came of a SIFEN job the host posted (``kuatia_sifen_outcome``). Build it with :meth:`answer` (SIFEN, or
    whatever stands in front of it, answered: the HTTP status and the raw body bytes as received), :meth:`timeout`
    (no answer in time: the request may or may not have been processed) or :meth:`failed` (no answer at all: DNS,
    connection refused, TLS handshake)."""

    ANSWER: ClassVar[int] = _Outcome.ANSWER
    TIMEOUT: ClassVar[int] = _Outcome.TIMEOUT
    FAILED: ClassVar[int] = _Outcome.FAILED

    kind: int
    status: int = 0
    body: bytes = b""
    message: str = ""

    def __post_init__(self) -> None:
        # ctypes would silently truncate a status beyond uint16_t; the kind itself is checked by the library.
        if isinstance(self.status, bool) or not isinstance(self.status, int) or not 0 <= self.status <= 0xFFFF:
            raise ValueError(f"status must be an HTTP status code, not {self.status!r}")
        if not isinstance(self.body, bytes):
            raise TypeError(f"body must be the raw bytes received, not {type(self.body).__name__}")
        if not isinstance(self.message, str):
            raise TypeError(f"message must be str, not {type(self.message).__name__}")

    @classmethod
    def answer(cls, status: int, body: Union[bytes, bytearray, memoryview]) -> "SifenOutcome":
        """SIFEN answered with HTTP ``status`` and ``body`` (the raw bytes, not decoded)."""
        if not isinstance(body, (bytes, bytearray, memoryview)):
            raise TypeError(f"body must be the raw bytes received, not {type(body).__name__}")
        return cls(cls.ANSWER, status, bytes(body))

    @classmethod
    def timeout(cls) -> "SifenOutcome":
        """No answer within the host's timeout."""
        return cls(cls.TIMEOUT)

    @classmethod
    def failed(cls, message: str) -> "SifenOutcome":
        """The call failed before any answer; ``message`` is the transport's."""
        return cls(cls.FAILED, message=message)


class ApiError(Exception):
    """An error answer of the ``/v1`` API raised by the typed calls of :class:`Service` (``handle`` returns it as a
    :class:`Response` instead): the HTTP ``status``, the registry ``code``, ``message`` and the findings
    ``details`` (422)."""

    def __init__(self, status: int, code: str, message: str, details: List[Dict[str, Any]]) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


@dataclass(frozen=True)
class Page:
    """One page of a list: the resources in ``data`` and the list's ``meta`` (``has_more``, ``next_cursor`` for
    ``starting_after``, ``total``, ``page``, ``per_page``)."""

    data: List[Dict[str, Any]]
    meta: Dict[str, Any]

    @property
    def has_more(self) -> bool:
        """Whether rows follow this page."""
        return bool(self.meta.get("has_more"))

    @property
    def next_cursor(self) -> Optional[str]:
        """The ``starting_after`` of the next page (None on the last one)."""
        return self.meta.get("next_cursor")


def _query(params: Mapping[str, Any]) -> str:
    """``?k=v&…`` of the parameters that are not None, percent-encoded; the values are the core's to check."""
    pairs = [f"{quote(k, safe='')}={quote(str(v), safe='')}" for k, v in params.items() if v is not None]
    return "?" + "&".join(pairs) if pairs else ""


def _segment(value: Text, name: str) -> str:
    if isinstance(value, bytes):
        value = value.decode()
    if not isinstance(value, str):
        raise TypeError(f"{name} must be str, not {type(value).__name__}")
    return quote(value, safe="")


class Service:
    """The in-process ``/v1`` service. Use it as a context manager or call :meth:`close`; it is also freed when
    garbage-collected. One service may be used by several threads at once (the library serializes the calls).

    ``config`` (dict, optional): ``base_url`` (for ``kude_url``), ``sandbox_send_after`` and
    ``sandbox_answer_after`` (seconds until the simulated SIFEN receives and answers an invoice created without
    ``_simulate``), ``max_per_page``, ``archive_limit`` (the most documents :meth:`month_archive` zips), and for
    production invoices ``sifen_mode`` (``sync`` or ``lote``), ``sifen_lot_poll_after``, ``sifen_lease`` and
    ``sifen_retry`` (the back-off in seconds). ``sandbox_signer`` signs invoices of ``dk_test_`` keys (None: simulated
    unsigned); ``production_signer`` signs those of ``dk_live_`` keys (None: live invoices are refused). The
    signers stay owned by the caller and must remain open while the service uses them.
    """

    def __init__(
        self,
        config: Optional[Dict[str, Any]] = None,
        *,
        sandbox_signer: Optional[Signer] = None,
        production_signer: Optional[Signer] = None,
    ) -> None:
        self._cond = threading.Condition()
        self._users = 0
        self._handle: Optional[c_void_p] = None
        for name, s in (("sandbox_signer", sandbox_signer), ("production_signer", production_signer)):
            if s is not None and not isinstance(s, Signer):
                raise TypeError(f"{name} must be a kuatia.Signer or None, not {type(s).__name__}")
        self._signers = (sandbox_signer, production_signer)
        handle = c_void_p()
        call(lib.kuatia_service_new, *json_arg(config, "config"), byref(handle))
        self._handle = handle

    # --- life cycle -----------------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self._handle is None

    def close(self) -> None:
        """Frees the service and everything it stores; waits for calls running in other threads. Idempotent."""
        cond = getattr(self, "_cond", None)
        if cond is None:  # __init__ did not get that far
            return
        with cond:
            while self._users:
                cond.wait()
            handle, self._handle = self._handle, None
        if handle is not None:
            lib.kuatia_service_free(handle)

    def __enter__(self) -> "Service":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def _acquire(self) -> c_void_p:
        with self._cond:
            if self._handle is None:
                raise ValueError("the service is closed")
            self._users += 1
            return self._handle

    def _release(self) -> None:
        with self._cond:
            self._users -= 1
            self._cond.notify_all()

    # --- calls ----------------------------------------------------------------------------------------------

    def create_account(self, name: Text, now: When = None) -> Dict[str, str]:
        """Creates an account with the built-in sandbox profile: ``{"account_id": "acct_…", "key": "dk_test_…"}``.
        The key is shown only here."""
        n, t = arg(name, "name"), _unix(now)
        h = self._acquire()
        try:
            out = call_bytes(lib.kuatia_service_create_account, h, *n, t, *arg(_seed(), "seed"))
        finally:
            self._release()
        return json.loads(out)

    def create_key(self, account_id: Text, live: bool = False, now: When = None) -> str:
        """Adds a ``dk_live_`` (``live``) or ``dk_test_`` key to an account and returns it (shown only here).
        Raises InvalidInputError ``NOT_FOUND`` for an unknown account."""
        a, t = arg(account_id, "account_id"), _unix(now)
        h = self._acquire()
        try:
            out = call_bytes(lib.kuatia_service_create_key, h, *a, bool(live), t, *arg(_seed(), "seed"))
        finally:
            self._release()
        return out.decode()

    def handle(
        self,
        method: str,
        path: str,
        headers: Headers = None,
        body: Body = None,
        now: When = None,
    ) -> Response:
        """Handles one request of the ``/v1`` API and returns the answer. HTTP errors (401, 404, 422, ...) are
        answers, not exceptions; exceptions are for bad arguments only."""
        request = {"method": method, "path": path, "headers": [list(p) for p in _pairs(headers)]}
        if isinstance(body, (dict, list)):
            raw: Optional[bytes] = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        elif body is None:
            raw = None
        else:
            raw = arg(body, "body")[0]
        r, t = json_arg(request, "request"), _unix(now)
        sandbox, production = self._signers
        head, out = Bytes(), Bytes()
        h = self._acquire()
        try:
            with _Signers(sandbox, production) as (sp, pp):
                call(
                    lib.kuatia_service_handle,
                    *(h, *r, raw, len(raw or b""), t, *arg(_seed(), "seed"), sp, pp, byref(head), byref(out)),
                )
        finally:
            self._release()
        meta = json.loads(take(head))
        data = take(out)
        return Response(meta["status"], [(k, v) for k, v in meta["headers"]], data)

    def tick(self, now: When = None) -> None:
        """Advances the sandbox's simulated SIFEN to ``now`` (each request does it too), queueing webhooks."""
        t = _unix(now)
        h = self._acquire()
        try:
            call(lib.kuatia_service_tick, h, t, *arg(_seed(), "seed"))
        finally:
            self._release()

    def due_deliveries(self, now: When = None) -> List[Dict[str, Any]]:
        """Webhook deliveries due at ``now``: POST each ``body`` with its ``headers`` (signed) to its ``url``, then
        call :meth:`report_delivery` with its ``id``."""
        t = _unix(now)
        h = self._acquire()
        try:
            out = call_bytes(lib.kuatia_service_due_deliveries, h, t)
        finally:
            self._release()
        return json.loads(out)

    def report_delivery(self, delivery_id: Text, ok: bool) -> Dict[str, Any]:
        """Records one delivery attempt (``ok``: the receiver answered 2xx); returns the delivery with its new
        ``status`` (``delivered``, ``pending`` with the next ``next_attempt_at``, or ``failed``)."""
        d = arg(delivery_id, "delivery_id")
        h = self._acquire()
        try:
            out = call_bytes(lib.kuatia_service_report_delivery, h, *d, bool(ok))
        finally:
            self._release()
        return json.loads(out)

    def set_production_profile(self, account_id: Text, profile: Union[Dict[str, Any], Text, None] = None) -> None:
        """Sets the emitter profile (dict or JSON text, as for :func:`kuatia.validate`) the account's ``dk_live_``
        keys issue with; None: the built-in sandbox profile in SIFEN's test environment (TEST ONLY). Raises
        InvalidInputError ``NOT_FOUND`` for an unknown account, or with paths under ``profile`` for a bad one."""
        a, p = arg(account_id, "account_id"), json_arg(profile, "profile")
        h = self._acquire()
        try:
            call(lib.kuatia_service_set_production_profile, h, *a, *p)
        finally:
            self._release()

    def due_sifen(self, limit: int, now: When = None) -> List[Dict[str, Any]]:
        """The SIFEN calls due at ``now`` for production invoices (at most ``limit`` invoices): ``{"account_id",
        "service", "url", "content_type", "body", "d_id", "invoices"}``. POST each ``body`` with that Content-Type
        to ``url`` over TLS 1.2 with the emitter's certificate, then call :meth:`report_sifen` with the job and
        what came of it. A job never reported is not resent: its invoices are queried by CDC after a lease."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValueError(f"limit must be a non-negative int, not {limit!r}")
        t = _unix(now)
        h = self._acquire()
        try:
            out = call_bytes(lib.kuatia_service_due_sifen, h, t, *arg(_seed(), "seed"), limit)
        finally:
            self._release()
        return json.loads(out)

    def report_sifen(
        self, job: Union[Dict[str, Any], Text], outcome: SifenOutcome, now: When = None
    ) -> List[Dict[str, Any]]:
        """Reports what came of a job of :meth:`due_sifen` (passed back as it came) and returns where each of its
        invoices stands: ``[{"invoice_id", "status", "transmission": {"next", "due_at", "attempts",
        "last_error"?}}]``."""
        if not isinstance(outcome, SifenOutcome):
            raise TypeError(f"outcome must be a SifenOutcome, not {type(outcome).__name__}")
        j, t = json_arg(job, "job"), _unix(now)
        body = outcome.body if outcome.kind == SifenOutcome.ANSWER else None
        message = arg(outcome.message, "message") if outcome.kind == SifenOutcome.FAILED else (None, 0)
        h = self._acquire()
        try:
            out = call_bytes(
                lib.kuatia_service_report_sifen,
                *(h, *j, outcome.kind, outcome.status, body, len(body or b""), *message, t, *arg(_seed(), "seed")),
            )
        finally:
            self._release()
        return json.loads(out)


    # --- typed calls of the /v1 routes: a request for handle(), the envelope decoded --------------------------

    def _call(self, method: str, path: str, headers: Headers, body: Body, now: When) -> Any:
        r = self.handle(method, path, _typed_headers(headers), body, now)
        envelope = r.json()
        if not envelope.get("ok"):
            e = envelope.get("error") or {}
            raise ApiError(r.status, e.get("code", ""), e.get("message", ""), e.get("details", []))
        return envelope

    def create_invoice(
        self, headers: Headers, request: Body, *, idempotency_key: Optional[str] = None, now: When = None
    ) -> Dict[str, Any]:
        """``POST /v1/facturas``: the created invoice. Raises :class:`ApiError` (``VALIDATION_ERROR`` with every
        finding in ``details``, ...)."""
        pairs = _pairs(headers)
        if idempotency_key is not None:
            pairs.append(("Idempotency-Key", idempotency_key))
        return self._call("POST", "/v1/facturas", pairs, request, now)["data"]

    def get_invoice(self, headers: Headers, invoice_id: Text, now: When = None) -> Dict[str, Any]:
        """``GET /v1/facturas/{id}``: the full invoice resource (docs/api.md, "Invoice")."""
        return self._call("GET", f"/v1/facturas/{_segment(invoice_id, 'invoice_id')}", headers, None, now)["data"]

    def invoice_xml(self, headers: Headers, invoice_id: Text, now: When = None) -> bytes:
        """``GET /v1/facturas/{id}/xml``: the signed rDE as sent to SIFEN (bytes)."""
        path = f"/v1/facturas/{_segment(invoice_id, 'invoice_id')}/xml"
        r = self.handle("GET", path, _typed_headers(headers), None, now)
        if r.status != 200:
            e = r.json().get("error") or {}
            raise ApiError(r.status, e.get("code", ""), e.get("message", ""), e.get("details", []))
        return r.body

    def invoice_emails(self, headers: Headers, invoice_id: Text, now: When = None) -> List[Dict[str, Any]]:
        """``GET /v1/facturas/{id}/emails``: the invoice's messages to the buyer, oldest first (``id``, ``kind``,
        ``to``, ``subject``, ``body``, ``status`` ``captured`` in-process: nothing is sent, ``attempts``, ``log``)."""
        path = f"/v1/facturas/{_segment(invoice_id, 'invoice_id')}/emails"
        return self._call("GET", path, headers, None, now)["data"]

    def resend_email(
        self, headers: Headers, invoice_id: Text, to: Optional[str] = None, now: When = None
    ) -> Dict[str, Any]:
        """``POST /v1/facturas/{id}/email``: queues an approved invoice's message again, to ``to`` or (None) to the
        document's ``receptor.email``; the new message. Raises :class:`ApiError` ``KUDE_NOT_AVAILABLE`` (409) unless
        approved, ``VALIDATION_ERROR`` (422) for an address SIFEN would refuse."""
        path = f"/v1/facturas/{_segment(invoice_id, 'invoice_id')}/email"
        return self._call("POST", path, headers, None if to is None else {"to": to}, now)["data"]

    def month_archive(self, headers: Headers, mes: str, now: When = None) -> bytes:
        """``GET /v1/archivo?mes=YYYY-MM``: the zip of the month's signed XMLs and KuDEs, ``index.csv`` and
        ``manifest.json``. Raises :class:`ApiError` ``INVALID_QUERY`` (400) for a bad month or one of more than
        ``archive_limit`` documents (config, default 500)."""
        r = self.handle("GET", "/v1/archivo" + _query({"mes": mes}), _typed_headers(headers), None, now)
        if r.status != 200:
            e = r.json().get("error") or {}
            raise ApiError(r.status, e.get("code", ""), e.get("message", ""), e.get("details", []))
        return r.body

    def list_invoices(
        self,
        headers: Headers,
        *,
        status: Optional[str] = None,
        created_from: Optional[str] = None,
        created_to: Optional[str] = None,
        cdc: Optional[str] = None,
        numero: Optional[str] = None,
        receptor_ruc: Optional[str] = None,
        tipo_documento: Optional[int] = None,
        order: Optional[str] = None,
        limit: Optional[int] = None,
        starting_after: Optional[str] = None,
        now: When = None,
    ) -> Page:
        """``GET /v1/facturas`` with filters (``created_from``/``created_to`` RFC 3339) and cursor paging: pass the
        page's ``next_cursor`` as ``starting_after``. A bad value is :class:`ApiError` ``INVALID_QUERY``."""
        q = _query(
            {
                "status": status,
                "created_from": created_from,
                "created_to": created_to,
                "cdc": cdc,
                "numero": numero,
                "receptor_ruc": receptor_ruc,
                "tipo_documento": tipo_documento,
                "order": order,
                "limit": limit,
                "starting_after": starting_after,
            }
        )
        e = self._call("GET", "/v1/facturas" + q, headers, None, now)
        return Page(e["data"], e.get("meta") or {})

    def create_webhook(
        self, headers: Headers, url: str, events: List[str], description: Optional[str] = None, now: When = None
    ) -> Dict[str, Any]:
        """``POST /v1/webhooks``: the webhook with its signing ``secret`` (shown only here)."""
        body: Dict[str, Any] = {"url": url, "events": events}
        if description is not None:
            body["description"] = description
        return self._call("POST", "/v1/webhooks", headers, body, now)["data"]

    def get_webhook(self, headers: Headers, webhook_id: Text, now: When = None) -> Dict[str, Any]:
        """``GET /v1/webhooks/{id}`` (no secret)."""
        return self._call("GET", f"/v1/webhooks/{_segment(webhook_id, 'webhook_id')}", headers, None, now)["data"]

    def delete_webhook(self, headers: Headers, webhook_id: Text, now: When = None) -> Dict[str, Any]:
        """``DELETE /v1/webhooks/{id}``: ``{"id", "deleted": True}``; its pending deliveries are cancelled."""
        path = f"/v1/webhooks/{_segment(webhook_id, 'webhook_id')}"
        return self._call("DELETE", path, headers, None, now)["data"]

    def rotate_webhook(self, headers: Headers, webhook_id: Text, now: When = None) -> Dict[str, Any]:
        """``POST /v1/webhooks/{id}/rotate``: the webhook with its new ``secret`` and
        ``previous_secret_expires_at`` (both secrets sign until then)."""
        path = f"/v1/webhooks/{_segment(webhook_id, 'webhook_id')}/rotate"
        return self._call("POST", path, headers, None, now)["data"]

    def deliveries(
        self,
        headers: Headers,
        webhook_id: Text,
        *,
        page: Optional[int] = None,
        limit: Optional[int] = None,
        now: When = None,
    ) -> Page:
        """``GET /v1/webhooks/{id}/deliveries``: the delivery log, newest first, each attempt in ``log``."""
        path = f"/v1/webhooks/{_segment(webhook_id, 'webhook_id')}/deliveries" + _query({"page": page, "limit": limit})
        e = self._call("GET", path, headers, None, now)
        return Page(e["data"], e.get("meta") or {})

    def redeliver(self, headers: Headers, webhook_id: Text, delivery_id: Text, now: When = None) -> Dict[str, Any]:
        """``POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver``: the new delivery of the same event."""
        path = (
            f"/v1/webhooks/{_segment(webhook_id, 'webhook_id')}/deliveries/"
            f"{_segment(delivery_id, 'delivery_id')}/redeliver"
        )
        return self._call("POST", path, headers, None, now)["data"]


class _Signers:
    """Holds the (optional) signers open for one call; yields their handles (None for NULL)."""

    def __init__(self, *signers: Optional[Signer]) -> None:
        self._uses = [_InUse(s) if s is not None else None for s in signers]
        self._entered: List[_InUse] = []

    def __enter__(self) -> Tuple[Optional[c_void_p], ...]:
        handles: List[Optional[c_void_p]] = []
        try:
            for u in self._uses:
                if u is None:
                    handles.append(None)
                else:
                    handles.append(u.__enter__())
                    self._entered.append(u)
        except BaseException:
            self.__exit__()
            raise
        return tuple(handles)

    def __exit__(self, *exc: Any) -> None:
        while self._entered:
            self._entered.pop().__exit__()
