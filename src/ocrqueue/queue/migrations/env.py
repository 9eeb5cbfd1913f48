"""Alembic environment of the queue's schema."""

from alembic import context

from ocrqueue.queue.migrate import run_in_alembic_env

run_in_alembic_env(context)
