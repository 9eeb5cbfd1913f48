"""The store contract: every operation and invariant, identical on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import pytest
from support.waiting import wait_for

from ocrqueue.queue import LeaseLost, Registry, Store, TaskSpec, TaskStatus, open_store
from ocrqueue.queue.kinds import noop
from ocrqueue.queue.models import EventType, FailOutcome

LEASE = 30.0


def claim_one(store: Store, worker: str = "w1", lease: float = LEASE) -> tuple[str, object]:
    claimed = store.claim(worker, 1, lease)
    assert len(claimed) == 1
    return claimed[0].task.id, claimed[0].lease


def event_types(store: Store, task_id: str) -> list[EventType]:
    return [e.type for e in store.events(task_id)]


def expire_and_reap(store: Store, worker: str) -> None:
    store.expire_worker_leases([worker])
    store.reap()


# -- submit and dedup (invariant 7) ---------------------------------------------------------------


def test_submit_creates_pending_task_with_history(store: Store) -> None:
    result = store.submit(TaskSpec("noop", {"x": 1}, priority=3, tenant="acme", max_attempts=2))
    task = result.task
    assert result.created
    assert (task.status, task.kind, task.payload, task.priority, task.tenant) == (
        TaskStatus.PENDING, "noop", {"x": 1}, 3, "acme",
    )  # fmt: skip
    assert (task.attempts, task.max_attempts, task.lease_token, task.cancel_requested) == (0, 2, 0, False)
    assert store.get(task.id) == task
    assert event_types(store, task.id) == [EventType.SUBMITTED]


def test_default_max_attempts_comes_from_the_store(store: Store) -> None:
    store.default_max_attempts = 7
    assert store.submit(TaskSpec("noop")).task.max_attempts == 7


def test_max_attempts_precedence_is_spec_then_kind_then_store_then_four(db_url: str) -> None:
    registry = Registry()
    registry.register("tight", noop, max_attempts=2)
    registry.register("plain", noop)
    specs = [TaskSpec("tight", max_attempts=5), TaskSpec("tight"), TaskSpec("plain"), TaskSpec("unknown")]
    with open_store(db_url, default_max_attempts=7, registry=registry) as store:
        assert [r.task.max_attempts for r in store.submit_many(specs)] == [5, 2, 7, 7]
    with open_store(db_url) as store:
        assert [r.task.max_attempts for r in store.submit_many(specs[2:])] == [4, 4]


def test_an_attempt_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        TaskSpec("noop", max_attempts=0)
    with pytest.raises(ValueError, match="max_attempts"):
        Registry().register("noop", noop, max_attempts=0)


def test_same_dedup_key_returns_the_same_task(store: Store) -> None:
    first = store.submit(TaskSpec("noop", {"a": 1}, dedup_key="doc-1"))
    again = store.submit(TaskSpec("noop", {"a": 1}, dedup_key="doc-1"))
    other = store.submit(TaskSpec("noop", {"a": 1}, dedup_key="doc-2"))
    assert first.created and not again.created and other.created
    assert again.task.id == first.task.id != other.task.id


def test_dedup_within_one_batch(store: Store) -> None:
    results = store.submit_many([TaskSpec("noop", dedup_key="k"), TaskSpec("noop", dedup_key="k"), TaskSpec("noop")])
    assert [r.created for r in results] == [True, False, True]
    assert results[0].task.id == results[1].task.id


def test_dedup_key_returns_finished_task_but_not_cancelled_one(store: Store) -> None:
    first = store.submit(TaskSpec("noop", dedup_key="k")).task
    _, lease = claim_one(store)
    store.complete(lease, {"done": True})
    again = store.submit(TaskSpec("noop", dedup_key="k"))
    assert not again.created and again.task.status is TaskStatus.COMPLETED
    cancelled = store.submit(TaskSpec("noop", dedup_key="c")).task
    store.cancel(cancelled.id)
    fresh = store.submit(TaskSpec("noop", dedup_key="c"))
    assert fresh.created and fresh.task.id != cancelled.id
    assert first.id == again.task.id


def test_concurrent_submits_with_one_key_make_one_task(store: Store) -> None:
    barrier = threading.Barrier(8)

    def submit(_: int) -> tuple[str, bool]:
        barrier.wait()
        result = store.submit(TaskSpec("noop", dedup_key="race"))
        return result.task.id, result.created

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(submit, range(8)))
    assert len({task_id for task_id, _ in outcomes}) == 1
    assert sum(created for _, created in outcomes) == 1
    assert store.counts_by_status()[TaskStatus.PENDING] == 1


# -- claim (invariants 1, 2, 3) ---------------------------------------------------------------------


def test_claim_takes_highest_priority_first_and_increments_the_token(store: Store) -> None:
    low = store.submit(TaskSpec("noop", priority=0)).task
    high = store.submit(TaskSpec("noop", priority=5)).task
    claimed = store.claim("w1", 1, LEASE)
    assert [c.task.id for c in claimed] == [high.id]
    task = claimed[0].task
    assert (task.status, task.attempts, task.lease_token, task.worker_id) == (TaskStatus.RUNNING, 1, 1, "w1")
    assert claimed[0].lease.token == 1
    assert [c.task.id for c in store.claim("w2", 5, LEASE)] == [low.id]
    assert store.claim("w3", 5, LEASE) == []
    assert event_types(store, task.id) == [EventType.SUBMITTED, EventType.CLAIMED]


def test_claim_respects_limit_and_kinds(store: Store) -> None:
    store.submit_many([TaskSpec("a") for _ in range(3)] + [TaskSpec("b") for _ in range(2)])
    assert len(store.claim("w1", 2, LEASE, kinds=["a"])) == 2
    rest = store.claim("w1", 10, LEASE, kinds=["b"])
    assert {c.task.kind for c in rest} == {"b"} and len(rest) == 2
    assert len(store.claim("w1", 10, LEASE)) == 1


def test_delayed_task_is_not_claimed_before_its_time(store: Store) -> None:
    task = store.submit(TaskSpec("noop", delay_seconds=0.6)).task
    assert store.claim("w1", 1, LEASE) == []
    claimed = wait_for(lambda: store.claim("w1", 1, LEASE), timeout=10, what="delayed task due")
    assert claimed[0].task.id == task.id


def test_concurrent_claims_never_hand_one_task_to_two_workers(store: Store) -> None:
    store.submit_many([TaskSpec("noop") for _ in range(200)])
    barrier = threading.Barrier(6)

    def drain(worker: int) -> list[str]:
        barrier.wait()
        got: list[str] = []
        while batch := store.claim(f"w{worker}", 3, LEASE):
            got.extend(c.task.id for c in batch)
        return got

    with ThreadPoolExecutor(6) as pool:
        per_worker = list(pool.map(drain, range(6)))
    every = [task_id for ids in per_worker for task_id in ids]
    assert len(every) == len(set(every)) == 200


def test_lease_time_comes_from_the_database_clock(store: Store) -> None:
    store.submit(TaskSpec("noop"))
    skewed = time.time() + 3600  # a worker whose clock is an hour ahead
    with mock.patch("time.time", return_value=skewed):
        claimed = store.claim("w1", 1, LEASE)
    db_now = store.now()
    expires = claimed[0].task.lease_expires_at
    assert expires is not None
    assert abs(expires.timestamp() - (db_now + LEASE)) < 5


# -- heartbeat (invariant 4) ------------------------------------------------------------------------


def test_heartbeat_renews_held_leases_and_reports_lost_and_cancelled(store: Store) -> None:
    a = store.submit(TaskSpec("noop")).task
    b = store.submit(TaskSpec("noop")).task
    claimed = {c.task.id: c for c in store.claim("w1", 2, 5.0)}
    before = store.get(a.id)
    assert before is not None and before.lease_expires_at is not None
    store.cancel(b.id)
    stale = claimed[b.id].lease.__class__(b.id, 99, "w1")
    beat = store.heartbeat("w1", [claimed[a.id].lease, claimed[b.id].lease, stale], 60.0)
    assert beat.held == {a.id, b.id}
    assert beat.cancel_requested == {b.id}
    after = store.get(a.id)
    assert after is not None and after.lease_expires_at is not None
    assert after.lease_expires_at > before.lease_expires_at
    lost = store.heartbeat("w1", [stale], 60.0)
    assert lost.lost == {b.id} and not lost.held


def test_heartbeat_refreshes_the_worker_registry(store: Store) -> None:
    store.register_worker("w1", "host-a", 1234, 4, ["noop"])
    first = store.workers()[0]
    wait_for(lambda: store.now() > first.last_seen_at.timestamp() + 0.01, what="clock to advance")
    store.heartbeat("w1", [], LEASE)
    (info,) = store.workers(host="host-a")
    assert info.last_seen_at > first.last_seen_at
    assert (info.pid, info.concurrency, info.kinds, info.stopped_at) == (1234, 4, ["noop"], None)
    store.stop_worker("w1")
    assert store.workers(live_only=True) == []


# -- fencing (invariant 2) --------------------------------------------------------------------------


def test_zombie_writes_are_rejected_after_takeover(store: Store) -> None:
    task = store.submit(TaskSpec("noop")).task
    _, zombie = claim_one(store, "w1")
    store.checkpoint(zombie, 0, {"by": "w1"})
    expire_and_reap(store, "w1")
    _, owner = claim_one(store, "w2")
    assert owner.token == zombie.token + 1
    with pytest.raises(LeaseLost):
        store.progress(zombie, 1, 2, "late")
    with pytest.raises(LeaseLost):
        store.checkpoint(zombie, 0, {"by": "zombie"})
    with pytest.raises(LeaseLost):
        store.checkpoint(zombie, 1, {"by": "zombie"})
    with pytest.raises(LeaseLost):
        store.is_cancel_requested(zombie)
    with pytest.raises(LeaseLost):
        store.complete(zombie, {"by": "zombie"})
    with pytest.raises(LeaseLost):
        store.fail(zombie, error_kind="transient", message="late", retryable=True, delay_seconds=0)
    store.checkpoint(owner, 1, {"by": "w2"})
    assert store.complete(owner, {"by": "w2"}).status is TaskStatus.COMPLETED
    final = store.get(task.id)
    assert final is not None and final.result == {"by": "w2"} and final.status is TaskStatus.COMPLETED
    assert {cp.seq: cp.data for cp in store.checkpoints(task.id)} == {0: {"by": "w1"}, 1: {"by": "w2"}}
    rejected = [e for e in store.events(task.id) if e.detail.get("reason") == "write rejected"]
    assert len(rejected) == 6 and all(e.lease_token == zombie.token for e in rejected)


def test_complete_many_discards_only_lost_leases(store: Store) -> None:
    store.submit_many([TaskSpec("noop"), TaskSpec("noop")])
    (a, b) = store.claim("w1", 2, LEASE)
    store.expire_worker_leases(["w1"])
    store.reap()
    outcomes = store.complete_many([(a.lease, 1), (b.lease, 2)])
    assert outcomes == {a.task.id: None, b.task.id: None}
    (a2, _) = sorted(store.claim("w2", 2, LEASE), key=lambda c: c.task.id != a.task.id)
    outcomes = store.complete_many([(a2.lease, "a"), (b.lease, "stale")])
    assert outcomes[a2.task.id] is not None and outcomes[b.task.id] is None


def test_a_stale_checkpoint_never_overwrites_a_newer_one(store: Store) -> None:
    task = store.submit(TaskSpec("noop")).task
    _, first = claim_one(store, "w1")
    expire_and_reap(store, "w1")
    _, second = claim_one(store, "w2")
    store.checkpoint(second, 0, {"v": 2})
    with pytest.raises(LeaseLost):
        store.checkpoint(first, 0, {"v": 1})
    assert store.checkpoints(task.id)[0].data == {"v": 2}


def test_checkpoints_are_kept_across_attempts_and_overwritten_by_the_holder(store: Store) -> None:
    task = store.submit(TaskSpec("noop")).task
    _, lease = claim_one(store)
    store.checkpoint(lease, 0, {"text": "first"})
    store.checkpoint(lease, 0, {"text": "again"})
    store.checkpoint(lease, 1, {"text": "page 2"})
    store.fail(lease, error_kind="transient", message="boom", retryable=True, delay_seconds=0)
    claimed = store.claim("w2", 1, LEASE)[0]
    assert claimed.task.attempts == 2
    assert [(c.seq, c.data, c.lease_token) for c in store.checkpoints(task.id)] == [
        (0, {"text": "again"}, 1), (1, {"text": "page 2"}, 1),
    ]  # fmt: skip


def test_a_warning_is_recorded_in_the_history_by_the_lease_holder_only(store: Store) -> None:
    task = store.submit(TaskSpec("noop")).task
    _, first = claim_one(store, "w1")
    store.warn(first, {"page": 2, "warnings": ["Armenian text: no model installed"]})
    expire_and_reap(store, "w1")
    _, second = claim_one(store, "w2")
    with pytest.raises(LeaseLost):
        store.warn(first, {"page": 3, "warnings": ["late"]})
    warned = [e for e in store.events(task.id) if e.type is EventType.WARNED]
    assert [(e.detail, e.worker_id, e.attempt) for e in warned] == [
        ({"page": 2, "warnings": ["Armenian text: no model installed"]}, "w1", 1)
    ]
    assert second is not None


def test_checkpoints_are_listed_without_data_and_paged_in_order(store: Store) -> None:
    task = store.submit(TaskSpec("noop")).task
    other = store.submit(TaskSpec("noop", dedup_key="other")).task
    claimed = {c.task.id: c.lease for c in store.claim("w1", 2, LEASE)}
    for seq in (7, 0, 3, 12, 5):
        store.checkpoint(claimed[task.id], seq, {"page": seq})
    store.checkpoint(claimed[other.id], 1, {"page": "other"})
    assert store.checkpoint_seqs(task.id) == [0, 3, 5, 7, 12]
    assert [c.seq for c in store.checkpoints_after(task.id, 3, 2)] == [5, 7]
    assert [(c.seq, c.data) for c in store.iter_checkpoints(task.id, batch=2)] == [
        (s, {"page": s}) for s in (0, 3, 5, 7, 12)
    ]
    assert store.checkpoint_seqs(store.submit(TaskSpec("noop", dedup_key="none")).task.id) == []


def test_held_by_lists_the_running_tasks_a_worker_holds(store: Store) -> None:
    a = store.submit(TaskSpec("noop", dedup_key="a")).task
    b = store.submit(TaskSpec("noop", dedup_key="b")).task
    store.submit(TaskSpec("noop", dedup_key="pending"))
    (first,) = store.claim("w1", 1, LEASE)
    (second,) = store.claim("w2", 1, LEASE)
    assert [t.id for t in store.held_by("w1")] == [first.task.id] and first.task.id in (a.id, b.id)
    assert [(t.id, t.lease_token) for t in store.held_by("w2")] == [(second.task.id, second.lease.token)]
    store.complete(second.lease, None)
    assert store.held_by("w2") == [] and store.held_by("nobody") == []


def test_progress_is_recorded_and_reports_cancellation(store: Store) -> None:
    task = store.submit(TaskSpec("noop")).task
    _, lease = claim_one(store)
    assert store.progress(lease, 3, 10, "page 3 of 10") is False
    current = store.get(task.id)
    assert current is not None
    assert (current.progress_done, current.progress_total, current.progress_step) == (3, 10, "page 3 of 10")
    store.cancel(task.id)
    assert store.progress(lease, 4, 10, "page 4 of 10") is True
    assert store.is_cancel_requested(lease) is True


# -- complete, fail, retry with backoff (invariants 5, 8, 9) ------------------------------------------


def test_complete_stores_result_and_history(store: Store) -> None:
    task = store.submit(TaskSpec("noop")).task
    _, lease = claim_one(store)
    store.progress(lease, 1, 4, "working")
    assert store.complete(lease, {"pages": 4}).status is TaskStatus.COMPLETED
    done = store.get(task.id)
    assert done is not None
    assert (done.status, done.result, done.progress_done, done.lease_expires_at) == (
        TaskStatus.COMPLETED, {"pages": 4}, 4, None,
    )  # fmt: skip
    assert done.finished_at is not None and done.started_at is not None
    assert event_types(store, task.id)[-1] is EventType.COMPLETED
    with pytest.raises(LeaseLost):
        store.complete(lease, {"twice": True})


def test_transient_failure_waits_for_its_backoff(store: Store) -> None:
    task = store.submit(TaskSpec("noop", max_attempts=3)).task
    _, lease = claim_one(store)
    before = store.now()
    outcome = store.fail(lease, error_kind="transient", message="timeout", retryable=True, delay_seconds=0.8)
    assert outcome.outcome is FailOutcome.RETRY
    pending = store.get(task.id)
    assert pending is not None and pending.status is TaskStatus.PENDING
    assert pending.run_at.timestamp() >= before + 0.75
    assert (pending.error_kind, pending.error_message, pending.worker_id) == ("transient", "timeout", None)
    assert store.claim("w1", 1, LEASE) == []
    again = wait_for(lambda: store.claim("w1", 1, LEASE), timeout=10, what="retry to come due")
    assert again[0].task.attempts == 2
    retried = [e for e in store.events(task.id) if e.type is EventType.RETRIED]
    assert retried[0].detail == {"error_kind": "transient", "message": "timeout", "delay_seconds": 0.8}


def test_permanent_failure_dead_letters_at_once_with_reason(store: Store) -> None:
    task = store.submit(TaskSpec("noop", max_attempts=5)).task
    _, lease = claim_one(store)
    outcome = store.fail(lease, error_kind="permanent", message="PDF is encrypted", retryable=False, delay_seconds=9)
    assert outcome.outcome is FailOutcome.DEAD_LETTER
    dead = store.get(task.id)
    assert dead is not None
    assert (dead.status, dead.error_kind, dead.error_message) == (
        TaskStatus.DEAD_LETTER, "permanent", "PDF is encrypted",
    )  # fmt: skip
    assert dead.finished_at is not None
    last = store.events(task.id)[-1]
    assert last.type is EventType.DEAD_LETTERED and last.detail["reason"] == "permanent error"


def test_exhausted_attempts_dead_letter_with_the_whole_history(store: Store) -> None:
    task = store.submit(TaskSpec("noop", max_attempts=2)).task
    for attempt in (1, 2):
        _, lease = claim_one(store)
        outcome = store.fail(lease, error_kind="unknown", message=f"crash {attempt}", retryable=True, delay_seconds=0)
    assert outcome.outcome is FailOutcome.DEAD_LETTER
    history = store.events(task.id)
    assert [e.type for e in history] == [
        EventType.SUBMITTED, EventType.CLAIMED, EventType.RETRIED, EventType.CLAIMED, EventType.DEAD_LETTERED,
    ]  # fmt: skip
    assert history[-1].detail["reason"] == "attempts exhausted"
    assert [e.detail["message"] for e in history if "message" in e.detail] == ["crash 1", "crash 2"]


# -- cancellation (invariant 8) ---------------------------------------------------------------------


def test_cancel_pending_is_immediate(store: Store) -> None:
    task = store.submit(TaskSpec("noop")).task
    cancelled = store.cancel(task.id)
    assert cancelled is not None and cancelled.status is TaskStatus.CANCELLED
    assert store.claim("w1", 1, LEASE) == []
    assert event_types(store, task.id)[-1] is EventType.CANCELLED


def test_cancellation_wins_over_a_later_completion(store: Store) -> None:
    task = store.submit(TaskSpec("noop")).task
    _, lease = claim_one(store)
    requested = store.cancel(task.id)
    assert requested is not None and requested.status is TaskStatus.RUNNING and requested.cancel_requested
    assert store.complete(lease, {"late": True}).status is TaskStatus.CANCELLED
    final = store.get(task.id)
    assert final is not None and final.status is TaskStatus.CANCELLED and final.result is None
    assert event_types(store, task.id)[-2:] == [EventType.CANCEL_REQUESTED, EventType.CANCELLED]


def test_cancellation_wins_over_a_failure_and_over_lease_expiry(store: Store) -> None:
    failing = store.submit(TaskSpec("noop")).task
    _, lease = claim_one(store, "w1")
    store.cancel(failing.id)
    outcome = store.fail(lease, error_kind="transient", message="x", retryable=True, delay_seconds=0)
    assert outcome.outcome is FailOutcome.CANCELLED
    expiring = store.submit(TaskSpec("noop")).task
    claim_one(store, "w2")
    store.cancel(expiring.id)
    expire_and_reap(store, "w2")
    for task_id in (failing.id, expiring.id):
        final = store.get(task_id)
        assert final is not None and final.status is TaskStatus.CANCELLED


def test_cancelling_a_finished_task_changes_nothing(store: Store) -> None:
    task = store.submit(TaskSpec("noop")).task
    _, lease = claim_one(store)
    store.complete(lease, 1)
    after = store.cancel(task.id)
    assert after is not None and after.status is TaskStatus.COMPLETED and not after.cancel_requested
    assert store.cancel("00000000-0000-7000-8000-000000000000") is None


# -- release, reap, requeue (invariants 4, 6) -------------------------------------------------------


def test_release_hands_tasks_back_without_charging_an_attempt(store: Store) -> None:
    a = store.submit(TaskSpec("noop")).task
    b = store.submit(TaskSpec("noop")).task
    leases = [c.lease for c in store.claim("w1", 2, LEASE)]
    store.cancel(b.id)
    assert sorted(store.release("w1", leases)) == sorted([a.id, b.id])
    released, cancelled = store.get(a.id), store.get(b.id)
    assert released is not None and cancelled is not None
    assert (released.status, released.attempts, released.worker_id) == (TaskStatus.PENDING, 0, None)
    assert cancelled.status is TaskStatus.CANCELLED
    assert event_types(store, a.id)[-1] is EventType.RELEASED
    again = store.claim("w2", 1, LEASE)
    assert again[0].task.id == a.id and again[0].task.attempts == 1 and again[0].lease.token == 2
    assert store.release("w1", leases) == []


def test_reaper_takes_back_expired_leases_as_failed_attempts(store: Store) -> None:
    task = store.submit(TaskSpec("noop", max_attempts=2)).task
    store.claim("w1", 1, 0.2)
    result = wait_for(lambda: store.reap().requeued, timeout=10, what="lease to expire")
    assert result == [task.id]
    pending = store.get(task.id)
    assert pending is not None and pending.status is TaskStatus.PENDING and pending.error_kind == "lease_expired"
    assert "w1" in (pending.error_message or "")
    store.claim("w2", 1, 0.2)
    dead = wait_for(lambda: store.reap().dead_lettered, timeout=10, what="second lease to expire")
    assert dead == [task.id]
    final = store.get(task.id)
    assert final is not None and final.status is TaskStatus.DEAD_LETTER
    assert "attempt 2 of 2" in (final.error_message or "")
    types = event_types(store, task.id)
    assert types.count(EventType.LEASE_LOST) == 2 and types[-1] is EventType.DEAD_LETTERED
    assert store.events(task.id)[-1].detail["reason"] == "attempts exhausted"


def test_reaper_leaves_live_leases_alone(store: Store) -> None:
    store.submit(TaskSpec("noop"))
    claim_one(store, "w1", lease=60)
    assert store.reap().total == 0


def test_requeue_moves_dead_letter_back_to_pending(store: Store) -> None:
    task = store.submit(TaskSpec("noop", max_attempts=1)).task
    _, lease = claim_one(store)
    store.fail(lease, error_kind="permanent", message="bad", retryable=False, delay_seconds=0)
    requeued = store.requeue(task.id)
    assert requeued is not None and (requeued.status, requeued.attempts) == (TaskStatus.PENDING, 0)
    assert store.requeue(task.id) is None
    claimed = store.claim("w1", 1, LEASE)[0]
    assert claimed.lease.token == 2
    assert event_types(store, task.id)[-2:] == [EventType.REQUEUED, EventType.CLAIMED]


def test_expire_worker_leases_lets_the_reaper_recover_a_dead_workers_tasks(store: Store) -> None:
    store.register_worker("dead", "h", 1, 1, ["noop"])
    task = store.submit(TaskSpec("noop")).task
    claim_one(store, "dead")
    assert store.expire_worker_leases(["dead"]) == 1
    assert store.reap().requeued == [task.id]
    assert store.workers(live_only=True) == []


# -- reading, listing, pruning ------------------------------------------------------------------------


def test_list_filters_and_paginates_newest_first(store: Store) -> None:
    ids = [store.submit(TaskSpec("a" if i % 2 else "b", tenant="t1" if i < 5 else "t2")).task.id for i in range(7)]
    seen: list[str] = []
    cursor = None
    while True:
        page = store.list_tasks(limit=3, cursor=cursor)
        seen.extend(t.id for t in page.tasks)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == list(reversed(ids))
    assert [t.id for t in store.list_tasks(kinds=["a"]).tasks] == [ids[5], ids[3], ids[1]]
    assert len(store.list_tasks(tenant="t2").tasks) == 2
    claim_one(store)
    running = store.list_tasks(statuses=[TaskStatus.RUNNING]).tasks
    assert len(running) == 1 and running[0].status is TaskStatus.RUNNING
    assert store.get("00000000-0000-7000-8000-000000000000") is None


def test_counts_by_status(store: Store) -> None:
    store.submit_many([TaskSpec("noop") for _ in range(3)])
    claim_one(store)
    counts = store.counts_by_status()
    assert counts[TaskStatus.PENDING] == 2 and counts[TaskStatus.RUNNING] == 1 and counts[TaskStatus.COMPLETED] == 0


def test_prune_deletes_only_old_finished_tasks_with_their_history(store: Store) -> None:
    done = store.submit(TaskSpec("noop")).task
    _, lease = claim_one(store)
    store.checkpoint(lease, 0, {"p": 0})
    store.complete(lease, None)
    waiting = store.submit(TaskSpec("noop")).task
    assert store.prune(3600) == 0
    wait_for(lambda: store.now() > (store.get(done.id).finished_at.timestamp() + 0.05), what="time to pass")  # type: ignore[union-attr]
    assert store.prune(0.01) == 1
    assert store.get(done.id) is None and store.events(done.id) == [] and store.checkpoints(done.id) == []
    assert store.get(waiting.id) is not None


def test_prune_tasks_returns_the_rows_it_deleted(store: Store) -> None:
    """Whoever keeps files for tasks outside the database learns which tasks went, with their payloads."""
    done = store.submit(TaskSpec("noop", {"input": "uploads/a"}, tenant="t1")).task
    _, lease = claim_one(store)
    store.complete(lease, {"pages": 1})
    cancelled = store.submit(TaskSpec("noop", {"input": "uploads/b"})).task
    store.cancel(cancelled.id)
    store.submit(TaskSpec("noop", {"input": "uploads/c"}))
    assert store.prune_tasks(3600) == []
    wait_for(lambda: store.now() > store.get(cancelled.id).finished_at.timestamp() + 0.05, what="time to pass")  # type: ignore[union-attr]
    pruned = {task.id: task for task in store.prune_tasks(0.01, limit=1)}
    pruned |= {task.id: task for task in store.prune_tasks(0.01, limit=1)}
    assert set(pruned) == {done.id, cancelled.id} and store.prune_tasks(0.01) == []
    assert pruned[done.id].payload == {"input": "uploads/a"} and pruned[done.id].tenant == "t1"
    assert pruned[done.id].status is TaskStatus.COMPLETED and pruned[done.id].result == {"pages": 1}
    assert pruned[cancelled.id].status is TaskStatus.CANCELLED


def test_delete_removes_finished_tasks_only(store: Store) -> None:
    running = store.submit(TaskSpec("noop")).task
    claim_one(store)
    assert store.delete(running.id) is False
    store.cancel(running.id)
    pending = store.submit(TaskSpec("noop")).task
    assert store.delete(pending.id) is False
    store.cancel(pending.id)
    assert store.delete(pending.id) is True and store.get(pending.id) is None and store.events(pending.id) == []


def test_release_with_a_delay_defers_without_charging_an_attempt(store: Store) -> None:
    task = store.submit(TaskSpec("noop")).task
    _, lease = claim_one(store)
    assert store.release("w1", [lease], delay_seconds=0.8, reason="model server down") == [task.id]
    deferred = store.get(task.id)
    assert deferred is not None and (deferred.status, deferred.attempts) == (TaskStatus.PENDING, 0)
    assert deferred.run_at.timestamp() >= store.now() + 0.5
    assert store.claim("w1", 1, LEASE) == []
    assert store.events(task.id)[-1].detail == {"reason": "model server down", "delay_seconds": 0.8}
    again = wait_for(lambda: store.claim("w1", 1, LEASE), timeout=10, what="deferred task to come due")
    assert again[0].task.attempts == 1
