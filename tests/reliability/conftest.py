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
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dbutil import DB_KINDS, migrated_database_url
from tests.reliability import profiles


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz", action="store_true", default=False, help="run the reliability properties with 10,000 examples each"
    )


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
        Path(report).write_text(
            json.dumps({"profile": profiles.ACTIVE["profile"], "counts": dict(profiles.COUNTS)}, indent=2)
        )


@pytest.fixture(scope="module", params=DB_KINDS)
def module_db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A fresh database shared by one module's tests (SQLite, then PostgreSQL), copied from the
    session's migrated template (``tests.dbutil.migrated_database_url``)."""
    with migrated_database_url(request.param, tmp_path_factory.mktemp("db")) as url:
        yield url


@pytest.fixture(scope="module")
def module_runtime(module_db_url: str):
    """A :class:`bot.runtime.Runtime` on the repo's catalog and a module-wide fresh database."""
    from bot.config import Settings
    from bot.runtime import Runtime

    rt = Runtime.create(Settings(database_url=module_db_url, _env_file=None))
    yield rt
    rt.store.close()


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new database per test, migrated to the schema's head (SQLite, then PostgreSQL): a copy of
    the session's migrated template (``tests.dbutil``; templates dropped at the session's end)."""
    with migrated_database_url(request.param, tmp_path) as url:
        yield url


# --- the HTTP door with a Slack stand-in (per test, on SQLite and PostgreSQL) -------------------

SIGNING_SECRET = "reliability-fake-signing-secret-8f2a"
BOT_TOKEN = "xoxb-reliability-fake-bot-token-1234"


def door_settings(db_url: str, standin, **overrides):
    """Settings for an in-process app: ``db_url``, Web API at ``standin``, known fake secrets,
    nothing read from the environment or a ``.env`` file."""
    from bot.config import Settings

    values = {
        "database_url": db_url,
        "slack_bot_token": BOT_TOKEN,
        "slack_signing_secret": SIGNING_SECRET,
        "slack_app_token": None,
        "slack_client_id": None,
        "slack_client_secret": None,
        "slack_api_url": standin.api_url,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)


@pytest.fixture
def standin():
    from tests.standin import SlackStandIn

    # The channels the tests subscribe in: Slack answers conversations.info only for channels the
    # bot can see, and subscribe needs the bot to be a member (as after /invite @vllm-path).
    channels = [
        {"id": c, "name": c.lower(), "is_channel": True, "is_private": False, "is_member": True, "is_archived": False}
        for c in ("C0CONSOLE", "C0SAME", "C0E2E", "C0REL1")
    ]
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

    return FakeSlack(
        door.url, standin, door_runtime, secret=SIGNING_SECRET, team="T0REL1", user="U0REL1", channel="C0REL1"
    )
