"""The repository API: :class:`Store`.

Each method opens its own short transaction and returns plain frozen dataclasses, sets, lists or
booleans, never live ORM objects, so callers never hold a session. Every method that reads or
writes per-workspace data takes the Slack team id first. Writes are idempotent: repeating one
changes nothing (and reports that nothing changed). Times are timezone-aware UTC ``datetime``
values; durations are seconds.

Errors: :class:`ValueError` for invalid arguments (checked before touching the database);
:class:`sqlalchemy.exc.SQLAlchemyError` subclasses for database failures (connection lost beyond
the pool's pre-ping, lock timeouts).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore
from sqlalchemy import Engine, and_, delete, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker

from bot.store import db
from bot.store.models import (
    DM_TRACK,
    LANGS,
    CatalogVersion,
    ChannelSubscription,
    DigestDelivery,
    DmPreference,
    ProcessedEvent,
    ReadingProgress,
    TrackFollow,
    UserSettings,
    slack_bots,
    slack_installations,
)

UNINSTALLED = "app uninstalled"
"""``pause_reason`` set by :meth:`Store.remove_team`."""

DEFAULT_DM_WEEKDAY = 0
DEFAULT_DM_TIME = "09:00"
_HHMM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
_PERIOD = re.compile(r"^\d{4}-W(0[1-9]|[1-4]\d|5[0-3])$")


# --- snapshots ---------------------------------------------------------------------------------


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

    @property
    def active(self) -> bool:
        return self.status == "active"


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

    def is_due_candidate(self, at: datetime) -> bool:
        """Enabled, active and not snoozed at ``at`` (aware)."""
        return (self.enabled and self.status == "active"
                and (self.snoozed_until is None or self.snoozed_until <= at))


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
class TeamRemoval:
    """What :meth:`Store.remove_team` did (row counts)."""

    installations_deleted: int
    bots_deleted: int
    subscriptions_paused: int
    dms_paused: int


def _snapshot(cls: type, row: Any) -> Any:
    return cls(**{name: getattr(row, name) for name in cls.__dataclass_fields__})


# --- validation --------------------------------------------------------------------------------


def _id(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string, got {value!r}")
    return value


def _ids(values: Iterable[str], what: str) -> list[str]:
    if isinstance(values, str):
        raise ValueError(f"{what} must be an iterable of ids, not a single string")
    return list(dict.fromkeys(_id(v, what) for v in values))


def _weekday(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 6:
        raise ValueError(f"weekday must be an int 0 (Monday)..6 (Sunday), got {value!r}")
    return value


def _at_time(value: str) -> str:
    if not isinstance(value, str) or not _HHMM.match(value):
        raise ValueError(f"at_time must be 'HH:MM' (24-hour), got {value!r}")
    return value


def _timezone(value: str) -> str:
    try:
        if not isinstance(value, str) or not value:
            raise ValueError
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"timezone must be an IANA name such as 'Europe/Paris', got {value!r}") from None
    return value


def _steps(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 3:
        raise ValueError(f"steps_per_week must be 1, 2 or 3, got {value!r}")
    return value


def _aware(value: datetime, what: str) -> datetime:
    if not isinstance(value, datetime) or value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{what} must be a timezone-aware datetime, got {value!r}")
    return value


def _period(value: str) -> str:
    if not isinstance(value, str) or not _PERIOD.match(value):
        raise ValueError(f"period must be an ISO week like '2026-W49', got {value!r}")
    return value


def _reason(value: str) -> str:
    return _id(value, "reason")[:500]


# --- the store ---------------------------------------------------------------------------------


class Store:
    """The app's state, behind small methods that each run one short transaction.

    Build with :meth:`from_url` (which migrates by default) or from an existing engine.
    ``client_id`` is the Slack app's client id, used by :meth:`installation_store`;
    ``default_timezone`` (IANA) is used for new DM settings; ``clock`` returns the current aware
    UTC time (tests pass a fake one).
    """

    def __init__(
        self,
        engine: Engine,
        *,
        client_id: str | None = None,
        default_timezone: str = "UTC",
        clock: Callable[[], datetime] = db.utcnow,
        owns_engine: bool = False,
    ) -> None:
        dialect = engine.dialect.name
        if dialect not in ("sqlite", "postgresql"):
            raise ValueError(f"unsupported database dialect {dialect!r}")
        self._engine = engine
        self._dialect = dialect
        self._client_id = client_id
        self._default_timezone = _timezone(default_timezone)
        self._clock = clock
        self._owns_engine = owns_engine
        self._sessions = db.make_session_factory(engine)
        self._installation_stores: dict[str, SQLAlchemyInstallationStore] = {}

    @classmethod
    def from_url(cls, url: str, *, migrate: bool = True, **kwargs: Any) -> Store:
        """A store on a new engine for ``url`` (a ``DATABASE_URL``); runs ``alembic upgrade head``
        first unless ``migrate=False``. ``kwargs`` as for :class:`Store`. :meth:`close` disposes
        the engine."""
        engine = db.make_engine(url)
        try:
            if migrate:
                db.migrate(engine)
        except BaseException:
            engine.dispose()
            raise
        return cls(engine, owns_engine=True, **kwargs)

    @property
    def engine(self) -> Engine:
        return self._engine

    @property
    def session_factory(self) -> sessionmaker[Session]:
        """A 2.0-style session factory on the same engine (for code that needs raw queries)."""
        return self._sessions

    def close(self) -> None:
        """Dispose of the engine's pool if this store created the engine."""
        if self._owns_engine:
            self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _now(self) -> datetime:
        return _aware(self._clock(), "clock()")

    def _insert(self, model: Any) -> Any:
        module = postgresql if self._dialect == "postgresql" else sqlite
        return module.insert(model)

    def _write(self) -> Any:
        return db.write_session(self._engine)

    def _read(self) -> Any:
        return db.read_session(self._engine)

    # --- reading progress ------------------------------------------------------------------

    def mark_read(self, team: str, user: str, post_ids: Iterable[str]) -> set[str]:
        """Record posts as read now. Returns the ids that were not read before (already-read ids
        are left with their original ``read_at``)."""
        _id(team, "team"), _id(user, "user")
        ids = _ids(post_ids, "post id")
        if not ids:
            return set()
        now = self._now()
        rows = [{"team_id": team, "user_id": user, "post_id": p, "read_at": now} for p in ids]
        stmt = (self._insert(ReadingProgress).values(rows).on_conflict_do_nothing()
                .returning(ReadingProgress.post_id))
        with self._write() as s:
            return set(s.execute(stmt).scalars())

    def mark_unread(self, team: str, user: str, post_ids: Iterable[str]) -> set[str]:
        """Forget that posts were read. Returns the ids that had been read."""
        _id(team, "team"), _id(user, "user")
        ids = _ids(post_ids, "post id")
        if not ids:
            return set()
        stmt = (delete(ReadingProgress)
                .where(ReadingProgress.team_id == team, ReadingProgress.user_id == user,
                       ReadingProgress.post_id.in_(ids))
                .returning(ReadingProgress.post_id)
                .execution_options(synchronize_session=False))
        with self._write() as s:
            return set(s.execute(stmt).scalars())

    def read_posts(self, team: str, user: str) -> set[str]:
        """The ids of every post ``user`` has read in ``team``."""
        with self._read() as s:
            return set(s.scalars(select(ReadingProgress.post_id).where(
                ReadingProgress.team_id == team, ReadingProgress.user_id == user)))

    def read_log(self, team: str, user: str) -> dict[str, datetime]:
        """``{post_id: read_at (UTC)}`` for ``user`` in ``team``."""
        with self._read() as s:
            rows = s.execute(select(ReadingProgress.post_id, ReadingProgress.read_at).where(
                ReadingProgress.team_id == team, ReadingProgress.user_id == user))
            return {post: at for post, at in rows}

    # --- follows ---------------------------------------------------------------------------

    def follow(self, team: str, user: str, track: str) -> bool:
        """Follow a track. True if newly followed, False if already following."""
        _id(team, "team"), _id(user, "user"), _id(track, "track")
        stmt = (self._insert(TrackFollow)
                .values(team_id=team, user_id=user, track_id=track, followed_at=self._now())
                .on_conflict_do_nothing().returning(TrackFollow.track_id))
        with self._write() as s:
            return s.execute(stmt).first() is not None

    def unfollow(self, team: str, user: str, track: str) -> bool:
        """Stop following a track. True if the user was following it."""
        stmt = (delete(TrackFollow)
                .where(TrackFollow.team_id == team, TrackFollow.user_id == user,
                       TrackFollow.track_id == track)
                .execution_options(synchronize_session=False))
        with self._write() as s:
            return s.execute(stmt).rowcount > 0

    def follows(self, team: str, user: str) -> list[str]:
        """Track ids ``user`` follows, oldest follow first."""
        with self._read() as s:
            return list(s.scalars(
                select(TrackFollow.track_id)
                .where(TrackFollow.team_id == team, TrackFollow.user_id == user)
                .order_by(TrackFollow.followed_at, TrackFollow.track_id)))

    def followers(self, team: str, track: str) -> list[str]:
        """User ids following ``track`` in ``team``, oldest follow first."""
        with self._read() as s:
            return list(s.scalars(
                select(TrackFollow.user_id)
                .where(TrackFollow.team_id == team, TrackFollow.track_id == track)
                .order_by(TrackFollow.followed_at, TrackFollow.user_id)))

    # --- language --------------------------------------------------------------------------

    def get_lang(self, team: str, user: str) -> str | None:
        """The user's chosen language (``'en'`` | ``'zh'``), or None (use Slack's locale)."""
        with self._read() as s:
            return s.scalar(select(UserSettings.lang).where(
                UserSettings.team_id == team, UserSettings.user_id == user))

    def set_lang(self, team: str, user: str, lang: str | None) -> None:
        """Choose a language (``'en'`` | ``'zh'``) or None to follow Slack's locale.
        Raises ValueError for another value."""
        _id(team, "team"), _id(user, "user")
        if lang is not None and lang not in LANGS:
            raise ValueError(f"lang must be one of {LANGS} or None, got {lang!r}")
        stmt = self._insert(UserSettings).values(team_id=team, user_id=user, lang=lang)
        stmt = stmt.on_conflict_do_update(index_elements=["team_id", "user_id"],
                                          set_={"lang": stmt.excluded.lang})
        with self._write() as s:
            s.execute(stmt)

    # --- channel subscriptions -------------------------------------------------------------

    def subscribe(self, team: str, channel: str, track: str, weekday: int, at_time: str,
                  timezone: str, steps_per_week: int = 1,
                  created_by: str | None = None) -> Subscription:
        """Subscribe ``channel`` to ``track``: ``steps_per_week`` (1..3) steps every ``weekday``
        (0=Mon..6=Sun) at ``at_time`` (``'HH:MM'``) in ``timezone`` (IANA name).

        Upsert on (team, channel, track): re-subscribing updates the schedule and reactivates a
        paused subscription, keeping its cursor; identical arguments change nothing (not even
        ``updated_at``). Returns the resulting subscription. Raises ValueError for bad arguments.
        """
        _id(team, "team"), _id(channel, "channel"), _id(track, "track")
        schedule = {"weekday": _weekday(weekday), "at_time": _at_time(at_time),
                    "timezone": _timezone(timezone), "steps_per_week": _steps(steps_per_week)}
        now = self._now()
        key = (ChannelSubscription.team_id == team, ChannelSubscription.channel_id == channel,
               ChannelSubscription.track_id == track)
        insert = (self._insert(ChannelSubscription)
                  .values(team_id=team, channel_id=channel, track_id=track, cursor=0,
                          status="active", created_by=created_by, created_at=now,
                          updated_at=now, **schedule)
                  .on_conflict_do_nothing().returning(ChannelSubscription.id))
        with self._write() as s:
            new_id = s.execute(insert).scalar()
            row = s.execute(select(ChannelSubscription).where(*key).with_for_update()).scalar_one()
            if new_id is None:
                changes = {k: v for k, v in schedule.items() if getattr(row, k) != v}
                if row.status != "active" or row.pause_reason is not None:
                    changes.update(status="active", pause_reason=None)
                if changes:
                    for name, value in {**changes, "updated_at": now}.items():
                        setattr(row, name, value)
                    s.flush()
            return _snapshot(Subscription, row)

    def unsubscribe(self, team: str, channel: str, track: str) -> bool:
        """Delete the subscription. True if there was one. Its ledger rows are kept."""
        stmt = (delete(ChannelSubscription)
                .where(ChannelSubscription.team_id == team,
                       ChannelSubscription.channel_id == channel,
                       ChannelSubscription.track_id == track)
                .execution_options(synchronize_session=False))
        with self._write() as s:
            return s.execute(stmt).rowcount > 0

    def subscriptions(self, team: str, channel: str | None = None) -> list[Subscription]:
        """The team's subscriptions (of any status), optionally only ``channel``'s, ordered by
        channel then track."""
        stmt = select(ChannelSubscription).where(ChannelSubscription.team_id == team)
        if channel is not None:
            stmt = stmt.where(ChannelSubscription.channel_id == channel)
        stmt = stmt.order_by(ChannelSubscription.channel_id, ChannelSubscription.track_id)
        with self._read() as s:
            return [_snapshot(Subscription, r) for r in s.scalars(stmt)]

    def get_subscription(self, id: int, team: str | None = None) -> Subscription | None:
        """The subscription ``id``, or None; with ``team``, None also when it belongs to
        another team (use this from anything a Slack user can drive)."""
        with self._read() as s:
            row = s.get(ChannelSubscription, id)
            if row is None or (team is not None and row.team_id != team):
                return None
            return _snapshot(Subscription, row)

    def active_subscriptions(self, team: str | None = None) -> list[Subscription]:
        """Active subscriptions of every team (or of ``team``), ordered by team, channel, track."""
        stmt = select(ChannelSubscription).where(ChannelSubscription.status == "active")
        if team is not None:
            stmt = stmt.where(ChannelSubscription.team_id == team)
        stmt = stmt.order_by(ChannelSubscription.team_id, ChannelSubscription.channel_id,
                             ChannelSubscription.track_id)
        with self._read() as s:
            return [_snapshot(Subscription, r) for r in s.scalars(stmt)]

    def advance_cursor(self, id: int, steps: int,
                       catalog_version: str | None = None) -> Subscription | None:
        """Add ``steps`` (>= 0) to the subscription's cursor atomically and record the catalog
        version its digest used (unchanged when None). Returns the updated subscription, or None
        if it no longer exists."""
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(f"steps must be an int >= 0, got {steps!r}")
        with self._write() as s:
            if not self._advance(s, id, steps, catalog_version):
                return None
            return _snapshot(Subscription, s.get(ChannelSubscription, id,
                                                 populate_existing=True))

    def _advance(self, s: Session, id: int, steps: int, catalog_version: str | None) -> bool:
        values: dict[str, Any] = {"cursor": ChannelSubscription.cursor + steps,
                                  "updated_at": self._now()}
        if catalog_version is not None:
            values["last_catalog_version"] = catalog_version
        stmt = (update(ChannelSubscription).where(ChannelSubscription.id == id).values(**values)
                .execution_options(synchronize_session=False))
        return s.execute(stmt).rowcount > 0

    def pause_subscription(self, id: int, reason: str) -> bool:
        """Pause with a visible ``reason`` (e.g. ``'channel archived'``). True if it exists."""
        stmt = (update(ChannelSubscription).where(ChannelSubscription.id == id)
                .values(status="paused", pause_reason=_reason(reason), updated_at=self._now())
                .execution_options(synchronize_session=False))
        with self._write() as s:
            return s.execute(stmt).rowcount > 0

    def resume_subscription(self, id: int) -> bool:
        """Reactivate (clearing the pause reason). True if it exists."""
        stmt = (update(ChannelSubscription).where(ChannelSubscription.id == id)
                .values(status="active", pause_reason=None, updated_at=self._now())
                .execution_options(synchronize_session=False))
        with self._write() as s:
            return s.execute(stmt).rowcount > 0

    # --- DM digests ------------------------------------------------------------------------

    def set_dm(self, team: str, user: str, enabled: bool, weekday: int | None = None,
               at_time: str | None = None, timezone: str | None = None) -> DmSettings:
        """Turn the user's weekly DM digest on or off and optionally set when it comes
        (``weekday`` 0..6, ``at_time`` ``'HH:MM'``, IANA ``timezone``). Arguments left None keep
        their current value (defaults for a new row: Monday, 09:00, the store's default timezone).
        Enabling also reactivates a paused digest. Raises ValueError for bad arguments."""
        _id(team, "team"), _id(user, "user")
        changes: dict[str, Any] = {"enabled": bool(enabled)}
        if weekday is not None:
            changes["weekday"] = _weekday(weekday)
        if at_time is not None:
            changes["at_time"] = _at_time(at_time)
        if timezone is not None:
            changes["timezone"] = _timezone(timezone)
        if enabled:
            changes.update(status="active", pause_reason=None)
        now = self._now()
        insert = (self._insert(DmPreference)
                  .values(team_id=team, user_id=user, enabled=False, weekday=DEFAULT_DM_WEEKDAY,
                          at_time=DEFAULT_DM_TIME, timezone=self._default_timezone,
                          status="active", updated_at=now)
                  .on_conflict_do_nothing())
        with self._write() as s:
            s.execute(insert)
            row = s.execute(select(DmPreference).where(
                DmPreference.team_id == team, DmPreference.user_id == user).with_for_update()
            ).scalar_one()
            changes = {k: v for k, v in changes.items() if getattr(row, k) != v}
            if changes:
                for name, value in {**changes, "updated_at": now}.items():
                    setattr(row, name, value)
                s.flush()
            return _snapshot(DmSettings, row)

    def get_dm(self, team: str, user: str) -> DmSettings | None:
        """The user's DM digest settings, or None if never set."""
        with self._read() as s:
            row = s.get(DmPreference, (team, user))
            return None if row is None else _snapshot(DmSettings, row)

    def dm_recipients(self, at: datetime | None = None,
                      team: str | None = None) -> list[DmSettings]:
        """Users whose DM digest is enabled, active and not snoozed at ``at`` (aware; default
        now), across all teams or only ``team``; ordered by team then user."""
        at = self._now() if at is None else _aware(at, "at")
        stmt = select(DmPreference).where(
            DmPreference.enabled.is_(True), DmPreference.status == "active",
            or_(DmPreference.snoozed_until.is_(None), DmPreference.snoozed_until <= at))
        if team is not None:
            stmt = stmt.where(DmPreference.team_id == team)
        stmt = stmt.order_by(DmPreference.team_id, DmPreference.user_id)
        with self._read() as s:
            return [_snapshot(DmSettings, r) for r in s.scalars(stmt)]

    def snooze_dm(self, team: str, user: str, until: datetime | None) -> bool:
        """Skip the user's DM digests until ``until`` (aware datetime; None clears the snooze).
        True if the user has DM settings."""
        if until is not None:
            _aware(until, "until")
        return self._update_dm(team, user, snoozed_until=until)

    def pause_dm(self, team: str, user: str, reason: str) -> bool:
        """Pause the DM digest with a visible ``reason``. True if the user has DM settings."""
        return self._update_dm(team, user, status="paused", pause_reason=_reason(reason))

    def resume_dm(self, team: str, user: str) -> bool:
        """Reactivate a paused DM digest. True if the user has DM settings."""
        return self._update_dm(team, user, status="active", pause_reason=None)

    def _update_dm(self, team: str, user: str, **values: Any) -> bool:
        stmt = (update(DmPreference)
                .where(DmPreference.team_id == team, DmPreference.user_id == user)
                .values(updated_at=self._now(), **values)
                .execution_options(synchronize_session=False))
        with self._write() as s:
            return s.execute(stmt).rowcount > 0

    # --- delivery ledger -------------------------------------------------------------------

    def _delivery_key(self, team: str, destination: str, track: str, period: str) -> Any:
        return and_(DigestDelivery.team_id == team, DigestDelivery.destination == destination,
                    DigestDelivery.track_id == track, DigestDelivery.period == period)

    def claim_delivery(self, team: str, destination: str, track: str, period: str,
                       claimed_by: str, stale_after_s: float = 600,
                       max_attempts: int = 3) -> bool:
        """Claim the right to send one digest: (team, ``destination`` channel or user id,
        ``track`` id or ``'*'`` for a DM digest, ``period`` ISO week ``'2026-W49'``).

        True for exactly one caller: the one whose INSERT creates the ledger row (the UNIQUE key
        decides between concurrent callers, in any number of processes), or the one whose
        conditional UPDATE takes over a row left ``'claimed'`` longer than ``stale_after_s``
        seconds (a crashed sender) or left ``'failed'`` after fewer than ``max_attempts``
        attempts. A ``'sent'`` row is never claimed again. ``claimed_by`` names the claimant
        (e.g. ``'host:pid'``). Raises ValueError for bad arguments.
        """
        for value, what in ((team, "team"), (destination, "destination"), (track, "track"),
                            (claimed_by, "claimed_by")):
            _id(value, what)
        _period(period)
        if stale_after_s < 0:
            raise ValueError(f"stale_after_s must be >= 0, got {stale_after_s!r}")
        now = self._now()
        insert = (self._insert(DigestDelivery)
                  .values(team_id=team, destination=destination, track_id=track, period=period,
                          status="claimed", claimed_at=now, claimed_by=claimed_by, attempts=1)
                  .on_conflict_do_nothing().returning(DigestDelivery.id))
        takeover = (update(DigestDelivery)
                    .where(self._delivery_key(team, destination, track, period),
                           or_(and_(DigestDelivery.status == "claimed",
                                    DigestDelivery.claimed_at
                                    < now - timedelta(seconds=stale_after_s)),
                               and_(DigestDelivery.status == "failed",
                                    DigestDelivery.attempts < max_attempts)))
                    .values(status="claimed", claimed_at=now, claimed_by=claimed_by,
                            attempts=DigestDelivery.attempts + 1)
                    .execution_options(synchronize_session=False))
        with self._write() as s:
            if s.execute(insert).first() is not None:
                return True
            return s.execute(takeover).rowcount == 1

    def mark_sent(self, team: str, destination: str, track: str, period: str,
                  message_ts: str | None = None, *, claimed_by: str | None = None,
                  subscription_id: int | None = None, steps: int = 0,
                  catalog_version: str | None = None) -> bool:
        """Record a claimed delivery as sent (``message_ts``: Slack's ts of the message).

        With ``subscription_id``, also :meth:`advance_cursor` by ``steps`` in the same
        transaction, so the ledger and the cursor never disagree after a crash. With
        ``claimed_by``, only that claimant's claim is marked. True if a ``'claimed'`` row became
        ``'sent'`` (False: no such claim, or already sent/failed; nothing is advanced then).
        """
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(f"steps must be an int >= 0, got {steps!r}")
        cond = [self._delivery_key(team, destination, track, period),
                DigestDelivery.status == "claimed"]
        if claimed_by is not None:
            cond.append(DigestDelivery.claimed_by == claimed_by)
        stmt = (update(DigestDelivery).where(*cond)
                .values(status="sent", sent_at=self._now(), message_ts=message_ts)
                .execution_options(synchronize_session=False))
        with self._write() as s:
            if s.execute(stmt).rowcount != 1:
                return False
            if subscription_id is not None:
                self._advance(s, subscription_id, steps, catalog_version)
            return True

    def mark_failed(self, team: str, destination: str, track: str, period: str, error: str,
                    *, claimed_by: str | None = None) -> bool:
        """Record a claimed delivery as failed with ``error`` (truncated to 1000 characters).
        It may be claimed again while ``attempts < max_attempts``. True if a claim was marked."""
        cond = [self._delivery_key(team, destination, track, period),
                DigestDelivery.status == "claimed"]
        if claimed_by is not None:
            cond.append(DigestDelivery.claimed_by == claimed_by)
        stmt = (update(DigestDelivery).where(*cond)
                .values(status="failed", error=str(error)[:1000])
                .execution_options(synchronize_session=False))
        with self._write() as s:
            return s.execute(stmt).rowcount == 1

    # Additions for the digest scheduler (bot/digest): a skipped period, claim renewal and a
    # cursor set absolutely when a new catalog version moved steps around.

    SKIPPED_PREFIX = "skipped: "
    """``error`` of a ledger row that is ``'sent'`` with no message: the period was handled
    without posting (snoozed, nothing new to say); :meth:`skip_delivery`, :meth:`mark_skipped`."""

    def skip_delivery(self, team: str, destination: str, track: str, period: str, reason: str,
                      claimed_by: str) -> bool:
        """Settle a period without posting: insert the ledger row as ``'sent'`` with no
        ``message_ts`` and ``error`` ``'skipped: <reason>'`` (e.g. a digest snoozed ahead of
        time), so that no claim for that key can succeed. True if the row was created; False if
        the key already had a row (which is left as it is). Raises ValueError for bad arguments."""
        for value, what in ((team, "team"), (destination, "destination"), (track, "track"),
                            (claimed_by, "claimed_by")):
            _id(value, what)
        _period(period)
        now = self._now()
        stmt = (self._insert(DigestDelivery)
                .values(team_id=team, destination=destination, track_id=track, period=period,
                        status="sent", claimed_at=now, claimed_by=claimed_by, attempts=0,
                        sent_at=now, error=(self.SKIPPED_PREFIX + _reason(reason))[:1000])
                .on_conflict_do_nothing().returning(DigestDelivery.id))
        with self._write() as s:
            return s.execute(stmt).first() is not None

    def mark_skipped(self, team: str, destination: str, track: str, period: str, reason: str,
                     *, claimed_by: str | None = None) -> bool:
        """Settle a claimed period without posting (nothing to say this week): the row becomes
        ``'sent'`` with no ``message_ts`` and ``error`` ``'skipped: <reason>'``. With
        ``claimed_by``, only that claimant's claim. True if a claim was settled."""
        cond = [self._delivery_key(team, destination, track, period),
                DigestDelivery.status == "claimed"]
        if claimed_by is not None:
            cond.append(DigestDelivery.claimed_by == claimed_by)
        stmt = (update(DigestDelivery).where(*cond)
                .values(status="sent", sent_at=self._now(), message_ts=None,
                        error=(self.SKIPPED_PREFIX + _reason(reason))[:1000])
                .execution_options(synchronize_session=False))
        with self._write() as s:
            return s.execute(stmt).rowcount == 1

    def renew_claim(self, team: str, destination: str, track: str, period: str,
                    claimed_by: str) -> bool:
        """Refresh ``claimed_at`` of ``claimed_by``'s claim to now, right before a send, so that
        a claim that waited in a queue is not taken over as stale while it is being sent. False
        if the claim is no longer ``claimed_by``'s (taken over, or settled): do not send then."""
        stmt = (update(DigestDelivery)
                .where(self._delivery_key(team, destination, track, period),
                       DigestDelivery.status == "claimed", DigestDelivery.claimed_by == claimed_by)
                .values(claimed_at=self._now())
                .execution_options(synchronize_session=False))
        with self._write() as s:
            return s.execute(stmt).rowcount == 1

    def mark_sent_at_cursor(self, team: str, destination: str, track: str, period: str,
                            message_ts: str | None, *, subscription_id: int, cursor: int,
                            catalog_version: str | None, claimed_by: str | None = None) -> bool:
        """Like :meth:`mark_sent` with a subscription, but set its cursor to ``cursor`` (>= 0)
        instead of adding steps: a digest composed against a new catalog version may move the
        cursor to a new place in a re-ordered path. Both changes happen in one transaction; True
        if a ``'claimed'`` row became ``'sent'`` (nothing is changed otherwise)."""
        if isinstance(cursor, bool) or not isinstance(cursor, int) or cursor < 0:
            raise ValueError(f"cursor must be an int >= 0, got {cursor!r}")
        cond = [self._delivery_key(team, destination, track, period),
                DigestDelivery.status == "claimed"]
        if claimed_by is not None:
            cond.append(DigestDelivery.claimed_by == claimed_by)
        now = self._now()
        stmt = (update(DigestDelivery).where(*cond)
                .values(status="sent", sent_at=now, message_ts=message_ts)
                .execution_options(synchronize_session=False))
        values: dict[str, Any] = {"cursor": cursor, "updated_at": now}
        if catalog_version is not None:
            values["last_catalog_version"] = catalog_version
        with self._write() as s:
            if s.execute(stmt).rowcount != 1:
                return False
            s.execute(update(ChannelSubscription).where(ChannelSubscription.id == subscription_id)
                      .values(**values).execution_options(synchronize_session=False))
            return True

    def delivery(self, team: str, destination: str, track: str, period: str) -> Delivery | None:
        """The ledger row for that key, or None."""
        with self._read() as s:
            row = s.scalar(select(DigestDelivery).where(
                self._delivery_key(team, destination, track, period)))
            return None if row is None else _snapshot(Delivery, row)

    def deliveries(self, period: str | None = None, team: str | None = None) -> list[Delivery]:
        """Ledger rows, optionally for one ``period`` and/or ``team``, in claim order."""
        stmt = select(DigestDelivery)
        if period is not None:
            stmt = stmt.where(DigestDelivery.period == period)
        if team is not None:
            stmt = stmt.where(DigestDelivery.team_id == team)
        with self._read() as s:
            return [_snapshot(Delivery, r)
                    for r in s.scalars(stmt.order_by(DigestDelivery.id))]

    # --- Slack event de-duplication ----------------------------------------------------------

    def record_event(self, event_id: str, team: str) -> bool:
        """Remember a Slack event id. True the first time only (concurrency-safe via the
        primary key): handle the event only when this returns True."""
        _id(event_id, "event_id"), _id(team, "team")
        stmt = (self._insert(ProcessedEvent)
                .values(event_id=event_id, team_id=team, received_at=self._now())
                .on_conflict_do_nothing().returning(ProcessedEvent.event_id))
        with self._write() as s:
            return s.execute(stmt).first() is not None

    def prune_events(self, older_than_s: float = 86_400) -> int:
        """Forget event ids received more than ``older_than_s`` seconds ago (Slack retries
        within minutes). Returns how many were deleted."""
        cutoff = self._now() - timedelta(seconds=older_than_s)
        stmt = (delete(ProcessedEvent).where(ProcessedEvent.received_at < cutoff)
                .execution_options(synchronize_session=False))
        with self._write() as s:
            return s.execute(stmt).rowcount

    # --- catalog versions --------------------------------------------------------------------

    def record_catalog_version(self, version: str,
                               snapshot: Mapping[str, Sequence[str]]) -> bool:
        """Remember a catalog version and each track's path ``{track_id: [post ids in order]}``.
        True if the version is new; a known version keeps its first snapshot."""
        _id(version, "version")
        if not isinstance(snapshot, Mapping):
            raise ValueError("snapshot must be a mapping {track_id: [post ids]}")
        data: dict[str, list[str]] = {}
        for track, posts in snapshot.items():
            _id(track, "track id")
            data[track] = [_id(p, "post id") for p in _ids(posts, "post id")] if posts else []
        stmt = (self._insert(CatalogVersion)
                .values(version=version, first_seen_at=self._now(), snapshot=data)
                .on_conflict_do_nothing().returning(CatalogVersion.version))
        with self._write() as s:
            return s.execute(stmt).first() is not None

    def catalog_snapshot(self, version: str) -> dict[str, list[str]] | None:
        """``{track_id: [post ids]}`` recorded for ``version``, or None if unknown."""
        with self._read() as s:
            data = s.scalar(select(CatalogVersion.snapshot).where(
                CatalogVersion.version == version))
            return None if data is None else {k: list(v) for k, v in data.items()}

    def latest_catalog_version(self) -> str | None:
        """The most recently first-seen catalog version, or None if none recorded."""
        with self._read() as s:
            return s.scalar(select(CatalogVersion.version)
                            .order_by(CatalogVersion.first_seen_at.desc(),
                                      CatalogVersion.version.desc()).limit(1))

    # --- workspaces --------------------------------------------------------------------------

    def remove_team(self, team: str) -> TeamRemoval:
        """The app was uninstalled from ``team`` (``app_uninstalled`` / ``tokens_revoked``):
        delete its Slack installation and bot rows (all client ids) and pause all its channel
        subscriptions and DM digests with reason ``'app uninstalled'``. Progress, follows and
        the ledger are kept (a reinstall picks up where it left off; see :meth:`resume_team`).
        Idempotent."""
        _id(team, "team")
        now = self._now()
        with self._write() as s:
            installations = s.execute(
                delete(slack_installations).where(slack_installations.c.team_id == team)).rowcount
            bots = s.execute(delete(slack_bots).where(slack_bots.c.team_id == team)).rowcount
            subs = s.execute(
                update(ChannelSubscription)
                .where(ChannelSubscription.team_id == team, ChannelSubscription.status == "active")
                .values(status="paused", pause_reason=UNINSTALLED, updated_at=now)
                .execution_options(synchronize_session=False)).rowcount
            dms = s.execute(
                update(DmPreference)
                .where(DmPreference.team_id == team, DmPreference.status == "active")
                .values(status="paused", pause_reason=UNINSTALLED, updated_at=now)
                .execution_options(synchronize_session=False)).rowcount
        return TeamRemoval(installations, bots, subs, dms)

    def resume_team(self, team: str) -> int:
        """After a reinstall: reactivate the subscriptions and DM digests that
        :meth:`remove_team` paused (others paused for other reasons stay paused). Returns how
        many were resumed."""
        now = self._now()
        total = 0
        with self._write() as s:
            for model in (ChannelSubscription, DmPreference):
                total += s.execute(
                    update(model)
                    .where(model.team_id == team, model.status == "paused",
                           model.pause_reason == UNINSTALLED)
                    .values(status="active", pause_reason=None, updated_at=now)
                    .execution_options(synchronize_session=False)).rowcount
        return total

    # --- slack_sdk stores ----------------------------------------------------------------------

    def installation_store(self, client_id: str | None = None) -> SQLAlchemyInstallationStore:
        """slack_sdk's SQLAlchemy installation store on this engine and the migrated tables
        (``slack_installations``, ``slack_bots``), for Bolt's OAuth settings / authorize.
        ``client_id`` defaults to the store's; ValueError if neither is set."""
        client_id = client_id or self._client_id
        if not client_id:
            raise ValueError("installation_store needs the Slack app's client_id")
        if client_id not in self._installation_stores:
            self._installation_stores[client_id] = SQLAlchemyInstallationStore(
                client_id=client_id, engine=self._engine)
        return self._installation_stores[client_id]

    def oauth_state_store(self, expiration_seconds: int = 600) -> SQLAlchemyOAuthStateStore:
        """slack_sdk's SQLAlchemy OAuth state store (``slack_oauth_states``) on this engine;
        states expire after ``expiration_seconds``."""
        return SQLAlchemyOAuthStateStore(expiration_seconds=expiration_seconds,
                                         engine=self._engine)


__all__ = [
    "DM_TRACK",
    "UNINSTALLED",
    "Delivery",
    "DmSettings",
    "Store",
    "Subscription",
    "TeamRemoval",
]
