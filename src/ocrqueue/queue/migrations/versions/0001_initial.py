"""Tasks, page checkpoints, event history and the worker registry.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# PostgreSQL keeps real timestamps; SQLite keeps epoch seconds so the database clock
# (julianday('now')) compares and sorts as numbers.
TIMESTAMP = sa.DateTime(timezone=True).with_variant(sa.Float(), "sqlite")
# SQLite keeps JSON as TEXT: a column declared JSON would get NUMERIC affinity and turn "1" into 1.
JSON_DOC = sa.Text().with_variant(postgresql.JSONB(), "postgresql")
PENDING = sa.text("status = 'pending'")
RUNNING = sa.text("status = 'running'")


def upgrade() -> None:
    op.create_table(
        "ocrq_tasks",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("kind", sa.String(200), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("priority", sa.Integer, nullable=False, server_default="0"),
        sa.Column("payload", JSON_DOC, nullable=False),
        sa.Column("tenant", sa.String(200)),
        sa.Column("dedup_key", sa.String(512)),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("max_attempts", sa.Integer, nullable=False),
        sa.Column("lease_token", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("worker_id", sa.String(200)),
        sa.Column("lease_expires_at", TIMESTAMP),
        sa.Column("cancel_requested", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("progress_done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("progress_total", sa.Integer),
        sa.Column("progress_step", sa.Text),
        sa.Column("result", JSON_DOC),
        sa.Column("error_kind", sa.String(32)),
        sa.Column("error_message", sa.Text),
        sa.Column("run_at", TIMESTAMP, nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("started_at", TIMESTAMP),
        sa.Column("finished_at", TIMESTAMP),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.CheckConstraint(
            "status IN ('pending', 'running', 'completed', 'cancelled', 'dead_letter')",
            name="ck_ocrq_tasks_status",
        ),
    )
    op.create_index(
        "ix_ocrq_tasks_claim",
        "ocrq_tasks",
        [sa.text("priority DESC"), "run_at", "id"],
        postgresql_where=PENDING,
        sqlite_where=PENDING,
    )
    op.create_index(
        "ix_ocrq_tasks_lease", "ocrq_tasks", ["lease_expires_at"], postgresql_where=RUNNING, sqlite_where=RUNNING
    )
    dedup_live = sa.text("dedup_key IS NOT NULL AND status <> 'cancelled'")
    op.create_index(
        "ux_ocrq_tasks_dedup",
        "ocrq_tasks",
        ["dedup_key"],
        unique=True,
        postgresql_where=dedup_live,
        sqlite_where=dedup_live,
    )
    op.create_index("ix_ocrq_tasks_status_id", "ocrq_tasks", ["status", "id"])
    # Claims, heartbeats and completions change indexed columns, so every update writes a new
    # entry into every index whose predicate the row meets: the partial ones cost nothing for
    # rows they do not cover (no tenant; not finished yet).
    with_tenant = sa.text("tenant IS NOT NULL")
    op.create_index(
        "ix_ocrq_tasks_tenant_id",
        "ocrq_tasks",
        ["tenant", "id"],
        postgresql_where=with_tenant,
        sqlite_where=with_tenant,
    )
    finished = sa.text("finished_at IS NOT NULL")
    op.create_index(
        "ix_ocrq_tasks_finished", "ocrq_tasks", ["finished_at"], postgresql_where=finished, sqlite_where=finished
    )

    op.create_table(
        "ocrq_checkpoints",
        sa.Column("task_id", sa.String(36), sa.ForeignKey("ocrq_tasks.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("data", JSON_DOC, nullable=False),
        sa.Column("lease_token", sa.BigInteger, nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
    )

    op.create_table(
        "ocrq_events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        # No foreign key: history rows are appended by every claim and completion, and a key check
        # locks the task row each time. Deleting a task deletes its events explicitly.
        sa.Column("task_id", sa.String(36), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("at", TIMESTAMP, nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("lease_token", sa.BigInteger, nullable=False),
        sa.Column("worker_id", sa.String(200)),
        sa.Column("detail", JSON_DOC, nullable=False),
    )
    op.create_index("ix_ocrq_events_task", "ocrq_events", ["task_id", "id"])

    op.create_table(
        "ocrq_workers",
        sa.Column("id", sa.String(200), primary_key=True),
        sa.Column("host", sa.String(300), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("concurrency", sa.Integer, nullable=False),
        sa.Column("kinds", JSON_DOC, nullable=False),
        sa.Column("started_at", TIMESTAMP, nullable=False),
        sa.Column("last_seen_at", TIMESTAMP, nullable=False),
        sa.Column("stopped_at", TIMESTAMP),
    )
    op.create_index("ix_ocrq_workers_host", "ocrq_workers", ["host"])


def downgrade() -> None:
    op.drop_table("ocrq_workers")
    op.drop_table("ocrq_events")
    op.drop_table("ocrq_checkpoints")
    op.drop_table("ocrq_tasks")
