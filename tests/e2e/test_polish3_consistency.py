"""What a new user noticed (polish3), through the console (the real app, its Slack in process) and
the CLI: a track's header in the reply's language only, the Chinese plan form in Chinese replies,
one date format per language, user text echoed whole but short, one exit for an unknown track,
and one line for statistics that are all hidden."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.config import Settings
from bot.doors.console import open_console
from bot.slack.i18n import ECHO_MAX, t
from tests.dbutil import migrated_sqlite_url

_DAY_EN = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day \d{1,2} [A-Z][a-z]{2} \d{4}"
_DAY_ZH = r"\d{4}年\d{1,2}月\d{1,2}日 周[一二三四五六日]"
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")


@pytest.fixture
def console(tmp_path):
    settings = Settings(_env_file=None, database_url=migrated_sqlite_url(tmp_path, "p3.db"))
    with open_console(settings) as c:
        yield c


def _say(console, text: str) -> str:
    return "\n".join(p.text for p in console.command(text))


def test_a_track_header_names_the_track_in_the_reply_language_only(console):
    english = _say(console, "speculative").splitlines()
    assert "== Speculative decoding ==" in english and "推测解码" not in "\n".join(english[:2]), english[:3]
    _say(console, "lang zh")
    chinese = _say(console, "推测解码").splitlines()
    assert "== 推测解码 ==" in chinese and "Speculative decoding" not in "\n".join(chinese[:2]), chinese[:3]


def test_chinese_replies_suggest_the_plan_form_the_chinese_help_teaches(console):
    assert "`plan 30m`" in _say(console, "speculative") and "plan 30m`" in _say(console, "settings")
    _say(console, "lang zh")
    assert "`/vllm-path 计划 30分钟`" in _say(console, "help")
    for text in ("推测解码", "设置", "计划 很多"):
        said = _say(console, text)
        assert "计划 30分钟`" in said or "计划 45分钟`" in said, said
        assert "plan 30m" not in said and "plan 45m" not in said, said


def test_every_reply_writes_a_day_one_way_per_language(console):
    _say(console, "dm on monday 09:00 UTC")
    paused = _say(console, "dm pause")
    assert re.search(rf"of {_DAY_EN} is skipped; the next one comes on {_DAY_EN}\.", paused), paused  # weekdays
    resumed = _say(console, "dm resume")
    subscribed = _say(console, "subscribe spec monday 09:00 UTC")
    assert re.search(rf"First one: {_DAY_EN} 09:00 UTC", subscribed), subscribed
    reminded = _say(console, "remind spec-decode next monday")
    assert re.search(_DAY_EN, reminded), reminded
    for said in (paused, resumed, subscribed, reminded):
        assert re.search(_DAY_EN, said) and not _ISO.search(said), said
    _say(console, "lang zh")
    _say(console, "unsubscribe spec")
    said = [_say(console, "dm pause"), _say(console, "subscribe spec monday 09:00 UTC")]
    said.append(_say(console, "remind spec-decode 下周一"))
    for text in said:
        assert re.search(_DAY_ZH, text) and not _ISO.search(text), text


def test_user_text_is_echoed_with_every_character_and_cut_short(console):
    said = _say(console, "<script>alert(1)</script>")
    assert "“<script>alert(1)</script>”" in said, said
    assert "“a & b”" in _say(console, "read a & b")
    long = _say(console, "plan " + "9" * 3000 + "m")
    number = re.search(r"; ([\d,]+…) min", long)
    assert number and len(number.group(1)) <= ECHO_MAX, long
    assert len(long) < 400, long


def test_a_long_echo_is_cut_before_it_is_escaped():
    said = t("read.no_match", "en", query="<" * 500)
    assert said.count("&lt;") == ECHO_MAX - 1 and "…" in said and "&l…" not in said


@pytest.mark.parametrize(
    "args",
    [
        ["next", "nope"],
        ["path-image", "nope", "-o", "unused.svg"],
        ["digest", "preview", "--track", "nope"],
        ["catalog", "show", "nope"],
    ],
)
def test_an_unknown_track_is_one_usage_error_everywhere(args):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "Error: Invalid value for" in result.stderr and "no track matches 'nope'; tracks: agentic" in result.stderr
    assert result.stdout == "", result.stdout


@pytest.mark.parametrize("value", ["abc", "3", "1h"])
def test_a_bad_minutes_value_is_said_plainly(value):
    result = CliRunner().invoke(main, ["plan-weeks", "--minutes", value])
    assert result.exit_code == 2
    assert f"'{value}' is not a number of minutes from 5 to 600" in result.stderr, result.stderr
    assert "integer range" not in result.stderr


def test_stats_of_one_reader_say_in_one_line_that_counts_are_hidden(console):
    _say(console, "read spec-decode")
    said = _say(console, "stats")
    assert "*Speculative decoding* · <4 readers · 17 steps · too few readers on any step" in said, said
    assert "→" not in said and "Essential paths finished: none yet." in said, said
    _say(console, "lang zh")
    said = _say(console, "stats")
    assert "每一步的读者都太少" in said and "→" not in said and "读完的核心路径：还没有。" in said, said
