"""Parents and children (`Store.fan_out`, `TaskContext.fan_out`), on both backends: each rule of
docs/queue.md's "Parents and children" has its test here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.waiting import wait_terminal

from ocrqueue.queue import (
    LeaseLost,
    QueueConfig,
    Registry,
    Store,
    TaskContext,
    TaskSpec,
    TaskStatus,
    WaitingForChildren,
    Worker,
)
from ocrqueue.queue.kinds import register_builtin_kinds
from ocrqueue.queue.metrics import QueueMetrics
from ocrqueue.queue.models import JSON, ClaimedTask, EventType, Lease

LEASE = 30.0


def claim(store: Store, worker: str = "w1", limit: int = 1) -> list[ClaimedTask]:
    return store.claim(worker, limit, LEASE)


def split(store: Store, n: int = 3, **spec: object) -> tuple[str, Lease, list[str]]:
    """A parent (tenant acme, priority 5 unless given) claimed and fanned out into `n` noop children."""
    parent = store.submit(TaskSpec("parent", {"doc": 1}, **{"tenant": "acme", "priority": 5} | spec)).task.id  # type: ignore[arg-type]
    [claimed] = claim(store)
    assert claimed.task.id == parent
    children = store.fan_out(
        claimed.lease, [TaskSpec("noop", {"part": i}, tenant="other", priority=-3) for i in range(n)]
    )
    return parent, claimed.lease, [child.id for child in children]


def get(store: Store, task_id: str):  # type: ignore[no-untyped-def]
    task = store.get(task_id)
    assert task is not None
    return task


def test_children_carry_the_parents_tenant_and_priority_and_the_parent_waits(store: Store) -> None:
    parent, lease, kids = split(store)
    children = store.children(parent)
    assert [c.id for c in children] == kids
    assert [c.payload for c in children] == [{"part": i} for i in range(3)]
    assert {(c.tenant, c.priority, c.parent_id, c.status) for c in children} == {
        ("acme", 5, parent, TaskStatus.PENDING)
    }
    task = get(store, parent)
    assert (task.status, task.children, task.attempts, task.worker_id) == (TaskStatus.PENDING, 3, 0, None)
    assert [e.type for e in store.events(parent)] == [EventType.SUBMITTED, EventType.CLAIMED, EventType.RELEASED]
    assert store.events(parent)[-1].detail["reason"] == "waiting for its children"
    # The parent is due first (priority 5, older) but is skipped until every child completed.
    first = claim(store, limit=10)
    assert sorted(c.task.id for c in first) == sorted(kids)
    for c in first[:-1]:
        store.complete(c.lease, {"part": c.task.payload["part"]})
    assert claim(store) == []
    store.complete(first[-1].lease, {"part": first[-1].task.payload["part"]})
    [again] = claim(store)
    assert again.task.id == parent and again.task.children == 3 and again.task.attempts == 1
    assert again.lease.token == lease.token + 1
    store.complete(again.lease, {"parts": 3})
    assert get(store, parent).status is TaskStatus.COMPLETED


def test_fan_out_is_fenced_by_the_parents_lease(store: Store) -> None:
    parent = store.submit(TaskSpec("parent")).task.id
    [old] = claim(store)
    store.expire_worker_leases(["w1"])
    store.reap()
    [new] = claim(store, "w2")
    with pytest.raises(LeaseLost):
        store.fan_out(old.lease, [TaskSpec("noop")])
    assert store.children(parent) == []
    assert [c.id for c in store.fan_out(new.lease, [TaskSpec("noop")])] == [c.id for c in store.children(parent)]
    with pytest.raises(LeaseLost):  # a task fans out once, under a lease it holds
        store.fan_out(new.lease, [TaskSpec("noop")])
    assert len(store.children(parent)) == 1


def test_the_parents_progress_is_the_sum_of_its_childrens(store: Store) -> None:
    parent, _, _ = split(store, 2)
    a, b = claim(store, limit=2)
    store.progress(a.lease, 3, 8, "page 3")
    store.progress(b.lease, 2, 8, "page 2")
    store.progress(a.lease, 5, 8, "page 5")
    assert get(store, parent).progress_done == 7
    # A zombie's progress moves nothing.
    store.expire_worker_leases(["w1"])
    store.reap()
    with pytest.raises(LeaseLost):
        store.progress(a.lease, 8, 8, None)
    assert get(store, parent).progress_done == 7


def test_cancelling_the_parent_cancels_its_children_and_cancellation_wins(store: Store) -> None:
    parent, _, kids = split(store, 3)
    [running] = claim(store)
    cancelled = store.cancel(parent)
    assert cancelled is not None and cancelled.status is TaskStatus.CANCELLED
    statuses = {c.id: (c.status, c.cancel_requested) for c in store.children(parent)}
    assert statuses[running.task.id] == (TaskStatus.RUNNING, True)
    assert [statuses[k] for k in kids if k != running.task.id] == [(TaskStatus.CANCELLED, True)] * 2
    assert store.is_cancel_requested(running.lease)
    assert store.complete(running.lease, {"late": True}).status is TaskStatus.CANCELLED
    assert get(store, running.task.id).result is None
    assert claim(store) == []
    parent_task = get(store, parent)
    assert (parent_task.status, parent_task.result) == (TaskStatus.CANCELLED, None)


def test_a_cancel_before_the_fan_out_cancels_the_parent_and_makes_no_children(store: Store) -> None:
    parent = store.submit(TaskSpec("parent")).task.id
    [claimed] = claim(store)
    store.cancel(parent)
    assert store.fan_out(claimed.lease, [TaskSpec("noop"), TaskSpec("noop")]) == []
    assert store.children(parent) == []
    assert get(store, parent).status is TaskStatus.CANCELLED


def test_a_dead_lettered_child_dead_letters_the_parent_with_its_reason(store: Store) -> None:
    parent, _, kids = split(store, 2)
    bad = next(c for c in claim(store, limit=2) if c.task.id == kids[0])
    store.fail(bad.lease, error_kind="permanent", message="page 7 is encrypted", retryable=False, delay_seconds=0)
    task = get(store, parent)
    assert task.status is TaskStatus.DEAD_LETTER
    assert task.error_kind == "permanent"
    assert task.error_message == f"child task {kids[0]} ended in dead_letter: page 7 is encrypted"
    last = store.events(parent)[-1]
    assert last.type is EventType.DEAD_LETTERED and last.detail["message"] == task.error_message


def test_a_child_whose_lease_expires_for_the_last_time_dead_letters_the_parent(store: Store) -> None:
    parent = store.submit(TaskSpec("parent", tenant="acme")).task.id
    [claimed] = claim(store)
    store.fan_out(claimed.lease, [TaskSpec("noop", max_attempts=1)])
    claim(store)
    store.expire_worker_leases(["w1"])
    store.reap()
    task = get(store, parent)
    assert (task.status, task.error_kind) == (TaskStatus.DEAD_LETTER, "lease_expired")


def test_a_child_cancelled_on_its_own_dead_letters_its_waiting_parent(store: Store) -> None:
    parent, _, kids = split(store, 2)
    store.cancel(kids[1])
    task = get(store, parent)
    assert (task.status, task.error_kind) == (TaskStatus.DEAD_LETTER, "child_cancelled")
    assert get(store, kids[0]).status is TaskStatus.PENDING


def test_a_retry_of_the_parent_reruns_only_the_children_that_did_not_complete(store: Store) -> None:
    parent, _, kids = split(store, 3)
    claimed = {c.task.id: c for c in claim(store, limit=3)}
    store.checkpoint(claimed[kids[0]].lease, 0, {"page": 1})
    store.complete(claimed[kids[0]].lease, {"done": 0})
    store.fail(claimed[kids[1]].lease, error_kind="permanent", message="bad", retryable=False, delay_seconds=0)
    assert get(store, parent).status is TaskStatus.DEAD_LETTER
    store.complete(claimed[kids[2]].lease, {"done": 2})  # a sibling still running finishes its part

    requeued = store.requeue(parent)
    assert requeued is not None and requeued.status is TaskStatus.PENDING
    children = {c.id: c for c in store.children(parent)}
    assert children[kids[0]].status is TaskStatus.COMPLETED and children[kids[0]].result == {"done": 0}
    assert children[kids[2]].status is TaskStatus.COMPLETED
    assert (children[kids[1]].status, children[kids[1]].attempts) == (TaskStatus.PENDING, 0)
    assert [cp.data for cp in store.checkpoints(kids[0])] == [{"page": 1}]
    [rerun] = claim(store, limit=5)
    assert rerun.task.id == kids[1]
    store.complete(rerun.lease, {"done": 1})
    [assemble] = claim(store)
    assert assemble.task.id == parent
    assert [c.result for c in store.children(parent)] == [{"done": 0}, {"done": 1}, {"done": 2}]


def test_a_zombie_childs_late_writes_are_rejected(store: Store) -> None:
    parent, _, [kid] = split(store, 1)
    [zombie] = claim(store, "w1")
    store.expire_worker_leases(["w1"])
    store.reap()
    [live] = claim(store, "w2")
    assert live.task.id == kid
    store.checkpoint(live.lease, 0, {"by": "w2"})
    with pytest.raises(LeaseLost):
        store.checkpoint(zombie.lease, 0, {"by": "w1"})
    with pytest.raises(LeaseLost):
        store.complete(zombie.lease, {"by": "w1"})
    assert claim(store, "w3") == []  # the parent still waits: the child is not completed
    store.complete(live.lease, {"by": "w2"})
    assert [cp.data for cp in store.checkpoints(kid)] == [{"by": "w2"}]
    assert get(store, kid).result == {"by": "w2"}
    assert [c.task.id for c in claim(store, "w3")] == [parent]


def test_children_go_with_their_parent_and_never_alone(store: Store) -> None:
    parent, _, kids = split(store, 2)
    for c in claim(store, limit=2):
        store.complete(c.lease, None)
    [again] = claim(store)
    store.complete(again.lease, {"ok": True})
    assert store.delete(kids[0]) is False
    assert get(store, kids[0]).status is TaskStatus.COMPLETED
    pruned = store.prune_tasks(older_than_seconds=-60)
    assert sorted(t.id for t in pruned) == sorted([parent, *kids])
    assert store.get(parent) is None and store.children(parent) == []
    assert all(store.events(task_id) == [] for task_id in [parent, *kids])


def test_deleting_a_parent_deletes_its_children(store: Store) -> None:
    parent, _, kids = split(store, 2)
    store.cancel(parent)
    assert store.delete(parent)
    assert store.get_many(kids) == [] and store.events(kids[0]) == []


# -- through a worker -------------------------------------------------------------------------------


def pages_in_parts(ctx: TaskContext) -> JSON:
    """A parent kind: splits `pages` into parts of 2, then joins the parts' results in order."""
    if ctx.is_parent:
        children = ctx.children()
        ctx.report_progress(sum(c.progress_done for c in children), ctx.task.progress_total)
        return {"pages": [page for child in children for page in child.result["pages"]]}
    pages = ctx.payload["pages"]
    ctx.report_progress(0, pages, "splitting")
    ctx.fan_out([TaskSpec("part", {"first": f, "last": min(f + 2, pages)}) for f in range(0, pages, 2)])
    raise AssertionError("fan_out returned")


