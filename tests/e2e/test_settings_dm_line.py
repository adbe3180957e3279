"""From the last new-user pass, through the console: ``help <topic>`` for topics that are no keyword
(stop, digest, reminder) shows their lines of the help; ``settings``' weekly-DM line, off, offers how
to turn it on, not ``dm off``; on and paused in Chinese, its parts join without a space after 。."""

from __future__ import annotations

import pytest

from bot.config import Settings
from bot.doors.console import open_console
from tests.dbutil import migrated_sqlite_url


@pytest.fixture
def console(tmp_path):
    settings = Settings(_env_file=None, database_url=migrated_sqlite_url(tmp_path, "settings.db"))
    with open_console(settings) as c:
        yield c


def _dm_line(console, text: str) -> str:
    said = "\n".join(p.text for p in console.command(text))
    return next(line for line in said.splitlines() if "dm on" in line)


def test_a_dm_that_is_off_is_offered_dm_on_only(console):
    line = _dm_line(console, "settings")
    assert "Turn it on with `/vllm-path dm on" in line and "dm off" not in line, line
    console.command("dm on monday 09:00 UTC")
    assert "`/vllm-path dm off`" in _dm_line(console, "settings")


def test_a_paused_dm_in_chinese_has_no_space_after_a_full_stop(console):
    console.command("lang zh")
    console.command("dm on monday 09:00 UTC")
    console.command("dm pause")
    line = _dm_line(console, "设置")
    assert "。 " not in line and "已暂停" in line, line


@pytest.mark.parametrize(
    ("asked", "shown"),
    [
        ("help stop", "`/vllm-path stop spec`"),
        ("help digest", "`/vllm-path subscribe spec"),
        ("help reminder", "`/vllm-path remind p-eagle"),
        ("帮助 停止", "`/vllm-path 停止 spec`"),
    ],
)
def test_help_on_a_topic_that_is_no_keyword_shows_its_lines(console, asked, shown):
    said = "\n".join(p.text for p in console.command(asked))
    assert shown in said and "No post matches" not in said and "没有与" not in said, said
    assert len(said.splitlines()) <= 4, said  # the section, not the whole help


def test_a_dm_in_another_language_than_the_replies_says_why(console):
    """(QA) "automatic (Chinese now)" beside "it comes in English" read as a contradiction."""
    console.command("dm on monday 09:00 UTC")
    said = "\n".join(p.text for p in console.command("设置"))
    assert "英文发送" in said and "开启私信时使用的语言" in said, said
    english = "\n".join(p.text for p in console.command("settings"))
    assert "It comes in English." in english and "the language you turned it on in" not in english, english
