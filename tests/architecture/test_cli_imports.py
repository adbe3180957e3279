"""The CLI imports a command's module, and that module's heavy dependencies, only when the
command runs: ``vllm-path search`` never loads Bolt, SQLAlchemy, the Slack stand-in or the doors,
and ``vllm-path ask`` (which needs the app) never loads the OAuth install pages; on a database
already at the head revision it loads no Alembic, and for a command that searches nothing no
search index (numpy, bm25s). Each check runs the command in a fresh interpreter and lists what it
imported (issue 28: the CLI's cold start; figures in docs/benchmarks-history.md, "Stop 30")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

REPO = Path(__file__).resolve().parents[2]

_RUN = """
import json, sys
from bot.cli.main import main
try:
    main({argv!r}, standalone_mode=False)
except SystemExit:
    pass
sys.stdout.flush()
print("\\n" + json.dumps(sorted(sys.modules)))
"""


def _modules_after(argv: list[str], tmp_path: Path) -> set[str]:
    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": f"sqlite:///{tmp_path}/cli.db", "HOME": str(tmp_path)}
    env["PYTHONPATH"] = str(REPO)  # this checkout's bot, not the one the venv's editable install names
    done = subprocess.run(
        [sys.executable, "-c", _RUN.format(argv=argv)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _loaded(modules: set[str], *names: str) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_search_loads_no_slack_no_database_no_other_command(tmp_path):
    modules = _modules_after(["search", "nixl"], tmp_path)
    assert "bot.cli.reading" in modules and "bot.domain.search.matcher" in modules  # it did search
    assert (
        _loaded(
            modules,
            "slack_bolt",
            "slack_sdk",
            "sqlalchemy",
            "alembic",
            "bot.doors",
            "bot.store",
            "bot.slack",
            "bot.cli.catalog",
            "bot.cli.doors",
            "bot.cli.digest",
            "bot.cli.plan",
            "bot.cli.tokens",
            "jinja2",
            "pydantic_settings",  # CATALOG_DIR is read by bot.locations
            "bot.config",
        )
        == []
    )


def test_a_second_cold_search_reads_its_catalog_kept_with_the_index_and_loads_no_yaml(tmp_path):
    """Issue 43: the catalog and vocabulary are kept with the built index, so a search from a cold
    process whose catalog files did not change loads neither the YAML parser nor the catalog's
    loader and checks (the first one, or one after a change, reads the files and keeps them)."""
    _modules_after(["search", "nixl"], tmp_path)  # keeps the index (unless a test run did already)
    modules = _modules_after(["search", "nixl"], tmp_path)
    assert "bot.domain.search.matcher" in modules
    assert _loaded(modules, "yaml", "bot.domain.catalog.loader", "bot.domain.catalog.checks") == []
    assert _loaded(modules, "rjieba") == []  # a query without Chinese loads no segmenter (~0.1 s of CPU)


def test_ask_loads_the_app_but_not_the_install_pages(tmp_path):
    modules = _modules_after(["ask", "help"], tmp_path)
    assert "slack_bolt" in modules and "bot.slack.app" in modules  # it went through the app
    assert (
        _loaded(
            modules,
            "jinja2",
            "bot.web.oauth",
            "bot.slack.installs",
            "bot.cli.catalog",
            "bot.cli.digest",
            "bot.cli.reading",
        )
        == []
    )


def test_ask_at_head_loads_no_alembic_and_no_index_unless_it_searches(tmp_path):
    first = _modules_after(["ask", "help"], tmp_path)  # a new database: migrated
    assert "alembic" in first
    for argv in (["ask", "speculative"], ["ask", "help"]):  # a track named exactly; no search
        modules = _modules_after(argv, tmp_path)
        assert "bot.slack.app" in modules and "sqlalchemy" in modules  # the app, on the store
        assert (
            _loaded(
                modules,
                "alembic",
                "mako",
                "numpy",
                "bm25s",
                "bot.domain.search.matcher",
                "bot.domain.search.index",
                "sqlalchemy.dialects.postgresql",
                "cryptography",  # no token is sealed or opened
                "apscheduler",  # no schedule fires
                "rapidfuzz",  # no near-miss keyword or day word
                "bot.domain.search.analysis",
            )
            == []
        ), argv
    searched = _modules_after(["ask", "nixl"], tmp_path)  # a search builds the index on demand
    assert "bot.domain.search.matcher" in searched and "numpy" in searched
    assert "alembic" not in searched


def test_a_cold_ask_reads_its_catalog_kept_and_loads_no_yaml(tmp_path):
    """Issue 43: every runtime reads the catalog and vocabulary kept beside the catalog
    (:func:`bot.domain.search.cache.kept_catalog`), so a cold ``ask`` whose catalog files did not
    change loads neither the YAML parser nor the catalog's loader and checks."""
    _modules_after(["ask", "speculative"], tmp_path)  # migrates, keeps the catalog (unless kept already)
    modules = _modules_after(["ask", "speculative"], tmp_path)
    assert "bot.slack.app" in modules and "bot.config" in modules
    assert _loaded(modules, "yaml", "bot.domain.catalog.loader", "bot.domain.catalog.checks") == []


def test_every_command_is_listed_and_loads():
    from bot.cli.main import COMMANDS, main

    ctx = click.Context(main)
    assert main.list_commands(ctx) == sorted(COMMANDS)
    for name in COMMANDS:
        command = main.get_command(ctx, name)
        assert isinstance(command, click.Command) and command.name == name


def test_a_wrong_entry_is_refused():
    from bot.cli.main import LazyGroup

    group = LazyGroup(lazy={"x": ("bot.cli.common", "DEFAULT_PID_FILE")})
    with pytest.raises(TypeError):
        group.get_command(click.Context(group), "x")
