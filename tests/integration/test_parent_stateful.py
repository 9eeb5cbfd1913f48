"""Random sequences of operations on one parent and its children, the parents-and-children rules
checked from the database after every step (docs/queue.md, "Parents and children")."""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from support.db import wipe

from ocrqueue.queue import LeaseLost, Store, TaskSpec, TaskStatus, open_store
from ocrqueue.queue.models import EventType, Lease, Task

WORKERS = st.sampled_from(["w1", "w2"])
CHILDREN = 3
ENDED = {TaskStatus.DEAD_LETTER, TaskStatus.CANCELLED}


class ParentMachine(RuleBasedStateMachine):
    db_url: str = ""

    def __init__(self) -> None:
        super().__init__()
        wipe(self.db_url)
        self.store: Store = open_store(self.db_url, pool_size=2)
        self.leases: list[Lease] = []
        self.parent = ""
        self.kids: list[str] = []
        self.parent_was_cancelled = False

    @initialize()
    def fan_out(self) -> None:
        self.parent = self.store.submit(TaskSpec("parent", tenant="acme", priority=2)).task.id
        [claimed] = self.store.claim("w0", 1, 3600)
        specs = [TaskSpec("part", {"i": i}, max_attempts=2) for i in range(CHILDREN)]
        self.kids = [child.id for child in self.store.fan_out(claimed.lease, specs)]

    def _tasks(self) -> tuple[Task, list[Task]]:
        parent = self.store.get(self.parent)
        assert parent is not None
        return parent, self.store.children(self.parent)

    @rule(worker=WORKERS)
    def claim(self, worker: str) -> None:
        self.leases += [c.lease for c in self.store.claim(worker, 2, 3600)]

    @rule(pick=st.integers(0, 50))
    def complete(self, pick: int) -> None:
        if self.leases:
            lease = self.leases[pick % len(self.leases)]
            with contextlib.suppress(LeaseLost):
                self.store.complete(lease, {"by": lease.task_id})

    @rule(pick=st.integers(0, 50), retryable=st.booleans())
    def fail(self, pick: int, retryable: bool) -> None:
        if self.leases:
            lease = self.leases[pick % len(self.leases)]
            with contextlib.suppress(LeaseLost):
                self.store.fail(lease, error_kind="transient", message="x", retryable=retryable, delay_seconds=0)

    @rule(pick=st.integers(0, 50), done=st.integers(0, 9))
    def progress(self, pick: int, done: int) -> None:
        leases = [lease for lease in self.leases if lease.task_id != self.parent]
        if leases:
            with contextlib.suppress(LeaseLost):
                self.store.progress(leases[pick % len(leases)], done, None, None)

    @rule(which=st.integers(0, CHILDREN))
    def cancel(self, which: int) -> None:
        """0 cancels the parent, 1.. a child."""
        if which == 0:
            before = self.store.get(self.parent)
            assert before is not None
            self.parent_was_cancelled |= before.status in {TaskStatus.PENDING, TaskStatus.RUNNING}
            self.store.cancel(self.parent)
        else:
            self.store.cancel(self.kids[which - 1])

    @rule(worker=WORKERS)
    def worker_dies(self, worker: str) -> None:
        self.store.expire_worker_leases([worker])
        self.store.reap()

    @rule()
    def retry_parent(self) -> None:
        self.store.requeue(self.parent)

    @invariant()
    def rules_hold(self) -> None:
        parent, kids = self._tasks()
        assert [k.id for k in kids] == self.kids
        assert {(k.tenant, k.priority) for k in kids} == {("acme", 2)}
        statuses = [k.status for k in kids]
        if parent.status in {TaskStatus.RUNNING, TaskStatus.COMPLETED}:
            assert set(statuses) == {TaskStatus.COMPLETED}, "the parent ran before every child completed"
        if parent.status is TaskStatus.PENDING:
            assert not ENDED & set(statuses), "a parent waits on a child that can never complete"
        if ENDED & set(statuses):
            assert parent.status in ENDED
        if parent.status is TaskStatus.CANCELLED:
            assert TaskStatus.PENDING not in statuses
            assert all(k.cancel_requested for k in kids if k.status is TaskStatus.RUNNING)
        if self.parent_was_cancelled:
            assert parent.status is TaskStatus.CANCELLED, "cancellation wins"
            history = [e.type for e in self.store.events(self.parent)]
            assert EventType.COMPLETED not in history
        assert parent.progress_done == sum(k.progress_done for k in kids) or parent.status is not TaskStatus.PENDING

    def teardown(self) -> None:
        self.store.close()


def test_parent_state_machine(db_url: str) -> None:
    ParentMachine.db_url = db_url
    run_state_machine_as_test(
        ParentMachine,
        settings=settings(
            max_examples=40 if db_url.startswith("sqlite") else 15,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
