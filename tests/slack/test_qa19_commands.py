"""QA round 19, commands and replies: a Chinese track name in an English command was answered in
English; ``1 hour every friday`` (no ``plan``) was searched; finishing a path offered its own
prerequisite or a track sharing one post; ``read p-eagle 已读`` searched for ``p-eagle 已读``; a
channel's digests named one owner for all; ``remind <!here> tomorrow`` suggested a command that asked
"Which post?"; *Remind me next week* and *Open path* on search results replaced them; the README
promised a two-week pause ``dm pause`` refuses. Through the real handlers, SQLite only."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.domain.related import related_choices
from bot.slack.grammar import parse
from bot.slack.handlers import Caller
from tests.slack.qa_commands import (
    ALICE,
    any_migrated_db_url,  # noqa: F401  (SQLite only here)
    handlers,
)
from tests.slack.qa_commands import body as _body
from tests.slack.qa_commands import buttons as _buttons
from tests.slack.qa_commands import finish as _finish

BOB = Caller("T1", "U2", "C1")
NAMES = {"U1": "alice", "U2": "bob", "U3": "carol"}


def _handlers(runtime, locale: str = "en-US"):
    return handlers(runtime, locale, NAMES)


# --- 1. a Chinese word, a track name included, answers in Chinese


def _zh_name(runtime, track: str) -> str:
    name = runtime.holder.catalog.track(track).names.get("zh")
    assert name
    return str(name)


@pytest.mark.parametrize(("typed", "said"), [("follow {}", "已关注"), ("unfollow {}", "关注")])
def test_follow_with_a_chinese_track_name_answers_in_chinese(runtime, typed, said):
    h = _handlers(runtime)
    if typed.startswith("unfollow"):
        h.command(ALICE, "follow spec")
    reply = h.command(ALICE, typed.format(_zh_name(runtime, "spec")))
    assert said in reply.text and "follow" not in reply.text.split("`")[0].casefold(), reply.text


@pytest.mark.parametrize("typed", ["next {}", "{} spec"])
def test_next_and_a_track_with_a_chinese_name_answer_in_chinese(runtime, typed):
    reply = _handlers(runtime).command(ALICE, typed.format(_zh_name(runtime, "quant" if "next" in typed else "spec")))
    assert "essential" not in reply.text and ("核心路径" in reply.text or "下一篇" in reply.text), reply.text


def test_lang_en_keeps_english_with_a_chinese_track_name(runtime):
    h = _handlers(runtime)
    h.command(ALICE, "lang en")
    assert "You now follow" in h.command(ALICE, "follow " + _zh_name(runtime, "spec")).text


def test_an_english_command_stays_english(runtime):
    assert "You now follow" in _handlers(runtime).command(ALICE, "follow spec").text


# --- 2. a weekly budget with a day, without `plan`


@pytest.mark.parametrize("typed", ["1 hour every friday", "every friday 1 hour", "周五读1小时", "每周五读 1 小时"])
def test_a_budget_with_a_day_sets_a_plan(runtime, typed):
    cmd = parse(typed)
    assert cmd.kind == "plan" and cmd.minutes == 60 and cmd.error is None, cmd
    assert cmd.schedule is not None and cmd.schedule.weekday == 4
    _handlers(runtime).command(ALICE, typed)
    assert runtime.store.get_budget("T1", "U1") == 60


@pytest.mark.parametrize(
    "typed", ["1 hour", "friday", "prefix caching every friday", "how to read 1 hour every friday", "每周五"]
)
def test_a_duration_or_a_day_alone_is_no_plan(runtime, typed):
    assert parse(typed).kind != "plan"
    _handlers(runtime).command(ALICE, typed)
    assert runtime.store.get_budget("T1", "U1") is None


# --- 3. the next track after finishing


def test_no_next_track_is_the_finished_tracks_prerequisite(runtime):
    cat = runtime.holder.catalog
    with_before = [tr for tr in cat.tracks if tr.before]
    assert with_before  # spec, pd, … read internals first
    for tr in with_before:
        assert not {c[0] for c in related_choices(cat, tr.id)} & set(tr.before), tr.id


def test_a_track_building_on_the_finished_one_comes_before_a_followed_one(runtime):
    h, cat = _handlers(runtime), runtime.holder.catalog
    builds = [tr.id for tr in cat.tracks if "internals" in tr.before]
    other = next(tr.id for tr in cat.tracks if tr.id not in builds and tr.id != "internals")
    h.command(ALICE, f"follow {other}")
    offered = re.search(r"Next track: .+? · `/vllm-path (\S+)`", _finish(h, cat, "internals"))
    assert offered is not None and offered.group(1) == builds[0]


def test_a_followed_track_is_offered_before_one_sharing_posts(runtime):
    h, cat = _handlers(runtime), runtime.holder.catalog
    choices = related_choices(cat, "models")
    assert choices and all(c[1] != "after" for c in choices)
    followed = next(tr.id for tr in cat.tracks if tr.id not in {c[0] for c in choices} and tr.id != "models")
    h.command(ALICE, f"follow {followed}")
    finished = _finish(h, cat, "models")
    assert f"`/vllm-path {followed}` · you follow it" in finished, finished


def test_sharing_one_post_is_no_reason_to_offer_a_track(runtime):
    cat = runtime.holder.catalog
    for tr in cat.tracks:
        assert all(n >= 2 for _, why, n in related_choices(cat, tr.id) if why == "shared"), tr.id


def test_finishing_a_track_with_no_close_track_points_to_recommend(runtime):
    h, cat = _handlers(runtime), runtime.holder.catalog
    lonely = next(tr.id for tr in cat.tracks if not related_choices(cat, tr.id))
    finished = _finish(h, cat, lonely)
    assert "You finished the essential path" in finished, finished
    assert "Next track" not in finished and "`/vllm-path recommend`" in finished, finished


# --- 4. read <post> 已读 / done


@pytest.mark.parametrize(
    "typed", ["read p-eagle 已读", "read p-eagle done", "标记 p-eagle 已读", "read p-eagle finished"]
)
def test_a_done_word_around_the_post_marks_it(runtime, typed):
    cat = runtime.holder.catalog
    pid = cat.resolve_post_id("p-eagle")
    assert pid
    _handlers(runtime).command(ALICE, typed)
    assert pid in runtime.store.reader_state("T1", "U1").read


# --- 5. who set up each digest


def test_several_digests_each_name_who_set_them_up(runtime):
    h = _handlers(runtime)
    h.command(ALICE, "subscribe spec monday")
    h.command(BOB, "subscribe quant tuesday")
    reply = h.command(Caller("T1", "U3", "C1"), "subscriptions")
    lines = reply.text.splitlines()
    spec = next(line for line in lines if "Speculative" in line)
    quant = next(line for line in lines if "Quantization" in line)
    assert "alice" in spec and "bob" not in spec, reply.text
    assert "bob" in quant and "alice" not in quant, reply.text
    assert "alice set this up" not in _body(reply)


# --- 6. remind someone else: a command that names a post


def test_remind_here_suggests_a_command_with_a_post(runtime):
    h = _handlers(runtime)
    reply = h.command(ALICE, "remind <!here> tomorrow")
    shown = re.search(r"`/vllm-path ([^`]+)`", reply.text)
    assert shown is not None, reply.text
    suggested = shown.group(1)
    assert suggested != "remind tomorrow" and suggested.endswith("tomorrow"), suggested
    assert "&lt;post&gt;" in _body(reply) and "<post>" not in _body(reply)  # a placeholder, escaped


def test_remind_here_suggests_the_next_step_of_a_follower(runtime):
    h = _handlers(runtime)
    h.command(ALICE, "follow spec")
    nxt = runtime.holder.catalog.order("spec")[0]
    reply = h.command(ALICE, "remind <!here> tomorrow")
    assert f"`/vllm-path remind {nxt} tomorrow`" in reply.text, reply.text
    again = h.command(ALICE, f"remind {nxt} tomorrow")
    assert "Which post" not in again.text and len(runtime.store.reminders("T1", "U1")) == 1


# --- 7. buttons on search results keep them


def _search_buttons(h, kind: str) -> dict[str, Any]:
    results = h.command(ALICE, "speculative decoding eagle")
    found = [v for k, _, v in _buttons(results) if k == kind and str(v.get("v", "")).startswith("search:")]
    assert found, _buttons(results)
    return found[0]


def test_remind_on_search_results_answers_apart(runtime):
    h = _handlers(runtime)
    reply = h.action(ALICE, "remind", _search_buttons(h, "remind"))
    assert reply is not None and reply.keep_original, reply
    assert len(runtime.store.reminders("T1", "U1")) == 1


def test_open_path_on_search_results_answers_apart(runtime):
    h = _handlers(runtime)
    value = _search_buttons(h, "open_path")
    reply = h.action(ALICE, "open_path", value)
    assert reply is not None and reply.keep_original, reply
    assert f"/vllm-path follow {value['t']}" in _body(reply) or value["t"] in _body(reply)


# --- 8. the README's pause agrees with `pause dm for 2 weeks`


def test_the_readme_says_what_a_typed_pause_does(runtime):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    said = " ".join(readme.split())
    assert "a two-week pause" in said
    assert "`dm pause` alone skips one weekly DM" in said and "`pause dm for 2 weeks`" in said  # QA round 20
    assert "one or two weeks" in _handlers(runtime).command(ALICE, "pause dm for 3 weeks").text
