"""QA round 16, commands: a plan set while the weekly DM is off says so (nothing would arrive); the
weekly DM asked for in a sentence (``send me a dm every friday``), one's progress (``how much have I
read``), the track list (``tracks``) and a command word mistyped before a post id (``red p-eagle``)
were searched; ``follow <@U999>`` echoed the mention. Each through the real handlers, with the
ordinary searches that look alike unchanged."""

from __future__ import annotations

import pytest

from bot.domain import paths
from bot.slack.grammar import parse
from tests.slack.qa_commands import (
    ALICE,
    any_migrated_db_url,  # noqa: F401  (SQLite only here)
    handlers,
)
from tests.slack.qa_commands import body as _body


def _handlers(runtime):
    return handlers(runtime)


# --- 1. a plan set while the weekly DM is off


@pytest.mark.parametrize("typed", ["I have 30 minutes a week", "plan 30m", "i can spend an hour a week"])
def test_a_plan_set_with_the_dm_off_says_how_to_turn_it_on(runtime, typed):
    h = _handlers(runtime)
    reply = h.command(ALICE, typed)
    assert "Your reading plan" in reply.text
    assert "Your weekly DM is off" in reply.text and "`/vllm-path dm on`" in reply.text
    assert "Your weekly DM is off" in _body(reply)  # in the blocks, not only the fallback
    h.command(ALICE, "dm off")  # turned off after being on: still off
    assert "Your weekly DM is off" in h.command(ALICE, typed).text


def test_a_plan_set_with_the_dm_on_or_paused_says_nothing_of_it(runtime):
    h = _handlers(runtime)
    h.command(ALICE, "dm on friday")
    assert runtime.store.get_dm("T1", "U1").enabled
    assert "DM is off" not in _body(h.command(ALICE, "I have 30 minutes a week"))
    h.command(ALICE, "dm pause")
    assert "DM is off" not in _body(h.command(ALICE, "plan 45m"))
    shown = _body(h.command(ALICE, "plan"))  # the plan shown, not set: as before
    assert "DM is off" not in shown


def test_a_plan_set_in_chinese_with_the_dm_off_says_so_in_chinese(runtime):
    h = _handlers(runtime)
    h.command(ALICE, "lang zh")
    reply = h.command(ALICE, "我每周有30分钟")
    assert "每周 30 分钟" in reply.text and "私信是关闭的" in reply.text and "`/vllm-path dm on`" in reply.text


# --- 2a. the weekly DM asked for in a sentence


@pytest.mark.parametrize(
    ("typed", "weekday", "at"),
    [
        ("send me a dm every friday", 4, None),
        ("Send me a DM every Friday at 9am", 4, "09:00"),
        ("dm me every friday", 4, None),
        ("dm me on fridays at 8:30", 4, "08:30"),
        ("please dm me every monday", 0, None),
        ("can you send me a weekly dm on tuesdays", 1, None),
        ("i want a weekly dm on mondays", 0, None),
        ("turn on my dm friday 9am", 4, "09:00"),
        ("hey, send me a dm every friday", 4, None),
        ("每周五给我发私信", 4, None),
        ("周五早上9点私信我", 4, "09:00"),
        ("请每周一给我发私信", 0, None),
        ("每周五下午3点半给我发私信吧", 4, "15:30"),
    ],
)
def test_a_weekly_dm_asked_for_in_a_sentence_turns_it_on_that_day(runtime, typed, weekday, at):
    cmd = parse(typed)
    assert (cmd.kind, cmd.enabled, cmd.error) == ("dm", True, None), cmd
    assert cmd.schedule is not None and (cmd.schedule.weekday, cmd.schedule.at_time) == (weekday, at)
    reply = _handlers(runtime).command(ALICE, typed)
    dm = runtime.store.get_dm("T1", "U1")
    assert dm is not None and dm.enabled and dm.weekday == weekday, reply.text
    assert "matches" not in reply.text


