"""Errors of the model-server client, in the documents layer's own terms.

The service layer maps them onto the queue's policy: `ModelServerUnavailable` (a `ConnectionError`,
so transient by type) is retried with backoff no sooner than its `retry_after`; `ModelCircuitOpen`
means the breaker is open and the task should wait without spending an attempt;
`ModelRequestRejected` is a `DocumentError`, permanent like every other one.
"""

from __future__ import annotations

from ocrqueue.documents.errors import DocumentError


class ModelServerUnavailable(ConnectionError):
    """The model server could not answer now: unreachable, timed out, 408/429/5xx, or a broken answer.

    `retry_after` (seconds) is the server's Retry-After when it sent one.
    """

    def __init__(self, message: str, *, retry_after: float | None = None, endpoint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after
        self.endpoint = endpoint


class ModelCircuitOpen(ModelServerUnavailable):
    """The circuit breaker is open: no request was sent. `retry_after` is the time left to the next probe."""


class ModelRequestRejected(DocumentError):
    """The model server refused this request (4xx other than 408/429): retrying the same request cannot help."""

    code = "model_rejected"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
