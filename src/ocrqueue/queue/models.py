"""Plain data passed across the queue's public interface."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

JSON = Any
"""A JSON-serialisable value."""


class TaskStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    DEAD_LETTER = "dead_letter"

    @property
    def terminal(self) -> bool:
        return self in TERMINAL_STATUSES


TERMINAL_STATUSES = frozenset({TaskStatus.COMPLETED, TaskStatus.CANCELLED, TaskStatus.DEAD_LETTER})


class EventType(StrEnum):
    SUBMITTED = "submitted"
    CLAIMED = "claimed"
    RETRIED = "retried"
    LEASE_LOST = "lease_lost"
    RELEASED = "released"
    COMPLETED = "completed"
    DEAD_LETTERED = "dead_lettered"
    CANCEL_REQUESTED = "cancel_requested"
    CANCELLED = "cancelled"
    REQUEUED = "requeued"
    WARNED = "warned"  # the handler recorded what the task's result should be read with caution for


_id_lock = threading.Lock()
_id_last_millis = 0
_id_sequence = 0


def new_task_id() -> str:
    """A UUIDv7 string: unguessable, and sorted by creation time, which cursor pagination relies on.

    Within one process ids are strictly increasing: a 12-bit counter fills `rand_a` when several
    ids share a millisecond (RFC 9562, section 6.2, method 1).
    """
    global _id_last_millis, _id_sequence
    with _id_lock:
        millis = time.time_ns() // 1_000_000
        if millis <= _id_last_millis:
            millis = _id_last_millis
            _id_sequence += 1
            if _id_sequence > 0xFFF:
                millis += 1
                _id_sequence = 0
        else:
            _id_sequence = int.from_bytes(os.urandom(2), "big") & 0x3FF
        _id_last_millis = millis
        sequence = _id_sequence
    rand = int.from_bytes(os.urandom(8), "big")
    value = (millis & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= sequence << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


@dataclass(frozen=True)
class TaskSpec:
    """What a caller submits."""

    kind: str
    payload: JSON = field(default_factory=dict)
    priority: int = 0
    delay_seconds: float = 0.0
    max_attempts: int | None = None
    """None: the kind's limit, else the store's default (`Store.max_attempts_for`)."""
    dedup_key: str | None = None
    tenant: str | None = None
    note: Mapping[str, JSON] | None = None
    """Recorded as the detail of the task's `submitted` event (who asked, a request id); not on a
    dedup hit, whose task was submitted before."""

    def __post_init__(self) -> None:
        if self.max_attempts is not None and self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")


@dataclass(frozen=True)
class Task:
    id: str
    kind: str
    status: TaskStatus
    priority: int
    payload: JSON
    tenant: str | None
    dedup_key: str | None
    attempts: int
    max_attempts: int
    lease_token: int
    worker_id: str | None
    lease_expires_at: datetime | None
    cancel_requested: bool
    progress_done: int
    progress_total: int | None
    progress_step: str | None
    result: JSON
    error_kind: str | None
    error_message: str | None
    run_at: datetime
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    updated_at: datetime
    parent_id: str | None = None
    """The task that handed part of its work to this one (`Store.fan_out`)."""
    children: int = 0
    """How many children this task handed its work to; 0 for a task that is no parent."""


@dataclass(frozen=True)
class SubmitResult:
    task: Task
    created: bool
    """False when the dedup key matched an existing task, which is returned instead."""


@dataclass(frozen=True)
class Lease:
    """Proof of a claim: every write a worker makes afterwards carries it."""

    task_id: str
    token: int
    worker_id: str


@dataclass(frozen=True)
class ClaimedTask:
    task: Task
    lease: Lease


@dataclass(frozen=True)
class HeartbeatResult:
    held: frozenset[str]
    lost: frozenset[str]
    cancel_requested: frozenset[str]


class FailOutcome(StrEnum):
    RETRY = "retry"
    DEAD_LETTER = "dead_letter"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class FailResult:
    outcome: FailOutcome
    delay_seconds: float | None = None


@dataclass(frozen=True)
class CompleteResult:
    status: TaskStatus
    """COMPLETED, or CANCELLED when a cancel request arrived first (cancellation wins)."""


@dataclass(frozen=True)
class Event:
    id: int
    task_id: str
    type: EventType
    at: datetime
    attempt: int
    lease_token: int
    worker_id: str | None
    detail: Mapping[str, JSON]


@dataclass(frozen=True)
class Checkpoint:
    task_id: str
    seq: int
    data: JSON
    lease_token: int


@dataclass(frozen=True)
class TaskPage:
    tasks: list[Task]
    next_cursor: str | None


@dataclass(frozen=True)
class ReapResult:
    requeued: list[str]
    dead_lettered: list[str]
    cancelled: list[str]

    @property
    def total(self) -> int:
        return len(self.requeued) + len(self.dead_lettered) + len(self.cancelled)


@dataclass(frozen=True)
class WorkerInfo:
    id: str
    host: str
    pid: int
    concurrency: int
    kinds: list[str]
    started_at: datetime
    last_seen_at: datetime
    stopped_at: datetime | None
