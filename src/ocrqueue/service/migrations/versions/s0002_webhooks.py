"""Webhooks: a signing secret per API key (and one for local mode), and the callbacks tasks asked for.

Revision ID: s0002
Revises: s0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "s0002"
down_revision = "s0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ocrq_webhook_secrets",
        sa.Column("owner", sa.String(64), primary_key=True),
        sa.Column("secret", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "ocrq_webhooks",
        sa.Column("task_id", sa.String(36), primary_key=True),
        sa.Column("url_hash", sa.String(64), primary_key=True),
        sa.Column("url", sa.String(2000), nullable=False),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("check_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("watching", sa.Boolean(), nullable=False),
        sa.Column("last_ending", sa.String(100)),
        sa.Column("last_delivery", sa.String(36)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ocrq_webhooks_due", "ocrq_webhooks", ["watching", "check_at"])


def downgrade() -> None:
    op.drop_index("ocrq_webhooks_due", "ocrq_webhooks")
    op.drop_table("ocrq_webhooks")
    op.drop_table("ocrq_webhook_secrets")
