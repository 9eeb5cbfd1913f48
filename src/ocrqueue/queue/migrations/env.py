"""Alembic environment: runs on the connection `ocrqueue.queue.migrate` hands over."""

from __future__ import annotations

from alembic import context

from ocrqueue.queue.migrate import VERSION_TABLE

connection = context.config.attributes["connection"]
context.configure(connection=connection, version_table=VERSION_TABLE, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
