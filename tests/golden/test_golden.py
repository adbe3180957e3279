"""Golden files: every reply and digest payload for the real catalog, byte for byte.

What is recorded (``tests/golden/data/*.json``), in English and in Chinese:

- ``ask-<lang>.json``: the payload Slack receives for a script of commands run through the
  console door (the real Bolt app fed Slack's request formats, replies caught by the Slack
  stand-in): every command in the help, error and did-you-mean cases, every track's view, App
  Home, and the press of every button of a track view and of a search reply;
- ``digest-<lang>.json``: ``vllm-path digest preview --json`` of every track (1 and 3 steps).

The wall clock is frozen (``time_machine``) at :data:`FROZEN_AT`, so that "first digest on …"
labels do not move. Volatile ids the stand-in makes up (view ids, hashes, timestamps) are
dropped before comparing.

When the catalog content or a reply changes on purpose, regenerate and review the diff::

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:cacheprovider tests/golden
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import time_machine
from click.testing import CliRunner

from bot.cli.main import main
from bot.config import DEFAULT_CATALOG_DIR, Settings
from bot.domain.catalog.loader import load_catalog
from bot.doors.console import Console, open_console

DATA = Path(__file__).parent / "data"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
FROZEN_AT = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)
"""A Wednesday; the wall clock of every golden run."""
LANGS = ("en", "zh")
VOLATILE_KEYS = frozenset(
    {"hash", "id", "ts", "message_ts", "root_view_id", "previous_view_id", "bot_id", "app_installed_team_id"}
)

COMMANDS = [
    # help and near misses
    "help",
    "hlep",
    "",
    "frobnicate the widgets",
    # finding: track names in both languages, queries, a query with no hits
    "speculative",
    "推测解码",
    "pd",
    "量化",
    "nixl",
    "quantization fp8",
    "zzqxv wqqz",
    "what's new",
    "最新文章",
    "thanks",
    # progress
    "next",
    "read p-eagle",
    "read p-eagle",
    "unread p-eagle",
    "unread p-eagle",
    "read",
    "read zzqxv",
    "read speculative decoding",
    "read eagle",
    "follow pd",
    "follow pd",
    "next",
    "follow",
    "follow nosuchtrack",
    "unfollow pd",
    "unfollow pd",
    "follow spec",
    "read p-eagle",
    # channel digests
    "subscriptions",
    "subscribe spec monday 09:00 Europe/Berlin",
    "subscribe spec monday 09:00 Europe/Berlin",
    "subscribe spec friday 16:30",
    "subscribe spec",
    "subscribe pd tuesday",
    "subscribe spec funday",
    "subscribe spec 25:00",
    "subscribe spec monday 09:00 Mars/Base",
    "subscribe nosuchtrack",
    "subscribe",
    "subscriptions",
    "unsubscribe spec",
    "unsubscribe spec",
    "unsubscribe",
    "subscriptions",
    # DM digests
    "dm",
    "dm on friday 08:30",
    "dm on",
    "dm on sunday 07:00 Asia/Shanghai",
    "dm off",
    "dm on someday",
    # settings
    "lang fr",
]


def _scrub(value: Any) -> Any:
    """``value`` without the ids and times the stand-in makes up."""
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def _record(console: Console, step: str, printed: list[Any]) -> dict[str, Any]:
    return {"step": step, "printed": [{"title": p.title, "payload": _scrub(p.raw)} for p in printed]}


def _show(console: Console, command: str) -> list[Any]:
    return console.home() if command == "home" else console.command(command)


def _press_all(console: Console, command: str, log: list[dict[str, Any]], limit: int = 12) -> None:
    """Show ``command``'s reply (``home``: App Home), then for each of its buttons: show it
    again and press it."""
    first = _show(console, command)
    shown = len(console.controls)
    log.append(_record(console, f"{command} (before presses)", first))
    for k in range(1, min(shown, limit) + 1):  # the k-th button of a fresh view (numbers go on per session)
        _show(console, command)
        numbers = sorted(console.controls)
        if k > len(numbers):  # the view has fewer buttons by now (a path read to the end)
            continue
        label = console.controls[numbers[k - 1]][0].label
        log.append(_record(console, f"{command} press [{k}] {label}", console.press(numbers[k - 1])))


@pytest.fixture
def frozen_clock() -> Iterator[None]:
    with time_machine.travel(FROZEN_AT, tick=True):
        yield


def _ask_script(lang: str, db_url: str) -> list[dict[str, Any]]:
    settings = Settings(database_url=db_url, _env_file=None)
    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    log: list[dict[str, Any]] = []
    with open_console(settings) as console:
        if lang != "en":
            log.append(_record(console, f"lang {lang}", console.command(f"lang {lang}")))
        for command in COMMANDS:
            log.append(_record(console, command, console.command(command)))
        for track in catalog.tracks:
            log.append(_record(console, f"track {track.id}", console.command(track.id)))
        log.append(_record(console, "home", console.home()))
        _press_all(console, "spec", log, limit=20)
        _press_all(console, "nixl", log, limit=4)
        _press_all(console, "next", log, limit=4)
        _press_all(console, "home", log, limit=8)
        log.append(_record(console, "lang en/zh back", console.command(f"lang {lang}")))
    return log


def _compare(name: str, actual: Any) -> None:
    path = DATA / name
    text = json.dumps(actual, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"{path} is missing: run with UPDATE_GOLDEN=1 to create it")
        DATA.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    expected = json.loads(path.read_text(encoding="utf-8"))
    if expected != json.loads(text):
        # what came out, for a diff with the golden file (git ignores *.actual.json)
        path.with_suffix(".actual.json").write_text(text, encoding="utf-8")
        for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
            assert got == want, f"{name}: step {i} ({want.get('step')!r}) differs"
        assert len(actual) == len(expected), f"{name}: {len(actual)} steps, golden has {len(expected)}"


@pytest.mark.parametrize("lang", LANGS)
def test_ask_payloads_match_golden(lang: str, tmp_path: Path, frozen_clock: None) -> None:
    _compare(f"ask-{lang}.json", _ask_script(lang, f"sqlite:///{tmp_path / 'golden.db'}"))


@pytest.mark.parametrize("lang", LANGS)
def test_digest_previews_match_golden(lang: str, frozen_clock: None) -> None:
    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    runner = CliRunner()
    out = []
    for track in catalog.tracks:
        for steps in (1, 3):
            result = runner.invoke(
                main, ["digest", "preview", "--track", track.id, "--steps", str(steps), "--lang", lang, "--json"]
            )
            assert result.exit_code == 0, result.output
            out.append({"step": f"{track.id} steps={steps}", "payload": json.loads(result.stdout)})
    _compare(f"digest-{lang}.json", out)
