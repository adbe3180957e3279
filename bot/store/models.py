"""The tables, as SQLAlchemy Core :class:`~sqlalchemy.Table` objects on one :data:`metadata` (no
ORM: a cold ``vllm-path ask`` does not import ``sqlalchemy.orm``, ~0.08 s CPU and ~6 MB, issue 43).
Each table keeps the CamelCase name its ORM model had (``ReadingProgress.c.post_id``); queries
return Core rows, which give attribute access. Per-workspace rows carry the Slack team id and
every lookup filters on it. Times are aware UTC (:class:`~bot.store.db.UTCDateTime`).
slack_sdk's installation and OAuth-state tables join the same :data:`metadata`, so that the
migration test covers them. Changing a table needs a new migration (the test fails until then).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    func,
    text,
)

from bot.store.db import UTCDateTime

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)
"""Every table of the app (Alembic's ``target_metadata``)."""

# Column widths. Slack ids are ~9-12 characters; catalog ids are slugs.
SLACK_ID = 32
SLUG = 255

LANGS = ("en", "zh")
STATUSES = ("active", "paused")
DELIVERY_STATUSES = ("claimed", "sent", "failed")
DM_TRACK = "*"
"""The ``track_id`` of a personal DM digest in :data:`DigestDelivery` (it covers all tracks)."""


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _per_user() -> tuple[Column[str], Column[str]]:
    """The key columns of a per-user row, first in its table: the team (tenant) and user ids."""
    return (
        Column("team_id", String(SLACK_ID), primary_key=True),
        Column("user_id", String(SLACK_ID), primary_key=True),
    )


def _at(name: str, nullable: bool = False) -> Column[object]:
    """An aware UTC time column (NOT NULL unless ``nullable``)."""
    return Column(name, UTCDateTime(), nullable=nullable)


ReadingProgress = Table(
    "reading_progress",
    metadata,
    *_per_user(),
    Column("post_id", String(SLUG), primary_key=True),
    _at("read_at"),
)
"""A post a user has read: one row per (team, user, post)."""

TrackFollow = Table(
    "track_follows",
    metadata,
    *_per_user(),
    Column("track_id", String(SLUG), primary_key=True),
    _at("followed_at"),
    Index(None, "team_id", "track_id"),
)
"""A user following a track (their DM digest and "next" suggestions use it)."""

UserSettings = Table(
    "user_settings",
    metadata,
    *_per_user(),
    Column("lang", String(8), nullable=True),
    CheckConstraint(_in("lang", LANGS), name="lang"),
)
"""Per-user preferences; ``lang`` NULL means "follow Slack's locale"."""

ChannelSubscription = Table(
    "channel_subscriptions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("team_id", String(SLACK_ID), nullable=False),
    Column("channel_id", String(SLACK_ID), nullable=False),
    Column("track_id", String(SLUG), nullable=False),
    Column("weekday", Integer, nullable=False),
    Column("at_time", String(5), nullable=False),
    Column("timezone", String(64), nullable=False),
    Column("steps_per_week", Integer, nullable=False, server_default=text("1")),
    Column("cursor", Integer, nullable=False, server_default=text("0")),
    Column("last_catalog_version", String(64), nullable=True),
    Column("status", String(16), nullable=False, server_default=text("'active'")),
    Column("pause_reason", String(500), nullable=True),
    Column("created_by", String(SLACK_ID), nullable=True),
    _at("created_at"),
    _at("updated_at"),
    # The digest's weekly reading budget in minutes (issue 24); NULL: ``steps_per_week``.
    Column("minutes_per_week", Integer, nullable=True),
    # After the essential path: ``further`` (go on with further reading) or ``stop``.
    Column("after_essentials", String(16), nullable=False, server_default=text("'further'")),
    # A reading club (issue 44): each digest opens a thread with a discussion prompt; a ✅ marks it read.
    Column("club", Boolean, nullable=False, server_default=text("false")),
    # The digest's language (``'en'`` | ``'zh'``), set when it was created; NULL (rows from before
    # i46_0001): its creator's current language, as then.
    Column("lang", String(8), nullable=True),
    UniqueConstraint("team_id", "channel_id", "track_id"),
    Index(None, "status"),
    CheckConstraint("weekday BETWEEN 0 AND 6", name="weekday"),
    CheckConstraint("steps_per_week BETWEEN 1 AND 3", name="steps_per_week"),
    CheckConstraint("cursor >= 0", name="cursor"),
    CheckConstraint(_in("status", STATUSES), name="status"),
)
"""A channel receiving a track's path, ``steps_per_week`` steps on ``weekday`` at ``at_time``;
``cursor``: path steps already sent; ``last_catalog_version``: that of the last digest."""

DmPreference = Table(
    "dm_preferences",
    metadata,
    *_per_user(),
    Column("enabled", Boolean, nullable=False),
    Column("weekday", Integer, nullable=False),
    Column("at_time", String(5), nullable=False),
    Column("timezone", String(64), nullable=False),
    _at("snoozed_until", nullable=True),
    Column("status", String(16), nullable=False, server_default=text("'active'")),
    Column("pause_reason", String(500), nullable=True),
    _at("updated_at"),
    # ``dm catchup on`` (issue 44): the weekly DM lists what "catch me up" would.
    Column("catchup", Boolean, nullable=False, server_default=text("false")),
    # The DM's language (``'en'`` | ``'zh'``), that of the ``dm on`` that set it up; NULL (rows from
    # before i46_0002): English. The person's chosen language (``user_settings.lang``) comes first.
    Column("lang", String(8), nullable=True),
    Index(None, "status", "enabled"),
    CheckConstraint("weekday BETWEEN 0 AND 6", name="weekday"),
    CheckConstraint(_in("status", STATUSES), name="status"),
)
"""A user's personal weekly DM digest: on/off, when, snooze and pause state."""

DigestDelivery = Table(
    "digest_deliveries",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("team_id", String(SLACK_ID), nullable=False),
    Column("destination", String(SLACK_ID), nullable=False),
    Column("track_id", String(SLUG), nullable=False),
    Column("period", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    _at("claimed_at"),
    Column("claimed_by", String(200), nullable=False),
    Column("attempts", Integer, nullable=False, server_default=text("1")),
    _at("sent_at", nullable=True),
    Column("message_ts", String(32), nullable=True),
    Column("error", String(1000), nullable=True),
    UniqueConstraint("team_id", "destination", "track_id", "period"),
    Index(None, "period"),
    CheckConstraint(_in("status", DELIVERY_STATUSES), name="status"),
)
"""The delivery ledger: one row per (team, destination channel or user, track or ``'*'``,
ISO week such as ``2026-W49``), claimed before a send."""

ProcessedEvent = Table(
    "processed_events",
    metadata,
    Column("event_id", String(SLUG), primary_key=True),
    Column("team_id", String(SLACK_ID), nullable=False),
    _at("received_at"),
    Index(None, "received_at"),
)
"""A Slack event id already handled (Slack retries deliveries; we act once)."""

CatalogVersion = Table(
    "catalog_versions",
    metadata,
    Column("version", String(64), primary_key=True),
    _at("first_seen_at"),
    Column("snapshot", JSON, nullable=False),
    Index(None, "first_seen_at"),
)
"""A catalog version seen by the app, with each track's path: ``{track_id: [post ids]}``."""

CatalogFeedNotice = Table(
    "catalog_feed_notices",
    metadata,
    Column("url", String(2000), primary_key=True),
    Column("title", String(1000), nullable=False),
    _at("notified_at"),
)
"""A feed post (absolute ``url``) the catalog lacked, announced to the catalog admins once; app-wide."""

# Slack's own tables, as slack_sdk's stores define them (``SQLAlchemyInstallationStore.build_*_table``
# and ``SQLAlchemyOAuthStateStore.build_oauth_states_table``; importing those imports the ORM, so
# they are copied here, and tests/store/test_store_migrations.py checks the copies), with token
# columns wide enough for a sealed token (bot/store/crypto.py: about 2.3 times the token's length
# plus 100).
SEALED_TOKEN = 1000


def _slack_common(*, installation: bool) -> list[Column[object]]:
    columns: list[Column[object]] = [
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("client_id", String(32), nullable=False),
        Column("app_id", String(32), nullable=False),
        Column("enterprise_id", String(32)),
        Column("enterprise_name", String(200)),
    ]
    if installation:
        columns.append(Column("enterprise_url", String(200)))
    columns += [
        Column("team_id", String(32)),
        Column("team_name", String(200)),
        Column("bot_token", String(SEALED_TOKEN)),
        Column("bot_id", String(32)),
        Column("bot_user_id", String(32)),
        Column("bot_scopes", String(1000)),
        Column("bot_refresh_token", String(SEALED_TOKEN)),
        Column("bot_token_expires_at", DateTime),
    ]
    return columns


slack_installations = Table(
    "slack_installations",
    metadata,
    *_slack_common(installation=True),
    Column("user_id", String(32), nullable=False),
    Column("user_token", String(SEALED_TOKEN)),
    Column("user_scopes", String(1000)),
    Column("user_refresh_token", String(SEALED_TOKEN)),
    Column("user_token_expires_at", DateTime),
    Column("incoming_webhook_url", String(200)),
    Column("incoming_webhook_channel", String(200)),
    Column("incoming_webhook_channel_id", String(200)),
    Column("incoming_webhook_configuration_url", String(200)),
    Column("is_enterprise_install", Boolean, default=False, nullable=False),
    Column("token_type", String(32)),
    Column("installed_at", DateTime, nullable=False, default=func.now()),
    Index("slack_installations_idx", "client_id", "enterprise_id", "team_id", "user_id", "installed_at"),
)
slack_bots = Table(
    "slack_bots",
    metadata,
    *_slack_common(installation=False),
    Column("is_enterprise_install", Boolean, default=False, nullable=False),
    Column("installed_at", DateTime, nullable=False, default=func.now()),
    Index("slack_bots_idx", "client_id", "enterprise_id", "team_id", "installed_at"),
)
slack_oauth_states = Table(
    "slack_oauth_states",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("state", String(200), nullable=False),
    Column("expire_at", DateTime, nullable=False),
)

REMINDER_STATUSES = ("pending", "sent", "cancelled")

Reminder = Table(
    "reminders",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("team_id", String(SLACK_ID), nullable=False),
    Column("user_id", String(SLACK_ID), nullable=False),
    Column("post_id", String(SLUG), nullable=False),
    _at("due_at"),
    Column("timezone", String(64), nullable=False),
    Column("status", String(16), nullable=False, server_default=text("'pending'")),
    _at("created_at"),
    _at("sent_at", nullable=True),
    # The reminder's language (``'en'`` | ``'zh'``), that of the ``remind`` that set it up; NULL
    # (rows from before i46_0002): English. The person's chosen language comes first.
    Column("lang", String(8), nullable=True),
    Index(None, "status", "due_at"),
    Index(None, "team_id", "user_id"),
    CheckConstraint(_in("status", REMINDER_STATUSES), name="status"),
)
"""A post someone asked to be reminded of: one DM at ``due_at`` (UTC; 09:00 that day in ``timezone``)."""

ReaderBudget = Table(
    "reader_budgets",
    metadata,
    *_per_user(),
    Column("minutes_per_week", Integer, nullable=False),
    _at("updated_at"),
)
"""A reader's weekly reading budget in minutes (``plan 30m``); no row: the default."""

FinishedPath = Table(
    "finished_paths",
    metadata,
    *_per_user(),
    Column("track_id", String(SLUG), primary_key=True),
    _at("finished_at"),
    Column("minutes", Integer, nullable=False),
    Index(None, "team_id", "finished_at"),
)
"""A reader who finished a track's essential path, when (UTC), and that path's minutes then."""

InstallationWelcome = Table(
    "installation_welcomes",
    metadata,
    Column("tenant_id", String(32), primary_key=True),
    Column("user_id", String(32), nullable=False),
    _at("welcomed_at"),
)
"""The welcome DM sent to whoever installed the app, once per tenant (reinstalls send none)."""

HeldRequest = Table(
    "held_requests",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tenant_id", String(32), nullable=False),
    Column("body", Text, nullable=False),
    Column("content_type", String(100), nullable=False),
    _at("received_at"),
    Index(None, "received_at"),
)
"""A slash command or click acknowledged and not yet answered (issue 42): its body as Slack
sent it, minus the legacy verification ``token``; deleted once answered, else answered again
by the next process (a ``response_url`` stays valid 30 minutes)."""

ClubDigest = Table(
    "club_digests",
    metadata,
    Column("team_id", String(SLACK_ID), primary_key=True),
    Column("channel_id", String(SLACK_ID), primary_key=True),
    Column("message_ts", String(32), primary_key=True),
    Column("subscription_id", Integer, nullable=False),
    Column("steps", String(2000), nullable=False),
    _at("posted_at"),
    Index(None, "subscription_id", "posted_at"),
)
"""A reading club's digest message (issue 44): its channel and ``message_ts``, the subscription
and the post ids it brought (space-separated), so a ✅ on it marks them read."""

ClubRead = Table(
    "club_reads",
    metadata,
    Column("team_id", String(SLACK_ID), primary_key=True),
    Column("channel_id", String(SLACK_ID), primary_key=True),
    Column("message_ts", String(32), primary_key=True),
    Column("user_id", String(SLACK_ID), primary_key=True),
    _at("read_at"),
)
"""A person who marked a club digest read with a ✅, once."""

ReaderHabit = Table(
    "reader_habits",
    metadata,
    *_per_user(),
    Column("pauses", JSON, nullable=False),
    _at("nudged_at", nullable=True),
    _at("updated_at"),
)
"""A reader's plan pauses and gentle nudges (issue 44): ``pauses`` ``[[start, end], …]`` (ISO
UTC times) and when the last nudge went out."""


APP_TABLES = frozenset(metadata.tables)
"""Every table the migrations own (APScheduler's ``apscheduler_jobs`` is not one of them)."""
