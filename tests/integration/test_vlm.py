"""The vlm engine, the OCR and vision task kinds and the circuit breaker, against the stand-in
model server (tests/support/vlm_standin.py), on both database backends where a queue is involved."""

from __future__ import annotations

import io
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from data.generate import ENGLISH, text_page
from PIL import Image, ImageDraw, ImageFont
from prometheus_client import CollectorRegistry
from support.service import running_service
from support.vlm_standin import StandIn, running_standin
from support.waiting import wait_for, wait_terminal

from ocrqueue.documents import DocumentLimits, ProcessOptions, open_document, process_page, unregister_engine
from ocrqueue.documents.vlm import VlmConfig
from ocrqueue.queue import QueueConfig, Store, TaskStatus, Worker
from ocrqueue.queue.metrics import QueueMetrics
from ocrqueue.service.engines import VLM_ENGINE, configure_vlm
from ocrqueue.service.kinds import build_registry
from ocrqueue.service.submission import Submission, submit_document
from ocrqueue.storage import LocalStorage

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
VLM_OCR = ProcessOptions(mode="ocr", engine="vlm", layout_model=False)
FAST_RETRIES = QueueConfig(
    lease_seconds=10, heartbeat_seconds=1, reaper_seconds=1, poll_seconds=0.2, concurrency=2, backoff_base_seconds=0.1
)


@pytest.fixture(autouse=True)
def _vlm_engine_unregistered() -> Iterator[None]:
    """configure_vlm registers the process-wide `vlm` engine; each test takes it away again."""
    yield
    unregister_engine(VLM_ENGINE)


