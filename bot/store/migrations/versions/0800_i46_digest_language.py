"""A channel digest keeps the language it was created in (QA): ``channel_subscriptions.lang``
(``'en'`` | ``'zh'``), set by ``subscribe``. Existing rows stay NULL, which means what it meant
before: the digest speaks its creator's current language.

Revision ID: i46_0001
Revises: i44_0001
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i46_0001"
down_revision: str | Sequence[str] | None = "i44_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("channel_subscriptions") as batch:
        batch.add_column(sa.Column("lang", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("channel_subscriptions") as batch:
        batch.drop_column("lang")
