"""Many worker processes drain one queue: every task completed exactly once, leases never overlap."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.proc_history import all_tasks, counts, history_problems, read_record, runs_by_task
from support.processes import Processes, registered_worker_id
from support.waiting import wait_for

from ocrqueue.queue import EventType, Store, TaskSpec, TaskStatus

pytestmark = pytest.mark.acceptance

WORKERS = 8
CONCURRENCY = 3
TASKS = 2000


def test_eight_workers_drain_two_thousand_tasks_exactly_once(store: Store, workers: Processes, record: Path) -> None:
    # A lease long enough that a starved heartbeat on this 2-core machine cannot lose one: this
    # test is about claim races, not lease expiry.
    env = {"OCRQUEUE_LEASE_SECONDS": "15", "OCRQUEUE_HEARTBEAT_SECONDS": "1", "OCRQUEUE_REAPER_SECONDS": "2"}
    started = [workers.start_worker(CONCURRENCY, env=env) for _ in range(WORKERS)]
    worker_ids = {registered_worker_id(store, p) for p in started}

    t0 = time.monotonic()
    submitted = store.submit_many([TaskSpec("sleep", {"pages": 1, "record": str(record)}) for _ in range(TASKS)])
    ids = [r.task.id for r in submitted]
    wait_for(
        lambda: counts(store).get(TaskStatus.COMPLETED) == TASKS or (workers.alive() != started and workers.logs()),
        timeout=120,
        interval=0.2,
        what=f"{TASKS} tasks to complete",
    )
    drained = time.monotonic() - t0
    assert workers.alive() == started, workers.logs()
    assert counts(store) == {TaskStatus.COMPLETED: TASKS}

    # The database: one completed event per task, lease tokens in order, no overlapping claims.
    assert history_problems(store, ids) == {}
    tasks = {t.id: t for t in all_tasks(store)}
    assert set(tasks) == set(ids)
    completed_by = {t.id: store.events(t.id)[-1] for t in tasks.values()}
    assert {e.type for e in completed_by.values()} == {EventType.COMPLETED}
    assert {e.worker_id for e in completed_by.values()} <= worker_ids
    # Work was really shared: every worker completed some tasks.
    assert {e.worker_id for e in completed_by.values()} == worker_ids

    # The handler's side effects: each run recorded by task id and attempt, by a worker process.
    runs = runs_by_task(read_record(record))
    assert set(runs) == set(ids)
    pids = {p.pid for p in started}
    for task_id, task_runs in runs.items():
        task = tasks[task_id]
        assert {r.pid for r in task_runs} <= pids
        done = [r for r in task_runs if r.what == "done"]
        # The run that finished is the attempt the database completed; no attempt ran twice.
        assert task.attempts in {r.attempt for r in done}, (task_id, task_runs)
        assert len({(r.attempt, r.what) for r in task_runs}) == len(task_runs), (task_id, task_runs)
        assert task.result == {"pages": [{"page": 0, "attempt": task.attempts}]}
    print(f"{TASKS} tasks drained by {WORKERS}x{CONCURRENCY} slots in {drained:.1f}s")
