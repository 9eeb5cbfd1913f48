"""Regression tests for the classification the disk-full and model-server-kill chaos tests rely on."""

from __future__ import annotations

import errno
import sqlite3

import psycopg.errors
import pytest
from PIL import Image
from support.server import free_port

from ocrqueue.documents.vlm import ModelServerUnavailable, VlmClient, VlmConfig
from ocrqueue.queue.errors import ErrorKind, classify, out_of_space
from ocrqueue.storage import StorageFullError


def _sqlite_full() -> sqlite3.Error:
    """A real SQLITE_FULL: a database that may not grow past its pages."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE TABLE t (x BLOB)")
        conn.execute("PRAGMA max_page_count = 2")
        with pytest.raises(sqlite3.OperationalError) as caught:
            for _ in range(100):
                conn.execute("INSERT INTO t VALUES (zeroblob(4096))")
        return caught.value
    finally:
        conn.close()


@pytest.mark.parametrize(
    "exc",
    [
        OSError(errno.ENOSPC, "No space left on device"),
        OSError(errno.EDQUOT, "Disk quota exceeded"),
        StorageFullError("no space left on the storage device for results/x/document.json"),
        _sqlite_full(),
        psycopg.errors.DiskFull("could not extend file"),
    ],
    ids=["enospc", "edquot", "storage-full", "sqlite-full", "postgres-disk-full"],
)
def test_a_full_disk_is_transient(exc: BaseException) -> None:
    assert out_of_space(exc)
    assert classify(exc).kind is ErrorKind.TRANSIENT


@pytest.mark.parametrize(
    "exc",
    [OSError(errno.EACCES, "Permission denied"), sqlite3.OperationalError("no such table: x"), ValueError("x")],
)
def test_other_errors_are_not_a_full_disk(exc: BaseException) -> None:
    assert not out_of_space(exc)


def test_a_refused_connection_to_the_model_server_is_transient() -> None:
    """What a worker sees while the model server process is dead: nothing listens on its port."""
    client = VlmClient(VlmConfig(base_url=f"http://127.0.0.1:{free_port()}/v1", connect_timeout_seconds=2))
    try:
        with pytest.raises(ModelServerUnavailable) as caught:
            client.complete(Image.new("RGB", (8, 8), "white"), "Text Recognition:")
    finally:
        client.close()
    assert "unreachable" in caught.value.message
    assert isinstance(caught.value.__cause__, Exception)
    assert classify(caught.value).kind is ErrorKind.TRANSIENT
    assert classify(ConnectionRefusedError()).kind is ErrorKind.TRANSIENT
