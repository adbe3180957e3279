"""Reminders: posts people asked to be reminded of on a chosen day (a DM at 09:00 their time)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, Update, select, update

from bot.store.base import StoreCore
from bot.store.models import Reminder as ReminderRow
from bot.store.snapshots import snapshot
from bot.store.validate import check_id


@dataclass(frozen=True, slots=True)
class Reminder:
    """A reminder: ``due_at`` aware UTC (09:00 on the chosen day in ``timezone``, IANA);
    ``status`` ``pending``, ``sent`` or ``cancelled``."""

    id: int
    team_id: str
    user_id: str
    post_id: str
    due_at: datetime
    timezone: str
    status: str
    created_at: datetime
    sent_at: datetime | None


class RemindersRepo(StoreCore):
    """Per-user reminders, keyed by id; every read and write is scoped by team (and user)."""

    def add_reminder(
        self, team: str, user: str, post: str, due_at: datetime, timezone: str
    ) -> tuple[Reminder, Reminder | None]:
        """Remind ``user`` of ``post`` at ``due_at`` (aware), moving a pending reminder of the same
        post. Returns ``(the reminder, the pending one before the move or None)``. Raises
        ValueError for bad arguments."""
        check_id(team, "team"), check_id(user, "user"), check_id(post, "post"), check_id(timezone, "timezone")
        if due_at.tzinfo is None:
            raise ValueError("due_at must be timezone-aware")
        now = self._now()
        with self._write() as s:
            mine = {"team_id": team, "user_id": user, "post_id": post, "status": "pending"}
            row = s.scalars(select(ReminderRow).filter_by(**mine)).first()
            before = None if row is None else snapshot(Reminder, row)
            if row is None:
                row = ReminderRow(**mine, due_at=due_at, timezone=timezone, created_at=now)
                s.add(row)
            else:
                row.due_at, row.timezone = due_at, timezone
            s.flush()
            return snapshot(Reminder, row), before

    def reminders(self, team: str, user: str) -> list[Reminder]:
        """``user``'s pending reminders, soonest first."""
        return self._pending_rows(ReminderRow.team_id == team, ReminderRow.user_id == user)

    def cancel_reminder(self, team: str, user: str, reminder_id: int) -> bool:
        """Cancel one of ``user``'s pending reminders. True if it was pending."""
        mine = (ReminderRow.team_id == team, ReminderRow.user_id == user)
        return self._change(_pending(reminder_id).where(*mine).values(status="cancelled")) == 1

    def due_reminders(self, now: datetime, limit: int = 500) -> list[Reminder]:
        """Pending reminders whose ``due_at`` is at or before ``now`` (aware), oldest first."""
        return self._pending_rows(ReminderRow.due_at <= now, limit=limit)

    def mark_reminder_sent(self, reminder_id: int) -> bool:
        """Record a pending reminder as sent. True if it was pending."""
        return self._change(_pending(reminder_id).values(status="sent", sent_at=self._now())) == 1

    def _pending_rows(self, *where: ColumnElement[bool], limit: int | None = None) -> list[Reminder]:
        stmt = select(ReminderRow).where(ReminderRow.status == "pending", *where)
        stmt = stmt.order_by(ReminderRow.due_at, ReminderRow.id).limit(limit)
        with self._read() as s:
            return [snapshot(Reminder, r) for r in s.scalars(stmt)]


def _pending(reminder_id: int) -> Update:
    return update(ReminderRow).where(ReminderRow.id == reminder_id, ReminderRow.status == "pending")
