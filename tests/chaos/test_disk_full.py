"""Disk full: the storage directory (and, on SQLite, the database file) on a small tmpfs filled to
the last byte.

- An upload that meets a full disk gets 507 with a JSON error, and leaves no file and no task row;
  the service stays ready and takes the same upload once space is freed.
- A worker whose result write meets a full disk fails that attempt as transient (retried with
  backoff, not dead-lettered, pages already done kept) and completes once space is freed.
- SQLite: the database file's disk full makes a submit answer 507 too, with the staged upload removed.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from data.generate import born_digital_pdf
from prometheus_client import CollectorRegistry
from support.results import without_timings
from support.service import Service, running_service
from support.tmpfs import files_under, fill, small_tmpfs
from support.waiting import wait_for, wait_terminal

from chaos.harness import OPTIONS, clean_result
from ocrqueue.queue import EventType, QueueConfig, Store, TaskStatus, Worker, open_store
from ocrqueue.queue.errors import ErrorKind
from ocrqueue.queue.metrics import QueueMetrics
from ocrqueue.service.kinds import build_registry

pytestmark = [pytest.mark.acceptance, pytest.mark.timeout(180)]

MAX_ATTEMPTS = 20
# Quick retries, so a retried attempt comes back within a second or two of space being freed.
RETRYING = QueueConfig(
    lease_seconds=10, heartbeat_seconds=1, reaper_seconds=1, poll_seconds=0.2, concurrency=1,
    backoff_base_seconds=0.2, backoff_cap_seconds=1.0,
)  # fmt: skip


def _post(service: Service, data: bytes, name: str = "report.pdf", max_attempts: int | None = None) -> httpx.Response:
    form = {"options": '{"mode": "auto"}'}
    if max_attempts is not None:
        form["max_attempts"] = str(max_attempts)
    with service.client() as client:
        return client.post("/api/v1/tasks", files={"file": (name, data)}, data=form)


def _assert_healthy(service: Service) -> None:
    with service.client() as client:
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 200, ready.text


def _assert_insufficient_storage(response: httpx.Response) -> None:
    assert response.status_code == 507, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == "insufficient_storage"
    assert "space" in error["message"]


def _start_worker(service: Service) -> Worker:
    registry = build_registry(service.storage, service.settings.document_limits())
    worker = Worker(service.store, registry, RETRYING, metrics=QueueMetrics(CollectorRegistry()))
    worker.start()
    service.workers.append(worker)
    return worker


@pytest.fixture
def storage_fs(tmp_path: Path) -> Iterator[Path]:
    with small_tmpfs(tmp_path / "storage", "4m") as mounted:
        yield mounted


def test_upload_to_a_full_storage_is_refused_cleanly(
    db_url: str, store: Store, tmp_path: Path, storage_fs: Path
) -> None:
    pdf = born_digital_pdf(3)
    with running_service(db_url, store, tmp_path / "data", storage_dir=storage_fs) as service:
        filler = fill(storage_fs)
        response = _post(service, pdf)
        _assert_insufficient_storage(response)
        assert files_under(storage_fs, except_=(filler,)) == [], "the refused upload left a file behind"
        assert store.counts_by_status().get(TaskStatus.PENDING, 0) == 0
        assert store.list_tasks().tasks == [], "the refused upload left a task behind"
        _assert_healthy(service)

        filler.unlink()
        accepted = _post(service, pdf)
        assert accepted.status_code == 202, accepted.text
        _start_worker(service)
        assert service.wait_status(accepted.json()["id"], "completed")["attempts"] == 1


def test_a_result_write_on_a_full_disk_is_retried_until_space_is_freed(
    db_url: str, store: Store, tmp_path: Path, storage_fs: Path
) -> None:
    pdf = born_digital_pdf(3)
    with running_service(db_url, store, tmp_path / "data", storage_dir=storage_fs) as service:
        # Attempts to spare: the checks below take a few quick retries' time on a busy machine (the
        # default 4 ran out under load in one run), and the disk stays full until they are done.
        accepted = _post(service, pdf, max_attempts=MAX_ATTEMPTS)
        assert accepted.status_code == 202, accepted.text
        task_id = accepted.json()["id"]
        filler = fill(storage_fs)
        _start_worker(service)

        # The pages are done and checkpointed; writing document.json meets the full disk.
        retried = wait_for(
            lambda: [e for e in store.events(task_id) if e.type is EventType.RETRIED],
            60,
            0.05,
            "the attempt that met the full disk to be retried",
        )
        detail = retried[0].detail
        assert detail["error_kind"] == ErrorKind.TRANSIENT, detail
        assert "no space left" in detail["message"].lower(), detail
        task = store.get(task_id)
        assert task is not None and task.status is not TaskStatus.DEAD_LETTER
        assert [c.lease_token for c in store.checkpoints(task_id)] == [1, 1, 1]
        assert not [f for f in files_under(storage_fs) if ".tmp-" in f], "a partial result file was left"
        _assert_healthy(service)

        filler.unlink()
        assert wait_terminal(store, task_id) is TaskStatus.COMPLETED
        task = store.get(task_id)
        assert task is not None and task.attempts < task.max_attempts
        # Pages done before the disk filled were kept, not redone.
        assert [c.lease_token for c in store.checkpoints(task_id)] == [1, 1, 1]
        with service.client() as client:
            result = client.get(f"/api/v1/tasks/{task_id}/result", params={"format": "json"}).json()
        assert without_timings(result) == clean_result(
            pdf, {**OPTIONS, "mode": "auto", "engine": service.settings.default_engine}
        )


def test_sqlite_database_on_a_full_disk_refuses_a_submit_cleanly(sqlite_template: Path, tmp_path: Path) -> None:
    pdf = born_digital_pdf(2)
    with small_tmpfs(tmp_path / "db", "4m") as db_fs:
        shutil.copy(sqlite_template, db_fs / "queue.db")
        url = f"sqlite:///{db_fs / 'queue.db'}"
        store = open_store(url)
        try:
            with running_service(url, store, tmp_path / "data") as service:
                _assert_healthy(service)
                # An empty WAL, so the next write has to grow it on the full disk.
                with sqlite3.connect(db_fs / "queue.db") as conn:
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                filler = fill(db_fs)
                response = _post(service, pdf)
                _assert_insufficient_storage(response)
                storage = service.settings.resolved_storage_dir
                assert files_under(storage) == [], "the upload staged for the refused submit was left behind"
                assert store.list_tasks().tasks == []
                _assert_healthy(service)

                filler.unlink()
                accepted = _post(service, pdf)
                assert accepted.status_code == 202, accepted.text
        finally:
            store.close()
