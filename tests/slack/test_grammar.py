"""The /vllm-path grammar: command text -> typed command."""

from __future__ import annotations

import pytest

from bot.slack.grammar import MAX_TEXT, parse


@pytest.mark.parametrize("text", ["", "   ", "help", "HELP", "帮助", "?"])
def test_help(text):
    assert parse(text).kind == "help"


@pytest.mark.parametrize("text,kind,arg", [
    ("speculative", "query", "speculative"),
    ("推测解码", "query", "推测解码"),
    ("next", "next", ""),
    ("read p-eagle", "read", "p-eagle"),
    ("unread fp8 kv cache", "unread", "fp8 kv cache"),
    ("follow spec decode", "follow", "spec decode"),
    ("unfollow pd", "unfollow", "pd"),
    ("subscriptions", "subscriptions", ""),
    ("unsubscribe quant", "unsubscribe", "quant"),
    ("lang ZH", "lang", "zh"),
])
def test_keywords(text, kind, arg):
    cmd = parse(text)
    assert (cmd.kind, cmd.arg) == (kind, arg)


def test_subscribe_schedule_parts():
    cmd = parse("subscribe spec decode friday 10:30 Europe/Berlin")
    assert (cmd.kind, cmd.arg, cmd.weekday, cmd.at_time, cmd.timezone) == (
        "subscribe", "spec decode", 4, "10:30", "Europe/Berlin")
    cmd = parse("subscribe pd")
    assert (cmd.arg, cmd.weekday, cmd.at_time, cmd.timezone) == ("pd", None, None, None)
    cmd = parse("subscribe 量化 周三 9:05pm UTC")
    assert (cmd.arg, cmd.weekday, cmd.at_time, cmd.timezone) == ("量化", 2, "21:05", "UTC")


def test_subscribe_bad_time_is_reported():
    cmd = parse("subscribe pd monday 25:00")
    assert cmd.error == "sub.bad_time" and cmd.error_value == "25:00"


def test_dm():
    assert parse("dm off").enabled is False
    cmd = parse("dm on thursday 08:15 America/Los_Angeles")
    assert (cmd.enabled, cmd.weekday, cmd.at_time, cmd.timezone) == (True, 3, "08:15", "America/Los_Angeles")
    assert parse("dm").enabled is None
    assert parse("dm on next tuesday").error == "dm.unknown_part"


def test_near_miss_keyword_suggests_the_command():
    cmd = parse("folow spec")
    assert cmd.kind == "did_you_mean" and cmd.suggestion == "follow spec"
    cmd = parse("subscibe pd monday")
    assert cmd.kind == "did_you_mean" and cmd.suggestion.startswith("subscribe pd")
    # A single word that is not a keyword is a query, not a command typo.
    assert parse("eagle").kind == "query"


def test_long_text_is_cut_and_flagged():
    cmd = parse("x" * 3000)
    assert cmd.truncated and len(cmd.arg) == MAX_TEXT


def test_slack_markup_never_reaches_a_query():
    cmd = parse("&lt;b&gt; <!channel> nixl <@U123> <https://example.com|kv cache> &amp;")
    assert cmd.kind == "query"
    assert "<!channel>" not in cmd.arg and "U123" not in cmd.arg
    assert "nixl" in cmd.arg and "kv cache" in cmd.arg and "<b>" in cmd.arg and "&" in cmd.arg


@pytest.mark.parametrize("typed,zone", [("utc", "UTC"), ("CET", "CET"), ("PST", "America/Los_Angeles"),
                                        ("europe/berlin", "europe/berlin"), ("Japan", "Japan")])
def test_time_zone_spellings(typed, zone):
    cmd = parse(f"subscribe spec friday 10:00 {typed}")
    assert (cmd.arg, cmd.timezone) == ("spec", zone)
