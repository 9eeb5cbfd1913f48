"""What a handler gets: its payload and fenced ways to report back."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property

from ocrqueue.queue.errors import LeaseLost, TaskCancelled, WaitingForChildren
from ocrqueue.queue.models import JSON, Checkpoint, Lease, Task, TaskSpec
from ocrqueue.queue.store import Store


class TaskContext:
    """Every write goes through the lease; once the lease is known to be lost, calls raise at once."""

    def __init__(self, store: Store, task: Task, lease: Lease) -> None:
        self._store = store
        self.task = task
        self.lease = lease
        # Plain flags: set by the heartbeat thread, read by the handler; a bool store is atomic.
        self._lost = False
        self._cancel_requested = False
        self.last_activity = time.monotonic()
        """When the handler last called in (progress, checkpoint, cancel check): the worker's hang signal."""

    @property
    def payload(self) -> JSON:
        return self.task.payload

    @property
    def attempt(self) -> int:
        """1 on the first run; a retried or recovered task sees a higher number."""
        return self.task.attempts

    @cached_property
    def checkpoints(self) -> Mapping[int, JSON]:
        """Work saved by earlier attempts, by sequence number (e.g. page index)."""
        return {cp.seq: cp.data for cp in self._store.checkpoints(self.task.id)}

    def checkpointed(self) -> frozenset[int]:
        """The sequence numbers earlier attempts saved, without loading their data."""
        return frozenset(self._store.checkpoint_seqs(self.task.id))

    def iter_checkpoints(self, batch: int = 32) -> Iterator[Checkpoint]:
        """Every saved checkpoint in sequence order, `batch` at a time (for tasks with many)."""
        return self._store.iter_checkpoints(self.task.id, batch)

    def iter_checkpoints_of(self, child_id: str, batch: int = 32) -> Iterator[Checkpoint]:
        """A child's saved checkpoints in sequence order, `batch` at a time: what a parent assembles."""
        return self._store.iter_checkpoints(child_id, batch)

    # -- signals from the worker's heartbeat --------------------------------------------------
    def touch(self) -> None:
        """Tell the worker the handler is alive, for long steps with nothing to report."""
        self.last_activity = time.monotonic()

    def mark_lost(self) -> None:
        self._lost = True

    def mark_cancel_requested(self) -> None:
        self._cancel_requested = True

    @property
    def lost(self) -> bool:
        return self._lost

    def _check_lease(self) -> None:
        if self._lost:
            raise LeaseLost(f"task {self.task.id}: lease {self.lease.token} was lost")

    # -- fenced calls -----------------------------------------------------------------------
    def report_progress(self, done: int, total: int | None = None, step: str | None = None) -> None:
        self.touch()
        self._check_lease()
        try:
            if self._store.progress(self.lease, done, total, step):
                self._cancel_requested = True
        except LeaseLost:
            self._lost = True
            raise

    def save_checkpoint(self, seq: int, data: JSON) -> None:
        self.touch()
        self._check_lease()
        try:
            self._store.checkpoint(self.lease, seq, data)
        except LeaseLost:
            self._lost = True
            raise

    def warn(self, detail: Mapping[str, JSON]) -> None:
        """Record a `warned` event on the task (see Store.warn)."""
        self.touch()
        self._check_lease()
        try:
            self._store.warn(self.lease, detail)
        except LeaseLost:
            self._lost = True
            raise

    def cancel_requested(self) -> bool:
        """Asks the database (fenced), so a handler between pages sees a cancel promptly."""
        self.touch()
        self._check_lease()
        if self._cancel_requested:
            return True
        try:
            self._cancel_requested = self._store.is_cancel_requested(self.lease)
        except LeaseLost:
            self._lost = True
            raise
        return self._cancel_requested

    def raise_if_cancelled(self) -> None:
        if self.cancel_requested():
            raise TaskCancelled(f"task {self.task.id} was cancelled")

    # -- parents and children -----------------------------------------------------------------
    @property
    def is_parent(self) -> bool:
        """True when this task handed its work to children earlier: now they have all completed."""
        return self.task.children > 0

    def children(self) -> list[Task]:
        """This task's children, in the order they were handed over (with their results)."""
        return self._store.children(self.task.id)

    def fan_out(self, children: Sequence[TaskSpec]) -> None:
        """Hand this task's work to `children` and wait for them; never returns.

        The task goes back to `pending` (its attempt not charged) and runs again, as a parent
        (`is_parent`), once every child has completed; a child that dead-letters dead-letters it.
        Raises `WaitingForChildren`, which the worker takes as "handed over", or `LeaseLost`.
        """
        if not children:
            raise ValueError("fan_out needs at least one child")
        if self.is_parent:
            raise ValueError(f"task {self.task.id} already handed its work to children")
        self.touch()
        self._check_lease()
        try:
            made = self._store.fan_out(self.lease, children)
        except LeaseLost:
            self._lost = True
            raise
        if not made:
            raise WaitingForChildren(f"task {self.task.id} was cancelled before its children were made")
        raise WaitingForChildren(f"task {self.task.id} waits for {len(made)} children")
