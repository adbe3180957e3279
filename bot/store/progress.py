"""Reading progress: which posts each person has read, and when (UTC)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete, select, update

from bot.store.base import StoreCore
from bot.store.models import ReadingProgress
from bot.store.models import Reminder as ReminderRow
from bot.store.validate import check_id, check_ids


class ProgressRepo(StoreCore):
    """Per-user reading progress, keyed by (team, user, post id)."""

    def mark_read(self, team: str, user: str, post_ids: Iterable[str]) -> set[str]:
        """Record posts as read now and cancel the pending reminders of them; the ids not read before
        (the others keep their ``read_at``)."""
        check_id(team, "team"), check_id(user, "user")
        ids = check_ids(post_ids, "post id")
        if not ids:
            return set()
        now = self._now()
        rows = [{"team_id": team, "user_id": user, "post_id": p, "read_at": now} for p in ids]
        stmt = self._insert(ReadingProgress).values(rows).on_conflict_do_nothing().returning(ReadingProgress.post_id)
        mine = (ReminderRow.team_id == team, ReminderRow.user_id == user, ReminderRow.status == "pending")
        cancel = update(ReminderRow).where(*mine, ReminderRow.post_id.in_(ids)).values(status="cancelled")
        with self._write() as s:
            marked = set(s.execute(stmt).scalars())
            s.execute(cancel, execution_options={"synchronize_session": False})  # no reminder of a post read
            return marked

    def mark_unread(self, team: str, user: str, post_ids: Iterable[str]) -> set[str]:
        """Forget that posts were read. Returns the ids that had been read."""
        check_id(team, "team"), check_id(user, "user")
        ids = check_ids(post_ids, "post id")
        if not ids:
            return set()
        mine = (ReadingProgress.team_id == team, ReadingProgress.user_id == user, ReadingProgress.post_id.in_(ids))
        stmt = delete(ReadingProgress).where(*mine).returning(ReadingProgress.post_id)
        with self._write() as s:
            return set(s.execute(stmt, execution_options={"synchronize_session": False}).scalars())

    def read_posts(self, team: str, user: str) -> set[str]:
        """The ids of every post ``user`` has read in ``team``."""
        with self._read() as s:
            return set(s.scalars(select(ReadingProgress.post_id).filter_by(team_id=team, user_id=user)))
