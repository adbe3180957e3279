"""The migrations create exactly what the models describe, and engines are set up as promised."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

from bot.config import REPO_ROOT
from bot.store import Store, make_engine, migrate
from bot.store.db import MIGRATIONS_DIR
from bot.store.models import APP_TABLES, SEALED_TOKEN, metadata
from tests.dbutil import admin_url, fresh_database_url

OUR_TABLES = {
    "reading_progress",
    "track_follows",
    "user_settings",
    "channel_subscriptions",
    "dm_preferences",
    "digest_deliveries",
    "processed_events",
    "catalog_versions",
    "catalog_feed_notices",
    "reminders",  # issue 15 (migration i15_0001)
    "installation_welcomes",  # issue 25 (migration i25_0001)
    "reader_budgets",
    "finished_paths",  # issue 24 (migration i24_0001)
    "held_requests",  # issue 42 (migration i42_0001)
    "club_digests",  # issue 44 (migration i44_0001)
    "club_reads",
    "reader_habits",
}
SLACK_TABLES = {"slack_installations", "slack_bots", "slack_oauth_states"}


def _include(name, type_, parent_names):  # type: ignore[no-untyped-def]
    return name in APP_TABLES if type_ == "table" else True


def _diff(url: str, metadata: sa.MetaData) -> list:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True, "include_name": _include})
            return compare_metadata(ctx, metadata)
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_head_creates_every_table(db_url: str) -> None:
    migrate(db_url)
    assert _tables(db_url) == OUR_TABLES | SLACK_TABLES | {"alembic_version"}
    assert APP_TABLES == OUR_TABLES | SLACK_TABLES


def test_migrated_schema_matches_the_models(db_url: str) -> None:
    migrate(db_url)
    assert _diff(db_url, metadata) == []


def test_the_comparison_would_notice_a_drift(db_url: str) -> None:
    """Guard against a vacuous pass: a model change not in a migration shows up as a diff."""
    migrate(db_url)
    drifted = sa.MetaData()
    for table in metadata.tables.values():
        table.to_metadata(drifted)
    drifted.tables["reading_progress"].append_column(sa.Column("extra", sa.Integer))
    diff = _diff(db_url, drifted)
    assert [d[0] for d in diff] == ["add_column"]


def test_slack_tables_match_slack_sdk_definitions(db_url: str) -> None:
    """slack_sdk's stores work only if our migration made their tables as slack_sdk defines them
    today (fails after a slack_sdk upgrade that changes them: then add a migration), except
    the token columns, which are wider on purpose (they hold sealed tokens)."""
    migrate(db_url)
    theirs = sa.MetaData()
    installations = SQLAlchemyInstallationStore.build_installations_table(theirs, "slack_installations")
    bots = SQLAlchemyInstallationStore.build_bots_table(theirs, "slack_bots")
    SQLAlchemyOAuthStateStore.build_oauth_states_table(theirs, "slack_oauth_states")
    for table in (installations, bots):
        for column in table.c:
            if column.name.endswith(("_token", "refresh_token")):
                assert isinstance(column.type, sa.String) and column.type.length == 200
                column.type = sa.String(SEALED_TOKEN)
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(
                conn,
                opts={
                    "compare_type": True,
                    "include_name": lambda n, t, p: n in SLACK_TABLES if t == "table" else True,
                },
            )
            assert compare_metadata(ctx, theirs) == []
    finally:
        engine.dispose()


def test_migrate_twice_is_a_no_op_and_keeps_data(db_url: str) -> None:
    migrate(db_url)
    with Store.from_url(db_url, migrate=False) as store:
        store.mark_read("T1", "U1", ["p1"])
    migrate(db_url)
    with Store.from_url(db_url) as store:
        assert store.read_posts("T1", "U1") == {"p1"}


def test_downgrade_to_base_removes_our_tables_and_upgrade_restores_them(db_url: str) -> None:
    migrate(db_url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "base")
            conn.commit()
    finally:
        engine.dispose()
    assert _tables(db_url) <= {"alembic_version"}
    migrate(db_url)
    assert _tables(db_url) >= OUR_TABLES | SLACK_TABLES


def test_apscheduler_table_is_left_alone_by_the_comparison(db_url: str) -> None:
    migrate(db_url)
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE apscheduler_jobs (id VARCHAR(191) PRIMARY KEY)")
    finally:
        engine.dispose()
    assert _diff(db_url, metadata) == []


def test_an_sqlite_file_engine_keeps_a_connection_per_concurrent_reader(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # With SQLAlchemy's default pool (5 + 10 overflow) every reader past the fifth opened a
    # connection (four pragmas) and closed it again, round after round.
    from bot.store.db import SQLITE_POOL_SIZE

    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    opened: list[int] = []
    sa.event.listen(engine, "connect", lambda *_: opened.append(1))
    readers = 24
    assert readers <= SQLITE_POOL_SIZE
    try:
        for _ in range(4):
            barrier = threading.Barrier(readers)

            def read(barrier: threading.Barrier = barrier) -> None:
                with engine.connect() as conn:
                    barrier.wait(timeout=30)  # all hold a connection at once
                    conn.exec_driver_sql("SELECT 1").scalar()

            threads = [threading.Thread(target=read) for _ in range(readers)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
        assert len(opened) == readers  # opened once, kept for the next rounds
    finally:
        engine.dispose()


def test_sqlite_engine_pragmas(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "nested" / "dir" / "app.db"
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000
        assert path.exists()
        # a local file needs no ping before each use; a server's connections do (below)
        assert not engine.pool._pre_ping  # type: ignore[attr-defined]
        assert make_engine("postgresql://u@127.0.0.1:1/x").pool._pre_ping  # type: ignore[attr-defined]
    finally:
        engine.dispose()


def test_in_memory_sqlite_store_works() -> None:
    with Store.from_url("sqlite://") as store:
        assert store.follow("T1", "U1", "track") is True
        assert store.follows("T1", "U1") == ["track"]


def test_postgres_urls_use_psycopg3() -> None:
    engine = make_engine("postgres://user@localhost:5432/db")
    assert engine.dialect.driver == "psycopg"
    assert engine.pool._pre_ping  # type: ignore[attr-defined]
    engine.dispose()


@pytest.mark.postgres
def test_postgres_connection_loss_heals_without_restart(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A PostgreSQL restart kills pooled connections; pool_pre_ping replaces them silently."""
    with fresh_database_url("postgres", tmp_path) as url, Store.from_url(url) as store:
        store.follow("T1", "U1", "perf")  # leaves a connection in the pool
        admin = sa.create_engine(admin_url(), isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as conn:
                killed = conn.execute(
                    sa.text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        "WHERE datname = :db AND pid <> pg_backend_pid()"
                    ),
                    {"db": sa.engine.make_url(url).database},
                ).scalar()
        finally:
            admin.dispose()
        assert killed >= 1
        assert store.follows("T1", "U1") == ["perf"]
        assert store.follow("T1", "U1", "intro") is True


