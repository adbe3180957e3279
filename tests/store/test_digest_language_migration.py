"""Migration i46_0001 (SQLite and PostgreSQL): ``channel_subscriptions.lang``, NULL for the digests
that were there, which keep speaking their creator's current language; down and up again."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from bot.domain.schedule import WeeklySchedule
from bot.store import Store, make_engine, migrate
from bot.store.db import MIGRATIONS_DIR


def _columns(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return {c["name"] for c in sa.inspect(engine).get_columns("channel_subscriptions")}
    finally:
        engine.dispose()


def test_digests_from_before_keep_their_creators_language_and_new_ones_their_own(db_url: str) -> None:
    migrate(db_url, "i44_0001")
    assert "lang" not in _columns(db_url)
    engine = make_engine(db_url)
    row = (
        "INSERT INTO channel_subscriptions (team_id, channel_id, track_id, weekday, at_time, timezone,"
        " steps_per_week, cursor, status, created_by, created_at, updated_at, after_essentials, club)"
        " VALUES ('T1', 'C1', 'spec', 0, '09:00', 'UTC', 1, 3, 'active', 'U1', :now, :now, 'further', false)"
    )
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(row), {"now": datetime(2026, 12, 1, tzinfo=UTC)})
    finally:
        engine.dispose()
    migrate(db_url)
    store = Store.from_url(db_url)
    try:
        (old,) = store.subscriptions("T1", "C1")
        assert old.lang is None and old.cursor == 3 and store.digest_lang(old) == "en"
        store.set_lang("T1", "U1", "zh")
        assert store.digest_lang(old) == "zh"  # as before: the creator's current language
        new = store.subscribe("T1", "C2", "spec", WeeklySchedule.of(0, "09:00", "UTC"), created_by="U1", lang="en")
        assert new.lang == "en" and store.digest_lang(new) == "en"
    finally:
        store.close()
    _downgrade(db_url, "i44_0001")
    assert "lang" not in _columns(db_url)
    migrate(db_url)
    assert "lang" in _columns(db_url)


def _downgrade(url: str, revision: str) -> None:
    """Alembic's downgrade to ``revision`` on ``url``, as ``test_store_migrations`` runs it."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, revision)
            conn.commit()
    finally:
        engine.dispose()
