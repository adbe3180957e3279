"""Held requests (issue 42): slash commands and clicks acknowledged and not yet answered, so that a
process that dies after the ack leaves them to the next one.

Revision ID: i42_0001
Revises: i40_0001
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i42_0001"
down_revision: str | Sequence[str] | None = "i40_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "held_requests",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tenant_id", sa.String(32), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("content_type", sa.String(100), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_held_requests"),
    )
    op.create_index("ix_held_requests_received_at", "held_requests", ["received_at"])


def downgrade() -> None:
    op.drop_index("ix_held_requests_received_at", table_name="held_requests")
    op.drop_table("held_requests")
