"""/metrics of an API process over real HTTP, on both backends: the queue depth by kind and status
without any metrics setting, and the model server's breaker as the worker processes report it
through the database (the worst of them, and how many report each state)."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families
from support.service import running_service

from ocrqueue.documents.vlm import BreakerState, BreakerStatus
from ocrqueue.queue import Store, TaskSpec
from ocrqueue.service.breaker_reports import BreakerReports


def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx.get(f"{url}/metrics", timeout=10).text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_queue_depth_is_always_on_metrics(db_url: str, store: Store, tmp_path: Path) -> None:
    store.submit_many([TaskSpec("noop") for _ in range(2)])
    store.submit(TaskSpec("sleep"))
    with running_service(db_url, store, tmp_path) as service:
        seen = scrape(service.url)
    assert seen[("ocrqueue_queue_depth", (("kind", "noop"), ("status", "pending")))] == 2
    assert seen[("ocrqueue_queue_depth", (("kind", "sleep"), ("status", "pending")))] == 1
    assert seen[("ocrqueue_queue_depth", (("kind", "sleep"), ("status", "running")))] == 0


def test_the_breaker_reported_by_worker_processes_is_on_metrics(db_url: str, store: Store, tmp_path: Path) -> None:
    endpoint = f"http://127.0.0.1:9/{uuid.uuid4().hex[:8]}/v1"
    reports = BreakerReports(db_url)
    try:
        with running_service(db_url, store, tmp_path, vlm_base_url=endpoint, vlm_model="m") as service:
            labels = (("endpoint", service.settings.vlm_config().endpoint),)  # type: ignore[union-attr]
            state = ("ocrqueue_model_server_breaker_state", labels)
            assert scrape(service.url)[state] == 0
            now = store.now()
            reports.put(labels[0][1], "worker a:1", BreakerStatus(BreakerState.OPEN, 1, 30.0, "unreachable", 1), now)
            reports.put(labels[0][1], "worker b:2", BreakerStatus(BreakerState.HALF_OPEN, 1, 0, "x", 1), now)
            seen = scrape(service.url)
            assert seen[state] == 2
            reported = "ocrqueue_model_server_breakers_reported"
            assert seen[(reported, (*labels, ("state", "open")))] == 1
            assert seen[(reported, (*labels, ("state", "half_open")))] == 1
            reports.forget(labels[0][1], "worker a:1")
            assert scrape(service.url)[state] == 1
    finally:
        reports.close()
