"""Fixtures for acceptance tests: real `ocrqueue worker` processes on each backend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.processes import SHORT_LEASES, Processes


@pytest.fixture
def workers(db_url: str, tmp_path: Path) -> Iterator[Processes]:
    """Worker processes on `db_url` with short leases; every one is killed at teardown."""
    with Processes(tmp_path, db_url, SHORT_LEASES) as processes:
        yield processes


@pytest.fixture
def record(tmp_path: Path) -> Path:
    """The file the `sleep` handler appends its runs to."""
    return tmp_path / "record.txt"
