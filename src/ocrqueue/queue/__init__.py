"""A durable task queue on SQLite or PostgreSQL: leases with fencing tokens, heartbeats, retries
with backoff, dead letters, cancellation and crash recovery. It knows nothing about OCR."""

from ocrqueue.queue.config import QueueConfig
from ocrqueue.queue.context import TaskContext
from ocrqueue.queue.drivers import open_store
from ocrqueue.queue.errors import (
    LeaseLost,
    PermanentError,
    TaskCancelled,
    TaskDeferred,
    TaskError,
    TransientError,
    WaitingForChildren,
    classify,
    register_classifier,
)
from ocrqueue.queue.migrate import upgrade
from ocrqueue.queue.models import (
    Event,
    EventType,
    Lease,
    SubmitResult,
    Task,
    TaskSpec,
    TaskStatus,
)
from ocrqueue.queue.registry import Registry
from ocrqueue.queue.store import Store
from ocrqueue.queue.worker import Worker

__all__ = [
    "Event",
    "EventType",
    "Lease",
    "LeaseLost",
    "PermanentError",
    "QueueConfig",
    "Registry",
    "Store",
    "SubmitResult",
    "Task",
    "TaskCancelled",
    "TaskContext",
    "TaskDeferred",
    "TaskError",
    "TaskSpec",
    "TaskStatus",
    "TransientError",
    "WaitingForChildren",
    "Worker",
    "classify",
    "open_store",
    "register_classifier",
    "upgrade",
]
