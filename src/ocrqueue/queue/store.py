"""The store interface every database driver implements, and the logic they share.

Each operation is one statement (PostgreSQL) or one short transaction (SQLite). Every method a
worker calls after a claim takes the `Lease` and is conditional on id, status='running' and the
lease token; when nothing matched, the caller gets `LeaseLost`.
"""

from __future__ import annotations

import abc
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TypeVar

from ocrqueue.queue.errors import LeaseLost
from ocrqueue.queue.models import (
    JSON,
    Checkpoint,
    ClaimedTask,
    CompleteResult,
    Event,
    FailResult,
    HeartbeatResult,
    Lease,
    ReapResult,
    SubmitResult,
    Task,
    TaskPage,
    TaskSpec,
    TaskStatus,
    WorkerInfo,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

WakeListener = Callable[[], None]
ChangeListener = Callable[[frozenset[str] | None], None]
"""Called with the ids of tasks that changed, or None when any task may have changed."""


class Store(abc.ABC):
    """Durable task storage; safe to share between threads."""

    backend: str
    default_max_attempts: int = 4
    """Attempts for a task whose spec and kind set none (precedence: `max_attempts_for`)."""
    kind_max_attempts: Mapping[str, int] = MappingProxyType({})
    """Per-kind attempt limits (`Registry.attempt_limits()`), applied to specs that set none."""
    reconnect_seconds: float = 60.0
    """How long an operation keeps retrying while the database is unreachable."""

    def __init__(self) -> None:
        self._wake_listeners: list[WakeListener] = []
        self._change_listeners: list[ChangeListener] = []
        self._listeners_lock = threading.Lock()
        self.retry_observers: list[Callable[[str], None]] = []
        """Called with the operation's name each time a database error makes it retry."""

    # -- wake-ups ---------------------------------------------------------------------------
    def add_wake_listener(self, listener: WakeListener) -> None:
        """Call `listener` when new work may be claimable (submit, requeue, retry due)."""
        with self._listeners_lock:
            self._wake_listeners.append(listener)

    def remove_wake_listener(self, listener: WakeListener) -> None:
        with self._listeners_lock:
            if listener in self._wake_listeners:
                self._wake_listeners.remove(listener)

    def _wake_local(self) -> None:
        with self._listeners_lock:
            listeners = list(self._wake_listeners)
        for listener in listeners:
            listener()

    def add_change_listener(self, listener: ChangeListener) -> None:
        """Call `listener` after any task changed, in this process or another, once listening.

        Called on the store's listening thread: it must return at once (set an event, queue ids).
        PostgreSQL names the tasks (a trigger's NOTIFY); SQLite says only that something changed
        (`PRAGMA data_version`), and a reconnection or an overflowing batch says so too.
        """
        with self._listeners_lock:
            self._change_listeners.append(listener)

    def remove_change_listener(self, listener: ChangeListener) -> None:
        with self._listeners_lock:
            if listener in self._change_listeners:
                self._change_listeners.remove(listener)

    @abc.abstractmethod
    def follow(self, follower: str, task_ids: Sequence[str], seconds: float) -> None:
        """Ask for change notices of these tasks for `seconds` (renew before then), dropping what
        expired. PostgreSQL notifies of an updated task only while someone follows it; SQLite's
        notices need no registration. On return, every later change of a task is either notified
        or seen by a read begun after it."""

    @abc.abstractmethod
    def unfollow(self, follower: str, task_ids: Sequence[str]) -> None:
        """Stop asking for change notices of these tasks."""

    def _changed(self, task_ids: frozenset[str] | None) -> None:
        with self._listeners_lock:
            listeners = list(self._change_listeners)
        for listener in listeners:
            listener(task_ids)

    @abc.abstractmethod
    def start_listening(self) -> None:
        """Begin delivering wake-ups and change notices that originate in other processes."""

    # -- connection resilience --------------------------------------------------------------
    @abc.abstractmethod
    def _is_retryable_db_error(self, exc: BaseException) -> bool:
        """A lost connection or a busy database: the same call may succeed on a retry."""

    def _retrying(self, operation: Callable[[], T], what: str) -> T:
        deadline = time.monotonic() + self.reconnect_seconds
        delay = 0.02
        while True:
            try:
                return operation()
            except Exception as exc:
                if not self._is_retryable_db_error(exc) or time.monotonic() + delay > deadline:
                    raise
                log.warning("database unavailable during %s (%s); retrying in %.2fs", what, exc, delay)
                for observer in self.retry_observers:
                    observer(what)
                time.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, 2.0)

    # -- submitting -------------------------------------------------------------------------
    def max_attempts_for(self, spec: TaskSpec) -> int:
        """The attempt limit a task is submitted with: the spec's, else its kind's, else the store's."""
        if spec.max_attempts is not None:
            return spec.max_attempts
        return self.kind_max_attempts.get(spec.kind, self.default_max_attempts)

    def submit(self, spec: TaskSpec) -> SubmitResult:
        return self.submit_many([spec])[0]

    @abc.abstractmethod
    def submit_many(self, specs: Sequence[TaskSpec]) -> list[SubmitResult]:
        """Insert tasks, or return the live task that already holds a spec's dedup key."""

    # -- worker operations ------------------------------------------------------------------
    @abc.abstractmethod
    def claim(
        self, worker_id: str, limit: int, lease_seconds: float, kinds: Sequence[str] | None = None
    ) -> list[ClaimedTask]:
        """Atomically take up to `limit` due pending tasks, highest priority first."""

    @abc.abstractmethod
    def heartbeat(self, worker_id: str, leases: Iterable[Lease], lease_seconds: float) -> HeartbeatResult:
        """Renew every lease in one statement and refresh the worker's registry row."""

    @abc.abstractmethod
    def progress(self, lease: Lease, done: int, total: int | None, step: str | None) -> bool:
        """Record progress; returns whether cancellation was requested. Raises LeaseLost."""

    @abc.abstractmethod
    def checkpoint(self, lease: Lease, seq: int, data: JSON) -> None:
        """Save one unit of partial work (a page) under the lease. Raises LeaseLost."""

    @abc.abstractmethod
    def warn(self, lease: Lease, detail: Mapping[str, JSON]) -> None:
        """Record a `warned` event on the leased task (a page read poorly: ``detail`` says which
        and why), so its history says so beside its lifecycle. Raises LeaseLost."""

    @abc.abstractmethod
    def is_cancel_requested(self, lease: Lease) -> bool:
        """Raises LeaseLost when the lease is gone."""

    def complete(self, lease: Lease, result: JSON = None) -> CompleteResult:
        outcome = self.complete_many([(lease, result)])[lease.task_id]
        if outcome is None:
            raise LeaseLost(f"task {lease.task_id}: lease {lease.token} lost before completion")
        return outcome

    @abc.abstractmethod
    def complete_many(self, items: Sequence[tuple[Lease, JSON]]) -> dict[str, CompleteResult | None]:
        """Finish tasks; a None outcome means that lease was lost and the result discarded."""

    @abc.abstractmethod
    def fail(
        self,
        lease: Lease,
        *,
        error_kind: str,
        message: str,
        retryable: bool,
        delay_seconds: float,
    ) -> FailResult:
        """Retry after `delay_seconds`, or dead-letter when not retryable or attempts are used up."""

    @abc.abstractmethod
    def release(
        self, worker_id: str, leases: Iterable[Lease], *, delay_seconds: float = 0.0, reason: str = "worker stopping"
    ) -> list[str]:
        """Hand tasks back without charging an attempt: at once on graceful shutdown, or after
        `delay_seconds` when a handler defers (a dependency is known to be down)."""

    # -- parents and children ---------------------------------------------------------------
    @abc.abstractmethod
    def fan_out(self, lease: Lease, children: Sequence[TaskSpec]) -> list[Task]:
        """Hand a running task's work to `children` and make it wait for them, atomically and
        under its lease (`LeaseLost` otherwise; a task fans out once).

        The children get the parent's tenant and priority (the specs' are ignored, and so are
        their dedup keys); the parent goes back to `pending` without spending its attempt, and no
        claim takes it until every child has completed. Returns the children, in order; none when
        a cancel of the parent came first (the parent is then cancelled).
        """

    @abc.abstractmethod
    def children(self, task_id: str) -> list[Task]:
        """A task's children, in the order they were handed over."""

    # -- operator operations ----------------------------------------------------------------
    @abc.abstractmethod
    def cancel(self, task_id: str, note: Mapping[str, JSON] | None = None) -> Task | None:
        """Pending: cancelled now. Running: cancel requested; the worker stops at its next check.
        `note` is the detail of the task's cancel event (who asked)."""

    @abc.abstractmethod
    def requeue(self, task_id: str, note: Mapping[str, JSON] | None = None) -> Task | None:
        """Move a dead-lettered task back to pending with fresh attempts; None if not dead-lettered.
        `note` is the detail of its `requeued` event."""

    @abc.abstractmethod
    def delete(self, task_id: str) -> bool:
        """Remove a finished task with its history; running tasks must be cancelled first."""

    @abc.abstractmethod
    def get(self, task_id: str) -> Task | None: ...

    @abc.abstractmethod
    def get_many(self, task_ids: Sequence[str]) -> list[Task]:
        """The tasks among `task_ids` that exist, in one statement, in no particular order."""

    @abc.abstractmethod
    def list_tasks(
        self,
        *,
        statuses: Sequence[TaskStatus] | None = None,
        kinds: Sequence[str] | None = None,
        tenant: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
        top_level: bool = False,
    ) -> TaskPage:
        """Newest first; pass `next_cursor` back to get the following page. `top_level`: leave
        out child tasks (what a client submitted is the parent)."""

    @abc.abstractmethod
    def events(self, task_id: str) -> list[Event]: ...

    @abc.abstractmethod
    def get_with_events(self, task_id: str, newest: int) -> tuple[Task, list[Event]] | None:
        """The task and its newest `newest` events (oldest first) in one statement: a status read
        costs one round trip and stays bounded however long the history grows."""

    @abc.abstractmethod
    def checkpoints(self, task_id: str) -> list[Checkpoint]: ...

    @abc.abstractmethod
    def held_by(self, worker_id: str) -> list[Task]:
        """The running tasks whose lease `worker_id` holds: what a supervisor finds when that worker's
        process died, to settle them at once instead of waiting for their leases to expire."""

    @abc.abstractmethod
    def checkpoint_seqs(self, task_id: str) -> list[int]:
        """Which checkpoints a task has, without their data: a resume decision for a task of
        thousands of pages costs a list of numbers, not every page's result."""

    @abc.abstractmethod
    def checkpoints_after(self, task_id: str, after_seq: int, limit: int) -> list[Checkpoint]:
        """Up to `limit` checkpoints with seq > `after_seq`, in seq order (keyset paging)."""

    def iter_checkpoints(self, task_id: str, batch: int = 32) -> Iterator[Checkpoint]:
        """Every checkpoint in seq order, `batch` at a time: memory bounded by the batch."""
        after = -(2**62)
        while page := self.checkpoints_after(task_id, after, batch):
            yield from page
            after = page[-1].seq

    @abc.abstractmethod
    def counts_by_status(self) -> dict[TaskStatus, int]: ...

    @abc.abstractmethod
    def counts_by_kind_and_status(self) -> dict[tuple[str, TaskStatus], int]:
        """Tasks per (kind, status) that has any, in one statement."""

    # -- maintenance ------------------------------------------------------------------------
    @abc.abstractmethod
    def reap(self, limit: int = 1000) -> ReapResult:
        """Take back tasks whose lease expired; the expiry counts as a failed attempt."""

    @abc.abstractmethod
    def prune_tasks(self, older_than_seconds: float, limit: int = 10_000) -> list[Task]:
        """Delete up to `limit` finished tasks (and their history) that finished before the cut-off,
        and return them as they were: whoever keeps files for tasks outside the database (uploads,
        results) learns which to remove. Call again until it returns nothing."""

    def prune(self, older_than_seconds: float, limit: int = 10_000) -> int:
        """`prune_tasks`, counting the tasks it deleted."""
        return len(self.prune_tasks(older_than_seconds, limit))

    @abc.abstractmethod
    def register_worker(self, worker_id: str, host: str, pid: int, concurrency: int, kinds: Sequence[str]) -> None: ...

    @abc.abstractmethod
    def stop_worker(self, worker_id: str) -> None: ...

    @abc.abstractmethod
    def workers(self, host: str | None = None, live_only: bool = False) -> list[WorkerInfo]: ...

    @abc.abstractmethod
    def expire_worker_leases(self, worker_ids: Sequence[str]) -> int:
        """Expire the leases of workers known to be dead, so the reaper takes their tasks now."""

    @abc.abstractmethod
    def now(self) -> float:
        """The database clock, as epoch seconds."""

    @abc.abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
