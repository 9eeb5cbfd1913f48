"""Parents and children: a running task can hand its work to child tasks and wait for them.

`parent_id` names a child's parent (indexed: a parent finds its children, a claim asks whether
any of them is unfinished). `children` counts a parent's children; 0 for every other task. A
parent waits in `pending`, and a claim skips it while any child has not completed. No foreign key:
a key check would lock the parent row on every child insert, and deleting a parent deletes its
children explicitly (as it does their history).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

WITH_PARENT = sa.text("parent_id IS NOT NULL")


def upgrade() -> None:
    op.add_column("ocrq_tasks", sa.Column("parent_id", sa.String(36)))
    op.add_column("ocrq_tasks", sa.Column("children", sa.Integer, nullable=False, server_default="0"))
    op.create_index(
        "ix_ocrq_tasks_parent", "ocrq_tasks", ["parent_id"], postgresql_where=WITH_PARENT, sqlite_where=WITH_PARENT
    )


def downgrade() -> None:
    op.drop_index("ix_ocrq_tasks_parent", table_name="ocrq_tasks")
    op.drop_column("ocrq_tasks", "children")
    op.drop_column("ocrq_tasks", "parent_id")
