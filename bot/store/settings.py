"""Per-user settings: the reply language and the weekly DM digest (schedule, snooze, pause)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import or_, select, update

from bot.domain.schedule import DEFAULT_TIME, DEFAULT_WEEKDAY, WeeklySchedule
from bot.store.base import StoreCore, update_row
from bot.store.models import LANGS, DmPreference, UserSettings
from bot.store.snapshots import DmSettings, snapshot
from bot.store.validate import check_aware, check_id, check_reason, schedule_columns


class SettingsRepo(StoreCore):
    """Per-user language and DM digest settings, keyed by (team, user)."""

    def get_lang(self, team: str, user: str) -> str | None:
        """The user's chosen language (``'en'`` | ``'zh'``), or None (use Slack's locale)."""
        with self._read() as s:
            return s.scalar(select(UserSettings.lang).where(UserSettings.team_id == team, UserSettings.user_id == user))

    def set_lang(self, team: str, user: str, lang: str | None) -> None:
        """Choose ``'en'`` | ``'zh'``, or None to follow Slack's locale; ValueError for another value."""
        check_id(team, "team"), check_id(user, "user")
        if lang is not None and lang not in LANGS:
            raise ValueError(f"lang must be one of {LANGS} or None, got {lang!r}")
        stmt = self._insert(UserSettings).values(team_id=team, user_id=user, lang=lang)
        stmt = stmt.on_conflict_do_update(index_elements=["team_id", "user_id"], set_={"lang": stmt.excluded.lang})
        with self._write() as s:
            s.execute(stmt)

    def set_dm(self, team: str, user: str, enabled: bool, schedule: WeeklySchedule | None = None) -> DmSettings:
        """Turn the user's weekly DM digest on or off, optionally on a new ``schedule`` (else the
        current one; new rows: Monday 09:00 in the default timezone). Enabling reactivates a
        paused digest. Raises ValueError for bad arguments."""
        check_id(team, "team"), check_id(user, "user")
        changes: dict[str, Any] = {"enabled": bool(enabled)}
        if schedule is not None:
            changes.update(schedule_columns(schedule))
        if enabled:
            changes.update(status="active", pause_reason=None)
        now = self._now()
        mine = {"team_id": team, "user_id": user}
        defaults = {"weekday": DEFAULT_WEEKDAY, "at_time": DEFAULT_TIME, "timezone": self._default_timezone}
        insert = self._insert(DmPreference).values(**mine, **defaults, enabled=False, status="active", updated_at=now)
        with self._write() as s:
            s.execute(insert.on_conflict_do_nothing())
            row = s.execute(select(DmPreference).filter_by(**mine).with_for_update()).scalar_one()
            update_row(s, row, changes, now)
            return snapshot(DmSettings, row)

    def get_dm(self, team: str, user: str) -> DmSettings | None:
        """The user's DM digest settings, or None if never set."""
        with self._read() as s:
            row = s.get(DmPreference, (team, user))
            return None if row is None else snapshot(DmSettings, row)

    def dm_recipients(self, at: datetime | None = None) -> list[DmSettings]:
        """DM digests enabled, active and not snoozed at ``at`` (aware; default now), by team then user."""
        at = self._now() if at is None else check_aware(at, "at")
        stmt = select(DmPreference).where(
            DmPreference.enabled.is_(True),
            DmPreference.status == "active",
            or_(DmPreference.snoozed_until.is_(None), DmPreference.snoozed_until <= at),
        )
        stmt = stmt.order_by(DmPreference.team_id, DmPreference.user_id)
        with self._read() as s:
            return [snapshot(DmSettings, r) for r in s.scalars(stmt)]

    def snooze_dm(self, team: str, user: str, until: datetime | None) -> bool:
        """Skip the DM digests until ``until`` (aware; None: no snooze). True if the user has DM settings."""
        if until is not None:
            check_aware(until, "until")
        return self._update_dm(team, user, snoozed_until=until)

    def pause_dm(self, team: str, user: str, reason: str) -> bool:
        """Pause the DM digest with a visible ``reason``. True if the user has DM settings."""
        return self._update_dm(team, user, status="paused", pause_reason=check_reason(reason))

    def _update_dm(self, team: str, user: str, **values: Any) -> bool:
        mine = (DmPreference.team_id == team, DmPreference.user_id == user)
        return self._change(update(DmPreference).where(*mine).values(updated_at=self._now(), **values)) > 0
