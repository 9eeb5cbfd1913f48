"""The model server process itself is SIGKILLed in the middle of `vlm` documents and restarted later.

`ocrqueue serve` with embedded workers OCRs scanned PDFs with the `vlm` engine against the stand-in,
which runs as a process of its own (`support.standin_process`). While a document is part-way
through, the stand-in is killed with SIGKILL and stays down until the circuit breaker has opened,
`/readyz` says so, and tasks have been deferred; then it is started again on the same port.

Checked: every task completes with the result of a clean run; deferrals spent no attempts (final
attempts = claims - deferrals) and no task used up its attempts; nothing was dead-lettered; the
failures the kill caused were classified transient ("unreachable": connection refused or reset);
the lease history is sound.
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from data.generate import PdfBuilder, scanned
from support.proc_history import history_problems
from support.processes import Processes
from support.results import without_timings
from support.server import free_port
from support.standin_process import StandInProcess
from support.waiting import wait_for

from chaos.harness import OPTIONS, _configure_vlm, _scan_images, clean_result
from ocrqueue.queue import EventType, Store, TaskStatus
from ocrqueue.queue.errors import ErrorKind

pytestmark = [pytest.mark.acceptance, pytest.mark.slow, pytest.mark.timeout(240)]

DOCUMENTS = 2
PAGES = 2
WORKER_PROCESSES = 2
BREAKER_FAILURES = 2
# Each worker process has its own breaker, and each charges the attempts of the requests that fail
# before its breaker opens: at most WORKER_PROCESSES x BREAKER_FAILURES failures in all, which may
# all fall on one task. One more attempt than the first plus those lets no task run out of attempts
# while still catching deferrals that spend attempts (each deferral would add one).
MAX_ATTEMPTS = 1 + WORKER_PROCESSES * BREAKER_FAILURES + 1
VLM_OPTIONS = {**OPTIONS, "engine": "vlm"}


def _vlm_documents() -> list[bytes]:
    images = _scan_images(4)
    docs = []
    for doc in range(DOCUMENTS):
        pdf = PdfBuilder()
        for page in range(PAGES):
            jpeg = scanned(images[(doc + page) % len(images)], seed=1000 * doc + page)
            pdf.add_page([PdfBuilder.text(290, 810, 8, f"{doc}-{page + 1}")], jpeg=jpeg)
        docs.append(pdf.build())
    return docs


def _environment(base_url: str) -> dict[str, str]:
    return {
        "OCRQUEUE_VLM_BASE_URL": base_url,
        "OCRQUEUE_VLM_BREAKER_FAILURES": str(BREAKER_FAILURES),
        "OCRQUEUE_VLM_BREAKER_COOLDOWN_SECONDS": "2",
        "OCRQUEUE_VLM_CONNECT_TIMEOUT_SECONDS": "2",
        "OCRQUEUE_VLM_TIMEOUT_SECONDS": "30",
        "OCRQUEUE_LEASE_SECONDS": "6",
        "OCRQUEUE_HEARTBEAT_SECONDS": "0.5",
        "OCRQUEUE_REAPER_SECONDS": "0.5",
        "OCRQUEUE_POLL_SECONDS": "0.2",
        "OCRQUEUE_BACKOFF_BASE_SECONDS": "0.2",
        "OCRQUEUE_BACKOFF_CAP_SECONDS": "2",
        "OCRQUEUE_MAX_ATTEMPTS": str(MAX_ATTEMPTS),
        "OCRQUEUE_SUBMIT_RATE_PER_MINUTE": "100000",
    }


def _model_server_check(base: str) -> str:
    try:
        return str(httpx.get(f"{base}/readyz", timeout=5).json()["checks"]["model_server"])
    except (httpx.HTTPError, ValueError, KeyError):
        return ""


def _part_way(store: Store, task_ids: list[str]) -> bool:
    """A task is running with some of its pages done and some still to do."""
    for task_id in task_ids:
        task = store.get(task_id)
        if task is not None and task.status is TaskStatus.RUNNING and 1 <= task.progress_done < PAGES:
            return True
    return False


def _deferrals(store: Store, task_ids: list[str]) -> int:
    return sum(
        1
        for task_id in task_ids
        for event in store.events(task_id)
        if event.type is EventType.RELEASED and "circuit" in str(event.detail.get("reason", "")).lower()
    )


def test_model_server_killed_mid_document(db_url: str, store: Store, tmp_path: Path) -> None:
    docs = _vlm_documents()
    standin = StandInProcess(tmp_path)
    standin.start()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with Processes(tmp_path, db_url, _environment(standin.base_url)) as processes:
        try:
            args = ["serve", "--host", "127.0.0.1", "--port", str(port), "--workers", str(WORKER_PROCESSES)]
            serve = processes.start(args, name="serve")
            wait_for(
                lambda: _model_server_check(base) == "closed", 60, 0.1, f"serve to answer:\n{serve.output()[-3000:]}"
            )
            with httpx.Client(base_url=base, timeout=30) as client:
                task_ids = []
                for number, data in enumerate(docs):
                    response = client.post(
                        "/api/v1/tasks",
                        files={"file": (f"vlm-{number}.pdf", data)},
                        data={"options": json.dumps(VLM_OPTIONS)},
                    )
                    assert response.status_code == 202, response.text
                    task_ids.append(response.json()["id"])

            wait_for(lambda: _part_way(store, task_ids), 90, 0.02, "a vlm document to be part-way through")
            standin.kill()

            # Down until the breaker has opened, /readyz says so, and tasks have been handed back.
            opened = wait_for(
                lambda: (check := _model_server_check(base)).startswith(("open", "half-open")) and check,
                60,
                0.05,
                "/readyz to report the open breaker",
            )
            wait_for(lambda: _deferrals(store, task_ids) >= 2, 60, 0.1, "tasks to be deferred by the open breaker")
            assert "unreachable" in opened, opened

            standin.start()
            for task_id in task_ids:
                wait_for(
                    lambda task_id=task_id: (task := store.get(task_id)) is not None and task.status.terminal,
                    120,
                    0.1,
                    f"task {task_id} to finish:\n{processes.logs()}",
                )
            assert wait_for(lambda: _model_server_check(base) == "closed", 30, 0.1, "the breaker to close")

            with httpx.Client(base_url=base, timeout=30) as client:
                results = [
                    without_timings(client.get(f"/api/v1/tasks/{task_id}/result", params={"format": "json"}).json())
                    for task_id in task_ids
                ]
        finally:
            logs = processes.logs()
            (tmp_path / "all-logs.txt").write_text(logs + "\n--- stand-in ---\n" + standin.output())

    with ProcessPoolExecutor(1, initializer=_configure_vlm, initargs=(standin.base_url,)) as pool:
        expected = list(pool.map(clean_result, docs, [VLM_OPTIONS] * len(docs)))
    standin.close()

    problems: list[str] = []
    transient_failures: list[dict[str, Any]] = []
    for task_id, result, want in zip(task_ids, results, expected, strict=True):
        task = store.get(task_id)
        assert task is not None
        if task.status is not TaskStatus.COMPLETED:
            problems.append(f"{task_id}: {task.status} {task.error_kind} {task.error_message}")
            continue
        if result != want:
            problems.append(f"{task_id}: the result differs from a clean run")
        events = store.events(task_id)
        claims = sum(1 for e in events if e.type is EventType.CLAIMED)
        released = sum(1 for e in events if e.type is EventType.RELEASED)
        if task.attempts != claims - released:
            problems.append(f"{task_id}: {task.attempts} attempts for {claims} claims and {released} deferrals")
        if task.attempts >= MAX_ATTEMPTS:
            problems.append(f"{task_id}: used {task.attempts} of {MAX_ATTEMPTS} attempts")
        for event in events:
            if event.type in (EventType.RETRIED, EventType.DEAD_LETTERED):
                transient_failures.append(event.detail)
        if [c.seq for c in store.checkpoints(task_id)] != list(range(PAGES)):
            problems.append(f"{task_id}: checkpoints {[c.seq for c in store.checkpoints(task_id)]}")
    for task_id, found in history_problems(store, task_ids).items():
        problems += [f"{task_id}: {p}" for p in found]
    assert problems == [], "\n".join(problems)
    assert _deferrals(store, task_ids) >= 2
    # The kill surfaced as failed requests (a reset mid-request, then connection refused): transient.
    assert transient_failures, "no attempt failed while the model server was down"
    for detail in transient_failures:
        assert detail["error_kind"] == ErrorKind.TRANSIENT, detail
        assert "unreachable" in detail["message"], detail