def part(ctx: TaskContext) -> JSON:
    done = []
    for number, page in enumerate(range(ctx.payload["first"], ctx.payload["last"]), start=1):
        ctx.raise_if_cancelled()
        done.append(page)
        ctx.report_progress(number, ctx.payload["last"] - ctx.payload["first"])
    return {"pages": done}


@pytest.fixture
def workers(store: Store, metrics: QueueMetrics) -> Iterator[list[Worker]]:
    registry = register_builtin_kinds(Registry())
    registry.register("parent", pages_in_parts)
    registry.register("part", part)
    config = QueueConfig(lease_seconds=2.0, heartbeat_seconds=0.3, reaper_seconds=0.3, poll_seconds=0.2, concurrency=2)
    started = [Worker(store, registry, config, metrics=metrics) for _ in range(2)]
    for worker in started:
        worker.start()
    yield started
    for worker in started:
        worker.stop(release_now=True)
    for worker in started:
        assert worker.wait_stopped(15)


def test_workers_run_the_children_and_the_parent_assembles_them_in_order(store: Store, workers: list[Worker]) -> None:
    parent = store.submit(TaskSpec("parent", {"pages": 9}, tenant="acme")).task.id
    assert wait_terminal(store, parent, timeout=30) is TaskStatus.COMPLETED
    task = get(store, parent)
    assert task.result == {"pages": list(range(9))}
    assert (task.progress_done, task.progress_total) == (9, 9)
    children = store.children(parent)
    assert len(children) == 5 and {c.status for c in children} == {TaskStatus.COMPLETED}
    assert {c.tenant for c in children} == {"acme"}


