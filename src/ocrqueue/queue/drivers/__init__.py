"""Database drivers: one module of named SQL and one executor per backend."""

from __future__ import annotations

from ocrqueue.queue.store import Store
from ocrqueue.queue.urls import parse_database_url


def open_store(database_url: str, *, pool_size: int = 8, default_max_attempts: int = 4) -> Store:
    """Open the driver for a URL; the schema must already be migrated."""
    url = parse_database_url(database_url)
    store: Store
    if url.backend == "postgresql":
        from ocrqueue.queue.drivers.postgres import PostgresStore

        store = PostgresStore(url.libpq, pool_size=pool_size)
    else:
        from ocrqueue.queue.drivers.sqlite import SQLiteStore

        assert url.sqlite_path is not None
        store = SQLiteStore(url.sqlite_path)
    store.default_max_attempts = default_max_attempts
    return store