def png(*lines: str) -> bytes:
    image = Image.new("RGB", (900, 70 * len(lines) + 60), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((30, 30 + 70 * i), line, font=ImageFont.truetype(FONT, 36), fill="black")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def module_standin() -> Iterator[StandIn]:
    with running_standin() as standin:
        yield standin


@pytest.fixture
def standin(module_standin: StandIn) -> StandIn:
    module_standin.reset()
    return module_standin


def fresh_config(standin: StandIn, **kw: object) -> VlmConfig:
    """A model name of its own gives each test its own process-wide client, so its own breaker."""
    return VlmConfig(standin.base_url, model=f"glm-ocr-{uuid.uuid4().hex[:8]}", **kw)  # type: ignore[arg-type]


def test_the_vlm_engine_reads_sample_pages_with_a_bounded_number_of_requests(standin: StandIn) -> None:
    configure_vlm(fresh_config(standin, max_in_flight=2))
    buffer = io.BytesIO()
    text_page(ENGLISH[:4], cjk=False, title="Supplier Invoices").save(buffer, format="PNG", dpi=(200, 200))
    data = buffer.getvalue()
    texts: list[str] = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            with open_document(data, DocumentLimits()) as document:
                (page,) = document.pages()
                result = process_page(page, VLM_OCR)
            assert result.source == "vlm"
            texts.append(" ".join(block.text for block in result.blocks))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    assert len(texts) == 3 and texts[0] == texts[1] == texts[2]
    for sentence in ("Supplier Invoices", *ENGLISH[:4]):
        assert sentence in texts[0]
    assert standin.peak_in_flight <= 2 and standin.completions >= 3
    assert {body["messages"][0]["content"][1]["text"] for body in standin.bodies} == {"Text Recognition:"}


@pytest.fixture
def storage(tmp_path: Path) -> LocalStorage:
    return LocalStorage(tmp_path / "storage")


def run_worker(store: Store, storage: LocalStorage, config: VlmConfig) -> Worker:
    registry = build_registry(storage, DocumentLimits(), config)
    worker = Worker(store, registry, FAST_RETRIES, metrics=QueueMetrics(CollectorRegistry()))
    worker.start()
    return worker


def submit_png(store: Store, storage: LocalStorage, data: bytes) -> str:
    submission = Submission("scan.png", VLM_OCR, force=True)
    return submit_document(store, storage, io.BytesIO(data), submission, 10_000_000).task.id


def test_server_errors_are_retried_with_backoff_until_the_server_recovers(
    store: Store, storage: LocalStorage, standin: StandIn
) -> None:
    standin.fail_next(2, 500)
    task_id = submit_png(store, storage, png("Golf adds another line"))
    worker = run_worker(store, storage, fresh_config(standin, breaker_failures=10))
    try:
        assert wait_terminal(store, task_id) is TaskStatus.COMPLETED
    finally:
        worker.stop(release_now=True)
        worker.wait_stopped(15)
    task = store.get(task_id)
    assert task is not None and task.attempts == 3
    retried = [e for e in store.events(task_id) if e.type == "retried"]
    assert len(retried) == 2
    assert task.result is not None and task.result["paths"] == ["vlm"]
    document = storage.get(task.result["markdown"]).decode()
    assert "Golf adds another line" in document


def test_a_rejected_request_dead_letters_the_task_with_the_servers_reason(
    store: Store, storage: LocalStorage, standin: StandIn
) -> None:
    standin.fail_next(1, 400)
    task_id = submit_png(store, storage, png("Hotel closes"))
    worker = run_worker(store, storage, fresh_config(standin))
    try:
        assert wait_terminal(store, task_id) is TaskStatus.DEAD_LETTER
    finally:
        worker.stop(release_now=True)
        worker.wait_stopped(15)
    task = store.get(task_id)
    assert task is not None and task.attempts == 1 and task.error_kind == "permanent"
    assert task.error_message is not None
    assert "rejected the request with HTTP 400: image is not valid for this model" in task.error_message


def test_an_open_breaker_defers_tasks_without_spending_attempts_until_a_probe_closes_it(
    db_url: str, store: Store, tmp_path: Path, standin: StandIn
) -> None:
    model = f"glm-ocr-{uuid.uuid4().hex[:8]}"
    settings = {
        "vlm_base_url": standin.base_url,
        "vlm_model": model,
        "vlm_breaker_failures": 2,
        "vlm_breaker_cooldown_seconds": 1,
    }
    standin.go_down()
    with running_service(db_url, store, tmp_path, **settings) as service, service.client() as client:
        assert client.get("/readyz").json()["checks"]["model_server"] == "closed"
        ids = []
        for line in ("Alpha begins here", "Echo starts now"):
            submitted = client.post(
                "/api/v1/tasks",
                files={"file": ("scan.png", png(line), "image/png")},
                data={"engine": "vlm", "mode": "ocr", "options": '{"layout_model": false}'},
            )
            assert submitted.status_code == 202, submitted.text
            ids.append(submitted.json()["id"])
        service.start_worker()

        def deferrals(task_id: str) -> list[dict[str, object]]:
            events = client.get(f"/api/v1/tasks/{task_id}").json()["events"]
            return [e for e in events if e["type"] == "released"]

        wait_for(lambda: all(len(deferrals(i)) >= 2 for i in ids), timeout=30, what="both tasks deferred twice")
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json()["status"] == "ready"
        assert ready.json()["checks"]["model_server"].startswith(("open: ", "half-open: "))
        for task_id in ids:
            body = client.get(f"/api/v1/tasks/{task_id}").json()
            reasons = {str(e["detail"]["reason"]) for e in deferrals(task_id)}
            assert all("circuit breaker" in reason for reason in reasons), reasons
            retried = [e for e in body["events"] if e["type"] == "retried"]
            assert body["attempts"] <= len(retried) + 1  # deferrals spent nothing
        metrics = client.get("/metrics").text
        assert "ocrqueue_model_breaker_open{" in metrics and 'outcome="probe_failed"' in metrics
        completions_while_open = standin.completions
        assert completions_while_open <= 2 + 2  # failures that opened it, then nothing but probes

        standin.recover()
        for task_id in ids:
            done = service.wait_status(task_id, "completed")
            retried = [e for e in done["events"] if e["type"] == "retried"]
            claimed = [e for e in done["events"] if e["type"] == "claimed"]
            assert done["attempts"] == len(retried) + 1 < len(claimed)
            assert done["max_attempts"] == 4
        assert client.get("/readyz").json()["checks"]["model_server"] == "closed"
        markdown = client.get(f"/api/v1/tasks/{ids[0]}/result").text
        assert "Alpha begins here" in markdown


def test_a_vision_task_answers_a_question_about_an_image_through_the_api(
    db_url: str, store: Store, tmp_path: Path, standin: StandIn
) -> None:
    settings = {"vlm_base_url": standin.base_url, "vlm_model": "glm-4.6v-flash", "vision_max_image_bytes": 100_000}
    with running_service(db_url, store, tmp_path, **settings) as service, service.client() as client:

        def ask(data: bytes, question: str = "What does the sign say?", **fields: str) -> httpx.Response:
            files = {"file": ("sign.png", data, "image/png")}
            return client.post("/api/v1/vision", files=files, data={"question": question, **fields})

        image = png("Please sign the delivery note")
        for response, status, code, field in (
            (ask(b"just some text"), 415, "unsupported_type", "file"),
            (ask(b"%PDF-1.7\n"), 415, "unsupported_type", "file"),
            (ask(b""), 422, "empty_file", "file"),
            (ask(b"\x89PNG\r\n\x1a\n" + bytes(100_000)), 413, "too_large", "file"),
            (ask(b"\x89PNG\r\n\x1a\n" + bytes(100)), 422, "corrupt", "file"),
            (ask(image, "   "), 422, "invalid_question", "question"),
            (ask(image, "why? " * 1000), 422, "invalid_question", "question"),
            (ask(image, max_tokens="100000"), 422, "invalid_max_tokens", "max_tokens"),
        ):
            assert response.status_code == status, response.text
            assert response.json()["error"]["code"] == code and response.json()["error"]["field"] == field
        submitted = ask(image, max_tokens="256")
        assert submitted.status_code == 202, submitted.text
        task = submitted.json()
        assert task["kind"] == "vision" and task["status"] == "pending" and task["answer"] is None
        assert task["question"] == "What does the sign say?"
        assert ask(image, max_tokens="256").json()["id"] == task["id"]  # same image and question: same task
        service.start_worker()
        done = service.wait_status(task["id"], "completed")
        assert done["answer"] == {
            "text": "Q: What does the sign say? A: Please sign the delivery note",
            "model": "glm-4.6v-flash",
            "truncated": False,
        }
        body = standin.bodies[-1]
        assert body["max_tokens"] == 256 and body["messages"][0]["content"][1]["text"] == "What does the sign say?"
        assert body["messages"][0]["content"][0]["image_url"]["url"].startswith("data:image/png;base64,")


def test_a_ruled_table_goes_to_the_model_whole_and_comes_back_as_cells(standin: StandIn) -> None:
    from data.generate import TABLE, table_page

    configure_vlm(fresh_config(standin))
    buffer = io.BytesIO()
    table_page().save(buffer, format="PNG", dpi=(200, 200))
    with open_document(buffer.getvalue(), DocumentLimits()) as document:
        (page,) = document.pages()
        result = process_page(page, VLM_OCR)
    (table,) = [block.table for block in result.blocks if block.table is not None]
    assert table.grid() == TABLE
    prompts = [body["messages"][0]["content"][1]["text"] for body in standin.bodies]
    assert prompts.count("Table Recognition:") == 1 and len(prompts) < len(TABLE) * len(TABLE[0])
