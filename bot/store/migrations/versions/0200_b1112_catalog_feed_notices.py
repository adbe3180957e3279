"""Catalog feed notices: the blog posts the daily feed watch has told the admins about.

Revision ID: b1112_0001
Revises: i15_0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "b1112_0001"
down_revision: str | Sequence[str] | None = "i15_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "catalog_feed_notices",
        sa.Column("url", sa.String(2000), nullable=False),
        sa.Column("title", sa.String(1000), nullable=False),
        sa.Column("notified_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("url", name="pk_catalog_feed_notices"),
    )


def downgrade() -> None:
    op.drop_table("catalog_feed_notices")