@pytest.mark.parametrize("typed", ["send me a weekly dm", "dm me", "给我发每周私信", "每周给我发一条私信"])
def test_a_weekly_dm_asked_for_without_a_day_is_dm_on(typed):
    cmd = parse(typed)
    assert (cmd.kind, cmd.enabled, cmd.error) == ("dm", True, None), cmd


def test_a_dm_asked_for_with_words_not_understood_says_what_dm_on_reads(runtime):
    reply = _handlers(runtime).command(ALICE, "send me a dm every friday morning")
    assert "“morning”" in reply.text and "dm on" in reply.text
    assert runtime.store.get_dm("T1", "U1") is None  # nothing changed


@pytest.mark.parametrize(
    "typed",
    [
        "send me a message queue post",
        "message me about eagle",
        "给我发消息",
        "send me eagle",
        "direct messages in slack",
    ],
)
def test_sentences_that_only_look_like_a_dm_request_stay_what_they_were(typed):
    assert parse(typed).kind == "query", parse(typed)


# --- 2b. one's progress asked for in a sentence


@pytest.mark.parametrize(
    "typed",
    [
        "how much have I read",
        "How much have I read?",
        "how many posts have i read so far",
        "how far am i",
        "where am i in my reading",
        "what have i read so far",
        "show my reading progress",
        "my stats",
        "我读了多少",
        "我读了几篇",
        "我读到哪了",
        "我的阅读进度",
        "进度怎么样",
    ],
)
def test_progress_asked_for_in_a_sentence_shows_the_progress(runtime, typed):
    h = _handlers(runtime)
    cat = runtime.holder.catalog
    essential = paths.essentials(cat, "spec")
    h.command(ALICE, "read " + " ".join(essential[:2]))
    reply = h.command(ALICE, typed)
    assert parse(typed).kind == "next"
    zh = any("\u4e00" <= c <= "\u9fff" for c in typed)
    assert (f"2/{len(essential)}" if zh else f"2 of {len(essential)} essential read") in reply.text, reply.text
    assert "matches" not in reply.text and "匹配" not in reply.text


@pytest.mark.parametrize(
    "typed",
    [
        "how much memory does vllm need",
        "how far can speculative decoding go",
        "where am i going wrong with fp8",
        "what have i read about eagle",
    ],
)
def test_questions_that_start_like_a_progress_question_stay_searches(typed):
    assert parse(typed).kind == "query"


def test_stats_stays_the_workspace_stats(runtime):
    assert parse("stats").kind == "stats"
    assert "matches" not in _handlers(runtime).command(ALICE, "stats").text


# --- 2c. the track list


@pytest.mark.parametrize(
    "typed", ["tracks", "Tracks?", "all tracks", "the tracks", "track list", "list of tracks", "主题", "所有主题"]
)
def test_tracks_alone_lists_the_tracks(runtime, typed):
    reply = _handlers(runtime).command(ALICE, typed)
    cat = runtime.holder.catalog
    assert "No post matches" not in reply.text and "没有" not in reply.text.split("\n")[0]
    lines = [line for line in reply.text.split("\n") if line.startswith("•")]
    assert [line.split("`")[1] for line in lines] == [tr.id for tr in cat.tracks]


def test_the_track_list_shows_the_readers_place_and_follows(runtime):
    h = _handlers(runtime)
    cat = runtime.holder.catalog
    essential = paths.essentials(cat, "spec")
    h.command(ALICE, "follow pd")
    h.command(ALICE, "read " + essential[0])
    text = h.command(ALICE, "tracks").text
    spec = next(line for line in text.split("\n") if line.startswith("• `spec`"))
    pd = next(line for line in text.split("\n") if line.startswith("• `pd`"))
    assert f"1 of {len(essential)} essential read" in spec and "following" not in spec
    assert "following" in pd and "0 of" in pd
    quant = next(line for line in text.split("\n") if line.startswith("• `quant`"))
    assert f"{len(cat.order('quant'))} posts" in quant


