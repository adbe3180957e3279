"""QA round 8, the commands a new user typed (the real :class:`Handlers`, store and catalog): a
channel typed in ``subscribe`` / ``unsubscribe`` is refused, not done here; ``follow`` reads a track
the way ``/vllm-path <words>`` does (``kv``); long text is cut at a word's end; invisible characters
change nothing; Chinese durations, "how do I subscribe" and "delete my data" are understood; a
mistyped track name opens its track however it is mistyped; a reminder or a follow for someone
else is refused."""

from __future__ import annotations

import pytest

from bot.slack import grammar
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.slack.mrkdwn import esc

ALICE = Caller("T1", "U1", "C1")


def _handlers(runtime, said: list[tuple[str, str, str]] | None = None) -> Handlers:
    def announce(team: str, channel: str, text: object) -> None:
        if said is not None:
            said.append((team, channel, str(text)))

    return Handlers(runtime, users_info=lambda team, user: UserInfo(tz="Europe/Berlin"), announce=announce)


def _name(runtime, tid: str) -> str:
    return esc(str(runtime.holder.catalog.track(tid).names.get("en")))


# 1. A channel typed in a channel's command -----------------------------------------------------


@pytest.mark.parametrize(
    "typed",
    [
        "subscribe #general spec",
        "subscribe spec to #ml-reading",
        "subscribe <#C0999|general> spec",
        "sub spec #general",
    ],
)
def test_a_channel_typed_in_subscribe_sets_up_nothing_here(runtime, typed):
    said: list[tuple[str, str, str]] = []
    reply = _handlers(runtime, said).command(ALICE, typed)
    assert reply.response_type == "ephemeral"
    assert "itself" in reply.text and "I only act on the channel you type the command in" in reply.text, reply.text
    assert "`/vllm-path subscribe spec`" in reply.text or "`/vllm-path sub spec`" in reply.text, reply.text
    assert runtime.store.subscriptions("T1", "C1") == [], reply.text
    assert said == []  # nothing said in the channel


def test_a_channel_typed_in_unsubscribe_leaves_this_channels_digest(runtime):
    said: list[tuple[str, str, str]] = []
    h = _handlers(runtime, said)
    h.command(ALICE, "subscribe spec")
    said.clear()
    reply = h.command(ALICE, "unsubscribe #general spec")
    assert "Run this in #general itself" in reply.text, reply.text
    assert [s.track_id for s in runtime.store.subscriptions("T1", "C1")] == ["spec"]
    assert said == []
    escaped = h.command(ALICE, "unsubscribe <#C0999|general> spec")
    assert "Run this in <#C0999> itself" in escaped.text, escaped.text
    assert [s.track_id for s in runtime.store.subscriptions("T1", "C1")] == ["spec"]
    here = h.command(ALICE, "unsubscribe <#C1|this-one> spec")  # this channel, as Slack escapes it: done
    assert runtime.store.subscriptions("T1", "C1") == [], here.text


def test_a_follow_for_a_channel_points_at_the_channels_digest(runtime):
    reply = _handlers(runtime).command(ALICE, "follow spec in #ml-reading")
    assert "Following is per person" in reply.text and "`/vllm-path subscribe spec` in #ml-reading" in reply.text
    assert runtime.store.follows("T1", "U1") == []


# 2. One track resolver ------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["follow kv", "follow kv cache", "关注 kv"])
def test_follow_reads_kv_as_the_lookup_does(runtime, typed):
    h = _handlers(runtime)
    hint = h.command(ALICE, "kv")  # "This looks like the … track"
    agentic = _name(runtime, "agentic")
    assert agentic in str(hint.blocks), hint.blocks
    reply = h.command(ALICE, typed)
    assert runtime.store.follows("T1", "U1") == ["agentic"], reply.text
    assert "No track matches" not in reply.text


def test_several_tracks_with_kv_and_moe_make_no_wrong_guess(runtime):
    h = _handlers(runtime)
    reply = h.command(ALICE, "follow spec pd quant kv moe")
    text = str(reply.blocks)
    assert sorted(runtime.store.follows("T1", "U1")) == ["agentic", "pd", "quant", "spec"], text
    assert "“moe” is not a track" in text, text
    assert "Model launches" not in text and "did you mean" not in text.casefold(), text
    unfollowed = h.command(ALICE, "unfollow kv")
    assert "agentic" not in runtime.store.follows("T1", "U1"), unfollowed.text


def test_subscribe_reads_kv_cache_as_the_lookup_does(runtime):
    reply = _handlers(runtime).command(ALICE, "subscribe kv cache friday")
    assert [s.track_id for s in runtime.store.subscriptions("T1", "C1")] == ["agentic"], reply.text


# 3. A long text cut at a word's end -----------------------------------------------------------


def test_long_text_is_cut_at_a_word_end(runtime):
    typed = "follow " + "spec " * 200
    assert grammar.parse(typed).arg.split() == ["spec"] * len(grammar.parse(typed).arg.split())
    reply = _handlers(runtime).command(ALICE, typed)
    assert "“spe”" not in reply.text and "“spe" not in reply.text, reply.text
    assert runtime.store.follows("T1", "U1") == ["spec"], reply.text


