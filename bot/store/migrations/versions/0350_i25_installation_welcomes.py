"""Installation welcomes: the tenant whose installer got the welcome DM (once per tenant).

Revision ID: i25_0001
Revises: i13_0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i25_0001"
down_revision: str | Sequence[str] | None = "i13_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "installation_welcomes",
        sa.Column("tenant_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("welcomed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", name="pk_installation_welcomes"),
    )


def downgrade() -> None:
    op.drop_table("installation_welcomes")
