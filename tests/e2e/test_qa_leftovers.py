"""QA leftovers, end to end through the HTTP door (signed requests, the stand-in Slack, the real
store and catalog): ``help`` names ``stop <track>``; a Chinese ``remind`` / ``dm on`` from one who
chose no language answers in Chinese and stores no language; Chinese lists use the enumeration
comma; a click on a channel digest's *Snooze* / *Stop* answers in the digest's language;
``recommend`` after an essential path recommends the track its finish message offered; and the
weekly DM and a reminder, composed by the real senders, speak the language they were set up in
(unless the person chose one)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

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
    # QA round 18: the finish message counts the posts instead of listing every title ("你读过：…" is gone)
    count = len(paths.essentials(runtime.holder.catalog, "spec"))
    assert "你读过：" not in finished and f"{count} 篇" in finished, finished
    english = replace(slack, user="U0EN")
    english.ask("follow spec")
    english.ask("follow pd")
    settings = _text(english, "settings")
    assert "`spec` and `pd`" in settings, settings
    english.ask("lang zh")
    assert "`spec` 和 `pd`" in _text(english, "设置")
    which = _text(english, "unfollow")
    assert "`spec`（推测解码）和 `pd`（" in which and "), `" not in which, which


def test_recommend_after_an_essential_path_says_what_the_finish_message_offered(slack, runtime):
    finished = _finish(slack, runtime, "models")  # QA round 19: spec offers none (only its prerequisite is related)
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


# --- a weekly DM and a reminder keep the language they were set up in --------------------------------


def _han(text: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", text))


def _posted_since(standin, before: int) -> str:
    """The one message posted after the first ``before`` posts (a DM or a reminder) as one string:
    its text and blocks."""
    (call,) = [c for c in standin.calls("chat.postMessage")[before:] if c.ok]
    return str(call.args["text"]) + "\n" + block_texts(call.args.get("blocks") or [])


@pytest.mark.parametrize("sender", ["clock", "worker"])
@pytest.mark.parametrize(
    "words, then, chinese",
    [
        ("私信 开 周五 09:00", None, True),  # typed in Chinese, no language chosen: a Chinese DM
        ("dm on friday 09:00", None, False),
        ("私信 开 周五 09:00", "lang en", False),  # a language chosen later wins
        ("dm on friday 09:00", "lang zh", True),
    ],
)
def test_the_weekly_dm_speaks_the_language_it_was_set_up_in(slack, standin, runtime, sender, words, then, chinese):
    from bot.digest.deliver import Deliverer, Outcome, Pacer
    from bot.runtime import Runtime
    from bot.store.ledger_batch import BatchedLedgerStore

    slack.ask("follow spec")
    reply = _text(slack, words)
    assert _han(reply) == words.startswith("私信"), reply
    if then:
        slack.ask(then)
    else:
        assert runtime.store.get_lang(slack.team, slack.user) is None  # the person's language: not stored
    store = BatchedLedgerStore(runtime.store) if sender == "worker" else runtime.store  # the worker's batched reads
    try:
        rt = Runtime(runtime.settings, store, runtime.holder, runtime.renderer)
        before = len(standin.calls("chat.postMessage"))
        deliverer = Deliverer(rt, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=50))
        assert deliverer.deliver_dm(slack.team, slack.user, datetime.now(UTC)).outcome is Outcome.SENT
    finally:
        if store is not runtime.store:
            store.close()
    dm = _posted_since(standin, before)
    assert "Speculative decoding" not in dm if chinese else "Speculative decoding" in dm, dm
    assert _han(dm) == chinese, dm


@pytest.mark.parametrize(
    "words, then, chinese",
    [
        ("提醒 p-eagle 明天", None, True),
        ("remind p-eagle tomorrow", None, False),
        ("提醒 p-eagle 明天", "lang en", False),
        ("remind p-eagle tomorrow", "lang zh", True),
    ],
)
def test_a_reminder_speaks_the_language_it_was_set_up_in(slack, standin, runtime, words, then, chinese):
    from bot.digest.deliver import Deliverer, Pacer
    from bot.digest.reminders import send_due_reminders

    reply = _text(slack, words)
    assert ("`/vllm-path lang zh`" in reply) == words.startswith("提醒"), reply  # the line saying so
    if then:
        slack.ask(then)
    [reminder] = runtime.store.reminders(slack.team, slack.user)
    deliverer = Deliverer(runtime, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=50))
    before = len(standin.calls("chat.postMessage"))
    assert send_due_reminders(runtime, deliverer, reminder.due_at + timedelta(minutes=1)) == 1
    sent = _posted_since(standin, before)
    assert _han(sent) == chinese, sent
