"""What the digests go out on: channel subscriptions (which channel gets which track's digest,
when, within what weekly budget, and how far along) and each reader's weekly DM digest settings
(schedule, snooze, pause)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, delete, or_, select, update

from bot.domain.schedule import DEFAULT_TIME, DEFAULT_WEEKDAY, WeeklySchedule
from bot.store.base import StoreCore, changed, update_row
from bot.store.models import LANGS, ChannelSubscription, DmPreference, UserSettings
from bot.store.snapshots import DmSettings, Subscription, snapshot
from bot.store.validate import check_aware, check_id, check_minutes, check_reason, check_steps, schedule_columns

AFTER_ESSENTIALS = ("further", "stop")


def set_cursor_in(s: Connection, id: int, cursor: int, catalog_version: str | None, now: datetime) -> bool:
    """In ``s``: set ``id``'s cursor, ``updated_at`` and (unless None) ``catalog_version``; False if no such row."""
    values: dict[str, Any] = {"cursor": cursor, "updated_at": now}
    if catalog_version is not None:
        values["last_catalog_version"] = catalog_version
    return changed(s, update(ChannelSubscription).where(ChannelSubscription.c.id == id).values(**values)) > 0


def dm_lang(chosen: str | None, set_up_in: str | None) -> str:
    """The language (``'en'`` | ``'zh'``) a DM to a person speaks (the weekly DM, the "fall behind"
    nudge): ``chosen`` (their ``lang``, :meth:`Store.get_lang`), else ``set_up_in`` (the language of
    the ``dm on`` that set their weekly DM up, :attr:`DmSettings.lang`, migration i46_0002), else ``'en'``."""
    if chosen in LANGS:
        return str(chosen)
    return str(set_up_in) if set_up_in in LANGS else "en"


