"""Exceptions raised by kuatia: one class per ``kuatia_status``, all carrying code, message, path and findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Type

from ._abi import Status  # kuatia_status, generated from the header (re-exported as kuatia.Status)


@dataclass(frozen=True)
class Finding:
    """One problem: a stable ``code`` (``VALIDATION_ERROR.REQUIRED``), the JSON ``path`` (``items[1].iva``), a message
    in the chosen language (:func:`kuatia.set_language`), the ``rule`` that found it (``ruc.check_digit``;
    ``unclassified`` while its text is still an English sentence) and the rule's ``params``."""

    code: str
    path: str
    message: str
    rule: str = "unclassified"
    params: Dict[str, Any] = field(default_factory=dict, hash=False)

    @classmethod
    def from_json(cls, f: Dict[str, Any]) -> "Finding":
        """A finding from its JSON object (``kuatia_error_json_in``, a validation report)."""
        return cls(f["code"], f["path"], f["message"], f.get("rule", "unclassified"), dict(f.get("params") or {}))


class KuatiaError(Exception):
    """A failed call: ``status``, the first problem's ``code``, ``message`` (in the chosen language), ``path`` and
    ``rule``, and every ``findings``."""

    def __init__(self, status: int, code: str, message: str, path: str, findings: List[Finding],
                 rule: str = "unclassified") -> None:
        super().__init__(f"{code} at {path}: {message}" if path else f"{code}: {message}")
        self.status = Status(status) if status in Status._value2member_map_ else status
        self.code = code
        self.message = message
        self.path = path
        self.findings = findings
        self.rule = rule
        self.params: Dict[str, Any] = findings[0].params if findings else {}


class InvalidArgumentError(KuatiaError, ValueError):
    """A required argument was missing (``INVALID_ARGUMENT``)."""


class InvalidUtf8Error(KuatiaError, UnicodeError):
    """A text input was not valid UTF-8 (``INVALID_UTF8``)."""


class TooLargeError(KuatiaError, ValueError):
    """An input exceeded a size limit (``TOO_LARGE``)."""


class InvalidInputError(KuatiaError, ValueError):
    """The input was read but rejected; ``findings`` lists every problem."""


class SignError(KuatiaError):
    """A key, certificate or signature operation failed (``P12_INVALID``, ``P12_WRONG_PASSWORD``, ...)."""


class PanicError(KuatiaError):
    """A bug inside kuatia was caught at the C boundary; please report it."""


_BY_STATUS: Dict[int, Type[KuatiaError]] = {
    Status.INVALID_ARGUMENT: InvalidArgumentError,
    Status.INVALID_UTF8: InvalidUtf8Error,
    Status.TOO_LARGE: TooLargeError,
    Status.INVALID_INPUT: InvalidInputError,
    Status.SIGN_ERROR: SignError,
    Status.PANIC: PanicError,
}


def error_class(status: int) -> Type[KuatiaError]:
    """The exception class for a status (``KuatiaError`` itself for a number this binding does not know)."""
    return _BY_STATUS.get(status, KuatiaError)
