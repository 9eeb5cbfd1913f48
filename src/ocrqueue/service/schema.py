"""The service's own tables, migrated after the queue's; schema revisions for `db` and /readyz."""

from __future__ import annotations

from pathlib import Path

from ocrqueue.queue.migrate import QUEUE_SCHEMA, Schema, current_revision, head_revision, is_current, upgrade

SERVICE_SCHEMA = Schema(str(Path(__file__).with_name("migrations")), "ocrq_service_schema_version")


def upgrade_all(database_url: str) -> None:
    upgrade(database_url, QUEUE_SCHEMA)
    upgrade(database_url, SERVICE_SCHEMA)


def queue_revision(database_url: str) -> str | None:
    """The queue schema's revision in the database (None: empty)."""
    return current_revision(database_url, QUEUE_SCHEMA)


def newest_queue_revision() -> str:
    return head_revision(QUEUE_SCHEMA)


def schemas_current(database_url: str) -> bool:
    """Both schemas at their newest revision."""
    return is_current(database_url, QUEUE_SCHEMA) and is_current(database_url, SERVICE_SCHEMA)
