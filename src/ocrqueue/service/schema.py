"""The service's own tables, migrated after the queue's."""

from __future__ import annotations

from pathlib import Path

from ocrqueue.queue.migrate import QUEUE_SCHEMA, Schema, upgrade

SERVICE_SCHEMA = Schema(str(Path(__file__).with_name("migrations")), "ocrq_service_schema_version")


def upgrade_all(database_url: str) -> None:
    upgrade(database_url, QUEUE_SCHEMA)
    upgrade(database_url, SERVICE_SCHEMA)
