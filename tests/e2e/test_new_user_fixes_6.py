"""The reader's commands, what a new user's break test found (QA), end to end through the HTTP door
(signed requests, the stand-in Slack, the real store and catalog): a Chinese reminder with a
reading verb before the post (``提醒我读 p-eagle 明天``) is set for that day; a track's name followed
by "how do I read it" opens the track; with no follow, a post's progress line is in the track whose
path has it earliest (or the one the reader has started); the notes after a link are sentences of
their own, naming the post when several were marked; the reading-club line reads well in Chinese;
the finish line ends with a full stop and offers only a track the catalog relates; ``then stop``
is announced; ``next spec pd`` shows both; ``next`` following nothing names every started track."""

from __future__ import annotations

import re

import pytest

from bot.domain import paths
from bot.domain.reminder_day import local_today
from bot.slack.mrkdwn import esc
from tests.e2e.helpers import CHANNEL, TEAM, USER, reply_text, zoned_standin_fixture
from tests.waits import PATIENCE_S

ZONE = "Asia/Shanghai"


standin = zoned_standin_fixture(ZONE)


_text = reply_text


def _said(slack, typed: str) -> str:
    """The first section of the reply to ``typed``, as Slack gets it (mrkdwn: links, bold, escapes)."""
    blocks = slack.ask(typed).body.get("blocks") or []
    return next(str(b["text"]["text"]) for b in blocks if b.get("type") == "section")


def _due(runtime) -> dict[str, object]:
    """The caller's pending reminders: post id -> the local day it is due."""
    return {r.post_id: local_today(r.due_at, r.timezone) for r in runtime.store.reminders(TEAM, USER)}


def _name(runtime, tid: str, lang: str = "en") -> str:
    return esc(str(runtime.holder.catalog.track(tid).names.get(lang)))


def _track_header(slack, typed: str) -> str:
    """The header of the reply to ``typed`` ("" when the reply has none: not a track's path)."""
    blocks = slack.ask(typed).body.get("blocks") or []
    return next((str(b["text"]["text"]) for b in blocks if b.get("type") == "header"), "")


@pytest.mark.parametrize(
    ("typed", "same_as"),
    [
        ("提醒我读 p-eagle 明天", "remind p-eagle 明天"),
        ("提醒我读 p-eagle 下周一", "remind p-eagle 下周一"),
        ("提醒我读p-eagle明天", "remind p-eagle 明天"),
        ("提醒我看 p-eagle 后天", "remind p-eagle 后天"),
        ("提醒我读 p-eagle", "remind p-eagle"),
    ],
)
def test_a_chinese_reminder_with_a_reading_verb_is_set_for_its_day(slack, runtime, typed, same_as):
    reply = _text(slack, typed)
    assert "无法识别" not in reply and "不确定" not in reply, reply
    assert "P-EAGLE" in reply, reply
    due = _due(runtime)
    assert list(due) == ["p-eagle"], due
    slack.ask("reminders cancel 1")
    assert _due(runtime) == {}
    slack.ask(same_as)
    assert _due(runtime) == due  # the same day as the command's own form


@pytest.mark.parametrize(
    ("typed", "tid", "lang"),
    [
        ("spec 怎么读", "spec", "zh"),
        ("pd 从哪开始", "pd", "zh"),
        ("spec 从哪里开始读", "spec", "zh"),
        ("spec where to start", "spec", "en"),
        ("pd, how do I read it?", "pd", "en"),
    ],
)
def test_a_track_name_and_how_to_read_it_opens_the_track(slack, runtime, typed, tid, lang):
    assert _track_header(slack, typed) == _name(runtime, tid, lang)


def test_a_question_on_a_post_is_still_a_search(slack, runtime):
    assert _track_header(slack, "qwen3 是什么") == ""


def test_with_no_follow_a_post_shows_the_track_whose_path_has_it_earliest(slack, runtime):
    cat = runtime.holder.catalog
    tracks = cat.tracks_of("vllm-router-release")
    assert len(tracks) > 1 and "pd" in tracks  # the case: the post is on more than one path
    share = {tid: cat.order(tid).index("vllm-router-release") / len(cat.order(tid)) for tid in tracks}
    earliest = min(share, key=lambda tid: share[tid])
    slack.ask("pd")
    read = _said(slack, "read vllm-router-release")
    assert f"*{_name(runtime, earliest)}*:" in read, read
    others = [_name(runtime, tid) for tid in tracks if tid != earliest]
    assert not any(f"*{name}*:" in read for name in others), read
    blocks = slack.ask("remind vllm-router-release tomorrow").body.get("blocks") or []
    remind = "\n".join(str(b["text"]["text"]) for b in blocks if b.get("type") == "section")
    assert f"*{_name(runtime, earliest)}*:" in remind, remind  # the same track for the same post


def test_a_started_track_comes_before_the_earliest_path(slack, runtime):
    cat = runtime.holder.catalog
    ops = [p for p in paths.essentials(cat, "ops") if cat.tracks_of(p) == ("ops",)]
    slack.ask(f"read {ops[0]}")  # the reader has started Deployment & operations
    read = _said(slack, "read vllm-router-release")
    assert f"*{_name(runtime, 'ops')}*:" in read, read


