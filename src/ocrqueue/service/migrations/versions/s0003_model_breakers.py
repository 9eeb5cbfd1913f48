"""Model-server breakers: the state each worker process's circuit breaker last reported, for /readyz.

Revision ID: s0003
Revises: s0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "s0003"
down_revision = "s0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ocrq_model_breakers",
        sa.Column("endpoint", sa.String(500), primary_key=True),
        sa.Column("reporter", sa.String(300), primary_key=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(1000)),
        sa.Column("retry_in", sa.Float(), nullable=False),
        sa.Column("reported_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ocrq_model_breakers")
