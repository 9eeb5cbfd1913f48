"""The deployment of docs/deploy.md in miniature: an API-only node and two worker nodes on
PostgreSQL with shared storage; a worker is killed mid-document and every result still arrives."""

from __future__ import annotations

import httpx
import pytest
from data.generate import ENGLISH, scanned_pdf, text_page
from support.processes import Processes
from support.waiting import wait_for

from ocrqueue.queue import EventType, Store

pytestmark = pytest.mark.acceptance


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_api_node_and_two_worker_nodes_survive_a_killed_worker(store: Store, workers: Processes) -> None:
    api, base = workers.start_serve("--no-workers", name="api", timeout=30)
    slow_pages = {"OCRQUEUE_TASK_STALL_SECONDS": "30"}
    first = workers.start_worker(1, host="node-a", env=slow_pages)
    workers.start_worker(1, host="node-b", env=slow_pages)
    # Scanned pages read by OCR (a few tenths of a second each), so the kill lands mid-document:
    # text-layer pages took a few milliseconds, and the test only caught node-a mid-document by luck.
    page = text_page(ENGLISH, cjk=False)
    documents = {f"doc-{n}.pdf": scanned_pdf(page, pages=2 + n % 2) for n in range(4)}
    with httpx.Client(base_url=base, timeout=30) as client:
        ids = {}
        for name, data in documents.items():
            response = client.post("/api/v1/tasks", files={"file": (name, data)}, data={"mode": "ocr", "force": "true"})
            assert response.status_code == 202, response.text
            ids[name] = response.json()["id"]
        node_a = first.logged_worker_id()

        def node_a_mid_document() -> bool:
            return any(
                (t := store.get(task_id)) is not None
                and t.worker_id == node_a
                and t.status == "running"
                and t.progress_done >= 1
                for task_id in ids.values()
            )

        wait_for(node_a_mid_document, 60, 0.01, "node-a to hold a document")
        first.kill()

        def all_done() -> bool:
            statuses = [client.get(f"/api/v1/tasks/{task_id}").json()["status"] for task_id in ids.values()]
            return all(status == "completed" for status in statuses)

        wait_for(all_done, 120, 0.5, "every document to complete")
        for name, task_id in ids.items():
            document = client.get(f"/api/v1/tasks/{task_id}/result", params={"format": "json"}).json()
            assert len(document["pages"]) == 2 + int(name.split("-")[1].split(".")[0]) % 2
    assert api.alive
    taken_over = [
        task_id
        for task_id in ids.values()
        if any(e.type is EventType.LEASE_LOST and e.worker_id == node_a for e in store.events(task_id))
    ]
    assert taken_over, "the killed worker held a document that another node finished"
