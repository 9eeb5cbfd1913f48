"""Database drivers: one module of named SQL and one executor per backend."""

from __future__ import annotations

from ocrqueue.queue.registry import Registry
from ocrqueue.queue.store import Store
from ocrqueue.queue.urls import parse_database_url


def open_store(
    database_url: str, *, pool_size: int = 8, default_max_attempts: int = 4, registry: Registry | None = None
) -> Store:
    """Open the driver for a URL; the schema must already be migrated.

    Tasks submitted through it get `max_attempts` from their spec, else from their kind in
    `registry`, else `default_max_attempts`."""
    if default_max_attempts < 1:
        raise ValueError("default_max_attempts must be at least 1")
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
    if registry is not None:
        store.kind_max_attempts = registry.attempt_limits()
    return store