def test_waiting_for_children_is_not_an_error(store: Store) -> None:
    parent = store.submit(TaskSpec("parent", {"pages": 2})).task.id
    [claimed] = claim(store)
    ctx = TaskContext(store, claimed.task, claimed.lease)
    with pytest.raises(WaitingForChildren):
        pages_in_parts(ctx)
    assert get(store, parent).progress_step == "waiting for its children"
    with pytest.raises(ValueError, match="at least one child"):
        TaskContext(store, claimed.task, claimed.lease).fan_out([])


def test_cancel_and_retry_reach_grandchildren(store: Store) -> None:
    parent, _, [kid] = split(store, 1)
    [claimed] = claim(store)
    assert claimed.task.id == kid
    [grandchild] = store.fan_out(claimed.lease, [TaskSpec("noop")])
    assert (grandchild.parent_id, grandchild.tenant, grandchild.priority) == (kid, "acme", 5)
    [running] = claim(store)
    store.fail(running.lease, error_kind="permanent", message="deep", retryable=False, delay_seconds=0)
    assert get(store, kid).status is TaskStatus.DEAD_LETTER
    assert get(store, kid).error_message == f"child task {grandchild.id} ended in dead_letter: deep"
    # Its waiting parent above it too, in the same statement, with the same reason.
    assert (get(store, parent).status, get(store, parent).error_message) == (
        TaskStatus.DEAD_LETTER,
        get(store, kid).error_message,
    )
    assert store.requeue(parent) is not None
    assert [get(store, t).status for t in (parent, kid, grandchild.id)] == [TaskStatus.PENDING] * 3
    [rerun] = claim(store, limit=5)
    assert rerun.task.id == grandchild.id
    store.cancel(parent)
    assert get(store, grandchild.id).cancel_requested and get(store, kid).status is TaskStatus.CANCELLED
