"""The tables, as typed SQLAlchemy 2 declarative models. Per-workspace rows carry the Slack team
id and every lookup filters on it. Times are aware UTC (:class:`~bot.store.db.UTCDateTime`).
slack_sdk's installation and OAuth-state tables join the same :data:`Base.metadata`, so that the
migration test covers them. Changing a model needs a new migration (the test fails until then).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore
from sqlalchemy import JSON, Boolean, CheckConstraint, Index, Integer, MetaData, String, Text, UniqueConstraint, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from bot.store.db import UTCDateTime

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Column widths. Slack ids are ~9-12 characters; catalog ids are slugs.
SLACK_ID = 32
SLUG = 255

LANGS = ("en", "zh")
STATUSES = ("active", "paused")
DELIVERY_STATUSES = ("claimed", "sent", "failed")
DM_TRACK = "*"
"""The ``track_id`` of a personal DM digest in :class:`DigestDelivery` (it covers all tracks)."""


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime()}


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class PerUser:
    """The key columns of a per-user row, first in its table: the team (tenant) and user ids."""

    team_id: Mapped[str] = mapped_column(String(SLACK_ID), primary_key=True, sort_order=-1)
    user_id: Mapped[str] = mapped_column(String(SLACK_ID), primary_key=True, sort_order=-1)


class ReadingProgress(PerUser, Base):
    """A post a user has read: one row per (team, user, post)."""

    __tablename__ = "reading_progress"

    post_id: Mapped[str] = mapped_column(String(SLUG), primary_key=True)
    read_at: Mapped[datetime]


class TrackFollow(PerUser, Base):
    """A user following a track (their DM digest and "next" suggestions use it)."""

    __tablename__ = "track_follows"
    __table_args__ = (Index(None, "team_id", "track_id"),)

    track_id: Mapped[str] = mapped_column(String(SLUG), primary_key=True)
    followed_at: Mapped[datetime]


class UserSettings(PerUser, Base):
    """Per-user preferences; ``lang`` NULL means "follow Slack's locale"."""

    __tablename__ = "user_settings"
    __table_args__ = (CheckConstraint(_in("lang", LANGS), name="lang"),)

    lang: Mapped[str | None] = mapped_column(String(8))


class ChannelSubscription(Base):
    """A channel receiving a track's path, ``steps_per_week`` steps on ``weekday`` at ``at_time``;
    ``cursor``: path steps already sent; ``last_catalog_version``: that of the last digest."""

    __tablename__ = "channel_subscriptions"
    __table_args__ = (
        UniqueConstraint("team_id", "channel_id", "track_id"),
        Index(None, "status"),
        CheckConstraint("weekday BETWEEN 0 AND 6", name="weekday"),
        CheckConstraint("steps_per_week BETWEEN 1 AND 3", name="steps_per_week"),
        CheckConstraint("cursor >= 0", name="cursor"),
        CheckConstraint(_in("status", STATUSES), name="status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    team_id: Mapped[str] = mapped_column(String(SLACK_ID))
    channel_id: Mapped[str] = mapped_column(String(SLACK_ID))
    track_id: Mapped[str] = mapped_column(String(SLUG))
    weekday: Mapped[int]
    at_time: Mapped[str] = mapped_column(String(5))
    timezone: Mapped[str] = mapped_column(String(64))
    steps_per_week: Mapped[int] = mapped_column(server_default=text("1"))
    cursor: Mapped[int] = mapped_column(server_default=text("0"))
    last_catalog_version: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), server_default=text("'active'"))
    pause_reason: Mapped[str | None] = mapped_column(String(500))
    created_by: Mapped[str | None] = mapped_column(String(SLACK_ID))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    minutes_per_week: Mapped[int | None] = mapped_column(Integer)
    """The digest's weekly reading budget in minutes (issue 24); NULL: ``steps_per_week``."""
    after_essentials: Mapped[str] = mapped_column(String(16), server_default=text("'further'"))
    """After the essential path: ``further`` (go on with further reading) or ``stop``."""
    club: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    """A reading club (issue 44): each digest opens a thread with a discussion prompt; a ✅ marks it read."""


