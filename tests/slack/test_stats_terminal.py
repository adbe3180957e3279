"""Issue 40: ``vllm-path stats`` in a terminal prints plain text: Slack's mrkdwn (``*bold*``,
backticks, ``:emoji:`` codes) is converted for the terminal, not shown as typed."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.cli.reading import terminal_text
from tests.slack.test_stats import TEAM, _seed


def test_stats_in_a_terminal_is_plain_text(runtime, monkeypatch) -> None:
    _seed(runtime)
    monkeypatch.setenv("DATABASE_URL", runtime.store.engine.url.render_as_string(hide_password=False))
    for lang, finished in (("en", "Essential paths finished: none yet"), ("zh", "读完的核心路径：还没有")):
        result = CliRunner().invoke(main, ["stats", "--team", TEAM, "--lang", lang])
        assert result.exit_code == 0, result.output
        text = result.stdout
        assert "6 → 5 → 0" in text and "channel_not_found" in text and finished in text, text  # nothing lost
        assert "*" not in text and "`" not in text, text
        assert not re.search(r":[a-z_]+:", text), text


@pytest.mark.parametrize(
    ("mrkdwn", "plain"),
    [
        (":checkered_flag: Essential paths finished: *3* (spec)", "Essential paths finished: 3 (spec)"),
        ("reads per week: `▁▂█` (0 1 10)", "reads per week: ▁▂█ (0 1 10)"),
        ("*你读完了 PD 的核心路径！*17 篇", "你读完了 PD 的核心路径！17 篇"),
        ("done :tada: at 09:30:15 (https://x.example/a:b)", "done 🎉 at 09:30:15 (https://x.example/a:b)"),
        ("a :unknown_code: b", "a b"),
    ],
)
def test_terminal_text(mrkdwn: str, plain: str) -> None:
    assert terminal_text(mrkdwn) == plain
