"""A scanned document's pages read by two `ocrqueue worker` processes at once (page-range child
tasks), one SIGKILLed midway: the result equals a clean run by a single worker reading it alone."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from data.generate import ENGLISH, scanned_pdf, text_page
from support.processes import Processes, registered_worker_id
from support.results import without_timings
from support.waiting import wait_for, wait_terminal

from ocrqueue.documents import ProcessOptions
from ocrqueue.queue import Store, Task, TaskStatus
from ocrqueue.service.storage_keys import result_json_key, result_markdown_key
from ocrqueue.service.submission import Submission, submit_document
from ocrqueue.settings import Settings
from ocrqueue.storage import LocalStorage

pytestmark = pytest.mark.acceptance

PAGES = 6
SPLIT = 2


def result_files(storage: LocalStorage, task_id: str) -> tuple[dict[str, object], str]:
    document = without_timings(json.loads(storage.get(result_json_key(task_id))))
    document.pop("id", None)
    return document, storage.get(result_markdown_key(task_id)).decode()


def test_a_scan_read_by_two_workers_one_killed_equals_a_clean_single_worker_run(
    store: Store, workers: Processes, tmp_path: Path
) -> None:
    storage = LocalStorage(Settings(data_dir=tmp_path / "data").resolved_storage_dir)
    document = scanned_pdf(text_page(ENGLISH[:6], cjk=False, title="Fan-out"), pages=PAGES)

    def submit() -> str:
        submission = Submission("scan.pdf", ProcessOptions(mode="ocr"), force=True)
        return submit_document(store, storage, io.BytesIO(document), submission, 1 << 30).task.id

    split_env = {"OCRQUEUE_SPLIT_PAGES": str(SPLIT)}
    first, second = workers.start_worker(1, env=split_env), workers.start_worker(1, env=split_env)
    by_id = {registered_worker_id(store, p): p for p in (first, second)}
    parent = submit()

    def both_mid_child() -> list[Task]:
        running = [c for c in store.children(parent) if c.status is TaskStatus.RUNNING]
        if len({c.worker_id for c in running}) < 2:
            return []
        return [c for c in running if c.progress_done == 1]

    victim = wait_for(both_mid_child, 120, 0.02, "both workers reading pages of the scan")[0]
    assert victim.worker_id is not None
    survivor = next(p for worker_id, p in by_id.items() if worker_id != victim.worker_id)
    by_id[victim.worker_id].kill()
    assert wait_terminal(store, parent, timeout=180) is TaskStatus.COMPLETED, workers.logs()
    children = store.children(parent)
    assert len(children) == PAGES // SPLIT and {c.status for c in children} == {TaskStatus.COMPLETED}
    taken_over = next(c for c in children if c.id == victim.id)
    assert taken_over.attempts == victim.attempts + 1
    # The page the killed worker had saved was kept: only the other page was read again.
    assert {cp.seq: cp.lease_token for cp in store.checkpoints(victim.id)}[
        int(victim.payload["options"]["pages"].split("-")[0]) - 1
    ] == victim.lease_token

    survivor.terminate()
    workers.start_worker(1, env={"OCRQUEUE_SPLIT_PAGES": "0"})
    clean = submit()
    assert wait_terminal(store, clean, timeout=180) is TaskStatus.COMPLETED, workers.logs()
    assert store.children(clean) == []
    assert result_files(storage, parent) == result_files(storage, clean)
