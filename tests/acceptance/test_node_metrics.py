"""A node's /metrics counts the work of its supervised worker processes: real `ocrqueue serve`
(with child workers) and real `ocrqueue worker --processes 2`, the metrics port set, real OCR
tasks, scraped over HTTP and read with prometheus-client's own parser."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from pathlib import Path

import httpx
import pytest
from data.generate import born_digital_pdf
from prometheus_client.parser import text_string_to_metric_families
from support.processes import Processes
from support.server import free_port
from support.waiting import wait_for, wait_terminal

from ocrqueue.documents import ProcessOptions
from ocrqueue.queue import Store, TaskStatus
from ocrqueue.service.submission import Submission, submit_document
from ocrqueue.settings import Settings
from ocrqueue.storage import LocalStorage

pytestmark = pytest.mark.acceptance

PAGES = 3
DOCUMENTS = 3


def scrape(url: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Samples by name; fails on a family named twice (an exposition Prometheus would reject)."""
    text = httpx.get(url, timeout=10).text
    families = list(text_string_to_metric_families(text))
    names = [family.name for family in families]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    samples: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in families:
        for sample in family.samples:
            samples.setdefault(sample.name, []).append((sample.labels, sample.value))
    return samples


def total(samples: Mapping[str, list[tuple[dict[str, str], float]]], name: str, **labels: str) -> float:
    return sum(value for got, value in samples.get(name, []) if all(got.get(k) == v for k, v in labels.items()))


def assert_counts_the_work(url: str, documents: int) -> None:
    def counted() -> dict[str, list[tuple[dict[str, str], float]]] | None:
        samples = scrape(url)
        done = total(samples, "ocrqueue_tasks_finished_total", kind="ocr", outcome="completed")
        depth = total(samples, "ocrqueue_queue_depth", kind="ocr", status="completed")
        return samples if done == documents and depth == documents else None

    samples = wait_for(counted, 30, 0.2, f"{url} to count {documents} completed OCR tasks")
    assert total(samples, "ocrqueue_pages_total") == documents * PAGES
    assert total(samples, "ocrqueue_claims_total", kind="ocr") == documents
    assert total(samples, "ocrqueue_task_duration_seconds_count", kind="ocr", outcome="completed") == documents
    assert total(samples, "ocrqueue_queue_depth", kind="ocr", status="pending") == 0
    # every page of every document went through the text-layer path's stages, timed in the workers
    assert total(samples, "ocrqueue_page_stage_seconds_count", stage="textlayer.judge") == documents * PAGES
    assert total(samples, "ocrqueue_page_stage_seconds_count", stage="textlayer.read") == documents * PAGES


def assert_no_child_died(output: str) -> None:
    assert not re.search(r"died:|Address already in use|Traceback", output), output[-4000:]


def test_serve_metrics_count_its_worker_processes_work(workers: Processes, store: Store) -> None:
    metrics_port = free_port()
    workers.env["OCRQUEUE_METRICS_PORT"] = str(metrics_port)
    serve, base = workers.start_serve("--workers", "2")
    ids = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for number in range(DOCUMENTS):
            files = {"file": (f"doc-{number}.pdf", born_digital_pdf(pages=PAGES), "application/pdf")}
            response = client.post("/api/v1/tasks", files=files, data={"mode": "text", "force": "true"})
            assert response.status_code == 202, response.text
            ids.append(response.json()["id"])
    for task_id in ids:
        assert wait_terminal(store, task_id, timeout=120) is TaskStatus.COMPLETED, serve.output()[-4000:]
    assert_counts_the_work(f"{base}/metrics", DOCUMENTS)
    assert_counts_the_work(f"http://127.0.0.1:{metrics_port}/metrics", DOCUMENTS)
    assert serve.alive
    assert_no_child_died(serve.output())


def test_a_worker_node_serves_its_processes_metrics_from_the_supervisor(
    workers: Processes, store: Store, tmp_path: Path
) -> None:
    metrics_port = free_port()
    supervisor = workers.start(
        ["worker", "--processes", "2", "-c", "1"], name="worker-node", env={"OCRQUEUE_METRICS_PORT": str(metrics_port)}
    )
    wait_for(lambda: len(store.workers(live_only=True)) == 2, 60, 0.1, "two worker processes to register")
    storage = LocalStorage(Settings(data_dir=tmp_path / "data").resolved_storage_dir)
    ids = []
    for number in range(DOCUMENTS):
        submission = Submission(f"doc-{number}.pdf", ProcessOptions(mode="text"), force=True)
        document = io.BytesIO(born_digital_pdf(pages=PAGES))
        ids.append(submit_document(store, storage, document, submission, 1 << 30).task.id)
    for task_id in ids:
        assert wait_terminal(store, task_id, timeout=120) is TaskStatus.COMPLETED, supervisor.output()[-4000:]
    assert_counts_the_work(f"http://127.0.0.1:{metrics_port}/metrics", DOCUMENTS)
    assert supervisor.alive
    assert_no_child_died(supervisor.output())
    assert supervisor.pid not in {info.pid for info in store.workers(live_only=True)}
