"""Golden files of issue 44's first half, in English and Chinese, for the real catalog:

- ``catchup-<lang>.json``: through the console door, ``catch me up`` (``跟上进度``) for a reader who
  follows pd and spec and last read on 1 Aug 2026 (the posts since, each with its place), its
  *Mark read* pressed, then ``catch me up`` after a read today (nothing new, the next
  step) and for a reader of no track;
- ``stats-completion-<lang>.json``: the ``stats`` reply with the 4-week completion lines (a share
  shown, one hidden), from fixed numbers.

The stand-in refuses any payload over Block Kit's limits; the stats reply is checked with its
checker. Regenerate as for ``test_golden.py`` (``UPDATE_GOLDEN=1``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.config import DEFAULT_CATALOG_DIR, Settings
from bot.domain.catalog.loader import load_catalog
from bot.domain.insights import Insights, TrackCompletion
from bot.doors.console import open_console
from bot.doors.console.slack import CONSOLE_TEAM_ID, CONSOLE_USER_ID
from bot.slack.views.insights import insights_reply
from bot.store import Store
from tests.dbutil import migrated_sqlite_url
from tests.golden.test_golden import FROZEN_AT, LANGS, _compare, _record, frozen_clock  # noqa: F401 (fixture)
from tests.standin.blockkit import block_kit_problems

ASK = {"en": "catch me up", "zh": "跟上进度"}


def _catchup_script(lang: str, db_url: str) -> list[dict[str, Any]]:
    store = Store.from_url(db_url, clock=lambda: datetime(2026, 8, 1, 9, 30, tzinfo=UTC))
    for track in ("pd", "spec"):
        store.follow(CONSOLE_TEAM_ID, CONSOLE_USER_ID, track)
    store.mark_read(CONSOLE_TEAM_ID, CONSOLE_USER_ID, ["hybrid-ssm-disagg", "p-eagle"])
    store.close()
    log: list[dict[str, Any]] = []
    with open_console(Settings(database_url=db_url, _env_file=None)) as console:
        if lang != "en":
            log.append(_record(console, f"lang {lang}", console.command(f"lang {lang}")))
        log.append(_record(console, ASK[lang], console.command(ASK[lang])))
        log.append(_record(console, "press [1] Mark read", console.press(1)))
        log.append(_record(console, "read spec-decode", console.command("read spec-decode")))
        log.append(_record(console, f"{ASK[lang]} after a read today", console.command(ASK[lang])))
    with open_console(Settings(database_url=db_url, _env_file=None), user_id="U0NOTRACK") as console:
        log.append(_record(console, "a reader of no track", console.command(ASK[lang])))
    return log


@pytest.mark.parametrize("lang", LANGS)
def test_catchup_payloads_match_golden(lang: str, tmp_path: Path, frozen_clock: None) -> None:  # noqa: F811
    log = _catchup_script(lang, migrated_sqlite_url(tmp_path))
    first = str(log[1 if lang != "en" else 0]["printed"])
    assert "qwen35-25k-tps" in first and ("follows step 5" in first or "接续" in first)
    _compare(f"catchup-{lang}.json", log)


@pytest.mark.parametrize("lang", LANGS)
def test_stats_completion_lines_match_golden(lang: str) -> None:
    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    completions = (TrackCompletion("spec", 12, 7, 7 / 12), TrackCompletion("pd", None, None, None))
    ins = Insights("TGOLD", FROZEN_AT, 20, 12, (), (), (), (), completions)
    reply = insights_reply(catalog, ins, lang)
    assert not block_kit_problems(reply.blocks)
    _compare(f"stats-completion-{lang}.json", [{"step": "stats", "text": reply.text, "blocks": reply.blocks}])
