"""The store runs on SQLAlchemy Core: a cold ``vllm-path ask`` and the modules ``serve`` loads never
import ``sqlalchemy.orm`` (~0.08 s CPU and ~6 MB RSS, issue 43's ``benchmarks/cli_cold.py`` and
``benchmarks/serve_memory.py``), and the copies of slack_sdk's tables stay what slack_sdk builds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

from bot.store import migrate
from bot.store.models import slack_bots, slack_installations, slack_oauth_states

_REPORT = """
import atexit, sys
atexit.register(lambda: print("ORM-LOADED" if "sqlalchemy.orm" in sys.modules else "NO-ORM", file=sys.stderr))
"""


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL", "REDIS_URL"))}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'vp.db'}"
    return subprocess.run(
        [sys.executable, "-c", _REPORT + code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )


def test_a_cold_ask_does_not_import_the_orm(tmp_path: Path) -> None:
    migrate(f"sqlite:///{tmp_path / 'vp.db'}")  # as a reader's second run finds it
    done = _run("sys.argv = ['vllm-path', 'ask', 'speculative']\nfrom bot.cli import run\nrun()", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "speculative" in done.stdout.lower()
    assert done.stderr.strip().splitlines()[-1] == "NO-ORM"


def test_what_serve_loads_and_a_store_round_trip_do_not_import_the_orm(tmp_path: Path) -> None:
    code = """
import bot.doors.serve, bot.slack.app, bot.digest.jobs
from bot.domain.schedule import WeeklySchedule
from bot.store import Store
with Store.from_url("sqlite:///vp.db") as store:
    store.subscribe("T1", "C1", "t", WeeklySchedule(weekday=0, at_time="09:00", timezone="UTC"))
    store.set_dm("T1", "U1", True)
    store.mark_read("T1", "U1", ["p"])
    assert store.read_posts("T1", "U1") == {"p"}
"""
    done = _run(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "NO-ORM"


def _shape(table: sa.Table) -> list[tuple[object, ...]]:
    columns = [
        (c.name, repr(c.type), c.nullable, c.primary_key, c.default is not None, c.server_default is not None)
        for c in table.columns
    ]
    indexes = sorted((i.name, tuple(c.name for c in i.columns)) for i in table.indexes)
    return [*columns, *indexes]


def test_the_slack_tables_are_slack_sdks_with_wider_tokens() -> None:
    theirs = sa.MetaData()
    built = (
        SQLAlchemyInstallationStore.build_installations_table(theirs, "slack_installations"),
        SQLAlchemyInstallationStore.build_bots_table(theirs, "slack_bots"),
        SQLAlchemyOAuthStateStore.build_oauth_states_table(theirs, "slack_oauth_states"),
    )
    for ours, table in zip((slack_installations, slack_bots, slack_oauth_states), built, strict=True):
        for column in table.columns:
            if column.name.endswith("_token"):
                column.type = sa.String(1000)  # ours hold sealed tokens
        assert _shape(ours) == _shape(table), table.name
