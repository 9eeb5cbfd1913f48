"""SIGTERM hands running tasks back at once: another worker resumes them long before the lease ends."""

from __future__ import annotations

import signal
import time

import pytest
from support.proc_history import history_problems
from support.processes import Processes, registered_worker_id
from support.waiting import wait_for

from ocrqueue.queue import EventType, Store, TaskSpec, TaskStatus

pytestmark = pytest.mark.acceptance

LONG_LEASE = {
    "OCRQUEUE_LEASE_SECONDS": "60",
    "OCRQUEUE_HEARTBEAT_SECONDS": "5",
    "OCRQUEUE_REAPER_SECONDS": "5",
    "OCRQUEUE_SHUTDOWN_GRACE_SECONDS": "0.5",
}
PAGES = 40


def test_sigterm_releases_running_tasks_to_another_worker_at_once(store: Store, workers: Processes) -> None:
    stopping = workers.start_worker(2, env=LONG_LEASE, name="stopping")
    stopping_id = registered_worker_id(store, stopping)
    payload = {"pages": PAGES, "seconds_per_page": 0.2}
    ids = [r.task.id for r in store.submit_many([TaskSpec("sleep", payload), TaskSpec("sleep", payload)])]

    def both_mid_task() -> bool:
        tasks = [store.get(i) for i in ids]
        return all(t is not None and t.worker_id == stopping_id and 1 <= t.progress_done < PAGES - 2 for t in tasks)

    wait_for(both_mid_task, 30, 0.02, "the first worker to be mid-way through both tasks")
    other = workers.start_worker(2, env=LONG_LEASE, name="other")
    other_id = registered_worker_id(store, other)
    before = {i: store.get(i) for i in ids}
    assert both_mid_task(), f"the tasks finished while the other worker started (slow machine?): {before}"

    t0 = time.monotonic()
    assert stopping.terminate(timeout=15) == 0, stopping.output()
    exited = time.monotonic() - t0
    assert "released 2 running task(s)" in stopping.output()

    def taken_over() -> bool:
        return all((t := store.get(i)) is not None and t.worker_id == other_id for i in ids)

    wait_for(taken_over, 15, 0.02, "the other worker to take both tasks")
    taken = time.monotonic() - t0
    # With a 60 s lease, only the release explains a takeover within seconds.
    assert exited < 5 and taken < 10, (exited, taken)

    wait_for(lambda: all(resumed(store, i) for i in ids), 15, 0.02, "the other worker to checkpoint a page of each")
    assert history_problems(store, ids) == {}
    for task_id in ids:
        task = store.get(task_id)
        assert task is not None and (task.status, task.worker_id) == (TaskStatus.RUNNING, other_id)
        assert task.attempts == 1, "a release on graceful shutdown must not charge an attempt"
        history = store.events(task_id)
        # A handler caught mid-write by the release has that write rejected (and recorded).
        rejected = [e for e in history if e.type is EventType.LEASE_LOST]
        assert all((e.worker_id, e.lease_token) == (stopping_id, 1) for e in rejected), rejected
        events = [(e.type, e.attempt, e.lease_token, e.worker_id) for e in history if e not in rejected]
        assert events == [
            (EventType.SUBMITTED, 0, 0, None),
            (EventType.CLAIMED, 1, 1, stopping_id),
            (EventType.RELEASED, 0, 1, stopping_id),
            (EventType.CLAIMED, 1, 2, other_id),
        ]
        assert resumed(store, task_id) >= before[task_id].progress_done  # type: ignore[union-attr]


def resumed(store: Store, task_id: str) -> int:
    """The page count the second lease (token 2) took over at, once it has saved a page; else 0.

    Pages of the first lease form a prefix and the second continues right after them.
    """
    tokens = [c.lease_token for c in store.checkpoints(task_id)]
    if 2 not in tokens:
        return 0
    first_new = tokens.index(2)
    assert tokens[:first_new] == [1] * first_new and set(tokens[first_new:]) == {2}, tokens
    assert first_new > 0, "the pages done before the release were kept"
    return first_new


def test_first_sigterm_lets_a_task_run_on_and_a_second_releases_it_at_once(store: Store, workers: Processes) -> None:
    patient = {**LONG_LEASE, "OCRQUEUE_SHUTDOWN_GRACE_SECONDS": "60"}
    stopping = workers.start_worker(1, env=patient, name="stopping")
    stopping_id = registered_worker_id(store, stopping)
    task_id = store.submit(TaskSpec("sleep", {"pages": 30, "seconds_per_page": 0.2})).task.id

    def progress() -> int:
        task = store.get(task_id)
        assert task is not None
        return task.progress_done if task.worker_id == stopping_id else 0

    wait_for(lambda: progress() >= 1, 30, 0.05, "the worker to be mid-task")
    stopping.signal(signal.SIGTERM)
    stopping.wait_output("SIGTERM received: stopping")
    # Within its 60 s grace period the task keeps going, and nothing new is claimed.
    seen = progress()
    wait_for(lambda: progress() >= seen + 2, 10, 0.05, "the task to keep running after the first SIGTERM")
    noop = store.submit(TaskSpec("noop")).task.id

    stopping.signal(signal.SIGTERM)
    assert stopping.wait_exit(timeout=10) == 0, stopping.output()
    assert "releasing now" in stopping.output()
    released = store.get(task_id)
    assert released is not None
    assert (released.status, released.attempts, released.worker_id) == (TaskStatus.PENDING, 0, None)
    assert store.get(noop).status is TaskStatus.PENDING  # type: ignore[union-attr]

    # The next worker resumes after the pages already done, on the same (uncharged) attempt.
    workers.start_worker(1, env=patient, name="next")
    wait_for(lambda: resumed(store, task_id), 30, 0.05, "the next worker to resume the task")
    assert resumed(store, task_id) >= released.progress_done
    resumed_task = store.get(task_id)
    assert resumed_task is not None and resumed_task.attempts == 1
    wait_for(lambda: (t := store.get(noop)) is not None and t.status is TaskStatus.COMPLETED, 15, 0.05, "the noop")
    assert history_problems(store, [task_id, noop]) == {}
