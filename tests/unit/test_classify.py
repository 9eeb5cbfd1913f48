from __future__ import annotations

import json
import socket

import pytest

from ocrqueue.queue.errors import (
    Classification,
    ErrorKind,
    PermanentError,
    TransientError,
    classify,
    register_classifier,
)


class _Response:
    def __init__(self, status: int, retry_after: str | None = None) -> None:
        self.status_code = status
        self.headers = {"retry-after": retry_after} if retry_after is not None else {}


class HTTPStatusError(Exception):
    """Shaped like httpx.HTTPStatusError / requests.HTTPError: the status is on `.response`."""

    def __init__(self, status: int, retry_after: str | None = None) -> None:
        super().__init__(f"HTTP {status}")
        self.response = _Response(status, retry_after)


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (TransientError("model server busy"), ErrorKind.TRANSIENT),
        (PermanentError("PDF is encrypted"), ErrorKind.PERMANENT),
        (TimeoutError(), ErrorKind.TRANSIENT),
        (ConnectionResetError(), ErrorKind.TRANSIENT),
        (socket.gaierror(), ErrorKind.TRANSIENT),
        (OSError("disk"), ErrorKind.TRANSIENT),
        (ValueError("bad page number"), ErrorKind.PERMANENT),
        (json.JSONDecodeError("x", "doc", 0), ErrorKind.PERMANENT),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"), ErrorKind.PERMANENT),
        (HTTPStatusError(429), ErrorKind.TRANSIENT),
        (HTTPStatusError(503), ErrorKind.TRANSIENT),
        (HTTPStatusError(400), ErrorKind.PERMANENT),
        (RuntimeError("who knows"), ErrorKind.UNKNOWN),
    ],
)
def test_classification_is_by_type(exc: BaseException, kind: ErrorKind) -> None:
    assert classify(exc).kind is kind


def test_message_text_never_decides() -> None:
    assert classify(RuntimeError("timeout connection refused 503")).kind is ErrorKind.UNKNOWN
    assert classify(TransientError("invalid input, permanent")).kind is ErrorKind.TRANSIENT


def test_unknown_is_retried_permanent_is_not() -> None:
    assert classify(RuntimeError()).retryable
    assert not classify(PermanentError("x")).retryable


def test_retry_after_is_carried() -> None:
    assert classify(HTTPStatusError(429, "12")).retry_after == 12.0
    assert classify(HTTPStatusError(503, "soon")).retry_after is None
    assert classify(TransientError("slow down", retry_after=3)).retry_after == 3


def test_registered_rules_answer_first() -> None:
    class VendorError(Exception):
        pass

    register_classifier(lambda exc: Classification(ErrorKind.PERMANENT) if isinstance(exc, VendorError) else None)
    assert classify(VendorError()).kind is ErrorKind.PERMANENT
