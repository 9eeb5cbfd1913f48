"""Failures end in dead_letter saying why, without holding up the good tasks (invariants 4 and 9)."""

from __future__ import annotations

import pytest
from support.proc_history import counts, history_problems
from support.processes import Processes, WorkerProcess, registered_worker_id
from support.waiting import wait_for

from ocrqueue.queue import EventType, Store, Task, TaskSpec, TaskStatus

pytestmark = pytest.mark.acceptance

MAX_ATTEMPTS = {"OCRQUEUE_MAX_ATTEMPTS": "2", "OCRQUEUE_BACKOFF_BASE_SECONDS": "0.2"}
GOOD = 30


def test_permanent_failure_dead_letters_while_the_others_complete(store: Store, workers: Processes) -> None:
    for _ in range(2):
        registered_worker_id(store, workers.start_worker(2, env=MAX_ATTEMPTS))
    good = [TaskSpec("sleep", {"pages": 2, "seconds_per_page": 0.01}) for _ in range(GOOD)]
    bad = TaskSpec("sleep", {"pages": 2, "fail_attempts": 5, "error": "permanent"})
    flaky = TaskSpec("sleep", {"pages": 2, "fail_attempts": 1, "error": "transient"})
    specs = [*good[: GOOD // 2], bad, flaky, *good[GOOD // 2 :]]
    ids = [r.task.id for r in store.submit_many(specs)]
    bad_id, flaky_id = ids[GOOD // 2], ids[GOOD // 2 + 1]

    expected = {TaskStatus.COMPLETED: GOOD + 1, TaskStatus.DEAD_LETTER: 1}
    wait_for(lambda: counts(store) == expected, 30, 0.05, f"{expected}")
    assert history_problems(store, ids) == {}

    # The planted permanent failure: dead-lettered on its first attempt, saying so.
    task = store.get(bad_id)
    assert task is not None
    assert (task.status, task.attempts, task.error_kind) == (TaskStatus.DEAD_LETTER, 1, "permanent")
    assert task.error_message == "planted permanent failure on attempt 1"
    assert task.finished_at is not None and task.result is None
    history = [(e.type, e.attempt) for e in store.events(bad_id)]
    assert history == [(EventType.SUBMITTED, 0), (EventType.CLAIMED, 1), (EventType.DEAD_LETTERED, 1)]
    dead = store.events(bad_id)[-1]
    assert dead.detail["reason"] == "permanent error"
    assert (dead.detail["error_kind"], dead.detail["message"]) == (task.error_kind, task.error_message)
    assert [c.seq for c in store.checkpoints(bad_id)] == [0], "work before the failure stays inspectable"

    # `ocrqueue tasks wait` says the same: exit 1 for the dead letter, 0 for a completed task.
    waited_bad = workers.run("tasks", "wait", bad_id, "--timeout", "5")
    assert waited_bad.returncode == 1 and "dead_letter" in waited_bad.stdout, waited_bad
    assert workers.run("tasks", "wait", ids[0], "--timeout", "5").returncode == 0

    # A transient failure is retried after a real wait and then completes.
    flaky_task = store.get(flaky_id)
    assert flaky_task is not None and (flaky_task.status, flaky_task.attempts) == (TaskStatus.COMPLETED, 2)
    retried = [e for e in store.events(flaky_id) if e.type is EventType.RETRIED]
    assert [(e.attempt, e.detail["error_kind"]) for e in retried] == [(1, "transient")]
    assert 0 <= retried[0].detail["delay_seconds"] <= 0.2 * 2


def test_crashing_task_dead_letters_as_lease_expired_after_max_attempts(store: Store, workers: Processes) -> None:
    payload = '{"pages": 2, "fail_attempts": 99, "error": "crash"}'
    enqueued = workers.run("tasks", "enqueue", "sleep", "--test-kinds", "--payload", payload, env=MAX_ATTEMPTS)
    assert enqueued.returncode == 0, enqueued.stderr
    task_id, created = enqueued.stdout.split()
    assert created == "created"
    submitted = store.get(task_id)
    assert submitted is not None and submitted.max_attempts == 2

    crashed: list[WorkerProcess] = []

    def settled() -> Task | None:
        """Replace a worker the task killed; returns the task once it is terminal."""
        for process in workers.started:
            if not process.alive and process not in crashed:
                crashed.append(process)
        if not workers.alive():
            workers.start_worker(1, env=MAX_ATTEMPTS)
        task = store.get(task_id)
        return task if task is not None and task.status.terminal else None

    task = wait_for(settled, 60, 0.05, "the crashing task to settle")
    assert [p.returncode for p in crashed] == [70, 70], workers.logs()
    assert (task.status, task.attempts, task.error_kind) == (TaskStatus.DEAD_LETTER, 2, "lease_expired")
    assert task.error_message is not None and "during attempt 2 of 2" in task.error_message

    history = store.events(task_id)
    assert history_problems(store, [task_id]) == {}
    assert [(e.type, e.attempt) for e in history] == [
        (EventType.SUBMITTED, 0),
        (EventType.CLAIMED, 1),
        (EventType.LEASE_LOST, 1),
        (EventType.RETRIED, 1),
        (EventType.CLAIMED, 2),
        (EventType.LEASE_LOST, 2),
        (EventType.DEAD_LETTERED, 2),
    ]
    claimed_by = [e.worker_id for e in history if e.type is EventType.CLAIMED]
    lost_by = [e.worker_id for e in history if e.type is EventType.LEASE_LOST]
    assert claimed_by == lost_by and len(set(claimed_by)) == 2
    assert {e.detail["reason"] for e in history if e.type is EventType.LEASE_LOST} == {"lease expired"}
    assert history[-1].detail["error_kind"] == "lease_expired"

    # Settled means settled: the surviving worker leaves the dead letter alone.
    survivor = workers.alive()
    assert len(survivor) == 1
    survivor_id = registered_worker_id(store, survivor[0])
    noop = store.submit(TaskSpec("noop")).task.id
    wait_for(lambda: (t := store.get(noop)) is not None and t.status is TaskStatus.COMPLETED, 15, 0.05, "a noop")
    assert store.get(task_id) == task
    assert [e.worker_id for e in store.events(noop) if e.type is EventType.CLAIMED] == [survivor_id]
