"""Workers SIGKILLed at random while draining: every task still completes, resuming where it stopped."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.proc_history import all_tasks, claims, counts, history_problems, read_record, runs_by_task
from support.processes import Processes, WorkerProcess, registered_worker_id
from support.waiting import wait_for

from ocrqueue.queue import Store, TaskSpec, TaskStatus

pytestmark = pytest.mark.acceptance

SEED = 20_260_611
WORKERS = 4
TASKS = 60
PAGES = 6
KILLS = 6


@dataclass(frozen=True)
class Killed:
    task_id: str
    attempt: int
    pages_done: int
    """Pages this attempt had checkpointed (at least) when its worker was killed."""


def test_killed_workers_tasks_complete_and_resume_at_first_unfinished_page(
    store: Store, workers: Processes, record: Path
) -> None:
    rng = random.Random(SEED)
    by_id: dict[str, WorkerProcess] = {}

    def start() -> None:
        process = workers.start_worker(2)
        by_id[registered_worker_id(store, process)] = process

    for _ in range(WORKERS):
        start()
    payload = {"pages": PAGES, "seconds_per_page": 0.2, "record": str(record)}
    ids = [r.task.id for r in store.submit_many([TaskSpec("sleep", payload) for _ in range(TASKS)])]

    killed: list[Killed] = []

    def mid_task() -> list[tuple[str, str, int, int]] | str:
        """Tasks mid-way on live workers (some pages checkpointed, some not), or "drained"."""
        running = store.list_tasks(statuses=[TaskStatus.RUNNING], limit=100).tasks
        candidates = sorted(
            (t.worker_id, t.id, t.attempts, t.progress_done)
            for t in running
            if t.worker_id in by_id and by_id[t.worker_id].alive and 1 <= t.progress_done < PAGES - 1
        )
        return candidates or ("drained" if counts(store).get(TaskStatus.COMPLETED) == TASKS else [])

    while len(killed) < KILLS and (candidates := wait_for(mid_task, 30, 0.01, "a task mid-way")) != "drained":
        worker_id, task_id, attempt, done = rng.choice(candidates)
        by_id.pop(worker_id).kill()
        killed.append(Killed(task_id, attempt, done))
        start()  # the replacement takes the dead worker's tasks back at start-up
    # Sized so that all kills land mid-drain even on a loaded machine; a few are plenty.
    assert len(killed) >= KILLS // 2, killed

    wait_for(lambda: counts(store).get(TaskStatus.COMPLETED) == TASKS, 60, 0.1, "every task to complete")
    assert counts(store) == {TaskStatus.COMPLETED: TASKS}, workers.logs()
    assert history_problems(store, ids) == {}
    tasks = {t.id: t for t in all_tasks(store)}

    # Pages done by the time a worker was killed were kept, not redone: the final result has
    # them from the killed attempt (or an earlier one), and a later attempt finished the rest.
    for k in killed:
        pages = tasks[k.task_id].result["pages"]
        assert max(p["attempt"] for p in pages[: k.pages_done]) <= k.attempt, (k, pages)
        assert tasks[k.task_id].attempts > k.attempt

    # Every task resumed at its first unfinished page: pages of earlier attempts form a prefix,
    # each page was produced by an attempt that really claimed the task, and the attempt that
    # completed produced the last page.
    runs = runs_by_task(read_record(record))
    resumed = 0
    for task_id, task in tasks.items():
        attempts = [p["attempt"] for p in task.result["pages"]]
        assert [p["page"] for p in task.result["pages"]] == list(range(PAGES))
        assert attempts == sorted(attempts), (task_id, attempts)
        assert attempts[-1] == task.attempts
        assert set(attempts) <= {c.attempt for c in claims(store.events(task_id))}
        assert {r.attempt for r in runs[task_id] if r.what == "done"} == {task.attempts}
        resumed += len(set(attempts)) > 1
    assert resumed >= len({k.task_id for k in killed})
