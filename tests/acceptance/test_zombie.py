"""A worker paused past its lease (SIGSTOP) cannot overwrite the work of the worker that took over."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support.proc_history import history_problems, read_record
from support.processes import Processes, WorkerProcess, registered_worker_id
from support.waiting import wait_for

from ocrqueue.queue import EventType, Store, TaskSpec, TaskStatus
from ocrqueue.queue.urls import parse_database_url

pytestmark = pytest.mark.acceptance

PAGES = 6


def sqlite_write_lock_free(db_url: str) -> bool:
    """Whether another connection can take SQLite's write lock right now."""
    url = parse_database_url(db_url)
    if url.sqlite_path is None:
        return True
    conn = sqlite3.connect(url.sqlite_path, timeout=0.2, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()


def pause_outside_a_write(process: WorkerProcess, db_url: str) -> None:
    """SIGSTOP the worker, but not inside a SQLite write transaction.

    A process frozen while holding SQLite's one write lock stops every other writer on that
    file, whatever the queue does; that is SQLite, not what this test is about. PostgreSQL
    statements are autocommit, so a frozen client holds no locks there.
    """
    for _ in range(50):
        process.pause()
        if sqlite_write_lock_free(db_url):
            return
        process.resume()
    raise AssertionError("could not pause the worker outside a write transaction")


def test_paused_worker_cannot_overwrite_the_new_owners_result(
    db_url: str, store: Store, workers: Processes, record: Path
) -> None:
    zombie = workers.start_worker(1, name="zombie")
    zombie_id = registered_worker_id(store, zombie)
    task_id = store.submit(TaskSpec("sleep", {"pages": PAGES, "seconds_per_page": 0.4, "record": str(record)})).task.id

    def zombie_mid_task() -> bool:
        task = store.get(task_id)
        assert task is not None
        return task.worker_id == zombie_id and 1 <= task.progress_done <= 2

    wait_for(zombie_mid_task, 30, 0.01, "the first worker to be mid-task")
    pause_outside_a_write(zombie, db_url)
    paused = store.get(task_id)
    assert paused is not None

    # The lease (2 s) runs out while the first worker is frozen; a second worker reaps the task,
    # resumes it from the checkpoints and completes it.
    taker = workers.start_worker(1, name="taker")
    taker_id = registered_worker_id(store, taker)
    done = wait_for(
        lambda: (t := store.get(task_id)) is not None and t.status is TaskStatus.COMPLETED and t,
        30,
        0.05,
        "the second worker to complete the task",
    )
    assert done.worker_id == taker_id
    assert done.lease_token == paused.lease_token + 1
    checkpoints = store.checkpoints(task_id)
    assert [c.seq for c in checkpoints] == list(range(PAGES))
    assert {c.lease_token for c in checkpoints[paused.progress_done :]} == {done.lease_token}

    # Wake the zombie: it finds its lease gone and discards its work.
    zombie.resume()
    zombie.wait_output("lease lost; result discarded", timeout=20)
    after = store.get(task_id)
    assert after is not None
    assert (after.status, after.result, after.lease_token, after.worker_id) == (
        TaskStatus.COMPLETED,
        done.result,
        done.lease_token,
        taker_id,
    )
    assert store.checkpoints(task_id) == checkpoints
    assert zombie.alive, zombie.output()

    events = store.events(task_id)
    assert history_problems(store, [task_id]) == {}
    assert [e.worker_id for e in events if e.type is EventType.COMPLETED] == [taker_id]
    rejected = [e for e in events if e.type is EventType.LEASE_LOST and e.detail.get("reason") == "write rejected"]
    # The zombie's heartbeat may learn of the loss before its handler writes anything; when the
    # handler's write got to the database first, the rejection is on record.
    for event in rejected:
        assert (event.worker_id, event.lease_token) == (zombie_id, paused.lease_token)
        assert event.detail["current_token"] == done.lease_token
        assert event.detail["current_status"] == "completed"
    expired = [e for e in events if e.type is EventType.LEASE_LOST and e.detail.get("reason") == "lease expired"]
    assert [(e.worker_id, e.lease_token) for e in expired] == [(zombie_id, paused.lease_token)]

    # Only the taker's run finished; the zombie's attempt started and never reached "done".
    runs = read_record(record)
    assert [(r.pid, r.what) for r in runs if r.what == "done"] == [(taker.pid, "done")]
    assert {(r.pid, r.attempt) for r in runs if r.what == "start"} == {
        (zombie.pid, paused.attempts),
        (taker.pid, done.attempts),
    }
