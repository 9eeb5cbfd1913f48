"""The OCR task kind on the queue, on both backends: pages checkpointed, resumed, results stored."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from data.generate import PdfBuilder, born_digital_pdf, encode, figure_page, section_pages_pdf
from documents.test_script_warnings import tessdata_without
from documents.test_scripts_read import page_png
from prometheus_client import REGISTRY, CollectorRegistry
from support.results import without_timings
from support.waiting import wait_terminal

from ocrqueue.documents import (
    DocumentLimits,
    PipelineResources,
    ProcessOptions,
    open_document,
    process_page,
    registered_engine,
)
from ocrqueue.documents.engines.tesseract import TesseractEngine
from ocrqueue.documents.layout.detector import LayoutBox
from ocrqueue.queue import QueueConfig, Store, TaskStatus, Worker
from ocrqueue.queue.metrics import QueueMetrics
from ocrqueue.queue.models import JSON, EventType, Lease
from ocrqueue.service.kinds import build_registry
from ocrqueue.service.runtime import pipeline_resources
from ocrqueue.service.storage_keys import result_json_key, result_markdown_key
from ocrqueue.service.submission import Submission, submit_document
from ocrqueue.service.tasks import Tasks
from ocrqueue.settings import Settings
from ocrqueue.storage import LocalStorage, TooLargeUploadError

CONFIG = QueueConfig(lease_seconds=10, heartbeat_seconds=1, reaper_seconds=1, poll_seconds=0.2, concurrency=2)
TEXT = ProcessOptions(mode="text")


@pytest.fixture
def storage(tmp_path: Path) -> LocalStorage:
    return LocalStorage(tmp_path / "storage")


@pytest.fixture
def worker(store: Store, storage: LocalStorage) -> Iterator[Worker]:
    runner = Worker(store, build_registry(storage, DocumentLimits()), CONFIG, metrics=QueueMetrics(CollectorRegistry()))
    yield runner
    runner.stop(release_now=True)
    assert runner.wait_stopped(15)


def submit(store: Store, storage: LocalStorage, data: bytes, options: ProcessOptions = TEXT, **kw: object) -> str:
    result = submit_document(store, storage, io.BytesIO(data), Submission("doc.pdf", options, **kw), 10_000_000)  # type: ignore[arg-type]
    return result.task.id


def run_to_completion(runner: Worker, store: Store, task_id: str) -> None:
    """Start a worker of its own, wait until the task completed, then stop the worker."""
    runner.start()
    try:
        assert wait_terminal(store, task_id) is TaskStatus.COMPLETED
    finally:
        runner.stop(release_now=True)
        assert runner.wait_stopped(15)


def test_a_pdf_goes_through_page_by_page_into_stored_results(
    store: Store, storage: LocalStorage, worker: Worker
) -> None:
    task_id = submit(store, storage, born_digital_pdf(pages=3))
    worker.start()
    assert wait_terminal(store, task_id) is TaskStatus.COMPLETED
    task = store.get(task_id)
    assert task is not None and (task.progress_done, task.progress_total) == (3, 3)
    assert task.result == {
        "json": result_json_key(task_id),
        "markdown": result_markdown_key(task_id),
        "pages": 3,
        "paths": ["text_layer"],
    }
    document = json.loads(storage.get(result_json_key(task_id)))
    assert [p["index"] for p in document["pages"]] == [0, 1, 2]
    assert "Supplier Invoices" in storage.get(result_markdown_key(task_id)).decode()
    assert [c.seq for c in store.checkpoints(task_id)] == [0, 1, 2]


def _stage_sample(name: str, stage: str) -> float:
    return REGISTRY.get_sample_value(f"ocrqueue_page_stage_seconds_{name}", {"stage": stage}) or 0.0


def test_each_page_records_its_stage_times_and_the_worker_observes_them_per_stage(
    store: Store, storage: LocalStorage, worker: Worker
) -> None:
    stages = ("textlayer.judge", "textlayer.read", "finish.continuations")
    counts = {stage: _stage_sample("count", stage) for stage in stages}
    sums = {stage: _stage_sample("sum", stage) for stage in stages}
    task_id = submit(store, storage, born_digital_pdf(pages=2))
    worker.start()
    assert wait_terminal(store, task_id) is TaskStatus.COMPLETED
    pages = json.loads(storage.get(result_json_key(task_id)))["pages"]
    assert [[t["stage"] for t in page["timings"]] for page in pages] == [list(stages)] * 2
    for stage in stages:
        assert _stage_sample("count", stage) - counts[stage] == 2
        seconds = sum(t["ms"] for page in pages for t in page["timings"] if t["stage"] == stage) / 1000
        assert _stage_sample("sum", stage) - sums[stage] == pytest.approx(seconds, abs=1e-9)


class CountingLayoutModel:
    """A layout model loader that counts its loads; its model finds nothing."""

    def __init__(self) -> None:
        self.loads = 0

    def __call__(self) -> CountingLayoutModel:
        self.loads += 1
        return self

    def detect(self, gray: npt.NDArray[np.uint8]) -> list[LayoutBox]:
        return []


def test_ocr_pages_are_read_with_the_resources_the_worker_was_given(store: Store, storage: LocalStorage) -> None:
    model = CountingLayoutModel()
    read_before = _stage_sample("count", "ocr.read")
    with PipelineResources(layout_model=model) as resources:
        registry = build_registry(storage, DocumentLimits(), resources=resources)
        runner = Worker(store, registry, CONFIG, metrics=QueueMetrics(CollectorRegistry()))
        task_id = submit(store, storage, encode(figure_page(), "PNG"), ProcessOptions(mode="ocr"))
        run_to_completion(runner, store, task_id)
    assert model.loads == 1  # the page's figure wanted the layout model: the given one, loaded once
    (page,) = json.loads(storage.get(result_json_key(task_id)))["pages"]
    assert [t["stage"] for t in page["timings"]][:2] == ["ocr.render", "ocr.detect"]
    assert _stage_sample("count", "ocr.read") - read_before == 1


def test_the_resources_a_worker_process_makes_are_closed_when_it_stops() -> None:
    with pipeline_resources() as resources:
        assert resources.beside(lambda: 1).result(timeout=20) == 1
    with pytest.raises(RuntimeError, match="closed"):
        resources.beside(lambda: 1)


def test_an_encrypted_pdf_is_dead_lettered_at_once_with_the_reason(
    store: Store, storage: LocalStorage, worker: Worker
) -> None:
    pdf = PdfBuilder()
    pdf.add_page([PdfBuilder.text(72, 72, 12, "secret")])
    task_id = submit(store, storage, pdf.build(encrypt=True))
    worker.start()
    assert wait_terminal(store, task_id) is TaskStatus.DEAD_LETTER
    task = store.get(task_id)
    assert task is not None and task.attempts == 1 and task.error_kind == "permanent"
    assert task.error_message is not None and task.error_message.startswith("PDF is encrypted")


def test_a_retried_task_resumes_at_its_first_unfinished_page(
    store: Store, storage: LocalStorage, worker: Worker
) -> None:
    data = born_digital_pdf(pages=3)
    task_id = submit(store, storage, data)
    with open_document(data) as document:
        pages = document.pages()
        first = process_page(next(pages), TEXT)
        pages.close()
    page = first.to_dict()
    page["blocks"][0]["text"] = "WRITTEN BY THE FIRST ATTEMPT"
    (claimed,) = store.claim("earlier-worker", 1, 30)
    store.checkpoint(claimed.lease, 0, page)
    store.fail(claimed.lease, error_kind="transient", message="worker restarted", retryable=True, delay_seconds=0)
    worker.start()
    assert wait_terminal(store, task_id) is TaskStatus.COMPLETED
    document = json.loads(storage.get(result_json_key(task_id)))
    assert document["pages"][0]["blocks"][0]["text"] == "WRITTEN BY THE FIRST ATTEMPT"
    assert [c.lease_token for c in store.checkpoints(task_id)] == [1, 2, 2]


def test_same_file_and_options_make_one_task_unless_forced(store: Store, storage: LocalStorage) -> None:
    data = born_digital_pdf(pages=1)
    first = submit(store, storage, data)
    assert submit(store, storage, data) == first
    assert submit(store, storage, data, ProcessOptions(mode="ocr")) != first
    assert submit(store, storage, data, force=True) != first
    keyed = submit(store, storage, b"%PDF-other", idempotency_key="client-1")
    assert submit(store, storage, data, idempotency_key="client-1") == keyed
    assert len(list(storage.list("uploads"))) == 4  # one file per task created


def test_an_upload_over_the_limit_stores_and_queues_nothing(store: Store, storage: LocalStorage) -> None:
    with pytest.raises(TooLargeUploadError):
        submit_document(store, storage, io.BytesIO(b"x" * 5000), Submission("big.pdf", TEXT), 4096)
    assert list(storage.list("uploads")) == [] and store.list_tasks().tasks == []


class PausingAfterCheckpoint:
    """The real store, with one hook: once checkpoint `seq` is committed, it signals `saved` and
    holds the handler there until `resume` is set, so a test can act between two pages."""

    def __init__(self, store: Store, seq: int) -> None:
        self._store = store
        self._seq = seq
        self.saved = threading.Event()
        self.resume = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def checkpoint(self, lease: Lease, seq: int, data: JSON) -> None:
        self._store.checkpoint(lease, seq, data)
        if seq == self._seq and not self.saved.is_set():
            self.saved.set()
            assert self.resume.wait(30), "the test never let the handler go on"


def test_a_cancel_while_running_stops_between_pages_keeping_the_pages_done(store: Store, storage: LocalStorage) -> None:
    hooked = PausingAfterCheckpoint(store, seq=0)
    registry = build_registry(storage, DocumentLimits())
    runner = Worker(hooked, registry, CONFIG, metrics=QueueMetrics(CollectorRegistry()))  # type: ignore[arg-type]
    task_id = submit(store, storage, born_digital_pdf(pages=3))
    runner.start()
    try:
        assert hooked.saved.wait(30), "page 1 was never checkpointed"
        assert store.cancel(task_id).status is TaskStatus.RUNNING  # type: ignore[union-attr]
        hooked.resume.set()
        assert wait_terminal(store, task_id) is TaskStatus.CANCELLED
    finally:
        hooked.resume.set()
        runner.stop(release_now=True)
        assert runner.wait_stopped(15)
    task = store.get(task_id)
    assert task is not None and task.result is None and task.progress_done == 1
    assert [(c.seq, c.lease_token) for c in store.checkpoints(task_id)] == [(0, 1)]  # page 1 kept, 2-3 never done
    assert [e.type for e in store.events(task_id)] == [
        EventType.SUBMITTED, EventType.CLAIMED, EventType.CANCEL_REQUESTED, EventType.CANCELLED,
    ]  # fmt: skip
    assert not storage.exists(result_json_key(task_id)) and not storage.exists(result_markdown_key(task_id))


@pytest.mark.parametrize("selection", [None, "2-6,9"])
def test_a_big_document_is_read_by_page_range_children_and_assembled_in_order(
    store: Store, storage: LocalStorage, selection: str | None
) -> None:
    """Over `split_pages` pages, the task hands page ranges to child tasks; its result is the one a
    single task reading every page gives (split off), and lists show only what was submitted."""
    data = section_pages_pdf(9)
    options = ProcessOptions(mode="text", pages=selection)
    results = {}
    for split in (0, 2):
        runner = Worker(
            store,
            build_registry(storage, DocumentLimits(), split_pages=split),
            CONFIG,
            metrics=QueueMetrics(CollectorRegistry()),
        )
        task_id = submit(store, storage, data, options, tenant="acme", force=True)
        run_to_completion(runner, store, task_id)
        task = store.get(task_id)
        assert task is not None and task.progress_done == task.progress_total == (6 if selection else 9)
        results[split] = (task, without_timings(json.loads(storage.get(result_json_key(task_id)))))
        results[split][1].pop("id", None)
    (whole, whole_doc), (parent, split_doc) = results[0], results[2]
    children = store.children(parent.id)
    assert whole.children == 0 and store.children(whole.id) == []
    expected_parts = ["2-3", "4-5", "6,9"] if selection else ["1-2", "3-4", "5-6", "7-8", "9"]
    assert [c.payload["options"]["pages"] for c in children] == expected_parts
    assert {(c.status, c.tenant) for c in children} == {(TaskStatus.COMPLETED, "acme")}
    assert split_doc == whole_doc
    assert {k: v for k, v in parent.result.items() if k not in ("json", "markdown")} == {
        k: v for k, v in whole.result.items() if k not in ("json", "markdown")
    }
    listed = Tasks(store, storage, Settings()).list(tenant="acme").tasks
    assert sorted(t.id for t in listed) == sorted([whole.id, parent.id])


def test_a_page_whose_script_has_no_model_is_recorded_in_the_task_history(
    store: Store, storage: LocalStorage, worker: Worker, tmp_path: Path
) -> None:
    """The real pipeline and Tesseract, with a language-data folder without the Greek model."""
    tessdata = tessdata_without(tmp_path / "tessdata", "Greek")
    with registered_engine("tesseract", lambda: TesseractEngine(f"{tessdata}/")):
        task_id = submit(store, storage, page_png("Greek"), ProcessOptions())
        run_to_completion(worker, store, task_id)
    warned = [e.detail for e in store.events(task_id) if e.type is EventType.WARNED]
    assert warned == [
        {"page": 1, "warnings": ["Greek text: no model installed; apt-get install tesseract-ocr-script-grek"]}
    ]
    page = json.loads(storage.get(result_json_key(task_id)))["pages"][0]
    assert page["warnings"] == warned[0]["warnings"]