class SubscriptionsRepo(StoreCore):
    """Channel subscriptions, keyed by (team, channel, track id) and by row id; DM digest
    settings, keyed by (team, user)."""

    def subscribe(
        self,
        team: str,
        channel: str,
        track: str,
        schedule: WeeklySchedule,
        steps_per_week: int = 1,
        created_by: str | None = None,
        club: bool | None = None,
        lang: str | None = None,
    ) -> Subscription:
        """Subscribe ``channel`` to ``track``: ``steps_per_week`` (1..3) steps on ``schedule``.
        Re-subscribing updates the schedule and reactivates a paused subscription, keeping its
        cursor (identical arguments change nothing). ``club``: a reading club (issue 44); None keeps
        it. ``lang`` (``'en'`` | ``'zh'`` | None): the digest's language, stored only when the
        subscription is created (a digest keeps the language it was created in; None: its
        creator's current language, see :meth:`digest_lang`). Returns the subscription. Raises
        ValueError for bad arguments."""
        check_id(team, "team"), check_id(channel, "channel"), check_id(track, "track")
        if lang is not None and lang not in LANGS:
            raise ValueError(f"lang must be one of {LANGS} or None, got {lang!r}")
        values = {**schedule_columns(schedule), "steps_per_week": check_steps(steps_per_week)}
        if club is not None:
            values["club"] = bool(club)
        now = self._now()
        key = {"team_id": team, "channel_id": channel, "track_id": track}
        new = {**values, "cursor": 0, "status": "active", "created_by": created_by, "created_at": now, "lang": lang}
        with self._write() as s:
            row, inserted = self._row_for_update(s, ChannelSubscription, key, **new, updated_at=now)
            if not inserted:
                if row.status != "active" or row.pause_reason is not None:
                    values.update(status="active", pause_reason=None)
                row, _ = update_row(s, ChannelSubscription, key, row, values, now)
            return snapshot(Subscription, row)

    def digest_lang(self, sub: Subscription) -> str:
        """The language (``'en'`` | ``'zh'``) ``sub``'s digest, club thread, preview and channel
        announcements speak: the one stored when it was created (``sub.lang``), else (rows from
        before migration i46_0001) its creator's chosen language (``user_settings.lang``), else ``'en'``."""
        if sub.lang in LANGS:
            return str(sub.lang)
        if not sub.created_by:
            return "en"
        stmt = select(UserSettings.c.lang).filter_by(team_id=sub.team_id, user_id=sub.created_by)
        chosen = self._scalar(stmt)
        return chosen if chosen in LANGS else "en"

    def unsubscribe(self, team: str, channel: str, track: str) -> bool:
        """Delete the subscription. True if there was one. Its ledger rows are kept."""
        return self._change(delete(ChannelSubscription).filter_by(team_id=team, channel_id=channel, track_id=track)) > 0

    def subscriptions(self, team: str, channel: str | None = None) -> list[Subscription]:
        """The team's subscriptions (any status; or only ``channel``'s), by channel then track."""
        stmt = select(ChannelSubscription).where(ChannelSubscription.c.team_id == team)
        if channel is not None:
            stmt = stmt.where(ChannelSubscription.c.channel_id == channel)
        stmt = stmt.order_by(ChannelSubscription.c.channel_id, ChannelSubscription.c.track_id)
        return self._snapshots(Subscription, stmt)

    def get_subscription(self, id: int, team: str | None = None) -> Subscription | None:
        """The subscription ``id``, or None; with ``team``, None also when it is another team's."""
        stmt = select(ChannelSubscription).where(ChannelSubscription.c.id == id)
        return self._snapshot(Subscription, stmt if team is None else stmt.where(ChannelSubscription.c.team_id == team))

    def active_subscriptions(self) -> list[Subscription]:
        """Active subscriptions of every team, ordered by team, channel, track."""
        stmt = select(ChannelSubscription).where(ChannelSubscription.c.status == "active")
        order = (ChannelSubscription.c.team_id, ChannelSubscription.c.channel_id, ChannelSubscription.c.track_id)
        return self._snapshots(Subscription, stmt.order_by(*order))

    def pause_subscription(self, id: int, reason: str) -> bool:
        """Pause with a visible ``reason`` (e.g. ``'channel archived'``). True if it exists."""
        reason = check_reason(reason)
        return self._touch(ChannelSubscription, {"id": id}, status="paused", pause_reason=reason)

    def set_channel_budget(
        self, subscription_id: int, minutes: int | None, after_essentials: str | None = None
    ) -> bool:
        """Set a subscription's weekly budget (minutes; ``None``: its steps per week) and, if given,
        ``after_essentials``. True when it exists. Raises ValueError for bad values."""
        values: dict[str, object] = {"minutes_per_week": None if minutes is None else check_minutes(minutes)}
        if after_essentials is not None:
            if after_essentials not in AFTER_ESSENTIALS:
                raise ValueError(f"after_essentials must be one of {AFTER_ESSENTIALS}")
            values["after_essentials"] = after_essentials
        stmt = update(ChannelSubscription).where(ChannelSubscription.c.id == subscription_id)
        return self._change(stmt.values(**values)) > 0

    def set_dm(
        self, team: str, user: str, enabled: bool, schedule: WeeklySchedule | None = None, lang: str | None = None
    ) -> DmSettings:
        """Turn the user's weekly DM digest on or off, optionally on a new ``schedule`` (else the
        current one; new rows: Monday 09:00 in the default timezone). Enabling reactivates a
        paused digest; on or off, a snooze (``dm pause``, *Snooze a week*) ends. ``lang``
        (``'en'`` | ``'zh'``): the DM's language from now on, that of the command that set it up
        (None: the one it had); the DM speaks the person's chosen language,
        else this one, else English (:func:`dm_lang`). Raises ValueError for bad arguments."""
        changes: dict[str, Any] = {"enabled": bool(enabled), "snoozed_until": None}  # QA: a set-up ends a pause
        if schedule is not None:
            changes.update(schedule_columns(schedule))
        if lang is not None:
            if lang not in LANGS:
                raise ValueError(f"lang must be one of {LANGS} or None, got {lang!r}")
            changes["lang"] = lang
        if enabled:
            changes.update(status="active", pause_reason=None)
        return self._change_dm(team, user, changes)

    def set_dm_catchup(self, team: str, user: str, on: bool) -> DmSettings:
        """``dm catchup on|off`` (issue 44): whether ``user``'s weekly DM lists what "catch me up"
        would; the DM itself stays as it is (new rows: off). Raises ValueError for bad ids."""
        return self._change_dm(team, user, {"catchup": bool(on)})

    def _change_dm(self, team: str, user: str, changes: dict[str, Any]) -> DmSettings:
        check_id(team, "team"), check_id(user, "user")
        now = self._now()
        new = {"weekday": DEFAULT_WEEKDAY, "at_time": DEFAULT_TIME, "timezone": self._default_timezone}
        new.update(enabled=False, catchup=False)
        with self._write() as s:
            key = {"team_id": team, "user_id": user}
            row, _ = self._row_for_update(s, DmPreference, key, **new, status="active", updated_at=now)
            row, _ = update_row(s, DmPreference, key, row, changes, now)
            return snapshot(DmSettings, row)

    def get_dm(self, team: str, user: str) -> DmSettings | None:
        """The user's DM digest settings, or None if never set."""
        return self._snapshot(DmSettings, select(DmPreference).filter_by(team_id=team, user_id=user))

    def dm_recipients(self, at: datetime | None = None) -> list[DmSettings]:
        """DM digests enabled, active and not snoozed at ``at`` (aware; default now), by team then user."""
        at = self._now() if at is None else check_aware(at, "at")
        stmt = select(DmPreference).where(
            DmPreference.c.enabled.is_(True),
            DmPreference.c.status == "active",
            or_(DmPreference.c.snoozed_until.is_(None), DmPreference.c.snoozed_until <= at),
        )
        return self._snapshots(DmSettings, stmt.order_by(DmPreference.c.team_id, DmPreference.c.user_id))

    def snooze_dm(self, team: str, user: str, until: datetime | None) -> bool:
        """Skip the DM digests until ``until`` (aware; None: no snooze). True if the user has DM settings."""
        if until is not None:
            check_aware(until, "until")
        return self._touch(DmPreference, {"team_id": team, "user_id": user}, snoozed_until=until)

    def pause_dm(self, team: str, user: str, reason: str) -> bool:
        """Pause the DM digest with a visible ``reason``. True if the user has DM settings."""
        reason = check_reason(reason)
        return self._touch(DmPreference, {"team_id": team, "user_id": user}, status="paused", pause_reason=reason)

    def _touch(self, model: Table, key: dict[str, Any], **values: Any) -> bool:
        """Set ``values`` and ``updated_at`` (now) on the row of ``model`` at ``key``: True if there is one."""
        return self._change(update(model).filter_by(**key).values(updated_at=self._now(), **values)) > 0