def test_concurrent_migrations_from_several_processes_succeed(db_url: str) -> None:
    """The web process and the clock may start at once on an empty database."""
    code = "import sys; from bot.store import migrate; migrate(sys.argv[1])"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, db_url], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    outcomes = [(p.wait(timeout=120), p.stderr.read()) for p in procs]  # type: ignore[union-attr]
    assert [rc for rc, _ in outcomes] == [0, 0, 0, 0], [err[-2000:] for _, err in outcomes]
    assert _tables(db_url) == OUR_TABLES | SLACK_TABLES | {"alembic_version"}
    assert _diff(db_url, metadata) == []


def test_concurrent_migrations_from_several_threads_succeed(db_url: str) -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(3)

    def run() -> None:
        try:
            barrier.wait(timeout=30)
            migrate(db_url)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    assert _diff(db_url, metadata) == []


def test_the_head_constant_is_alembics_head() -> None:
    """:func:`migrate` skips Alembic when ``alembic_version`` says HEAD_REVISION: it must be the
    newest migration (add a migration, and this fails until the constant follows)."""
    from alembic.script import ScriptDirectory

    from bot.store.db import HEAD_REVISION

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    assert ScriptDirectory.from_config(cfg).get_heads() == [HEAD_REVISION]


def test_a_schema_behind_head_is_still_upgraded(db_url: str) -> None:
    """The cheap check says "at head" only for the head revision: a new database and one a
    migration behind are upgraded; at head, migrate runs no Alembic."""
    from bot.store.db import HEAD_REVISION, at_head

    engine = make_engine(db_url)
    try:
        assert not at_head(engine)  # no alembic_version table yet
        migrate(db_url)
        assert at_head(engine)
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
        with engine.connect() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "i25_0001")  # revisions back: before the reading plans
            conn.commit()
        assert not at_head(engine) and "reader_budgets" not in _tables(db_url)
        migrate(db_url)
        assert at_head(engine) and "reader_budgets" in _tables(db_url)
        with engine.begin() as conn:
            version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one()
        assert version == HEAD_REVISION
    finally:
        engine.dispose()


def test_channel_digests_without_an_amount_get_the_default_pace(db_url: str) -> None:
    """Issue 40: a digest set up with no amount went 1 step a week; after i40_0001 it has 45
    minutes a week; one asked for 2 steps, or given minutes, keeps them."""
    migrate(db_url, "i24_0001")
    engine = make_engine(db_url)
    row = (
        "INSERT INTO channel_subscriptions (team_id, channel_id, track_id, weekday, at_time, timezone,"
        " steps_per_week, cursor, status, created_at, updated_at, minutes_per_week, after_essentials)"
        " VALUES ('T1', :c, 'spec', 0, '09:00', 'UTC', :k, 0, 'active', :now, :now, :m, 'further')"
    )
    try:
        now = datetime(2026, 12, 1, tzinfo=UTC)
        with engine.begin() as conn:
            for channel, k, minutes in (("C1", 1, None), ("C2", 2, None), ("C3", 1, 20)):
                conn.execute(sa.text(row), {"c": channel, "k": k, "m": minutes, "now": now})
        migrate(db_url)
        with engine.begin() as conn:
            got = dict(conn.exec_driver_sql("SELECT channel_id, minutes_per_week FROM channel_subscriptions").all())
    finally:
        engine.dispose()
    assert got == {"C1": 45, "C2": None, "C3": 20}
