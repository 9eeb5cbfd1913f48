"""Schema migrations, safe to start from many processes at once.

PostgreSQL serialises concurrent upgrades with an advisory lock; SQLite with a lock file beside
the database, since its schema changes cannot be made atomic with other processes' reads otherwise.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from ocrqueue.queue.urls import DatabaseURL, parse_database_url

VERSION_TABLE = "ocrq_schema_version"
_ADVISORY_LOCK_KEY = 0x6F637271  # "ocrq"
_SCRIPT_LOCATION = str(Path(__file__).with_name("migrations"))


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", _SCRIPT_LOCATION)
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None
    return head


def _engine(url: DatabaseURL) -> sa.Engine:
    if url.sqlite_path is not None:
        url.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    return sa.create_engine(url.sqlalchemy, poolclass=sa.pool.NullPool)


@contextlib.contextmanager
def _sqlite_lock(path: Path) -> Iterator[None]:
    with open(f"{path}.migrate.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def current_revision(database_url: str) -> str | None:
    url = parse_database_url(database_url)
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE}).get_current_revision()
    finally:
        engine.dispose()


def is_current(database_url: str) -> bool:
    return current_revision(database_url) == head_revision()


def upgrade(database_url: str) -> str:
    """Bring the schema to the newest revision; returns it."""
    url = parse_database_url(database_url)
    engine = _engine(url)
    config = _config()
    try:
        if url.sqlite_path is not None:
            with _sqlite_lock(url.sqlite_path), engine.begin() as conn:
                conn.exec_driver_sql("PRAGMA journal_mode=WAL")
                config.attributes["connection"] = conn
                command.upgrade(config, "head")
        else:
            with engine.begin() as conn:
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_LOCK_KEY})
                config.attributes["connection"] = conn
                command.upgrade(config, "head")
    finally:
        engine.dispose()
    return head_revision()
