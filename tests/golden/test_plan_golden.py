"""Golden files of reading plans (issue 24), in English and Chinese, for the real catalog:

- ``plan-<lang>.json``: through the console door, ``plan`` (shown, set, refused, off), a track
  reply at a budget, marking every essential step of a track read (the finish message), App
  Home with a finished path, and ``dm on … 30m``;
- ``digest-budget-<lang>.json``: ``vllm-path digest preview --minutes N --json`` of every track at
  20 and 60 minutes a week.

The stand-in refuses any payload over Block Kit's limits, so these runs also check every new
view against them. Regenerate as for ``test_golden.py`` (``UPDATE_GOLDEN=1``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.config import DEFAULT_CATALOG_DIR, Settings
from bot.domain import paths
from bot.domain.catalog.loader import load_catalog
from bot.doors.console import open_console
from tests.golden.test_golden import LANGS, _compare, _record, frozen_clock  # noqa: F401 (fixture)
from tests.standin.blockkit import validate_blocks


def _plan_script(lang: str, db_url: str) -> list[dict[str, Any]]:
    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    log: list[dict[str, Any]] = []
    with open_console(Settings(database_url=db_url, _env_file=None)) as console:
        if lang != "en":
            log.append(_record(console, f"lang {lang}", console.command(f"lang {lang}")))
        for command in (
            "plan",
            "plan 30m",
            "计划 1小时",
            "plan soon",
            "plan 2000m",
            "spec",
            "plan off",
            "follow quant",
        ):
            log.append(_record(console, command, console.command(command)))
        for pid in paths.essentials(catalog, "quant"):
            log.append(_record(console, f"read {pid}", console.command(f"read {pid}")))
        log.append(_record(console, "quant after finishing", console.command("quant")))
        log.append(_record(console, "home", console.home()))
        log.append(_record(console, "dm on friday 08:30 30m", console.command("dm on friday 08:30 30m")))
    return log


@pytest.mark.parametrize("lang", LANGS)
def test_plan_payloads_match_golden(lang: str, tmp_path: Path, frozen_clock: None) -> None:  # noqa: F811
    log = _plan_script(lang, f"sqlite:///{tmp_path / 'plan.db'}")
    finish = [e for e in log if e["step"].startswith("read ")][-1]
    assert finish["printed"] and "quant" in json.dumps(finish["printed"], ensure_ascii=False)
    _compare(f"plan-{lang}.json", log)


@pytest.mark.parametrize("lang", LANGS)
def test_budget_digest_previews_match_golden(lang: str, frozen_clock: None) -> None:  # noqa: F811
    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    runner = CliRunner()
    out = []
    for track in catalog.tracks:
        for minutes in (20, 60):
            result = runner.invoke(
                main, ["digest", "preview", "--track", track.id, "--minutes", str(minutes), "--lang", lang, "--json"]
            )
            assert result.exit_code == 0, result.output
            payload = json.loads(result.stdout)
            validate_blocks(payload["blocks"])
            lengths = [s["minutes"] for s in payload["steps"]]
            assert len(lengths) == 1 or sum(m or 10 for m in lengths) <= minutes
            out.append({"step": f"{track.id} minutes={minutes}", "payload": payload})
    _compare(f"digest-budget-{lang}.json", out)