class DmPreference(PerUser, Base):
    """A user's personal weekly DM digest: on/off, when, snooze and pause state."""

    __tablename__ = "dm_preferences"
    __table_args__ = (
        Index(None, "status", "enabled"),
        CheckConstraint("weekday BETWEEN 0 AND 6", name="weekday"),
        CheckConstraint(_in("status", STATUSES), name="status"),
    )

    enabled: Mapped[bool] = mapped_column(Boolean)
    weekday: Mapped[int]
    at_time: Mapped[str] = mapped_column(String(5))
    timezone: Mapped[str] = mapped_column(String(64))
    snoozed_until: Mapped[datetime | None]
    status: Mapped[str] = mapped_column(String(16), server_default=text("'active'"))
    pause_reason: Mapped[str | None] = mapped_column(String(500))
    updated_at: Mapped[datetime]
    catchup: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    """``dm catchup on`` (issue 44): the weekly DM lists what "catch me up" would."""


class DigestDelivery(Base):
    """The delivery ledger: one row per (team, destination channel or user, track or ``'*'``,
    ISO week such as ``2026-W49``), claimed before a send."""

    __tablename__ = "digest_deliveries"
    __table_args__ = (
        UniqueConstraint("team_id", "destination", "track_id", "period"),
        Index(None, "period"),
        CheckConstraint(_in("status", DELIVERY_STATUSES), name="status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    team_id: Mapped[str] = mapped_column(String(SLACK_ID))
    destination: Mapped[str] = mapped_column(String(SLACK_ID))
    track_id: Mapped[str] = mapped_column(String(SLUG))
    period: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    claimed_at: Mapped[datetime]
    claimed_by: Mapped[str] = mapped_column(String(200))
    attempts: Mapped[int] = mapped_column(server_default=text("1"))
    sent_at: Mapped[datetime | None]
    message_ts: Mapped[str | None] = mapped_column(String(32))
    error: Mapped[str | None] = mapped_column(String(1000))


class ProcessedEvent(Base):
    """A Slack event id already handled (Slack retries deliveries; we act once)."""

    __tablename__ = "processed_events"
    __table_args__ = (Index(None, "received_at"),)

    event_id: Mapped[str] = mapped_column(String(SLUG), primary_key=True)
    team_id: Mapped[str] = mapped_column(String(SLACK_ID))
    received_at: Mapped[datetime]


class CatalogVersion(Base):
    """A catalog version seen by the app, with each track's path: ``{track_id: [post ids]}``."""

    __tablename__ = "catalog_versions"
    __table_args__ = (Index(None, "first_seen_at"),)

    version: Mapped[str] = mapped_column(String(64), primary_key=True)
    first_seen_at: Mapped[datetime]
    snapshot: Mapped[dict[str, Any]] = mapped_column(JSON)


class CatalogFeedNotice(Base):
    """A feed post (absolute ``url``) the catalog lacked, announced to the catalog admins once; app-wide."""

    __tablename__ = "catalog_feed_notices"

    url: Mapped[str] = mapped_column(String(2000), primary_key=True)
    title: Mapped[str] = mapped_column(String(1000))
    notified_at: Mapped[datetime]


# Slack's own tables, as slack_sdk's stores define them, with token columns wide enough for a
# sealed token (bot/store/crypto.py: about 2.3 times the token's length plus 100).
_installs, _states = SQLAlchemyInstallationStore, SQLAlchemyOAuthStateStore
slack_installations = _installs.build_installations_table(Base.metadata, _installs.default_installations_table_name)
slack_bots = _installs.build_bots_table(Base.metadata, _installs.default_bots_table_name)
SEALED_TOKEN = 1000
for _table, _names in (
    (slack_installations, ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token")),
    (slack_bots, ("bot_token", "bot_refresh_token")),
):
    for _name in _names:
        _table.c[_name].type = String(SEALED_TOKEN)
slack_oauth_states = _states.build_oauth_states_table(Base.metadata, _states.default_table_name)

REMINDER_STATUSES = ("pending", "sent", "cancelled")


class Reminder(Base):
    """A post someone asked to be reminded of: one DM at ``due_at`` (UTC; 09:00 that day in ``timezone``)."""

    __tablename__ = "reminders"
    __table_args__ = (
        Index(None, "status", "due_at"),
        Index(None, "team_id", "user_id"),
        CheckConstraint(_in("status", REMINDER_STATUSES), name="status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    team_id: Mapped[str] = mapped_column(String(SLACK_ID))
    user_id: Mapped[str] = mapped_column(String(SLACK_ID))
    post_id: Mapped[str] = mapped_column(String(SLUG))
    due_at: Mapped[datetime]
    timezone: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), server_default=text("'pending'"))
    created_at: Mapped[datetime]
    sent_at: Mapped[datetime | None]


class ReaderBudget(PerUser, Base):
    """A reader's weekly reading budget in minutes (``plan 30m``); no row: the default."""

    __tablename__ = "reader_budgets"

    minutes_per_week: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime]


class FinishedPath(PerUser, Base):
    """A reader who finished a track's essential path, when (UTC), and that path's minutes then."""

    __tablename__ = "finished_paths"
    __table_args__ = (Index(None, "team_id", "finished_at"),)

    track_id: Mapped[str] = mapped_column(String(SLUG), primary_key=True)
    finished_at: Mapped[datetime]
    minutes: Mapped[int] = mapped_column(Integer)


class InstallationWelcome(Base):
    """The welcome DM sent to whoever installed the app, once per tenant (reinstalls send none)."""

    __tablename__ = "installation_welcomes"

    tenant_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(32))
    welcomed_at: Mapped[datetime]


class HeldRequest(Base):
    """A slash command or click acknowledged and not yet answered (issue 42): its body as Slack
    sent it, minus the legacy verification ``token``; deleted once answered, else answered again
    by the next process (a ``response_url`` stays valid 30 minutes)."""

    __tablename__ = "held_requests"
    __table_args__ = (Index(None, "received_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(32))
    body: Mapped[str] = mapped_column(Text)
    content_type: Mapped[str] = mapped_column(String(100))
    received_at: Mapped[datetime]


class ClubDigest(Base):
    """A reading club's digest message (issue 44): its channel and ``message_ts``, the subscription
    and the post ids it brought (space-separated), so a ✅ on it marks them read."""

    __tablename__ = "club_digests"
    __table_args__ = (Index(None, "subscription_id", "posted_at"),)

    team_id: Mapped[str] = mapped_column(String(SLACK_ID), primary_key=True)
    channel_id: Mapped[str] = mapped_column(String(SLACK_ID), primary_key=True)
    message_ts: Mapped[str] = mapped_column(String(32), primary_key=True)
    subscription_id: Mapped[int] = mapped_column(Integer)
    steps: Mapped[str] = mapped_column(String(2000))
    posted_at: Mapped[datetime]


class ClubRead(Base):
    """A person who marked a club digest read with a ✅, once."""

    __tablename__ = "club_reads"

    team_id: Mapped[str] = mapped_column(String(SLACK_ID), primary_key=True)
    channel_id: Mapped[str] = mapped_column(String(SLACK_ID), primary_key=True)
    message_ts: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(SLACK_ID), primary_key=True)
    read_at: Mapped[datetime]


class ReaderHabit(PerUser, Base):
    """A reader's plan pauses and gentle nudges (issue 44): ``pauses`` ``[[start, end], …]`` (ISO
    UTC times) and when the last nudge went out."""

    __tablename__ = "reader_habits"

    pauses: Mapped[list[Any]] = mapped_column(JSON)
    nudged_at: Mapped[datetime | None]
    updated_at: Mapped[datetime]


APP_TABLES = frozenset(Base.metadata.tables)
"""Every table the migrations own (APScheduler's ``apscheduler_jobs`` is not one of them)."""
