"""Workers that do not grow and crashes that do not spread: `ocrqueue worker --processes 1`
replaces its child after max_rss_mb or max_tasks_per_process, and settles at once, by the child's
exit status, the task a child was running when it died (dead letter on the second crash)."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from support.proc_history import read_record
from support.processes import Processes
from support.server import free_port
from support.waiting import wait_for, wait_terminal

from ocrqueue.queue import Store, TaskSpec, TaskStatus

pytestmark = pytest.mark.acceptance

SUPERVISED = ["worker", "--processes", "1", "--concurrency", "1", "--test-kinds"]


def test_a_leaking_worker_is_replaced_past_max_rss_mb(store: Store, workers: Processes, record: Path) -> None:
    supervisor = workers.start(SUPERVISED, name="supervisor", env={"OCRQUEUE_MAX_RSS_MB": "400"})
    payload = {"leak_mb": 120, "record": str(record)}
    ids = [store.submit(TaskSpec("sleep", payload)).task.id for _ in range(6)]
    for task_id in ids:
        assert wait_terminal(store, task_id, 120) is TaskStatus.COMPLETED, workers.logs()
    pids = [run.pid for run in read_record(record) if run.what == "done"]
    # Each child keeps 120 MB per task: past 400 MB after two or three tasks it is replaced.
    assert 2 <= len(set(pids)) < 6, pids
    assert "exited to be replaced" in supervisor.output() and "max_rss_mb 400" in supervisor.output()
    assert supervisor.alive


def test_a_worker_is_replaced_after_max_tasks_per_process(store: Store, workers: Processes, record: Path) -> None:
    workers.start(SUPERVISED, name="supervisor", env={"OCRQUEUE_MAX_TASKS_PER_PROCESS": "2"})
    ids = [store.submit(TaskSpec("sleep", {"record": str(record)})).task.id for _ in range(5)]
    for task_id in ids:
        assert wait_terminal(store, task_id, 120) is TaskStatus.COMPLETED, workers.logs()
    pids = [run.pid for run in read_record(record) if run.what == "done"]
    assert len(set(pids)) == 3 and all(pids.count(pid) <= 2 for pid in pids), pids


def test_a_task_that_segfaults_its_process_is_dead_lettered_by_the_parent_at_once(
    store: Store, workers: Processes
) -> None:
    # Leases of a minute: the supervisor must settle the crash from the exit status, not expiry.
    supervisor = workers.start(SUPERVISED, name="supervisor", env={"OCRQUEUE_LEASE_SECONDS": "60"})
    spec = TaskSpec("sleep", {"pages": 3, "fail_attempts": 99, "error": "segfault"}, max_attempts=5)
    started = time.monotonic()
    task_id = store.submit(spec).task.id
    assert wait_terminal(store, task_id, 50) is TaskStatus.DEAD_LETTER, workers.logs()
    assert time.monotonic() - started < 50
    task = store.get(task_id)
    assert task is not None and task.attempts == 2 and task.error_kind == "crashed"
    assert "SIGSEGV" in (task.error_message or "") and "2 times" in (task.error_message or "")
    kinds = [(e.type, e.detail.get("error_kind")) for e in store.events(task_id)]
    assert [k for k in kinds if k[1] == "crashed"] == [("retried", "crashed"), ("dead_lettered", "crashed")]
    # The supervisor lives on, and so does work on the fresh child.
    after = store.submit(TaskSpec("sleep", {"pages": 1})).task.id
    assert wait_terminal(store, after, 60) is TaskStatus.COMPLETED and supervisor.alive
    wait_for(lambda: "died: SIGSEGV" in supervisor.output(), 5, what="the supervisor to log the crash")


def test_serve_refuses_a_strip_and_survives_a_crashing_task(store: Store, workers: Processes) -> None:
    """A 1x100,000 PNG segfaulted OpenCV inside `serve` and took the API down with it. Now it is
    refused up front, and a task that does crash its worker process only costs that child."""
    port = free_port()
    serve = workers.start(["serve", "--port", str(port), "--workers", "1", "--test-kinds"], name="serve")
    base = f"http://127.0.0.1:{port}"
    strip = io.BytesIO()
    Image.new("L", (1, 100_000), 255).save(strip, "PNG")
    with httpx.Client(base_url=base, timeout=30) as client:
        wait_for(lambda: _answers(client), 30, 0.1, "serve to answer")
        response = client.post("/api/v1/tasks", files={"file": ("strip.png", strip.getvalue(), "image/png")})
        assert response.status_code == 202, response.text
        refused = wait_for(lambda: _finished(client, response.json()["id"]), 60, 0.1, "the strip to be refused")
        assert refused["status"] == "dead_letter" and "thinner than 8 pixels" in refused["error"]["message"]
        crashing = store.submit(TaskSpec("sleep", {"fail_attempts": 99, "error": "segfault"}, max_attempts=5))
        crashed = wait_for(lambda: _finished(client, crashing.task.id), 60, 0.1, "the crashing task to settle")
        assert crashed["status"] == "dead_letter" and "SIGSEGV" in crashed["error"]["message"]
        assert _answers(client) and serve.alive
        after = client.post("/api/v1/tasks", files={"file": ("ok.png", _page_png(), "image/png")})
        done = wait_for(lambda: _finished(client, after.json()["id"]), 120, 0.1, "a good page after the crashes")
        assert done["status"] == "completed", done


def _answers(client: httpx.Client) -> bool:
    try:
        return client.get("/healthz").status_code == 200
    except httpx.TransportError:
        return False


def _finished(client: httpx.Client, task_id: str) -> dict[str, Any] | None:
    task: dict[str, Any] = client.get(f"/api/v1/tasks/{task_id}").json()
    return task if task["status"] in ("completed", "dead_letter", "cancelled") else None


def _page_png() -> bytes:
    buffer = io.BytesIO()
    Image.new("L", (400, 300), 255).save(buffer, "PNG")
    return buffer.getvalue()
