"""Clock jumps: the wall clocks of running worker processes step forward and back by hours
(libfaketime, `support.faketime`); CLOCK_MONOTONIC keeps running, as it does in a real step.

- PostgreSQL: lease times come from the server's clock, so stepping the workers' clocks (the
  server's stays) must change nothing: no lease expires early or is stretched, no task is claimed
  twice, everything completes once; the monotonic timers (heartbeat, stall detection with a 2 s
  limit) keep working.
- SQLite: "database time" is the wall clock of whichever process runs the statement, so every
  process on the machine steps together (one timestamp file). Forward by more than the lease:
  leases may expire and tasks run again, with the old holder's writes fenced off, but never two
  results. Back by hours: pending tasks and dead workers' leases must not wait out the step.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.db import wipe
from support.faketime import FakeClock
from support.proc_history import history_problems, read_record
from support.processes import Processes, WorkerProcess, registered_worker_id
from support.waiting import wait_for

from ocrqueue.queue import EventType, Store, TaskSpec, TaskStatus, open_store

pytestmark = [pytest.mark.acceptance, pytest.mark.slow, pytest.mark.timeout(180)]

HOURS = 3 * 3600
LEASE = 3.0
ENV = {
    "OCRQUEUE_LEASE_SECONDS": str(LEASE),
    "OCRQUEUE_HEARTBEAT_SECONDS": "0.5",
    "OCRQUEUE_REAPER_SECONDS": "0.5",
    "OCRQUEUE_POLL_SECONDS": "0.2",
    "OCRQUEUE_SHUTDOWN_GRACE_SECONDS": "1",
    "OCRQUEUE_BACKOFF_BASE_SECONDS": "0.2",
    "OCRQUEUE_BACKOFF_CAP_SECONDS": "1",
    "OCRQUEUE_MAX_ATTEMPTS": "6",
    # Handlers report a page every 0.4 s: a stall timer on the monotonic clock never fires, one on
    # the wall clock would fire at the first forward step.
    "OCRQUEUE_TASK_STALL_SECONDS": "2",
}
PAGES = 10
# libfaketime slows a Python process's start-up (about 3x on a loaded 2-core machine): the wait
# for its registration is a start-up allowance, not a bound on anything the test checks.
STARTUP = 90.0
PAYLOAD = {"pages": PAGES, "seconds_per_page": 0.4}


@pytest.fixture
def pg_url(pg_session_url: str) -> str:
    wipe(pg_session_url)
    return pg_session_url


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> Iterator[str]:
    path = tmp_path / "queue.db"
    path.write_bytes(sqlite_template.read_bytes())
    yield f"sqlite:///{path}"


def _running_on(store: Store, worker_ids: set[str]) -> set[str]:
    running = store.list_tasks(statuses=[TaskStatus.RUNNING], limit=1000).tasks
    return {t.worker_id for t in running if t.worker_id in worker_ids}


def _lease_margins(store: Store) -> list[float]:
    """Seconds left on each running lease, by the database clock."""
    now = store.now()
    running = store.list_tasks(statuses=[TaskStatus.RUNNING], limit=1000).tasks
    return [t.lease_expires_at.timestamp() - now for t in running if t.lease_expires_at is not None]


def _renewed_since(store: Store, since: float) -> bool:
    """Every running lease was renewed after `since` (database clock)."""
    running = store.list_tasks(statuses=[TaskStatus.RUNNING], limit=1000).tasks
    return all(t.lease_expires_at is not None and t.lease_expires_at.timestamp() > since + LEASE for t in running)


def _wait_finished(store: Store, task_ids: list[str], processes: Processes, timeout: float = 90) -> None:
    def finished() -> bool:
        return all((task := store.get(t)) is not None and task.status.terminal for t in task_ids)

    wait_for(finished, timeout, 0.1, f"every task to finish:\n{processes.logs()}")


def _wait_seen(clock: FakeClock, workers: list[WorkerProcess]) -> None:
    for worker in workers:
        wait_for(lambda w=worker: clock.seen_by(w.pid), 10, 0.02, f"{worker.name} to see the clock step")


def _completed_once(store: Store, task_ids: list[str]) -> list[str]:
    problems = []
    for task_id in task_ids:
        task = store.get(task_id)
        assert task is not None
        completions = [e for e in store.events(task_id) if e.type is EventType.COMPLETED]
        if task.status is not TaskStatus.COMPLETED or len(completions) != 1:
            problems.append(f"{task_id}: {task.status}, {len(completions)} completed events, {task.error_message}")
            continue
        claimed = {e.lease_token for e in store.events(task_id) if e.type is EventType.CLAIMED}
        checkpoints = store.checkpoints(task_id)
        if [c.seq for c in checkpoints] != list(range(PAGES)) or not {c.lease_token for c in checkpoints} <= claimed:
            problems.append(f"{task_id}: checkpoints {[(c.seq, c.lease_token) for c in checkpoints]}")
        if task.result is None or len(task.result["pages"]) != PAGES:  # type: ignore[index]
            problems.append(f"{task_id}: result {task.result}")
        stalled = [e for e in store.events(task_id) if e.detail.get("error_kind") == "stalled"]
        if stalled:
            problems.append(f"{task_id}: given up as stalled {stalled}")
    return problems


def test_worker_clock_steps_change_nothing_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    store = open_store(pg_url)
    ahead, behind = FakeClock(tmp_path / "clock-a"), FakeClock(tmp_path / "clock-b")
    record = tmp_path / "record.txt"
    try:
        with Processes(tmp_path, pg_url, ENV) as processes:
            workers = [
                processes.start_worker(2, env=ahead.environment()),
                processes.start_worker(2, env=behind.environment()),
            ]
            worker_ids = {registered_worker_id(store, w, STARTUP) for w in workers}
            specs = [TaskSpec("sleep", {**PAYLOAD, "record": str(record)}) for _ in range(6)]
            task_ids = [r.task.id for r in store.submit_many(specs)]
            wait_for(lambda: _running_on(store, worker_ids) == worker_ids, 30, 0.02, "both workers to run tasks")

            for forward, back in ((HOURS, -HOURS), (-HOURS, HOURS)):  # then each steps 6 h the other way
                ahead.set(forward)
                behind.set(back)
                _wait_seen(ahead, workers[:1])
                _wait_seen(behind, workers[1:])
                # Leases renewed by heartbeats sent under the stepped clocks stay one lease long.
                stepped = store.now()
                wait_for(lambda at=stepped: _renewed_since(store, at), 10, 0.05, "heartbeats after the step")
                margins = _lease_margins(store)
                assert margins and all(0 < m <= LEASE + 0.5 for m in margins), margins
            _wait_finished(store, task_ids, processes)

        problems = _completed_once(store, task_ids)
        for task_id in task_ids:
            task = store.get(task_id)
            assert task is not None
            events = store.events(task_id)
            if task.attempts != 1 or task.lease_token != 1:
                problems.append(f"{task_id}: attempts {task.attempts}, lease token {task.lease_token}")
            problems += [f"{task_id}: {e.type} {e.detail}" for e in events if e.type is EventType.LEASE_LOST]
        for task_id, found in history_problems(store, task_ids).items():
            problems += [f"{task_id}: {p}" for p in found]
        runs = read_record(record)
        for task_id in task_ids:
            ran = [(r.what, r.attempt) for r in runs if r.task_id == task_id]
            if ran != [("start", 1), ("done", 1)]:
                problems.append(f"{task_id}: handler runs {ran}")
        assert problems == [], "\n".join(problems)
    finally:
        store.close()


def _enqueue(processes: Processes, clock: FakeClock, count: int, record: Path) -> list[str]:
    """Submit through `ocrqueue tasks enqueue`, on the stepped clock like every other process."""
    payload = json.dumps({**PAYLOAD, "record": str(record)})
    done = processes.run(
        *("tasks", "enqueue", "sleep", "--test-kinds", "--payload", payload, "--count", str(count)),
        env=clock.environment(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [line.split()[0] for line in done.stdout.splitlines() if line.endswith("created")]


def test_sqlite_machine_clock_steps_forward_and_back(sqlite_url: str, tmp_path: Path) -> None:
    store = open_store(sqlite_url)
    clock = FakeClock(tmp_path / "clock")
    record = tmp_path / "record.txt"
    try:
        with Processes(tmp_path, sqlite_url, ENV) as processes:
            workers = [processes.start_worker(2, env=clock.environment()) for _ in range(2)]
            worker_ids = {registered_worker_id(store, w, STARTUP) for w in workers}

            # Forward by hours, past every lease, while four tasks run.
            first = _enqueue(processes, clock, 4, record)
            wait_for(lambda: _running_on(store, worker_ids) == worker_ids, 30, 0.02, "both workers to run tasks")
            clock.set(HOURS)
            _wait_seen(clock, workers)
            _wait_finished(store, first, processes)
            problems = _completed_once(store, first)
            for task_id, found in history_problems(store, first).items():
                problems += [f"{task_id}: {p}" for p in found]
            assert problems == [], "\n".join(problems)

            # Back by hours with tasks leased by workers that then die, and tasks waiting.
            second = _enqueue(processes, clock, 4, record)
            wait_for(lambda: _running_on(store, worker_ids) == worker_ids, 30, 0.02, "both workers to run tasks")
            for worker in workers:
                worker.kill()
            waiting = _enqueue(processes, clock, 2, record)
            clock.set(0)
            # On "another machine", so its start-up recovery of dead workers on its own host does
            # not hand the dead workers' tasks back: only the reaper, on the stepped-back clock, may.
            survivor = processes.start_worker(2, env=clock.environment(), host="elsewhere")
            _wait_seen(clock, [survivor])
            _wait_finished(store, second + waiting, processes, timeout=60)
            problems = _completed_once(store, second + waiting)
            assert problems == [], "\n".join(problems)
    finally:
        store.close()
