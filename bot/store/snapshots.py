"""Snapshots the :class:`~bot.store.Store` returns: plain frozen dataclasses, never live ORM rows.

Times are timezone-aware UTC ``datetime`` values.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from bot.domain.schedule import WeeklySchedule

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


@dataclass(frozen=True, slots=True)
class Subscription:
    """A channel subscription. ``weekday`` 0=Mon..6=Sun; ``at_time`` ``'HH:MM'`` in ``timezone``
    (IANA); ``cursor`` = path steps already sent; ``status`` ``'active'`` or ``'paused'``."""

    id: int
    team_id: str
    channel_id: str
    track_id: str
    weekday: int
    at_time: str
    timezone: str
    steps_per_week: int
    cursor: int
    last_catalog_version: str | None
    status: str
    pause_reason: str | None
    created_by: str | None
    created_at: datetime
    updated_at: datetime
    minutes_per_week: int | None = None
    after_essentials: str = "further"
    club: bool = False
    lang: str | None = None  # the digest's language (None: its creator's, as before i46_0001)

    @property
    def active(self) -> bool:
        return self.status == "active"

    @property
    def schedule(self) -> WeeklySchedule:
        """The three schedule columns as one :class:`~bot.domain.schedule.WeeklySchedule`."""
        return WeeklySchedule(weekday=self.weekday, at_time=self.at_time, timezone=self.timezone)


@dataclass(frozen=True, slots=True)
class DmSettings:
    """A user's DM digest settings; ``snoozed_until`` is UTC or ``None``."""

    team_id: str
    user_id: str
    enabled: bool
    weekday: int
    at_time: str
    timezone: str
    snoozed_until: datetime | None
    status: str
    pause_reason: str | None
    updated_at: datetime
    catchup: bool = False
    """``dm catchup on``: the weekly DM lists what "catch me up" would (issue 44)."""
    lang: str | None = None
    """The language (``'en'`` | ``'zh'``) of the ``dm on`` that set it up (None: rows from before
    i46_0002); the DM speaks the person's chosen language, else this one, else English."""

    @property
    def schedule(self) -> WeeklySchedule:
        """The three schedule columns as one :class:`~bot.domain.schedule.WeeklySchedule`."""
        return WeeklySchedule(weekday=self.weekday, at_time=self.at_time, timezone=self.timezone)


@dataclass(frozen=True, slots=True)
class Delivery:
    """A delivery-ledger row. ``status``: ``'claimed'`` | ``'sent'`` | ``'failed'``;
    ``track_id`` is ``'*'`` for a DM digest; ``period`` an ISO week (``'2026-W49'``)."""

    id: int
    team_id: str
    destination: str
    track_id: str
    period: str
    status: str
    claimed_at: datetime
    claimed_by: str
    attempts: int
    sent_at: datetime | None
    message_ts: str | None
    error: str | None


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
    lang: str | None = None
    """The language (``'en'`` | ``'zh'``) of the ``remind`` that set it up (None: rows from before
    i46_0002); the reminder speaks the person's chosen language, else this one, else English."""


@dataclass(frozen=True, slots=True)
class TeamRemoval:
    """What :meth:`Store.remove_installation` did (row counts)."""

    installations_deleted: int
    bots_deleted: int
    subscriptions_paused: int
    dms_paused: int


_T = TypeVar("_T", bound="DataclassInstance")


def snapshot(cls: type[_T], row: Any) -> _T:
    """The dataclass ``cls`` with each field read from the same-named attribute of the ORM ``row``."""
    return cls(**{f.name: getattr(row, f.name) for f in fields(cls)})
