"""A weekly DM and a reminder keep the language they were set up in (QA), as channel digests do
(i46_0001): ``dm_preferences.lang`` and ``reminders.lang`` (``'en'`` | ``'zh'``), set by ``dm on``
and ``remind``. Existing rows stay NULL, which means what it meant before: the person's chosen
language, else English.

Revision ID: i46_0002
Revises: i46_0001
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i46_0002"
down_revision: str | Sequence[str] | None = "i46_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("dm_preferences", "reminders")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("lang", sa.String(8), nullable=True))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("lang")
