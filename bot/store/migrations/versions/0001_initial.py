"""Initial schema: progress, follows, settings, subscriptions, DM preferences, delivery ledger,
processed events, catalog versions, and slack_sdk's installation / OAuth-state tables.

Revision ID: 0001
Revises:
Create Date: 2026-11-30

The three ``slack_*`` tables are written out as slack_sdk 3.48's
``SQLAlchemyInstallationStore.build_installations_table`` / ``build_bots_table`` and
``SQLAlchemyOAuthStateStore.build_oauth_states_table`` define them (naive ``DateTime`` columns:
slack_sdk stores naive UTC). They are copied, not imported, so that this migration never changes
under a slack_sdk upgrade; ``tests/store/test_store_migrations.py`` compares the migrated database
with slack_sdk's current definitions and fails if they drift (then write a new migration).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC_DATETIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "reading_progress",
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("post_id", sa.String(255), nullable=False),
        sa.Column("read_at", UTC_DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("team_id", "user_id", "post_id", name="pk_reading_progress"),
    )
    op.create_table(
        "track_follows",
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("track_id", sa.String(255), nullable=False),
        sa.Column("followed_at", UTC_DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("team_id", "user_id", "track_id", name="pk_track_follows"),
    )
    op.create_index("ix_track_follows_team_id_track_id", "track_follows", ["team_id", "track_id"])
    op.create_table(
        "user_settings",
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("lang", sa.String(8), nullable=True),
        sa.CheckConstraint("lang IN ('en', 'zh')", name="ck_user_settings_lang"),
        sa.PrimaryKeyConstraint("team_id", "user_id", name="pk_user_settings"),
    )
    op.create_table(
        "channel_subscriptions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("channel_id", sa.String(32), nullable=False),
        sa.Column("track_id", sa.String(255), nullable=False),
        sa.Column("weekday", sa.Integer(), nullable=False),
        sa.Column("at_time", sa.String(5), nullable=False),
        sa.Column("timezone", sa.String(64), nullable=False),
        sa.Column("steps_per_week", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("cursor", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("last_catalog_version", sa.String(64), nullable=True),
        sa.Column("status", sa.String(16), server_default=sa.text("'active'"), nullable=False),
        sa.Column("pause_reason", sa.String(500), nullable=True),
        sa.Column("created_by", sa.String(32), nullable=True),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.Column("updated_at", UTC_DATETIME, nullable=False),
        sa.CheckConstraint("weekday BETWEEN 0 AND 6", name="ck_channel_subscriptions_weekday"),
        sa.CheckConstraint("steps_per_week BETWEEN 1 AND 3",
                           name="ck_channel_subscriptions_steps_per_week"),
        sa.CheckConstraint("cursor >= 0", name="ck_channel_subscriptions_cursor"),
        sa.CheckConstraint("status IN ('active', 'paused')", name="ck_channel_subscriptions_status"),
        sa.PrimaryKeyConstraint("id", name="pk_channel_subscriptions"),
        sa.UniqueConstraint("team_id", "channel_id", "track_id",
                            name="uq_channel_subscriptions_team_id_channel_id_track_id"),
    )
    op.create_index("ix_channel_subscriptions_status", "channel_subscriptions", ["status"])
    op.create_table(
        "dm_preferences",
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("weekday", sa.Integer(), nullable=False),
        sa.Column("at_time", sa.String(5), nullable=False),
        sa.Column("timezone", sa.String(64), nullable=False),
        sa.Column("snoozed_until", UTC_DATETIME, nullable=True),
        sa.Column("status", sa.String(16), server_default=sa.text("'active'"), nullable=False),
        sa.Column("pause_reason", sa.String(500), nullable=True),
        sa.Column("updated_at", UTC_DATETIME, nullable=False),
        sa.CheckConstraint("weekday BETWEEN 0 AND 6", name="ck_dm_preferences_weekday"),
        sa.CheckConstraint("status IN ('active', 'paused')", name="ck_dm_preferences_status"),
        sa.PrimaryKeyConstraint("team_id", "user_id", name="pk_dm_preferences"),
    )
    op.create_index("ix_dm_preferences_status_enabled", "dm_preferences", ["status", "enabled"])
    op.create_table(
        "digest_deliveries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("destination", sa.String(32), nullable=False),
        sa.Column("track_id", sa.String(255), nullable=False),
        sa.Column("period", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("claimed_at", UTC_DATETIME, nullable=False),
        sa.Column("claimed_by", sa.String(200), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("sent_at", UTC_DATETIME, nullable=True),
        sa.Column("message_ts", sa.String(32), nullable=True),
        sa.Column("error", sa.String(1000), nullable=True),
        sa.CheckConstraint("status IN ('claimed', 'sent', 'failed')",
                           name="ck_digest_deliveries_status"),
        sa.PrimaryKeyConstraint("id", name="pk_digest_deliveries"),
        sa.UniqueConstraint("team_id", "destination", "track_id", "period",
                            name="uq_digest_deliveries_team_id_destination_track_id_period"),
    )
    op.create_index("ix_digest_deliveries_period", "digest_deliveries", ["period"])
    op.create_table(
        "processed_events",
        sa.Column("event_id", sa.String(255), nullable=False),
        sa.Column("team_id", sa.String(32), nullable=False),
        sa.Column("received_at", UTC_DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("event_id", name="pk_processed_events"),
    )
    op.create_index("ix_processed_events_received_at", "processed_events", ["received_at"])
    op.create_table(
        "catalog_versions",
        sa.Column("version", sa.String(64), nullable=False),
        sa.Column("first_seen_at", UTC_DATETIME, nullable=False),
        sa.Column("snapshot", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("version", name="pk_catalog_versions"),
    )
    op.create_index("ix_catalog_versions_first_seen_at", "catalog_versions", ["first_seen_at"])

    # slack_sdk's tables (see the module docstring).
    op.create_table(
        "slack_installations",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("client_id", sa.String(32), nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("enterprise_id", sa.String(32), nullable=True),
        sa.Column("enterprise_name", sa.String(200), nullable=True),
        sa.Column("enterprise_url", sa.String(200), nullable=True),
        sa.Column("team_id", sa.String(32), nullable=True),
        sa.Column("team_name", sa.String(200), nullable=True),
        sa.Column("bot_token", sa.String(200), nullable=True),
        sa.Column("bot_id", sa.String(32), nullable=True),
        sa.Column("bot_user_id", sa.String(32), nullable=True),
        sa.Column("bot_scopes", sa.String(1000), nullable=True),
        sa.Column("bot_refresh_token", sa.String(200), nullable=True),
        sa.Column("bot_token_expires_at", sa.DateTime(), nullable=True),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("user_token", sa.String(200), nullable=True),
        sa.Column("user_scopes", sa.String(1000), nullable=True),
        sa.Column("user_refresh_token", sa.String(200), nullable=True),
        sa.Column("user_token_expires_at", sa.DateTime(), nullable=True),
        sa.Column("incoming_webhook_url", sa.String(200), nullable=True),
        sa.Column("incoming_webhook_channel", sa.String(200), nullable=True),
        sa.Column("incoming_webhook_channel_id", sa.String(200), nullable=True),
        sa.Column("incoming_webhook_configuration_url", sa.String(200), nullable=True),
        sa.Column("is_enterprise_install", sa.Boolean(), nullable=False),
        sa.Column("token_type", sa.String(32), nullable=True),
        sa.Column("installed_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_slack_installations"),
    )
    op.create_index(
        "slack_installations_idx",
        "slack_installations",
        ["client_id", "enterprise_id", "team_id", "user_id", "installed_at"],
    )
    op.create_table(
        "slack_bots",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("client_id", sa.String(32), nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("enterprise_id", sa.String(32), nullable=True),
        sa.Column("enterprise_name", sa.String(200), nullable=True),
        sa.Column("team_id", sa.String(32), nullable=True),
        sa.Column("team_name", sa.String(200), nullable=True),
        sa.Column("bot_token", sa.String(200), nullable=True),
        sa.Column("bot_id", sa.String(32), nullable=True),
        sa.Column("bot_user_id", sa.String(32), nullable=True),
        sa.Column("bot_scopes", sa.String(1000), nullable=True),
        sa.Column("bot_refresh_token", sa.String(200), nullable=True),
        sa.Column("bot_token_expires_at", sa.DateTime(), nullable=True),
        sa.Column("is_enterprise_install", sa.Boolean(), nullable=False),
        sa.Column("installed_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_slack_bots"),
    )
    op.create_index(
        "slack_bots_idx", "slack_bots", ["client_id", "enterprise_id", "team_id", "installed_at"]
    )
    op.create_table(
        "slack_oauth_states",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("state", sa.String(200), nullable=False),
        sa.Column("expire_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_slack_oauth_states"),
    )


def downgrade() -> None:
    op.drop_table("slack_oauth_states")
    op.drop_index("slack_bots_idx", table_name="slack_bots")
    op.drop_table("slack_bots")
    op.drop_index("slack_installations_idx", table_name="slack_installations")
    op.drop_table("slack_installations")
    op.drop_index("ix_catalog_versions_first_seen_at", table_name="catalog_versions")
    op.drop_table("catalog_versions")
    op.drop_index("ix_processed_events_received_at", table_name="processed_events")
    op.drop_table("processed_events")
    op.drop_index("ix_digest_deliveries_period", table_name="digest_deliveries")
    op.drop_table("digest_deliveries")
    op.drop_index("ix_dm_preferences_status_enabled", table_name="dm_preferences")
    op.drop_table("dm_preferences")
    op.drop_index("ix_channel_subscriptions_status", table_name="channel_subscriptions")
    op.drop_table("channel_subscriptions")
    op.drop_table("user_settings")
    op.drop_index("ix_track_follows_team_id_track_id", table_name="track_follows")
    op.drop_table("track_follows")
    op.drop_table("reading_progress")
