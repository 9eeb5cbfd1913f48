"""The built-in production kind: `noop`, for checking a deployment end to end.

`ocrqueue tasks enqueue noop` on any machine proves the database, a worker's claim and its
completion work, without a document; it also measures the queue's own overhead (bench/queue.py).
The kinds that crash, hang or write files on demand live in `harness_kinds.py`, for tests only.
"""

from __future__ import annotations

from ocrqueue.queue.context import TaskContext
from ocrqueue.queue.models import JSON
from ocrqueue.queue.registry import Registry

NOOP = "noop"


def noop(ctx: TaskContext) -> JSON:
    """Does nothing: measures the queue's own overhead."""
    return None


def register_builtin_kinds(registry: Registry) -> Registry:
    registry.register(NOOP, noop)
    return registry
