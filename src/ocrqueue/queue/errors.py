"""Error classes a handler raises to tell the queue what to do next.

Classification is by exception type, never by message text (see `classify`).
"""

from __future__ import annotations

import concurrent.futures
import errno
import json
import socket
import sqlite3
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


class TaskError(Exception):
    """Base class of errors with a decided retry policy."""


class TransientError(TaskError):
    """Worth retrying later: timeouts, unreachable services, rate limits, 5xx.

    `retry_after` (seconds), when set, is a lower bound on the wait (e.g. HTTP Retry-After).
    """

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentError(TaskError):
    """Retrying cannot help: invalid input, unsupported format, a bug in the payload."""


class TaskDeferred(Exception):
    """Not a failure: run this task again after `delay_seconds`, without spending an attempt.

    For when a shared dependency is known to be down (an open circuit breaker): the task did
    nothing wrong, so it must not drift towards dead_letter while it waits.
    """

    def __init__(self, reason: str, *, delay_seconds: float) -> None:
        super().__init__(reason)
        self.delay_seconds = max(0.0, delay_seconds)


class LeaseLost(Exception):
    """The worker no longer holds the task: it must stop and discard its work."""


class TaskCancelled(Exception):
    """Raised inside a handler that noticed its task was cancelled."""


class WaitingForChildren(Exception):
    """Raised by `TaskContext.fan_out` once the task has handed its work to children: the task is
    no longer this worker's, and there is nothing left to write."""


class ErrorKind(StrEnum):
    TRANSIENT = "transient"
    PERMANENT = "permanent"
    UNKNOWN = "unknown"
    LEASE_EXPIRED = "lease_expired"
    STALLED = "stalled"
    CRASHED = "crashed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class Classification:
    kind: ErrorKind
    retry_after: float | None = None

    @property
    def retryable(self) -> bool:
        return self.kind is not ErrorKind.PERMANENT


_TRANSIENT_TYPES: tuple[type[BaseException], ...] = (
    TimeoutError,
    ConnectionError,
    socket.gaierror,
    ssl.SSLError,
    concurrent.futures.TimeoutError,
    InterruptedError,
    MemoryError,
)
_PERMANENT_TYPES: tuple[type[BaseException], ...] = (
    ValueError,
    TypeError,
    KeyError,
    LookupError,
    json.JSONDecodeError,
    UnicodeError,
    NotImplementedError,
)

_NO_SPACE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
_PG_DISK_FULL = "53100"  # SQLSTATE disk_full


def out_of_space(exc: BaseException) -> bool:
    """A full disk, by error code: ENOSPC/EDQUOT from the OS, SQLITE_FULL from SQLite, SQLSTATE
    53100 (disk_full) from PostgreSQL. Transient: the same write succeeds once space is freed."""
    if isinstance(exc, OSError):
        return exc.errno in _NO_SPACE_ERRNOS
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    return getattr(exc, "sqlstate", None) == _PG_DISK_FULL


_extra_rules: list[Callable[[BaseException], Classification | None]] = []


def register_classifier(rule: Callable[[BaseException], Classification | None]) -> None:
    """Add a rule for a library's exceptions; the first rule that answers wins."""
    _extra_rules.append(rule)


def _http_status(exc: BaseException) -> int | None:
    """Status code of an HTTP error from httpx or requests, found by attribute, not by message."""
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    value = headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def classify(exc: BaseException) -> Classification:
    """Decide retry policy from the exception's type.

    Order: our own classes; a full disk (`out_of_space`) transient; registered rules; HTTP errors
    by status (408, 425, 429 and 5xx transient, other 4xx permanent); standard-library timeouts and
    connection errors transient; invalid-input errors (ValueError, TypeError, KeyError, decoding
    errors) permanent; anything else unknown, which is retried like a transient error until
    attempts run out.
    """
    if isinstance(exc, TransientError):
        return Classification(ErrorKind.TRANSIENT, exc.retry_after)
    if isinstance(exc, PermanentError):
        return Classification(ErrorKind.PERMANENT)
    if out_of_space(exc):
        return Classification(ErrorKind.TRANSIENT)
    for rule in _extra_rules:
        decided = rule(exc)
        if decided is not None:
            return decided
    status = _http_status(exc)
    if status is not None:
        if status in (408, 425, 429) or status >= 500:
            return Classification(ErrorKind.TRANSIENT, _retry_after(exc))
        if 400 <= status < 500:
            return Classification(ErrorKind.PERMANENT)
    if isinstance(exc, _TRANSIENT_TYPES):
        return Classification(ErrorKind.TRANSIENT)
    if isinstance(exc, _PERMANENT_TYPES):
        return Classification(ErrorKind.PERMANENT)
    if isinstance(exc, OSError):
        return Classification(ErrorKind.TRANSIENT)
    return Classification(ErrorKind.UNKNOWN)
