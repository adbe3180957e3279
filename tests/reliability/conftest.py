"""Fixtures for the reliability tests, and the ``--fuzz`` switch.

``pytest tests/reliability`` runs every property with the ``ci`` profile (a few hundred examples);
``pytest tests/reliability --fuzz`` (or ``HYPOTHESIS_PROFILE=fuzz``) runs the input properties with
10,000 examples each and prints how many ran (also written as JSON to ``$FUZZ_REPORT``).
Every test that needs a database runs on SQLite and on PostgreSQL (``tests.dbutil``; PostgreSQL
is skipped with the reason when the server is absent).
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.dbutil import DB_KINDS, fresh_database_url
from tests.reliability import profiles


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fuzz", action="store_true", default=False,
                     help="run the reliability properties with 10,000 examples each")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--fuzz", default=False):
        profiles.ACTIVE["profile"] = "fuzz"


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not profiles.COUNTS:
        return
    terminalreporter.section(f"fuzz examples run (profile {profiles.ACTIVE['profile']})")
    for name, n in sorted(profiles.COUNTS.items()):
        terminalreporter.write_line(f"{n:>8,}  {name}")
    terminalreporter.write_line(f"{sum(profiles.COUNTS.values()):>8,}  total")
    report = os.environ.get("FUZZ_REPORT")
    if report:
        Path(report).write_text(json.dumps({"profile": profiles.ACTIVE["profile"],
                                            "counts": dict(profiles.COUNTS)}, indent=2))


@pytest.fixture(scope="module", params=DB_KINDS)
def module_db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                  ) -> Iterator[str]:
    """A fresh database shared by one module's tests (SQLite, then PostgreSQL)."""
    with fresh_database_url(request.param, tmp_path_factory.mktemp("db")) as url:
        yield url


@pytest.fixture(scope="module")
def module_runtime(module_db_url: str):
    """A :class:`bot.runtime.Runtime` on the repo's catalog and a module-wide fresh database."""
    from bot.config import Settings
    from bot.runtime import Runtime

    rt = Runtime.create(Settings(database_url=module_db_url, _env_file=None))
    yield rt
    rt.store.close()


@pytest.fixture(scope="session")
def _migrated_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Databases migrated once per session, copied for each test (migrating takes a second)."""
    yield {}  # kind -> template, made on first use by _template (PostgreSQL ones dropped at
    # the end of the session by pytest_sessionfinish)


def _template(kind: str, templates: dict[str, str], tmp_path_factory) -> str:
    """The migrated template of ``kind`` (an SQLite file path, or a PostgreSQL database name)."""
    if kind in templates:
        return templates[kind]
    from bot.store import Store

    if kind == "sqlite":
        path = tmp_path_factory.mktemp("template") / "template.db"
        Store.from_url(f"sqlite:///{path}").close()
        templates[kind] = str(path)
    else:
        from sqlalchemy import create_engine
        from sqlalchemy.engine import make_url

        from tests.dbutil import admin_url

        name = f"vp_tmpl_{uuid.uuid4().hex[:10]}"
        admin = create_engine(admin_url(), isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as conn:
                conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        finally:
            admin.dispose()
        Store.from_url(make_url(admin_url()).set(database=name)
                       .render_as_string(hide_password=False)).close()
        templates[kind] = name
        _PG_TEMPLATES.append(name)
    return templates[kind]


_PG_TEMPLATES: list[str] = []


def pytest_sessionfinish(session, exitstatus) -> None:
    if not _PG_TEMPLATES:
        return
    from sqlalchemy import create_engine

    from tests.dbutil import admin_url

    admin = create_engine(admin_url(), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            for name in _PG_TEMPLATES:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    except Exception:  # the server went away; nothing to clean
        pass
    finally:
        admin.dispose()


@contextmanager
def migrated_database_url(kind: str, tmp_path: Path, templates: dict[str, str],
                          tmp_path_factory) -> Iterator[str]:
    """A new database already at the schema's head: a copy of a migrated SQLite file, or a
    PostgreSQL database created from a migrated template (dropped at the end; skipped with the
    reason when the server is absent)."""
    if kind == "sqlite":
        target = tmp_path / f"vp_test_{uuid.uuid4().hex[:8]}.db"
        shutil.copyfile(_template("sqlite", templates, tmp_path_factory), target)
        yield f"sqlite:///{target}"
        return
    from tests.dbutil import fresh_database_url, skip_without_postgres

    skip_without_postgres()
    template = _template("postgres", templates, tmp_path_factory)
    with fresh_database_url("postgres", tmp_path, template=template) as url:
        yield url


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path, _migrated_templates,
           tmp_path_factory) -> Iterator[str]:
    """A new database per test, migrated to the schema's head (SQLite, then PostgreSQL)."""
    with migrated_database_url(request.param, tmp_path, _migrated_templates,
                               tmp_path_factory) as url:
        yield url


# --- the HTTP door with a Slack stand-in (per test, on SQLite and PostgreSQL) -------------------

SIGNING_SECRET = "reliability-fake-signing-secret-8f2a"
BOT_TOKEN = "xoxb-reliability-fake-bot-token-1234"


def door_settings(db_url: str, standin, **overrides):
    """Settings for an in-process app: ``db_url``, Web API at ``standin``, known fake secrets,
    nothing read from the environment or a ``.env`` file."""
    from bot.config import Settings

    values = {"database_url": db_url, "slack_bot_token": BOT_TOKEN,
              "slack_signing_secret": SIGNING_SECRET, "slack_app_token": None,
              "slack_client_id": None, "slack_client_secret": None,
              "slack_api_url": standin.api_url}
    values.update(overrides)
    return Settings(_env_file=None, **values)


@pytest.fixture
def standin():
    from bot.doors.standin import SlackStandIn

    # The channels the tests subscribe in: Slack answers conversations.info only for channels the
    # bot can see, and subscribe needs the bot to be a member (as after /invite @vllm-path).
    channels = [{"id": c, "name": c.lower(), "is_channel": True, "is_private": False,
                 "is_member": True, "is_archived": False} for c in ("C0CONSOLE", "C0SAME", "C0E2E", "C0REL1")]
    with SlackStandIn(team_id="T0REL1", channels=channels) as s:
        yield s


@pytest.fixture
def door_runtime(db_url, standin):
    from bot.runtime import Runtime

    rt = Runtime.create(door_settings(db_url, standin))
    yield rt
    rt.store.close()


@pytest.fixture
def door(door_runtime):
    """The real HTTP door (waitress + Bolt's WSGI adapter) on a free loopback port."""
    from bot.doors.serve import serve_http

    d = serve_http(door_runtime, "127.0.0.1", 0, threads=4, background=True)
    yield d
    d.close()


@pytest.fixture
def slack(door, standin, door_runtime):
    """Plays Slack against the door (see ``tests.e2e.helpers.FakeSlack``)."""
    from tests.e2e.helpers import FakeSlack

    return FakeSlack(door.url, standin, door_runtime, secret=SIGNING_SECRET, team="T0REL1",
                     user="U0REL1", channel="C0REL1")
