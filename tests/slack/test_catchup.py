"""The "catch me up" command through the handlers, on a real database (SQLite and PostgreSQL) and the
repo's catalog: what entered the catalog since the reader last read, in what they follow or have
started, with each post's place; never search results; English and Chinese alike."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from bot.domain import paths
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.store import Store
from tests.standin.blockkit import block_kit_problems

READ_AT = datetime(2026, 8, 1, 9, 30, tzinfo=UTC)
ASKS_EN, ASKS_ZH = ("catch me up", "what did I miss?"), ("跟上进度", "我错过了什么")


def _seed(runtime, team: str, user: str, when: datetime = READ_AT) -> None:
    """``user`` follows pd and read its hybrid-SSM post at ``when`` (the store's clock)."""
    store = Store(runtime.store.engine, clock=lambda: when)
    store.follow(team, user, "pd")
    store.mark_read(team, user, ["hybrid-ssm-disagg"])


def _text(reply) -> str:
    return json.dumps(reply.blocks, ensure_ascii=False)


def test_catch_me_up_lists_what_entered_the_catalog_since_the_last_read_with_its_place(runtime) -> None:
    cat, me = runtime.holder.catalog, Caller("TCU", "U1", "C1")
    _seed(runtime, me.team_id, me.user_id)
    h = Handlers(runtime, users_info=lambda team, user: UserInfo())
    reply = h.command(me, "catch me up")
    assert not block_kit_problems(reply.blocks)
    text = _text(reply)
    assert "What you missed" in text and "New since 1 Aug 2026" in text
    new = [p for p in cat.order("pd") if cat.post(p).entered >= READ_AT.date() and p != "hybrid-ssm-disagg"]
    assert new and all(cat.post(p).title.replace("&", "&amp;") in text for p in new)
    old = [p for p in cat.order("pd") if cat.post(p).entered < READ_AT.date() and p != "hybrid-ssm-disagg"]
    listed = json.dumps(reply.blocks[:-1], ensure_ascii=False)  # the last block: the next step
    assert not any(f"|{cat.post(p).title}>" in listed for p in old)
    step = paths.track_path(cat, "pd").step("hybrid-ssm-disagg").number
    assert f"follows step {step} of *{cat.track('pd').names.en}*" in text  # qwen35-25k-tps revisits it
    assert cat.relations_of("qwen35-25k-tps")[0].note.en in text
    quant_news = [p for p in cat.order("quant") if cat.post(p).entered >= READ_AT.date() and p not in cat.order("pd")]
    assert quant_news and not any(cat.post(p).title in text for p in quant_news)  # not followed, not started
    assert "Your next step" in text and "Catching poor LLM performance" not in text  # never a search
    nxt = paths.next_step(cat, "pd", {"hybrid-ssm-disagg"})
    button = reply.blocks[-1]["accessory"]
    assert json.loads(button["value"])["p"] == nxt.post
    assert h.command(me, "what did I miss?").blocks == reply.blocks


def test_nothing_new_says_so_and_gives_the_next_step(runtime) -> None:
    cat, me = runtime.holder.catalog, Caller("TCU", "U2", "C1")
    _seed(runtime, me.team_id, me.user_id, datetime(2026, 12, 6, 8, 0, tzinfo=UTC))
    reply = Handlers(runtime, users_info=lambda team, user: UserInfo()).command(me, "catch me up")
    text = _text(reply)
    assert f"Nothing new since 6 Dec 2026 in *{cat.track('pd').names.en}*" in text
    nxt = paths.next_step(cat, "pd", {"hybrid-ssm-disagg"})
    assert cat.post(nxt.post).title in text and "Your next step" in text


def test_a_reader_of_no_track_is_told_how_to_follow_one(runtime) -> None:
    reply = Handlers(runtime).command(Caller("TCU", "U3", "C1"), "catch me up")
    assert "nothing to catch up on" in reply.text


@pytest.mark.parametrize("locale", [None, "zh-CN"])
def test_the_four_phrasings_answer_alike_in_english_and_chinese(runtime, locale) -> None:
    me = Caller("TCU", "U4" if locale else "U5", "C1")
    _seed(runtime, me.team_id, me.user_id)
    h = Handlers(runtime, users_info=lambda team, user: UserInfo(locale=locale))
    en = [h.command(me, ask).blocks for ask in ASKS_EN]
    zh = [h.command(me, ask).blocks for ask in ASKS_ZH]
    assert en[0] == en[1] and zh[0] == zh[1]
    chinese = _text_of(zh[0])
    assert "你错过的内容" in chinese and "2026年8月1日以来" in chinese and "接续" in chinese
    assert not block_kit_problems(zh[0])
    if locale:  # a Chinese Slack: English words answer in Chinese too
        assert en[0] == zh[0]
    else:
        assert "What you missed" in _text_of(en[0])
    h.command(me, "lang zh")
    assert all(h.command(me, ask).blocks == zh[0] for ask in (*ASKS_EN, *ASKS_ZH))


def _text_of(blocks) -> str:
    return json.dumps(blocks, ensure_ascii=False)


def test_it_only_reads_so_a_remembered_person_gets_it_in_the_ack(runtime) -> None:
    from bot.slack.handlers import UserInfoCache

    me = Caller("TCU", "U6", "C1")
    _seed(runtime, me.team_id, me.user_id)
    calls: list[str] = []
    h = Handlers(runtime, users_info=UserInfoCache(lambda team, user: calls.append(user) or UserInfo()))
    assert h.answer_now(me, "catch me up") is None and not calls  # not remembered: after the ack
    later = h.command(me, "catch me up")
    now = h.answer_now(me, "catch me up")
    assert now is not None and now.payload() == later.payload() and calls == ["U6"]


def test_app_home_shows_the_newest_three_and_points_at_the_command(runtime) -> None:
    cat, me = runtime.holder.catalog, Caller("TCU", "U7", "C1")
    _seed(runtime, me.team_id, me.user_id)
    h = Handlers(runtime, users_info=lambda team, user: UserInfo())
    view = h.home(me, None)
    assert not block_kit_problems(view["blocks"], "home")
    text = _text_of(view["blocks"])
    assert "New since 1 Aug 2026" in text and "/vllm-path catch me up" in text
    listed = [b for b in view["blocks"] if "•" in json.dumps(b, ensure_ascii=False)]
    shown = h.command(me, "catch me up").blocks
    newest = [line for b in shown for line in b.get("text", {}).get("text", "").split("\n") if line.startswith("•")]
    assert len(newest) > 3 and all(line in text for line in newest[:3]) and newest[3] not in text
    assert listed and text.index("New since") < text.index(cat.track("pd").names.en)  # above the tracks
    quiet = Caller("TCU", "U8", "C1")
    _seed(runtime, quiet.team_id, quiet.user_id, datetime(2026, 12, 6, 8, 0, tzinfo=UTC))
    assert "New since" not in _text_of(h.home(quiet, None)["blocks"])  # nothing new: no section


def test_dm_catchup_on_and_off_are_stored_and_dm_says_where_it_stands(runtime) -> None:
    me, store = Caller("TCU", "U9", "C1"), runtime.store
    h = Handlers(runtime, users_info=lambda team, user: UserInfo())
    assert "Catch-up line in your weekly DM: off" in h.command(me, "dm").text  # the default
    assert "Catch-up line in your weekly DM: on" in h.command(me, "dm catchup on").text
    got = store.get_dm(me.team_id, me.user_id)
    assert got is not None and got.catchup and not got.enabled  # the DM itself stays off
    assert "Catch-up line in your weekly DM: on" in h.command(me, "dm").text
    h.command(me, "dm on monday 09:00 UTC")
    assert store.get_dm(me.team_id, me.user_id).catchup  # kept when the DM is turned on
    assert "Catch-up line in your weekly DM: off" in h.command(me, "dm catchup off").text
    assert not store.get_dm(me.team_id, me.user_id).catchup


def test_dm_catchup_in_chinese(runtime) -> None:
    me = Caller("TCU", "U10", "C1")
    h = Handlers(runtime, users_info=lambda team, user: UserInfo(locale="zh-CN"))
    assert "每周私信中的“跟上进度”：开启" in h.command(me, "私信 跟上进度 开").text
    assert runtime.store.get_dm(me.team_id, me.user_id).catchup
    assert "关闭" in h.command(me, "私信 跟上进度 关").text
    assert not runtime.store.get_dm(me.team_id, me.user_id).catchup