@pytest.mark.parametrize("typed", ["tracks for agents", "track kv cache usage", "paths of eagle", "topic modeling"])
def test_a_query_beginning_with_tracks_stays_a_search(typed):
    assert parse(typed).kind == "query"


@pytest.mark.parametrize(
    ("typed", "kind"),
    [("list tracks", "tracks"), ("有哪些主题", "help"), ("follow spec", "follow")],  # QA round 20
)
def test_track_phrases_the_help_answers_stay_the_help(typed, kind):
    assert parse(typed).kind == kind


# --- 2d. a command word mistyped before a post id


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("red p-eagle", "read p-eagle"),
        ("raed p-eagle", "read p-eagle"),
        ("reed p-eagle", "read p-eagle"),
        ("rad P-EAGLE", "read P-EAGLE"),
        ("unred p-eagle", "unread p-eagle"),
        ("remnd p-eagle", "remind p-eagle"),
        ("nxt spec", "next spec"),
        ("folow spec", "follow spec"),
    ],
)
def test_a_command_word_mistyped_before_an_id_asks_did_you_mean(runtime, typed, meant):
    reply = _handlers(runtime).command(ALICE, typed)
    assert f"Did you mean `/vllm-path {meant}`?" in reply.text, reply.text
    assert runtime.store.read_posts("T1", "U1") == set()  # asked, nothing marked


@pytest.mark.parametrize("typed", ["red hat vllm", "red hat", "reed solomon codes", "ready for production"])
def test_searches_starting_with_a_word_like_a_command_stay_searches(runtime, typed):
    reply = _handlers(runtime).command(ALICE, typed)
    assert "Did you mean `/vllm-path" not in reply.text, reply.text


def test_red_hat_vllm_still_finds_red_hat_posts(runtime):
    cat = runtime.holder.catalog
    reply = _handlers(runtime).command(ALICE, "red hat vllm")
    shown = [p for p in cat.posts if p.title in reply.text]
    assert shown and "Did you mean" not in reply.text


# --- 3. no mention in a reply


MENTIONS = [
    "follow <@U999>",
    "follow spec for <@U999|bob>",
    "unfollow spec <@U999>",
    "remind <@U999> p-eagle",
    "remind p-eagle <@U999>",
    "subscribe spec for <@U999>",
    "unsubscribe spec <!subteam^S12|@team>",
    "follow <!subteam^S12|@team> spec",
    "follow spec <!here>",
    "follow spec @here",
    "follow spec @channel",
    "<@U999> hello",
    "read <@U999>",
    "dm on <!channel>",
    "next <@U999>",
    "plan <@U999>",
    "search <@U999> eagle",
    "folow <@U999> spec",
    "stop <@U999>",
    "snooze <!everyone>",
    "latest <@U999>",
    "red <@U999> p-eagle",
    "send me a dm every <@U999>",
]


@pytest.mark.parametrize("typed", MENTIONS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_reply_holds_a_mention(runtime, typed, lang):
    h = _handlers(runtime)
    h.command(ALICE, f"lang {lang}")
    body = _body(h.command(ALICE, typed))
    assert "<@" not in body and "<!" not in body, body
    assert "<#" not in body, body  # no channel was named: none is linked


def test_a_person_typed_by_name_is_said_as_plain_text(runtime):
    text = _handlers(runtime).command(ALICE, "follow spec for @bob").text
    assert "@bob" in text and "<@" not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_person_named_by_mention_is_someone_else(runtime, lang):
    h = _handlers(runtime)
    h.command(ALICE, f"lang {lang}")
    text = h.command(ALICE, "follow <@U999>").text
    assert ("someone else" if lang == "en" else "别人") in text, text
    assert runtime.store.follows("T1", "U1") == []


def test_a_channel_named_elsewhere_is_still_linked(runtime):
    text = _handlers(runtime).command(ALICE, "subscribe <#C777|general> spec").text
    assert "<#C777>" in text  # the channel the reader should go to, linked on purpose
