"""Alembic environment of the service's schema (API keys), kept apart from the queue's."""

from alembic import context

from ocrqueue.queue.migrate import run_in_alembic_env

run_in_alembic_env(context)
