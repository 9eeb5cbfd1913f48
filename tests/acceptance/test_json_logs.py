"""`ocrqueue serve --log-format json`: one JSON event per line, and one request id ties the client's
submit, its access line, the task's events and the worker process's lines about that task."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from typing import Any

import httpx
import pytest
from data.generate import born_digital_pdf
from support.processes import Processes
from support.waiting import wait_for, wait_terminal

from ocrqueue.queue import Store, TaskStatus

pytestmark = pytest.mark.acceptance


def events_of(output: str) -> list[dict[str, Any]]:
    """Every line the server wrote, each of which must be one JSON object."""
    lines = [line for line in output.splitlines() if line.strip()]
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except json.JSONDecodeError:
            pytest.fail(f"not a JSON line: {line!r}")
    assert all(isinstance(event, dict) for event in parsed)
    return parsed


def test_a_request_id_ties_the_submit_its_access_line_its_events_and_the_worker_lines(
    workers: Processes, store: Store
) -> None:
    serve, base = workers.start_serve("--workers", "1", "--log-format", "json")
    with httpx.Client(base_url=base, timeout=30) as client:
        files = {"file": ("doc.pdf", born_digital_pdf(pages=2), "application/pdf")}
        response = client.post("/api/v1/tasks", files=files, data={"mode": "text"}, headers={"X-Request-ID": "abc-123"})
        assert response.status_code == 202, response.text
        assert response.headers["X-Request-ID"] == "abc-123"
        task_id = response.json()["id"]
        assert wait_terminal(store, task_id, timeout=120) is TaskStatus.COMPLETED, serve.output()[-4000:]
        shown = client.get(f"/api/v1/tasks/{task_id}").json()
    assert shown["events"][0] == {**shown["events"][0], "type": "submitted", "detail": {"request_id": "abc-123"}}

    def about_the_task() -> list[dict[str, Any]]:
        lines = [e for e in events_of(serve.output()) if e.get("task_id") == task_id]
        return lines if any(e["message"].endswith("completed") for e in lines) else []

    worker_lines = wait_for(about_the_task, 30, 0.1, "the worker's JSON lines about the task")
    for line in worker_lines:
        assert {"timestamp", "level", "logger", "message", "worker_id", "kind"} <= line.keys(), line
        assert line["kind"] == "ocr" and line["logger"].startswith("ocrqueue")
    assert len({line["worker_id"] for line in worker_lines}) == 1
    assert any("started" in line["message"] for line in worker_lines)

    access = [e for e in events_of(serve.output()) if e["logger"] == "uvicorn.access"]
    submit_line = next(e for e in access if e.get("request_id") == "abc-123")
    assert (submit_line["method"], submit_line["path"], submit_line["status"]) == ("POST", "/api/v1/tasks", 202)
    assert {"timestamp", "level", "message", "client"} <= submit_line.keys()
    assert any(e.get("path") == f"/api/v1/tasks/{task_id}" and e.get("request_id") for e in access)


def _auto_format_is_json(stderr: int) -> bool:
    code = "from ocrqueue.cli.runtime import configure_logging; print(configure_logging(False, 'auto'))"
    done = subprocess.run(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=60, check=True
    )
    return {"True": True, "False": False}[done.stdout.strip()]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_auto_is_rich_on_a_terminal_and_json_elsewhere(db_url: str) -> None:
    leader, follower = pty.openpty()
    try:
        assert _auto_format_is_json(follower) is False
    finally:
        os.close(follower)
        os.close(leader)
    assert _auto_format_is_json(subprocess.DEVNULL) is True
