"""Wider token columns in slack_sdk's installation tables: tokens are stored encrypted
(``fernet:`` + a Fernet token, see ``bot/store/crypto.py``), longer than slack_sdk's String(200).

Existing plain tokens stay readable (the cipher passes unsealed values through) and are sealed on
the next start of any process (:meth:`bot.store.installations.InstallationsRepo.seal_tokens`) or by
``vllm-path tokens reseal``.

Revision ID: i13_0001
Revises: b1112_0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i13_0001"
down_revision: str | Sequence[str] | None = "b1112_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = {
    "slack_installations": ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token"),
    "slack_bots": ("bot_token", "bot_refresh_token"),
}


def upgrade() -> None:
    for table, names in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for name in names:
                batch.alter_column(name, existing_type=sa.String(200), type_=sa.String(1000),
                                   existing_nullable=True)


def downgrade() -> None:
    for table, names in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for name in names:
                batch.alter_column(name, existing_type=sa.String(1000), type_=sa.String(200),
                                   existing_nullable=True)
