"""Reading plans: weekly budgets (readers' and channels'), and the essential paths readers finished."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select, update

from bot.store.base import StoreCore
from bot.store.models import ChannelSubscription, FinishedPath, ReaderBudget
from bot.store.validate import check_id

AFTER_ESSENTIALS = ("further", "stop")


def _check_minutes(minutes: int) -> int:
    if not isinstance(minutes, int) or isinstance(minutes, bool) or not 1 <= minutes <= 10_000:
        raise ValueError(f"minutes a week must be a whole number 1..10000, got {minutes!r}")
    return minutes


class PlansRepo(StoreCore):
    """Weekly budgets (minutes) and finished essential paths, keyed by team then user."""

    def set_budget(self, team: str, user: str, minutes: int | None) -> bool:
        """Set ``user``'s weekly budget to ``minutes`` (None: the default): True if it changed; ValueError if bad."""
        check_id(team, "team"), check_id(user, "user")
        key = (ReaderBudget.team_id == team, ReaderBudget.user_id == user)
        if minutes is None:
            return self._change(delete(ReaderBudget).where(*key)) > 0
        minutes = _check_minutes(minutes)
        with self._write() as s:
            row = s.execute(select(ReaderBudget).where(*key).with_for_update()).scalar_one_or_none()
            if row is None:
                s.add(ReaderBudget(team_id=team, user_id=user, minutes_per_week=minutes, updated_at=self._now()))
            elif row.minutes_per_week == minutes:
                return False
            else:
                row.minutes_per_week, row.updated_at = minutes, self._now()
            return True

    def get_budget(self, team: str, user: str) -> int | None:
        """``user``'s weekly reading budget in minutes, or ``None`` when they set none."""
        with self._read() as s:
            return s.scalar(select(ReaderBudget.minutes_per_week).filter_by(team_id=team, user_id=user))

    def set_channel_budget(
        self, subscription_id: int, minutes: int | None, after_essentials: str | None = None
    ) -> bool:
        """Set a subscription's weekly budget (minutes; ``None``: its steps per week) and, if given,
        ``after_essentials``. True when it exists. Raises ValueError for bad values."""
        values: dict[str, object] = {"minutes_per_week": None if minutes is None else _check_minutes(minutes)}
        if after_essentials is not None:
            if after_essentials not in AFTER_ESSENTIALS:
                raise ValueError(f"after_essentials must be one of {AFTER_ESSENTIALS}")
            values["after_essentials"] = after_essentials
        stmt = update(ChannelSubscription).where(ChannelSubscription.id == subscription_id)
        return self._change(stmt.values(**values)) > 0

    def record_finished(self, team: str, user: str, track: str, minutes: int) -> bool:
        """Record that ``user`` finished ``track``'s essential path (of ``minutes``) now: True the first time."""
        check_id(team, "team"), check_id(user, "user"), check_id(track, "track")
        row = {"team_id": team, "user_id": user, "track_id": track, "minutes": max(0, int(minutes))}
        return self._insert_new(FinishedPath, **row, finished_at=self._now())

    def finished_paths(self, team: str, user: str) -> dict[str, datetime]:
        """``{track id: finished_at (UTC)}`` of the essential paths ``user`` finished."""
        stmt = select(FinishedPath.track_id, FinishedPath.finished_at).filter_by(team_id=team, user_id=user)
        with self._read() as s:
            return dict(s.execute(stmt).all())

    def count_finished(self, team: str) -> dict[str, int]:
        """``{track id: readers who finished its essential path}`` in ``team``."""
        stmt = select(FinishedPath.track_id, func.count()).where(FinishedPath.team_id == team)
        with self._read() as s:
            return {tid: int(n) for tid, n in s.execute(stmt.group_by(FinishedPath.track_id))}

    def now(self) -> datetime:
        """The store clock's current time (aware UTC): what plans date a finish from."""
        return self._now()
