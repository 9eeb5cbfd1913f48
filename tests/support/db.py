"""Direct database access for tests: wiping tables and peeking at rows."""

from __future__ import annotations

import sqlite3

import psycopg

from ocrqueue.queue.urls import parse_database_url

TABLES = (
    "ocrq_events",
    "ocrq_checkpoints",
    "ocrq_workers",
    "ocrq_tasks",
    "ocrq_api_keys",
    "ocrq_webhook_secrets",
    "ocrq_model_breakers",
)


def wipe(db_url: str) -> None:
    url = parse_database_url(db_url)
    if url.backend == "postgresql":
        with psycopg.connect(url.libpq, autocommit=True) as conn:
            conn.execute(f"TRUNCATE {', '.join(TABLES)}")
        return
    conn = sqlite3.connect(url.sqlite_path or "", timeout=30, isolation_level=None)
    try:
        for table in TABLES:
            conn.execute(f"DELETE FROM {table}")
    finally:
        conn.close()
