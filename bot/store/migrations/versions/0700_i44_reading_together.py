"""Reading together (issue 44): a channel subscription's ``club`` flag, each club digest's message
and steps, the ✅ marks on them, a reader's plan pauses and last nudge, and their DM's ``catchup`` flag.

Revision ID: i44_0001
Revises: i42_0001
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i44_0001"
down_revision: str | Sequence[str] | None = "i42_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_MESSAGE = ("team_id", "channel_id", "message_ts")


def _message_columns() -> list[sa.Column[str]]:
    return [
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("channel_id", sa.String(32), nullable=False),
        sa.Column("message_ts", sa.String(32), nullable=False),
    ]


def upgrade() -> None:
    with op.batch_alter_table("channel_subscriptions") as batch:
        batch.add_column(sa.Column("club", sa.Boolean(), server_default=sa.text("false"), nullable=False))
    with op.batch_alter_table("dm_preferences") as batch:
        batch.add_column(sa.Column("catchup", sa.Boolean(), server_default=sa.text("false"), nullable=False))
    op.create_table(
        "club_digests",
        *_message_columns(),
        sa.Column("subscription_id", sa.Integer(), nullable=False),
        sa.Column("steps", sa.String(2000), nullable=False),
        sa.Column("posted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(*_MESSAGE, name="pk_club_digests"),
    )
    op.create_index("ix_club_digests_subscription_id_posted_at", "club_digests", ["subscription_id", "posted_at"])
    op.create_table(
        "club_reads",
        *_message_columns(),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(*_MESSAGE, "user_id", name="pk_club_reads"),
    )
    op.create_table(
        "reader_habits",
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("pauses", sa.JSON(), nullable=False),
        sa.Column("nudged_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("team_id", "user_id", name="pk_reader_habits"),
    )


def downgrade() -> None:
    with op.batch_alter_table("dm_preferences") as batch:
        batch.drop_column("catchup")
    op.drop_table("reader_habits")
    op.drop_table("club_reads")
    op.drop_index("ix_club_digests_subscription_id_posted_at", table_name="club_digests")
    op.drop_table("club_digests")
    with op.batch_alter_table("channel_subscriptions") as batch:
        batch.drop_column("club")
