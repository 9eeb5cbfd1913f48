"""Schema migrations, safe to start from many processes at once.

PostgreSQL serialises concurrent upgrades with an advisory lock; SQLite with a lock file beside
the database. Each schema (the queue's, and any an application adds beside it) keeps its own
Alembic script directory and version table, so the queue stays usable as a library on its own.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from ocrqueue.queue.urls import DatabaseURL, parse_database_url

_ADVISORY_LOCK_KEY = 0x6F637271  # "ocrq"


@dataclass(frozen=True)
class Schema:
    script_location: str
    version_table: str


QUEUE_SCHEMA = Schema(str(Path(__file__).with_name("migrations")), "ocrq_schema_version")
VERSION_TABLE = QUEUE_SCHEMA.version_table


def run_in_alembic_env(context: Any) -> None:
    """The body of every env.py: migrate on the connection and version table `upgrade` hands over."""
    attributes = context.config.attributes
    context.configure(
        connection=attributes["connection"], version_table=attributes["version_table"], transactional_ddl=True
    )
    with context.begin_transaction():
        context.run_migrations()


def _config(schema: Schema) -> Config:
    config = Config()
    config.set_main_option("script_location", schema.script_location)
    config.attributes["version_table"] = schema.version_table
    return config


def head_revision(schema: Schema = QUEUE_SCHEMA) -> str:
    head = ScriptDirectory.from_config(_config(schema)).get_current_head()
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


def current_revision(database_url: str, schema: Schema = QUEUE_SCHEMA) -> str | None:
    url = parse_database_url(database_url)
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"version_table": schema.version_table})
            return context.get_current_revision()
    finally:
        engine.dispose()


def is_current(database_url: str, schema: Schema = QUEUE_SCHEMA) -> bool:
    return current_revision(database_url, schema) == head_revision(schema)


def revisions(schema: Schema = QUEUE_SCHEMA) -> list[str]:
    """Every revision of a schema, oldest first."""
    script = ScriptDirectory.from_config(_config(schema))
    return [rev.revision for rev in reversed(list(script.walk_revisions()))]


def upgrade(database_url: str, schema: Schema = QUEUE_SCHEMA, revision: str = "head") -> str:
    """Bring a schema to `revision` (its newest by default); returns the revision reached."""
    _migrate(database_url, schema, lambda config: command.upgrade(config, revision))
    return head_revision(schema) if revision == "head" else revision


def downgrade(database_url: str, schema: Schema, revision: str) -> None:
    """Take a schema back to `revision` ("base": none of its tables), running each step's downgrade."""
    _migrate(database_url, schema, lambda config: command.downgrade(config, revision))


def _migrate(database_url: str, schema: Schema, run: Callable[[Config], None]) -> None:
    url = parse_database_url(database_url)
    engine = _engine(url)
    config = _config(schema)
    try:
        if url.sqlite_path is not None:
            with _sqlite_lock(url.sqlite_path), engine.begin() as conn:
                conn.exec_driver_sql("PRAGMA journal_mode=WAL")
                config.attributes["connection"] = conn
                run(config)
        else:
            with engine.begin() as conn:
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_LOCK_KEY})
                config.attributes["connection"] = conn
                run(config)
    finally:
        engine.dispose()
