"""API keys: each belongs to a tenant; only a hash of the key is stored.

Revision ID: s0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "s0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ocrq_api_keys",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("tenant", sa.String(200), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True)),
    )


def downgrade() -> None:
    op.drop_table("ocrq_api_keys")
