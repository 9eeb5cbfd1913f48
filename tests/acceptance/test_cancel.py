"""Cancelling through the CLI while a worker runs: cancellation wins (invariant 8)."""

from __future__ import annotations

import pytest
from support.proc_history import history_problems
from support.processes import Processes, registered_worker_id
from support.waiting import wait_for

from ocrqueue.queue import EventType, Store, TaskSpec, TaskStatus

pytestmark = pytest.mark.acceptance


def test_cli_cancel_stops_a_running_task_and_a_pending_one(store: Store, workers: Processes) -> None:
    worker = workers.start_worker(1)
    worker_id = registered_worker_id(store, worker)
    long = {"pages": 300, "seconds_per_page": 0.2}  # a minute: two CLI starts on a busy machine fit
    submitted = store.submit_many([TaskSpec("sleep", long, priority=1), TaskSpec("sleep", long)])
    running_id, pending_id = (r.task.id for r in submitted)

    def running_mid_task() -> bool:
        task = store.get(running_id)
        return task is not None and task.worker_id == worker_id and task.progress_done >= 1

    wait_for(running_mid_task, 30, 0.05, "the worker to be mid-task")
    # The pending one first: once the running one stops, the worker would claim it.
    cancel_pending = workers.run("tasks", "cancel", pending_id)
    cancel_running = workers.run("tasks", "cancel", running_id)
    assert cancel_running.returncode == 0 and "cancel requested" in cancel_running.stdout, cancel_running
    assert cancel_pending.returncode == 0 and "cancelled" in cancel_pending.stdout, cancel_pending

    # The handler notices at its next page and stops; the worker is free again at once.
    task = wait_for(
        lambda: (t := store.get(running_id)) is not None and t.status.terminal and t, 10, 0.05, "the cancel to land"
    )
    assert (task.status, task.error_kind, task.result) == (TaskStatus.CANCELLED, "cancelled", None)
    assert task.progress_done < 300
    pending = store.get(pending_id)
    assert pending is not None and (pending.status, pending.attempts) == (TaskStatus.CANCELLED, 0)

    assert history_problems(store, [running_id, pending_id]) == {}
    running_events = [e.type for e in store.events(running_id)]
    assert running_events[-2:] == [EventType.CANCEL_REQUESTED, EventType.CANCELLED]
    assert EventType.COMPLETED not in running_events
    assert [e.type for e in store.events(pending_id)] == [EventType.SUBMITTED, EventType.CANCELLED]

    waited = workers.run("tasks", "wait", running_id, "--timeout", "5")
    assert waited.returncode == 1 and "cancelled" in waited.stdout, waited

    noop = store.submit(TaskSpec("noop")).task.id
    wait_for(lambda: (t := store.get(noop)) is not None and t.status is TaskStatus.COMPLETED, 15, 0.05, "a noop")
    assert worker.alive
