"""What can go wrong in a service call, as the adapters need to tell it: each error names its kind
(not found, conflict, invalid input, ...), a stable code and a message for people; `field` says which
input was wrong. The API maps the kind to an HTTP status, the CLI to a message and an exit code."""

from __future__ import annotations

from ocrqueue.storage import StorageFullError


class ServiceError(Exception):
    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.field = code, message, field


class NotFound(ServiceError):
    """No such task (or not the caller's), asset, page or result."""


class Conflict(ServiceError):
    """The task is in a state that does not allow this (finished, running, not dead-lettered...)."""


class InvalidInput(ServiceError):
    """The request's values are wrong: options, question, an empty or unreadable file."""


class UnsupportedInput(ServiceError):
    """The file is of a type this kind does not take."""


class TooLarge(ServiceError):
    """The file is over its size limit; nothing was stored."""


class NotConfigured(ServiceError):
    """The installation lacks what this needs (e.g. a model server for vision tasks)."""


__all__ = [
    "Conflict",
    "InvalidInput",
    "NotConfigured",
    "NotFound",
    "ServiceError",
    "StorageFullError",
    "TooLarge",
    "UnsupportedInput",
]
