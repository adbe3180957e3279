"""One pace for people and channels (issue 40): a channel digest set up without an amount went 1
step a week; it now gets a person's default budget, 45 minutes of reading a week. Digests asked
for 2 or 3 steps a week, or given minutes, keep them.

Revision ID: i40_0001
Revises: i24_0001
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "i40_0001"
down_revision: str | Sequence[str] | None = "i24_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEFAULT_MINUTES = 45
"""``bot.domain.budget.DEFAULT_MINUTES`` when this revision was written (a migration never changes)."""


def upgrade() -> None:
    op.execute(
        "UPDATE channel_subscriptions SET minutes_per_week = "
        f"{DEFAULT_MINUTES} WHERE minutes_per_week IS NULL AND steps_per_week = 1"
    )


def downgrade() -> None:
    """Nothing: a budget set by this revision cannot be told from one a channel chose."""
