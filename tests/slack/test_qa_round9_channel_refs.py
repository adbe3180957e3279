"""QA round 9: a ``#name`` typed in a command that acts only where it is typed. The channel the
command is typed in, named as Slack sends it with ``should_escape: false`` (``#general``), is that
channel, not another; ``#spec`` in a track command with no other track named is the track."""

from __future__ import annotations

from bot.slack.handlers import Caller, Handlers, UserInfo

HERE = Caller("T1", "U1", "C1", channel_name="general")


def _handlers(runtime) -> Handlers:
    return Handlers(runtime, users_info=lambda team, user: UserInfo(tz="Europe/Berlin"))


def test_the_channel_typed_in_named_with_a_hash_is_not_refused(runtime):
    h = _handlers(runtime)
    for text in ("subscriptions #general", "subscriptions #General"):
        reply = h.command(HERE, text).text
        assert "Run this in" not in reply and "nothing was changed" not in reply, reply
    refused = h.command(HERE, "subscriptions #random").text
    assert "Run this in #random itself" in refused  # another channel is still refused


def test_a_track_typed_with_a_hash_is_the_track(runtime):
    h = _handlers(runtime)
    assert "You now follow Speculative decoding" in h.command(HERE, "follow #spec").text
    assert runtime.store.follows("T1", "U1") == ["spec"]
    assert "You no longer follow" in h.command(HERE, "unfollow #spec").text
    assert runtime.store.follows("T1", "U1") == []
    refused = h.command(HERE, "follow #banana").text  # no track: a channel named, refused as before
    assert "Following is per person" in refused and runtime.store.follows("T1", "U1") == []


def test_a_data_question_asked_with_how_do_i_gets_the_data_answer(runtime):
    """QA round 9: "how do I delete my data" and 如何删除我的数据 fell to search ("No post matches")."""
    h = _handlers(runtime)
    plain = h.command(HERE, "delete my data").text
    for text in ("how do I delete my data", "how can I delete my data?", "如何删除我的数据", "怎么删除我的数据"):
        reply = h.command(HERE, text).text
        assert "No post" not in reply and "没有" not in reply[:20], (text, reply)
        if text.isascii():
            assert reply == plain, (text, reply)


def test_direction_marks_and_embeddings_are_dropped():
    """QA round 9: U+200E/U+200F before ``next``, U+202E before ``follow spec``, were searched."""
    from bot.slack import grammar

    for text in ("\u200e\u200ffollow spec", "\u202efollow spec", "\u2066follow spec\u2069", "follow\u2060 spec"):
        parsed = grammar.parse(text)
        assert (parsed.kind, parsed.arg) == ("follow", "spec"), (text, parsed)
    assert grammar.parse("\u200e\u200fnext").kind == "next"


def test_a_search_whose_words_are_all_known_but_find_nothing_points_at_no_search_of_itself(runtime):
    """QA round 9: ``fine tune llama`` answered "`/vllm-path search fine tune llama` lists the posts
    on *fine tune llama* alone", pointing at itself."""
    reply = _handlers(runtime).command(HERE, "fine tune llama").text
    assert "No post matches" in reply and "search fine tune llama" not in reply, reply


def test_chinese_numbers_past_twenty_and_hours_with_a_half_are_read():
    """QA round 9: 十二分钟, 一百分钟, 两百分钟, 十一小时 and 一小时半 were "无法读成每周分钟数"."""
    from bot.slack.grammar_refs import zh_minutes

    said = {
        w: zh_minutes(w) for w in ("十二分钟", "二十五分钟", "每周一百分钟", "两百分钟", "每周十一小时", "一小时半")
    }
    assert said == {
        "十二分钟": 12,
        "二十五分钟": 25,
        "每周一百分钟": 100,
        "两百分钟": 200,
        "每周十一小时": 660,
        "一小时半": 90,
    }
    assert zh_minutes("一百零五分钟") == 105 and zh_minutes("两小时半") == 150


def test_a_chinese_plan_of_eleven_hours_is_out_of_range_not_unread(runtime):
    h = _handlers(runtime)
    assert "660" in h.command(HERE, "计划 每周十一小时").text
    assert runtime.store.get_budget("T1", "U1") is None
    h.command(HERE, "计划 每周一百分钟")
    assert runtime.store.get_budget("T1", "U1") == 100


def test_a_channel_named_without_its_hash_after_to_is_refused_like_one_with_it(runtime):
    """QA round 9: ``subscribe spec to general`` set up the channel typed in and said "“to general”
    is not a track"."""
    h = Handlers(runtime, users_info=lambda team, user: UserInfo(tz="Europe/Berlin"))
    elsewhere = Caller("T1", "U1", "C1", channel_name="random")
    for text in ("subscribe spec to general", "subscribe spec pd to the general"):
        reply = h.command(elsewhere, text).text
        assert "Run this in #general itself" in reply and "not a track" not in reply, reply
    assert runtime.store.subscriptions("T1") == []
