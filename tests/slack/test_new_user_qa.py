"""Fixes from a new-user QA pass (task H1), through the real handlers, store and catalog: one label
for a further-reading step, Chinese examples in Chinese replies, ``unfollow`` naming the reader's
tracks, ``unread`` saying the progress, ``subscriptions`` hinting only what the reader may do, and
"hi bot" taken as a greeting."""

from __future__ import annotations

import json
import re

from bot.domain import paths
from bot.domain.paths import track_state
from bot.domain.plan import BudgetPreview
from bot.slack import grammar
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.slack.views.digest import compose_channel_digest
from bot.slack.views.messages import STEPS_PER_PAGE, track_reply
from bot.web.paths import track_page

ALICE = Caller("T1", "U1", "C1")
BOB = Caller("T1", "U2", "C1")
LEVELS_EN = ("_intro_", "_core_", "_advanced_", "_capstone_")


def handlers(runtime, admins: frozenset[str] = frozenset()) -> Handlers:
    def info(team: str, user: str) -> UserInfo:
        return UserInfo(name={"U1": "Alice", "U2": "Bob"}.get(user), is_admin=user in admins)

    return Handlers(runtime, users_info=info, announce=lambda *_: None)


def _text(reply) -> str:
    return json.dumps(reply.blocks, ensure_ascii=False)


def _lines(blocks: object) -> list[str]:
    """Every line of every text of a Block Kit payload."""
    if isinstance(blocks, dict):
        return [
            ln for k, v in blocks.items() for ln in (v.split("\n") if k == "text" and isinstance(v, str) else _lines(v))
        ]
    if isinstance(blocks, list):
        return [ln for b in blocks for ln in _lines(b)]
    return []


def test_a_further_reading_step_shows_only_further_reading(runtime) -> None:
    """QA: ``spec`` step 9 said "_core_ · _further reading_"; quant 11 and pd 16 "_capstone_"."""
    cat = runtime.holder.catalog
    for track in ("spec", "quant", "pd"):
        path = paths.track_path(cat, track)
        lines: dict[int, str] = {}
        for offset in range(0, len(path.steps), STEPS_PER_PAGE):
            reply = track_reply(cat, track_state(cat, track, set()), "en", followed=False, offset=offset)
            for line in _lines(reply.blocks):
                if (m := re.search(r":[a-z_]+: (\d+)\. ", line)) is not None:
                    lines.setdefault(int(m.group(1)), line)
        assert set(lines) == {s.number for s in path.steps}, track
        for s in path.further:
            line = lines[s.number]
            assert line.count("_further reading_") == 1 and not any(x in line for x in LEVELS_EN), line
        for s in path.essentials:
            assert "further reading" not in lines[s.number] and any(x in lines[s.number] for x in LEVELS_EN)


def test_the_digest_and_the_web_page_label_further_reading_alike(runtime) -> None:
    cat = runtime.holder.catalog
    path = paths.track_path(cat, "quant")
    n_ess = len(path.essentials)
    sub = BudgetPreview(1, "quant", 0, 1, None, minutes_per_week=100_000, after_essentials="further")  # all of it
    text = _text(compose_channel_digest(cat, sub, lang="en").reply)
    for s in path.further:
        if cat.post(s.post_id).url is None:
            continue  # QA round 8: a step without a link waits for one; no digest sends it
        meta = f"step {s.number} of {len(path.steps)} · "
        assert meta + "further reading · " in text
    for s in path.essentials:
        assert f"step {s.number} of {len(path.steps)} · further reading" not in text
    zh = _text(compose_channel_digest(cat, sub, lang="zh").reply)
    assert f"第 {n_ess + 1}/{len(path.steps)} 步 · 延伸阅读 · " in zh
    html = str(track_page(cat, track_state(cat, "quant", set()), "en"))
    for s in path.steps:
        item = html.split(f'id="step-{s.number}"', 1)[1].split("</li>", 1)[0]
        assert ('<span class="level">further reading</span>' in item) == (not s.essential), s.number


def test_a_chinese_reply_gives_the_chinese_remind_example(runtime) -> None:
    h = handlers(runtime)
    h.command(ALICE, "lang zh")
    text = _text(h.command(ALICE, "remind nosuch 明天"))
    assert "`/vllm-path remind p-eagle 下周一`" in text and "next monday" not in text
    # and the example works as written
    assert "私信提醒你" in _text(h.command(ALICE, "remind p-eagle 下周一"))


def test_unfollow_without_a_track_lists_the_readers_tracks(runtime) -> None:
    h, cat = handlers(runtime), runtime.holder.catalog
    assert "`spec`" not in (none := _text(h.command(ALICE, "unfollow")))
    assert "follow no track" in none
    h.command(ALICE, "follow spec")
    h.command(ALICE, "follow pd")
    text = _text(h.command(ALICE, "unfollow"))
    assert "`spec`" in text and "`pd`" in text
    others = [tr.id for tr in cat.tracks if tr.id not in ("spec", "pd")]
    assert not any(f"`{x}`" in text for x in others)


def test_unread_says_the_progress_line_as_read_does(runtime) -> None:
    h = handlers(runtime)
    read = h.command(ALICE, "read p-eagle")
    unread = h.command(ALICE, "unread p-eagle")
    assert "0 of 8 essential read" not in _text(read)
    assert "essential read" in _text(read) and "0 of " in _text(unread) and "essential read" in _text(unread)
    assert "Mark read" in _text(unread)  # the same buttons as ``read``'s answer


def test_subscriptions_hint_only_what_the_reader_may_do(runtime) -> None:
    h = handlers(runtime, admins=frozenset({"U3"}))
    h.command(ALICE, "subscribe quant friday")
    assert "unsubscribe quant" in _text(h.command(ALICE, "subscriptions"))
    shown = _text(h.command(BOB, "subscriptions"))
    assert "unsubscribe quant" not in shown
    assert "Alice set this up" in shown and "admin" in shown
    assert "unsubscribe quant" in _text(h.command(Caller("T1", "U3", "C1"), "subscriptions"))
    # what the hint says is true: Bob may not stop it
    assert "unsubscribe quant" not in _text(h.command(BOB, "unsubscribe"))


def test_a_greeting_to_the_bot_is_a_greeting() -> None:
    for text in ("hi bot", "Hi bot!", "hello there", "hey, vllm-path", "你好 bot", "thanks bot"):
        assert grammar.parse(text).kind in ("help", "thanks"), text
    assert grammar.parse("hi bot, what's next?").kind == "next"
    assert grammar.parse("hi botany").arg == "botany"
