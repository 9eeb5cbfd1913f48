"""One task's pages read by two `ocrqueue worker` processes at once (the `parts` kind hands page
ranges to child tasks), one of them SIGKILLed midway: the result equals a clean single-worker run."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.processes import Processes, registered_worker_id
from support.waiting import wait_for, wait_terminal

from ocrqueue.queue import Store, Task, TaskSpec, TaskStatus

pytestmark = pytest.mark.acceptance

PAGES = 12
PART_PAGES = 3


def running_children(store: Store, parent: str) -> list[Task]:
    return [c for c in store.children(parent) if c.status is TaskStatus.RUNNING]


def pages_by_pid(record: Path) -> dict[int, set[int]]:
    seen: dict[int, set[int]] = {}
    for line in record.read_text().splitlines():
        _task, _attempt, pid, page = line.split()
        seen.setdefault(int(pid), set()).add(int(page))
    return seen


def test_a_documents_pages_are_read_by_two_workers_and_survive_one_being_killed(
    store: Store, workers: Processes, tmp_path: Path
) -> None:
    first, second = workers.start_worker(1), workers.start_worker(1)
    by_id = {registered_worker_id(store, p): p for p in (first, second)}
    record = tmp_path / "split.txt"
    payload = {"pages": PAGES, "part_pages": PART_PAGES, "seconds_per_page": 0.3, "record": str(record)}
    parent = store.submit(TaskSpec("parts", payload, tenant="acme", priority=3)).task.id

    def both_mid_child() -> list[Task]:
        """Children running on both workers at once, one of them with a page done and one to go."""
        running = running_children(store, parent)
        if len({c.worker_id for c in running}) < 2:
            return []
        return [c for c in running if 1 <= c.progress_done < PART_PAGES]

    victim = wait_for(both_mid_child, 60, 0.01, "both workers reading pages of the document")[0]
    assert victim.worker_id is not None
    by_id[victim.worker_id].kill()

    assert wait_terminal(store, parent, timeout=90) is TaskStatus.COMPLETED, workers.logs()
    split = store.get(parent)
    assert split is not None and split.result is not None
    children = store.children(parent)
    assert len(children) == PAGES // PART_PAGES
    assert {(c.tenant, c.priority, c.status) for c in children} == {("acme", 3, TaskStatus.COMPLETED)}
    assert len(pages_by_pid(record)) == 2, "both processes read pages"
    # The killed child was taken over and resumed after its saved pages, which were kept.
    taken_over = next(c for c in children if c.id == victim.id)
    assert taken_over.attempts == victim.attempts + 1
    kept = [p for p in split.result["pages"] if victim.payload["first"] <= p["page"] < victim.payload["last"]]
    assert [p["attempt"] for p in kept[: victim.progress_done]] == [victim.attempts] * victim.progress_done
    assert (split.progress_done, split.progress_total) == (PAGES, PAGES)

    # A clean run of the same document by the one worker left gives the same pages, in order.
    clean_record = tmp_path / "clean.txt"
    clean_id = store.submit(TaskSpec("parts", payload | {"record": str(clean_record)})).task.id
    assert wait_terminal(store, clean_id, timeout=90) is TaskStatus.COMPLETED
    clean = store.get(clean_id)
    assert clean is not None and clean.result is not None
    assert (
        [p["page"] for p in split.result["pages"]] == [p["page"] for p in clean.result["pages"]] == list(range(PAGES))
    )
    assert len(pages_by_pid(clean_record)) == 1
