"""Every file a task owns goes with it, for every kind (delete and prune), and a document result's
Markdown opens with its figures wherever it is read: over HTTP and on disk after `convert`."""

from __future__ import annotations

import io
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from data.generate import encode, figure_page, figure_pdf
from support.service import Service, running_service

from ocrqueue.queue import Store
from ocrqueue.service import Submission, Tasks, TaskStatus, VisionSubmission, ocr_options
from ocrqueue.service.storage_keys import result_prefix

FIGURE_LINK = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


@pytest.fixture
def service(db_url: str, store: Store, tmp_path: Path) -> Iterator[Service]:
    with running_service(db_url, store, tmp_path, vlm_base_url="http://127.0.0.1:9/v1") as running:
        yield running


def stored_files(service: Service) -> set[str]:
    root = service.settings.resolved_storage_dir
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def owned_by(files: set[str], task_id: str, upload: str) -> set[str]:
    return {f for f in files if f.startswith(result_prefix(task_id) + "/") or f == upload}


def test_prune_deletes_the_files_of_every_task_it_prunes_for_every_kind(service: Service) -> None:
    tasks: Tasks = service.context.tasks
    options = ocr_options(service.settings, mode="text")
    service.start_worker()
    document = tasks.submit_document(io.BytesIO(figure_pdf(pages=2)), Submission("figures.pdf", options)).task
    noop = tasks.enqueue("noop", {})[0].task
    for task_id in (document.id, noop.id):
        service.wait_status(task_id, "completed")
    service.stop_workers()
    tasks.page_image(document.id, 1)  # the viewer's page rendering is kept under results/<id>/pages/
    service.storage.put(f"{result_prefix(noop.id)}/report.txt", b"a library kind's own output")
    image = encode(figure_page(), "PNG")
    vision = tasks.submit_vision(io.BytesIO(image), VisionSubmission("chart.png", "What does it show?")).task
    assert tasks.cancel(vision.id).status is TaskStatus.CANCELLED
    waiting = tasks.submit_document(io.BytesIO(figure_pdf()), Submission("later.pdf", options)).task

    before = stored_files(service)
    assert document.payload is not None and vision.payload is not None and waiting.payload is not None
    doc_files = owned_by(before, document.id, document.payload.input)
    assert {"document.md", "document.json", "page1-figure1.png", "page2-figure1.png", "1.png"} <= {
        Path(f).name for f in doc_files
    }
    assert vision.payload.input in before and f"{result_prefix(noop.id)}/report.txt" in before

    assert tasks.prune(7) == 0  # finished just now: younger than a week
    assert stored_files(service) == before
    assert tasks.prune(0) == 3  # 0 days: every finished task, whatever its age
    assert stored_files(service) == {waiting.payload.input}  # the pending task keeps its upload
    assert tasks.find(waiting.id) is not None


def test_delete_removes_the_upload_of_any_kind(service: Service) -> None:
    tasks: Tasks = service.context.tasks
    image = encode(figure_page(), "PNG")
    vision = tasks.submit_vision(io.BytesIO(image), VisionSubmission("chart.png", "What does it show?")).task
    assert vision.payload is not None and stored_files(service) == {vision.payload.input}
    with service.client() as client:
        assert client.delete(f"/api/v1/tasks/{vision.id}").status_code == 204
    assert stored_files(service) == set()


def test_a_hand_made_payload_never_deletes_other_tasks_files(service: Service) -> None:
    """Clean-up deletes by prefix: a payload naming `uploads` (the whole folder) is not taken as one upload."""
    tasks: Tasks = service.context.tasks
    kept = tasks.submit_document(io.BytesIO(figure_pdf()), Submission("kept.pdf", ocr_options(service.settings)))
    hostile = tasks.enqueue("ocr", {"input": "uploads", "filename": "x.pdf"})[0].task
    tasks.delete(hostile.id)
    assert kept.task.payload is not None and stored_files(service) == {kept.task.payload.input}


def test_markdown_from_the_api_opens_with_its_figures(service: Service) -> None:
    service.start_worker()
    with service.client() as client:
        task = client.post(
            "/api/v1/tasks", files={"file": ("figures.pdf", figure_pdf(pages=2))}, data={"mode": "text"}
        ).json()
        done = service.wait_status(task["id"], "completed")
        result_url = f"{service.url}{done['result']['markdown']}"
        relative = client.get(result_url)
        absolute = client.get(result_url, params={"links": "absolute"})
    links = FIGURE_LINK.findall(relative.text)
    assert links == [f"assets/imgs/page{n}-figure1.png" for n in (1, 2)]
    absolute_links = FIGURE_LINK.findall(absolute.text)
    assert absolute_links == [urllib.parse.urljoin(result_url, link) for link in links]
    for link in links + absolute_links:
        fetched = httpx.get(urllib.parse.urljoin(result_url, link), timeout=30)  # as a Markdown viewer would
        assert fetched.status_code == 200 and fetched.headers["content-type"] == "image/png", link
        assert fetched.content.startswith(b"\x89PNG")
    base = urllib.parse.urljoin(result_url, "assets/imgs/")
    assert relative.text.replace("](assets/imgs/", f"]({base}") == absolute.text


def test_a_hand_made_payload_that_does_not_read_dead_letters_saying_why(service: Service) -> None:
    tasks: Tasks = service.context.tasks
    broken = tasks.enqueue("ocr", {"filename": "x.pdf"})[0].task
    service.start_worker()
    body = service.wait_status(broken.id, "dead_letter")
    assert body["error"]["kind"] == "permanent" and "no valid 'input'" in body["error"]["message"]
    assert body["attempts"] == 1
