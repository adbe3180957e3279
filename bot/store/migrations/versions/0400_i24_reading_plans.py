"""Reading plans (issue 24): a reader's weekly budget, a channel digest's budget and its setup
after the essential path, and the essential paths readers finished.

Revision ID: i24_0001
Revises: i25_0001 (the installation welcomes, merged first)
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i24_0001"
down_revision: str | Sequence[str] | None = "i25_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC_DATETIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "reader_budgets",
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("minutes_per_week", sa.Integer(), nullable=False),
        sa.Column("updated_at", UTC_DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("team_id", "user_id", name="pk_reader_budgets"),
    )
    op.create_table(
        "finished_paths",
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("track_id", sa.String(255), nullable=False),
        sa.Column("finished_at", UTC_DATETIME, nullable=False),
        sa.Column("minutes", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("team_id", "user_id", "track_id", name="pk_finished_paths"),
    )
    op.create_index("ix_finished_paths_team_id_finished_at", "finished_paths", ["team_id", "finished_at"])
    with op.batch_alter_table("channel_subscriptions") as batch:
        batch.add_column(sa.Column("minutes_per_week", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("after_essentials", sa.String(16),
                                   server_default=sa.text("'further'"), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("channel_subscriptions") as batch:
        batch.drop_column("after_essentials")
        batch.drop_column("minutes_per_week")
    op.drop_index("ix_finished_paths_team_id_finished_at", table_name="finished_paths")
    op.drop_table("finished_paths")
    op.drop_table("reader_budgets")