# 4. Invisible characters ----------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["next\u200b", "next\u2060", "next\ufeff", "\u200bne\u200bxt\u200b"])
def test_invisible_characters_change_no_command(runtime, typed):
    h = _handlers(runtime)
    h.command(ALICE, "follow spec")
    assert grammar.parse(typed).kind == "next"
    reply = h.command(ALICE, typed)
    assert "No post matches" not in reply.text and reply.text == h.command(ALICE, "next").text


def test_invisible_characters_anywhere_in_a_command_change_nothing(runtime):
    assert grammar.parse("follow\u00a0spec\u200b pd\u2060").arg == "spec pd"
    _handlers(runtime).command(ALICE, "\ufefffollow\u00a0pd\u200b")
    assert runtime.store.follows("T1", "U1") == ["pd"]


# 5. Natural phrasings -------------------------------------------------------------------------


def test_chinese_durations_set_the_plan(runtime):
    h = _handlers(runtime)
    said = [
        ("计划 每周半小时", 30),
        ("计划 一个半小时", 90),
        ("plan 两小时", 120),
        ("计划 45分钟", 45),
        ("计划 一小时三十分", 90),
    ]
    for typed, minutes in [*said, ("计划 每周 一小时", 60), ("计划 三刻钟", 45)]:
        reply = h.command(ALICE, typed)
        assert runtime.store.get_budget("T1", "U1") == minutes, (typed, reply.text)


def test_a_chinese_duration_in_subscribe_is_its_budget(runtime):
    reply = _handlers(runtime).command(ALICE, "订阅 spec 每周半小时")
    subs = runtime.store.subscriptions("T1", "C1")
    assert [s.track_id for s in subs] == ["spec"] and subs[0].minutes_per_week == 30, reply.text


@pytest.mark.parametrize(
    ("typed", "line"),
    [
        ("how do I subscribe", "/vllm-path subscribe spec"),
        ("how to unsubscribe", "/vllm-path unsubscribe spec"),
        ("how do I stop the dm", "/vllm-path dm on"),
        ("怎么订阅", "/vllm-path subscribe spec"),
    ],
)
def test_how_do_i_shows_that_commands_help(runtime, typed, line):
    reply = _handlers(runtime).command(ALICE, typed)
    whole = _handlers(runtime).command(ALICE, "help")
    assert line in reply.text, reply.text
    assert len(str(reply.blocks)) < len(str(whole.blocks)) / 3, reply.blocks  # its lines, not the whole help


@pytest.mark.parametrize("typed", ["delete my data", "forget me", "what data do you keep about me", "删除我的数据"])
def test_delete_my_data_says_what_is_kept_and_deletes_nothing(runtime, typed):
    h = _handlers(runtime)
    h.command(ALICE, "follow spec")
    reply = h.command(ALICE, typed)
    assert "No post matches" not in reply.text and "没有" not in reply.text[:10], reply.text
    assert "unfollow all" in reply.text and "plan off" in reply.text, reply.text
    assert "admin" in reply.text or "管理员" in reply.text, reply.text
    assert runtime.store.follows("T1", "U1") == ["spec"]  # it says how; it removes nothing itself


# 6. Mistyped track names ----------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "tid"), [("omini", "omni"), ("reinforcment", "rl")])
def test_a_mistyped_track_name_opens_its_track(runtime, typed, tid):
    h = _handlers(runtime)
    for working, its in (("multimodel", "omni"), ("specualtive", "spec")):  # these opened their track already
        assert h.command(ALICE, working).text.startswith(_name(runtime, its) + ":")
    reply = h.command(ALICE, typed)
    assert "No post matches" not in reply.text, reply.text
    assert reply.text.startswith(_name(runtime, tid) + ":"), reply.text
    h.command(ALICE, f"follow {typed}")
    assert runtime.store.follows("T1", "U1") == [tid]
    word = h.command(ALICE, "prefix")  # two edits from "prefill", but a word of its own: no typo
    assert not word.text.startswith(_name(runtime, "pd") + ":"), word.text


# 7. For someone else --------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["remind @bob p-eagle tomorrow", "remind <@U0BOB|bob> p-eagle tomorrow"])
def test_a_reminder_for_someone_else_is_refused(runtime, typed):
    reply = _handlers(runtime).command(ALICE, typed)
    assert "Reminders are only for yourself" in reply.text, reply.text
    assert "`/vllm-path remind p-eagle tomorrow`" in reply.text, reply.text
    assert runtime.store.reminders("T1", "U1") == []


@pytest.mark.parametrize("typed", ["follow spec for @bob", "follow <@U0BOB> spec"])
def test_following_for_someone_else_is_refused(runtime, typed):
    reply = _handlers(runtime).command(ALICE, typed)
    assert "Following is per person" in reply.text and "`/vllm-path follow spec`" in reply.text, reply.text
    assert runtime.store.follows("T1", "U1") == []
