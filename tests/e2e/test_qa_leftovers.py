"""QA leftovers, end to end through the HTTP door (signed requests, the stand-in Slack, the real
store and catalog): ``help`` names ``stop <track>``; a Chinese ``remind`` / ``dm on`` from one who
chose no language answers in Chinese and stores no language; Chinese lists use the enumeration
comma; a click on a channel digest's *Snooze* / *Stop* answers in the digest's language; and
``recommend`` after an essential path recommends the track its finish message offered."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from bot.domain import paths
from bot.slack.views.digest import compose_channel_digest
from tests.e2e.helpers import CHANNEL, TEAM, block_texts
from tests.standin import SlackStandIn
from tests.waits import PATIENCE_S


@pytest.fixture
def standin():
    """The stand-in Slack with the test's channel, the app a member (``subscribe`` may post there)."""
    channel = {"id": CHANNEL, "name": "e2e", "is_channel": True, "is_private": False, "is_member": True}
    with SlackStandIn(team_id=TEAM, channels=[channel]) as s:
        yield s


def _text(slack, words: str) -> str:
    """The reply to ``/vllm-path words`` as one string: its fallback text and its blocks."""
    body = slack.ask(words).body
    return str(body.get("text", "")) + "\n" + block_texts(body.get("blocks") or [])


@pytest.mark.parametrize("words, example", [("help", "`/vllm-path stop spec`"), ("帮助", "`/vllm-path 停止 spec`")])
def test_help_names_stop_for_one_track(slack, words, example):
    helped = _text(slack, words)
    assert example in helped, helped
    assert "unfollow spec" in helped, helped


@pytest.mark.parametrize("words", ["提醒 p-eagle 明天", "私信 开"])
def test_a_chinese_remind_or_dm_on_answers_in_chinese_and_stores_no_language(slack, runtime, words):
    reply = _text(slack, words)
    assert runtime.store.get_lang(slack.team, slack.user) is None
    assert re.search(r"[\u4e00-\u9fff]", reply) and "`/vllm-path lang zh`" in reply, reply  # said how to keep it
    assert "`/vllm-path lang zh`" in _text(slack, "settings")  # "automatic" still: English next time
    assert runtime.store.get_lang(slack.team, slack.user) is None


def test_a_chosen_language_is_kept_and_not_told_again(slack, runtime):
    slack.ask("lang zh")
    reply = _text(slack, "提醒 p-eagle 明天")
    assert "`/vllm-path lang zh`" not in reply, reply
    assert runtime.store.get_lang(slack.team, slack.user) == "zh"


def _finish(slack, runtime, track: str = "spec") -> str:
    """Follow ``track`` and mark its essential steps read one by one; the last answer."""
    slack.ask(f"follow {track}")
    last = ""
    for post in paths.essentials(runtime.holder.catalog, track):
        last = _text(slack, f"read {post}")
    return last


def test_chinese_lists_use_the_enumeration_comma(slack, runtime):
    slack.ask("lang zh")
    finished = _finish(slack, runtime)
    covered = next(line for line in finished.split("\n") if line.startswith("你读过："))
    titles = [runtime.holder.catalog.post(p).title for p in paths.essentials(runtime.holder.catalog, "spec")]
    assert covered == "你读过：" + "、".join(titles[:-1]) + "和" + titles[-1], covered
    english = replace(slack, user="U0EN")
    english.ask("follow spec")
    english.ask("follow pd")
    settings = _text(english, "settings")
    assert "`spec` and `pd`" in settings, settings
    english.ask("lang zh")
    assert "`spec`和`pd`" in _text(english, "设置")
    which = _text(english, "unfollow")
    assert "`spec`（推测解码）和`pd`（" in which and "), `" not in which, which


def test_recommend_after_an_essential_path_says_what_the_finish_message_offered(slack, runtime):
    finished = _finish(slack, runtime)
    offered = re.search(r"Next track: \*(.+?)\* · `/vllm-path (\S+)`", finished)
    assert offered is not None, finished
    name, track_id = offered.groups()
    recommended = _text(slack, "recommend something")
    first = recommended.split("\n")[0]
    assert name in first and f"`/vllm-path follow {track_id}`" in first, recommended
    assert "the next step in each track" not in recommended, recommended


def test_recommend_after_a_path_with_another_followed_track_says_that_track(slack, runtime):
    slack.ask("follow quant")
    finished = _finish(slack, runtime)
    assert re.search(r"Next track: \*Quantization\* · `/vllm-path quant`", finished), finished
    recommended = _text(slack, "recommend something")
    assert "next step in each track" in recommended and "Quantization" in recommended, recommended
    assert "*Speculative decoding*:" not in recommended, recommended  # its further reading: `next spec`


@pytest.mark.parametrize("kind", ["snooze", "stop"])
def test_a_click_on_a_channel_digest_answers_in_the_digests_language(slack, standin, runtime, kind):
    slack.ask("subscribe spec")  # an English digest (its creator chose no language and typed English)
    [sub] = runtime.store.subscriptions(slack.team, CHANNEL)
    assert runtime.store.digest_lang(sub) == "en"
    digest = compose_channel_digest(runtime.holder.catalog, sub, lang="en").reply
    assert digest is not None
    slack.ask("lang zh")  # the clicker reads Chinese replies now: the digest stays English
    _, url = slack.click(digest.payload(), f"{kind}:", ephemeral=False)
    answer = standin.wait_for_response(url, timeout=PATIENCE_S).body
    assert answer.get("replace_original") is not True
    said = json.dumps(answer, ensure_ascii=False)
    assert "Speculative decoding" in said and not re.search(r"[\u4e00-\u9fff]", said), said
