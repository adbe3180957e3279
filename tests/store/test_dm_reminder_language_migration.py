"""Migration i46_0002 (SQLite and PostgreSQL): ``dm_preferences.lang`` and ``reminders.lang``, NULL
for the rows that were there (which keep speaking the person's chosen language, else English), set
by ``set_dm`` / ``add_reminder`` when given; down and up again."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from bot.domain.schedule import WeeklySchedule
from bot.store import Store, make_engine, migrate
from tests.store.test_digest_language_migration import _downgrade

DUE = datetime(2026, 12, 9, 1, 0, tzinfo=UTC)


def _columns(url: str, table: str) -> set[str]:
    engine = make_engine(url)
    try:
        return {c["name"] for c in sa.inspect(engine).get_columns(table)}
    finally:
        engine.dispose()


def test_rows_from_before_have_no_language_and_new_ones_the_one_given(db_url: str) -> None:
    migrate(db_url, "i46_0001")
    assert "lang" not in _columns(db_url, "dm_preferences") | _columns(db_url, "reminders")
    engine = make_engine(db_url)
    rows = (
        "INSERT INTO dm_preferences (team_id, user_id, enabled, weekday, at_time, timezone, status, updated_at,"
        " catchup) VALUES ('T1', 'U1', true, 0, '09:00', 'UTC', 'active', :now, false)",
        "INSERT INTO reminders (team_id, user_id, post_id, due_at, timezone, status, created_at)"
        " VALUES ('T1', 'U1', 'p-eagle', :due, 'Asia/Shanghai', 'pending', :now)",
    )
    try:
        with engine.begin() as conn:
            for row in rows:
                conn.execute(sa.text(row), {"now": datetime(2026, 12, 1, tzinfo=UTC), "due": DUE})
    finally:
        engine.dispose()
    migrate(db_url)
    store = Store.from_url(db_url)
    try:
        assert store.get_dm("T1", "U1").lang is None
        (old,) = store.reminders("T1", "U1")
        assert old.lang is None
        assert store.set_dm("T1", "U1", True, lang="zh").lang == "zh"
        assert store.set_dm("T1", "U1", False).lang == "zh"  # `dm off` keeps it
        schedule = WeeklySchedule.of(4, "09:00", "UTC")
        assert store.set_dm("T1", "U1", True, schedule=schedule, lang="en").lang == "en"  # set up again in English
        moved, before = store.add_reminder("T1", "U1", "p-eagle", DUE, "Asia/Shanghai", lang="zh")
        assert before is not None and before.lang is None and moved.lang == "zh" and moved.id == old.id
        (due,) = store.due_reminders(DUE)
        assert due.lang == "zh"
        with pytest.raises(ValueError):
            store.set_dm("T1", "U1", True, lang="fr")
        with pytest.raises(ValueError):
            store.add_reminder("T1", "U1", "p-eagle", DUE, "Asia/Shanghai", lang="fr")
    finally:
        store.close()
    _downgrade(db_url, "i46_0001")
    assert "lang" not in _columns(db_url, "dm_preferences") | _columns(db_url, "reminders")
    migrate(db_url)
    assert "lang" in _columns(db_url, "dm_preferences") & _columns(db_url, "reminders")
