"""Random sequences of queue operations against a simple model, invariants checked after every step.

After each step the database itself is read back: every task's row, its whole event history (which
must be exactly the events the operations so far imply: one `completed` at most, none after a
cancel won, a `lease_lost` for every rejected write), its result and its checkpoints.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from support.db import wipe

from ocrqueue.queue import LeaseLost, Store, TaskSpec, TaskStatus, open_store
from ocrqueue.queue.models import EventType, Lease

WORKERS = st.sampled_from(["w1", "w2", "w3"])


@dataclass
class ModelTask:
    status: TaskStatus
    max_attempts: int
    dedup_key: str | None
    attempts: int = 0
    token: int = 0
    holder: str | None = None
    cancel_requested: bool = False
    completed_by: str | None = None
    history: list[EventType] = field(default_factory=lambda: [EventType.SUBMITTED])


class QueueMachine(RuleBasedStateMachine):
    db_url: str = ""
    leases = Bundle("leases")
    task_ids = Bundle("task_ids")

    def __init__(self) -> None:
        super().__init__()
        wipe(self.db_url)
        self.store: Store = open_store(self.db_url, pool_size=2)
        self.model: dict[str, ModelTask] = {}

    def _current(self, lease: Lease) -> bool:
        task = self.model[lease.task_id]
        return task.status is TaskStatus.RUNNING and task.token == lease.token

    def _finish_running(self, task: ModelTask, retryable: bool) -> None:
        if task.cancel_requested:
            task.status = TaskStatus.CANCELLED
            task.history.append(EventType.CANCELLED)
        elif not retryable or task.attempts >= task.max_attempts:
            task.status = TaskStatus.DEAD_LETTER
            task.history.append(EventType.DEAD_LETTERED)
        else:
            task.status = TaskStatus.PENDING
            task.history.append(EventType.RETRIED)
        task.holder = None

    def _rejected(self, lease: Lease) -> None:
        """A write under a lost lease is refused and leaves a trace in the history."""
        self.model[lease.task_id].history.append(EventType.LEASE_LOST)

    @rule(target=task_ids, max_attempts=st.integers(1, 3), key=st.sampled_from([None, None, "a", "b"]))
    def submit(self, max_attempts: int, key: str | None) -> str:
        result = self.store.submit(TaskSpec("noop", max_attempts=max_attempts, dedup_key=key))
        live = [
            tid for tid, t in self.model.items() if key is not None and t.dedup_key == key and t.status != "cancelled"
        ]
        if live:
            assert not result.created and result.task.id == live[0]
        else:
            assert result.created
            self.model[result.task.id] = ModelTask(TaskStatus.PENDING, max_attempts, key)
        return result.task.id

    @rule(target=leases, worker=WORKERS, limit=st.integers(1, 3))
    def claim(self, worker: str, limit: int) -> object:
        pending = {tid for tid, t in self.model.items() if t.status is TaskStatus.PENDING}
        claimed = self.store.claim(worker, limit, 3600)
        assert len(claimed) == min(limit, len(pending))
        for item in claimed:
            assert item.task.id in pending, "claimed a task that was not pending"
            task = self.model[item.task.id]
            task.status, task.attempts, task.token, task.holder = (
                TaskStatus.RUNNING,
                task.attempts + 1,
                task.token + 1,
                worker,
            )
            task.history.append(EventType.CLAIMED)
            assert item.lease.token == task.token
        return claimed[0].lease if claimed else Lease("00000000-0000-7000-8000-000000000000", 0, worker)

    def _known(self, lease: Lease) -> bool:
        return lease.task_id in self.model

    @rule(worker=WORKERS, extra=leases)
    def heartbeat(self, worker: str, extra: Lease) -> None:
        mine = [Lease(tid, t.token, worker) for tid, t in self.model.items() if t.holder == worker]
        leases = mine + ([extra] if self._known(extra) and extra.worker_id == worker else [])
        beat = self.store.heartbeat(worker, leases, 3600)
        expected = {lease.task_id for lease in leases if self._current(lease)}
        assert beat.held == expected
        assert beat.cancel_requested == {tid for tid in expected if self.model[tid].cancel_requested}

    @rule(lease=leases)
    def complete(self, lease: Lease) -> None:
        if not self._known(lease):
            return
        if not self._current(lease):
            with pytest.raises(LeaseLost):
                self.store.complete(lease, {"by": lease.worker_id})
            self._rejected(lease)
            return
        outcome = self.store.complete(lease, {"by": lease.worker_id})
        task = self.model[lease.task_id]
        if task.cancel_requested:
            task.status = TaskStatus.CANCELLED
            task.history.append(EventType.CANCELLED)
        else:
            task.status, task.completed_by = TaskStatus.COMPLETED, lease.worker_id
            task.history.append(EventType.COMPLETED)
        task.holder = None
        assert outcome.status is task.status

    @rule(lease=leases, retryable=st.booleans())
    def fail(self, lease: Lease, retryable: bool) -> None:
        if not self._known(lease):
            return
        if not self._current(lease):
            with pytest.raises(LeaseLost):
                self.store.fail(lease, error_kind="transient", message="x", retryable=retryable, delay_seconds=0)
            self._rejected(lease)
            return
        self.store.fail(lease, error_kind="transient", message="x", retryable=retryable, delay_seconds=0)
        self._finish_running(self.model[lease.task_id], retryable)

    @rule(lease=leases, seq=st.integers(0, 3))
    def checkpoint(self, lease: Lease, seq: int) -> None:
        if not self._known(lease):
            return
        if self._current(lease):
            self.store.checkpoint(lease, seq, {"token": lease.token})
        else:
            with pytest.raises(LeaseLost):
                self.store.checkpoint(lease, seq, {"token": lease.token})
            self._rejected(lease)

    @rule(task_id=task_ids)
    def cancel(self, task_id: str) -> None:
        self.store.cancel(task_id)
        task = self.model[task_id]
        if task.status is TaskStatus.PENDING:
            task.status, task.cancel_requested = TaskStatus.CANCELLED, True
            task.history.append(EventType.CANCELLED)
        elif task.status is TaskStatus.RUNNING and not task.cancel_requested:
            task.cancel_requested = True
            task.history.append(EventType.CANCEL_REQUESTED)

    @rule(lease=leases)
    def cancel_a_claimed_task(self, lease: Lease) -> None:
        """Cancels what a worker holds, or held: a cancel racing its completion, failure or expiry."""
        if self._known(lease):
            self.cancel(lease.task_id)

    @rule(worker=WORKERS)
    def worker_dies_and_reaper_runs(self, worker: str) -> None:
        self.store.expire_worker_leases([worker])
        self.store.reap()
        for task in self.model.values():
            if task.holder == worker and task.status is TaskStatus.RUNNING:
                task.history.append(EventType.LEASE_LOST)
                self._finish_running(task, retryable=True)

    @rule(worker=WORKERS)
    def graceful_release(self, worker: str) -> None:
        mine = [Lease(tid, t.token, worker) for tid, t in self.model.items() if t.holder == worker]
        released = self.store.release(worker, mine)
        assert sorted(released) == sorted(lease.task_id for lease in mine)
        for lease in mine:
            task = self.model[lease.task_id]
            if task.cancel_requested:
                task.status = TaskStatus.CANCELLED
                task.history.append(EventType.CANCELLED)
            else:
                task.status, task.attempts = TaskStatus.PENDING, task.attempts - 1
                task.history.append(EventType.RELEASED)
            task.holder = None

    @rule(task_id=task_ids)
    def requeue(self, task_id: str) -> None:
        result = self.store.requeue(task_id)
        task = self.model[task_id]
        assert (result is not None) == (task.status is TaskStatus.DEAD_LETTER)
        if result is not None:
            task.status, task.attempts, task.cancel_requested = TaskStatus.PENDING, 0, False
            task.history.append(EventType.REQUEUED)

    @invariant()
    def database_matches_model(self) -> None:
        for task_id, expected in self.model.items():
            found = self.store.get_with_events(task_id, newest=1000)
            assert found is not None
            actual, events = found
            assert (actual.status, actual.attempts, actual.lease_token, actual.cancel_requested) == (
                expected.status, expected.attempts, expected.token, expected.cancel_requested,
            ), task_id  # fmt: skip
            if actual.status is TaskStatus.RUNNING:
                assert actual.worker_id == expected.holder
            history = [e.type for e in events]
            completed = actual.status is TaskStatus.COMPLETED
            # From the database alone: a task completed exactly once or not at all, nothing but a
            # rejected write came after, and only a completed task has a result (a cancel that
            # won, a dead letter, a retry keep none).
            assert history.count(EventType.COMPLETED) == int(completed), (task_id, history)
            assert (actual.result is not None) == completed, task_id
            if completed:
                after = history[history.index(EventType.COMPLETED) + 1 :]
                assert set(after) <= {EventType.LEASE_LOST}, (task_id, history)
                assert actual.result == {"by": expected.completed_by}
            assert history == expected.history, task_id

    def teardown(self) -> None:
        try:
            for task_id in self.model:
                token = self.model[task_id].token
                for saved in self.store.checkpoints(task_id):
                    assert saved.data == {"token": saved.lease_token} and saved.lease_token <= token
        finally:
            self.store.close()


def test_queue_state_machine(db_url: str) -> None:
    QueueMachine.db_url = db_url
    run_state_machine_as_test(
        QueueMachine,
        settings=settings(
            max_examples=100 if db_url.startswith("sqlite") else 40,  # as many as SQLite runs in PG's time
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
