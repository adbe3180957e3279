"""Golden files of reading together (issue 44), in English and Chinese, for the real catalog
(``together-<lang>.json``): ``subscribe … club`` and ``no club`` through the console door; each
track's club thread with the discussion prompts of its whole essential path; a club digest that
opens with its readers (4) and one that hides them (3); the nudge DM with and without a lighter
budget; the streak line. Every payload is checked against Block Kit's limits. Regenerate as for
``test_golden.py`` (``UPDATE_GOLDEN=1``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.config import DEFAULT_CATALOG_DIR, Settings
from bot.domain import paths
from bot.domain.catalog.loader import load_catalog
from bot.doors.console import open_console
from bot.slack.views.blocks import Reply
from bot.slack.views.digest import compose_channel_digest, preview_subscription
from bot.slack.views.together import club_thread, nudge_message, streak_line
from tests.golden.test_golden import LANGS, _compare, _record, frozen_clock  # noqa: F401 (fixture)
from tests.standin.blockkit import validate_blocks


def _reply(step: str, reply: Reply) -> dict[str, Any]:
    validate_blocks(reply.blocks)
    assert 0 < len(reply.text) <= 3000
    return {"step": step, "text": reply.text, "blocks": reply.blocks}


def _together_script(lang: str, db_url: str) -> list[dict[str, Any]]:
    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    log: list[dict[str, Any]] = []
    with open_console(Settings(database_url=db_url, _env_file=None)) as console:
        if lang != "en":
            log.append(_record(console, f"lang {lang}", console.command(f"lang {lang}")))
        for command in ("subscribe spec monday 09:00 UTC club", "subscribe spec no club", "订阅 pd 读书会"):
            log.append(_record(console, command, console.command(command)))
    for track in catalog.tracks:
        log.append(_reply(f"club thread {track.id}", club_thread(catalog, paths.essentials(catalog, track.id), lang)))
    for readers in (4, 3):
        digest = compose_channel_digest(catalog, preview_subscription("spec"), None, lang, readers=readers)
        assert digest.reply is not None
        log.append(_reply(f"club digest, {readers} readers of the last", digest.reply))
    log.append(_reply("nudge 45 -> 20", nudge_message(45, 20, lang)))
    log.append(_reply("nudge 5", nudge_message(5, None, lang)))
    log.append({"step": "streak lines", "text": [streak_line(n, lang) for n in (0, 1, 3)]})
    return log


@pytest.mark.parametrize("lang", LANGS)
def test_reading_together_payloads_match_golden(lang: str, tmp_path: Path, frozen_clock: None) -> None:  # noqa: F811
    _compare(f"together-{lang}.json", _together_script(lang, f"sqlite:///{tmp_path / 'together.db'}"))
