"""Fixtures every suite shares. Queue tests take `db_url` or `store` and so run on both backends."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from support.db import wipe
from support.postgres import admin_server, fresh_database

from ocrqueue.queue import Store, open_store
from ocrqueue.queue.metrics import QueueMetrics
from ocrqueue.service.schema import upgrade_all

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def pg_admin_url() -> Iterator[str]:
    with admin_server() as url:
        yield url


@pytest.fixture(scope="session")
def pg_session_url(pg_admin_url: str) -> Iterator[str]:
    with fresh_database(pg_admin_url) as url:
        upgrade_all(url)
        yield url


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    upgrade_all(f"sqlite:///{path}")
    return path


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty database of each backend."""
    if request.param == "sqlite":
        path = tmp_path / "queue.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite:///{path}"
    url: str = request.getfixturevalue("pg_session_url")
    wipe(url)
    return url


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    opened = open_store(db_url, pool_size=12)
    yield opened
    opened.close()


@pytest.fixture
def metrics() -> QueueMetrics:
    return QueueMetrics(CollectorRegistry())
