"""Reminders: a post someone asked to be reminded of, sent as a DM at 09:00 their time (issue 15).

Revision ID: i15_0001
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i15_0001"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC_DATETIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "reminders",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("post_id", sa.String(255), nullable=False),
        sa.Column("due_at", UTC_DATETIME, nullable=False),
        sa.Column("timezone", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), server_default=sa.text("'pending'"), nullable=False),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.Column("sent_at", UTC_DATETIME, nullable=True),
        sa.CheckConstraint("status IN ('pending', 'sent', 'cancelled')", name="ck_reminders_status"),
        sa.PrimaryKeyConstraint("id", name="pk_reminders"),
    )
    op.create_index("ix_reminders_status_due_at", "reminders", ["status", "due_at"])
    op.create_index("ix_reminders_team_id_user_id", "reminders", ["team_id", "user_id"])


def downgrade() -> None:
    op.drop_index("ix_reminders_team_id_user_id", table_name="reminders")
    op.drop_index("ix_reminders_status_due_at", table_name="reminders")
    op.drop_table("reminders")