@pytest.mark.parametrize(
    ("lang", "note"),
    [("en", "You have read it already; the reminder is set anyway."), ("zh", "你已经读过这篇了，提醒仍照常设好。")],
)
def test_a_reminder_of_a_read_post_says_so_on_a_line_of_its_own(slack, runtime, lang, note):
    slack.ask(f"lang {lang}")
    slack.ask("read p-eagle")
    reply = _said(slack, "remind p-eagle tomorrow")
    assert "\n" + note in reply, reply
    assert ">" + note[:4] not in reply, reply  # not glued to the link
    assert list(_due(runtime)) == ["p-eagle"]


def test_a_cancelled_reminder_is_a_sentence_after_the_link(slack, runtime):
    slack.ask("remind p-eagle tomorrow")
    reply = _said(slack, "read p-eagle")
    assert re.search(r">\nYour reminder of it for .+ is cancelled\.", reply), reply


def test_reading_several_posts_names_each_cancelled_reminder(slack, runtime):
    cat = runtime.holder.catalog
    slack.ask("remind p-eagle tomorrow")
    slack.ask("remind spec-decode tomorrow")
    reply = _said(slack, "read p-eagle, spec-decode")
    assert "reminder of it" not in reply, reply
    for pid in ("p-eagle", "spec-decode"):
        assert f"\nYour reminder of *{esc(cat.post(pid).title)}* for " in reply, reply
    assert _due(runtime) == {}


def test_the_reading_club_line_reads_well_in_chinese(slack, runtime):
    reply = _text(slack, "subscribe internals 周一 9:00 读书会")
    assert "读书会" in reply and "每期每周" not in reply and "这是一个读书会" not in reply, reply


def _finish(slack, runtime, track: str) -> str:
    last = ""
    for post in paths.essentials(runtime.holder.catalog, track):
        last = _text(slack, f"read {post}")
    return last


def test_the_finish_line_ends_with_a_full_stop_and_offers_a_track_sharing_posts(slack, runtime):
    """QA round 18 changed what a track nothing names is offered: the track sharing most posts with
    it, never an unrelated one; "You covered" is gone. QA round 19: only a track sharing 2 posts or
    more ("rl" shares fewer with every track: it offers none, "models" does)."""
    cat = runtime.holder.catalog
    assert not any("models" in tr.before for tr in cat.tracks) and not cat.track("models").before
    finished = _finish(slack, runtime, "models")
    done = next(line for line in finished.split("\n") if "You finished the essential path" in line)
    assert done.endswith("."), done
    offered = re.search(r"Next track: \*?.+?\*? · `/vllm-path (\S+)` · (.+)\.$", finished, re.MULTILINE)
    assert offered is not None, finished
    assert len(set(cat.order("models")) & set(cat.order(offered.group(1)))) >= 2, finished  # it shares posts


def test_the_finish_line_offers_a_track_building_on_the_finished_one(slack, runtime):
    """QA round 19: a track naming the finished one as read-first; never the finished one's own
    prerequisite (spec offered internals): spec points to ``recommend`` instead."""
    cat = runtime.holder.catalog
    builds = {tr.id for tr in cat.tracks if "internals" in tr.before}
    finished = _finish(slack, runtime, "internals")
    offered = re.search(r"Next track: \*.+?\* · `/vllm-path (\S+)`", finished)
    assert offered is not None and offered.group(1) in builds, finished
    spec = _finish(slack, runtime, "spec")
    assert "Next track" not in spec and "`/vllm-path recommend`" in spec, spec


def _announcements(standin) -> list[str]:
    calls = standin.calls("chat.postMessage")
    return [c.args.get("text", "") for c in calls if c.args.get("channel") == CHANNEL and c.response.get("ok")]


def test_then_stop_is_announced_in_the_channel(slack, standin, runtime):
    slack.ask("subscribe spec monday")
    slack.ask("subscribe spec monday 45m then stop")
    lines = standin.wait_for(lambda: _announcements(standin)[1:], timeout=PATIENCE_S)
    assert "45 min" in lines[-1] and "It stops after the essential path." in lines[-1], lines


def test_next_takes_several_tracks(slack, runtime):
    reply = _text(slack, "next spec pd")
    assert "No track matches" not in reply, reply
    assert f"*{_name(runtime, 'spec')}*:" in reply and f"*{_name(runtime, 'pd')}*:" in reply, reply


def test_next_following_nothing_names_every_started_track(slack, runtime):
    cat = runtime.holder.catalog
    slack.ask("read p-eagle")
    slack.ask("read moriio-kv-connector")
    started = [tr.id for tr in cat.tracks if {"p-eagle", "moriio-kv-connector"} & set(cat.order(tr.id))]
    assert len(started) >= 2
    reply = _text(slack, "next")
    assert f"`/vllm-path follow {' '.join(started)}`" in reply, reply
