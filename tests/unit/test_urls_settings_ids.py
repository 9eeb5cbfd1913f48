from __future__ import annotations

from pathlib import Path

import pytest

from ocrqueue.queue.config import QueueConfig
from ocrqueue.queue.models import new_task_id
from ocrqueue.queue.urls import parse_database_url
from ocrqueue.settings import Settings


@pytest.mark.parametrize(
    ("raw", "libpq", "sqlalchemy"),
    [
        ("postgresql://user@host/db", "postgresql://user@host/db", "postgresql+psycopg://user@host/db"),
        ("postgres://u:p@h:5433/d", "postgresql://u:p@h:5433/d", "postgresql+psycopg://u:p@h:5433/d"),
        ("postgresql+psycopg://h/d", "postgresql://h/d", "postgresql+psycopg://h/d"),
    ],
)
def test_postgres_urls_as_users_paste_them(raw: str, libpq: str, sqlalchemy: str) -> None:
    url = parse_database_url(raw)
    assert (url.backend, url.libpq, url.sqlalchemy) == ("postgresql", libpq, sqlalchemy)


def test_sqlite_urls_relative_and_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert parse_database_url("sqlite:///data/q.db").sqlite_path == tmp_path / "data" / "q.db"
    assert parse_database_url(f"sqlite:///{tmp_path}/a.db").sqlite_path == tmp_path / "a.db"


@pytest.mark.parametrize("raw", ["sqlite://", "sqlite:///:memory:", "mysql://h/d", "nonsense"])
def test_unusable_urls_are_refused_with_a_reason(raw: str) -> None:
    with pytest.raises(ValueError, match=r"SQLite|unsupported"):
        parse_database_url(raw)


def test_settings_from_environment_and_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("OCRQUEUE_LEASE_SECONDS=40\nOCRQUEUE_WORKER_CONCURRENCY=3\n")
    monkeypatch.setenv("OCRQUEUE_LEASE_SECONDS", "50")
    settings = Settings()
    assert settings.lease_seconds == 50 and settings.worker_concurrency == 3
    assert settings.resolved_database_url == f"sqlite:///{tmp_path / 'ocrqueue-data' / 'ocrqueue.db'}"
    monkeypatch.setenv("OCRQUEUE_DATABASE_URL", "postgresql://u@h/d")
    assert Settings().resolved_database_url == "postgresql://u@h/d"


def test_default_recovery_fits_the_45_second_promise() -> None:
    config = Settings().queue_config()
    assert config.lease_seconds + config.reaper_seconds * 1.5 <= 45
    assert config.heartbeat_seconds * 3 <= config.lease_seconds


def test_config_refuses_a_heartbeat_too_slow_for_its_lease() -> None:
    with pytest.raises(ValueError, match="heartbeat"):
        QueueConfig(lease_seconds=10, heartbeat_seconds=6)


def test_task_ids_are_unique_and_increase_within_a_process() -> None:
    ids = [new_task_id() for _ in range(20_000)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(len(i) == 36 and i[14] == "7" for i in ids)


def test_claims_prefetch_only_while_tasks_are_short() -> None:
    from ocrqueue.queue.worker import claim_size

    config = QueueConfig(concurrency=4, prefetch=16, prefetch_below_seconds=0.05)
    assert claim_size(config, busy=0, mean_run_seconds=2.0) == 4
    assert claim_size(config, busy=3, mean_run_seconds=2.0) == 1
    assert claim_size(config, busy=4, mean_run_seconds=2.0) == 0
    assert claim_size(config, busy=0, mean_run_seconds=0.001) == 20
    assert claim_size(config, busy=20, mean_run_seconds=0.001) == 0
    assert claim_size(QueueConfig(concurrency=4, prefetch=0), busy=0, mean_run_seconds=0.0) == 4


def test_claims_stop_while_a_batch_of_finished_tasks_awaits_its_commit() -> None:
    from ocrqueue.queue.worker import MAX_UNCOMMITTED, claim_size, max_held

    config = QueueConfig(concurrency=4, prefetch=16, prefetch_below_seconds=0.05)
    assert max_held(config) == 4 + 16 + MAX_UNCOMMITTED
    assert claim_size(config, busy=0, mean_run_seconds=0.001, held=max_held(config) - 5) == 5
    assert claim_size(config, busy=0, mean_run_seconds=0.001, held=max_held(config)) <= 0
    assert claim_size(config, busy=2, mean_run_seconds=2.0, held=max_held(config) + 40) <= 0
    assert claim_size(config, busy=2, mean_run_seconds=2.0, held=300) == 2
