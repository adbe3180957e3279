"""Which commands are answered in the slash command's ack (``Handlers.answer_now``): only those
that read, and only when nothing has to be asked of Slack first."""

from __future__ import annotations

import json

import pytest

from bot.slack import grammar
from bot.slack.commands import replies
from bot.slack.commands.context import NotCached
from bot.slack.commands.registry import COMMANDS
from bot.slack.handlers import (
    ANSWERED_IN_ACK,
    Caller,
    Handlers,
    UserInfo,
    UserInfoCache,
    no_users_info,
)

ALICE = Caller("T1", "U1", "C1")


class CountingFetch:
    """A ``users.info`` that counts its calls (a Web API call each)."""

    def __init__(self, locale: str | None = None) -> None:
        self.calls = 0
        self.locale = locale

    def __call__(self, team_id: str, user_id: str) -> UserInfo:
        self.calls += 1
        return UserInfo(locale=self.locale)


def test_only_reading_commands_go_in_the_ack():
    assert set(COMMANDS) >= ANSWERED_IN_ACK
    for kind in (
        "read",
        "unread",
        "follow",
        "unfollow",
        "subscribe",
        "unsubscribe",
        "dm",
        "lang",
        "remind",
        "reminders",
        "stats",
        "subscriptions",
    ):
        assert kind not in ANSWERED_IN_ACK


@pytest.mark.parametrize(
    "text",
    [
        "speculative",
        "search nixl",
        "next",
        "next pd",
        "help",
        "sepculative",
        "qaunt",
        "what's next?",
        "thanks",
        "hey, what's next?",
        "what's new?",
    ],
)
def test_a_reading_command_of_a_remembered_person_is_the_same_reply_as_after_the_ack(runtime, text):
    fetch = CountingFetch()
    h = Handlers(runtime, users_info=UserInfoCache(fetch))
    assert h.answer_now(ALICE, text) is None and fetch.calls == 0  # not remembered: no call made
    later = h.command(ALICE, text)
    assert fetch.calls == 1
    now = h.answer_now(ALICE, text)
    assert grammar.parse(text).kind in ANSWERED_IN_ACK
    assert now is not None and now.payload() == later.payload() and fetch.calls == 1


@pytest.mark.parametrize(
    "text",
    ["read eagle 3.1", "follow spec", "lang zh", "subscribe spec", "dm on", "remind eagle 3.1 tomorrow", "stats"],
)
def test_a_writing_or_slack_asking_command_is_never_answered_in_the_ack(runtime, text):
    fetch = CountingFetch()
    h = Handlers(runtime, users_info=UserInfoCache(fetch))
    h.command(ALICE, "help")  # remembered
    before = runtime.store.reader_state("T1", "U1")
    assert h.answer_now(ALICE, text) is None
    assert runtime.store.reader_state("T1", "U1") == before  # nothing written


def test_a_chosen_or_typed_language_needs_no_users_info(runtime):
    fetch = CountingFetch(locale="zh-CN")
    h = Handlers(runtime, users_info=UserInfoCache(fetch))
    zh = h.answer_now(ALICE, "推测解码")
    assert zh is not None and fetch.calls == 0
    runtime.store.set_lang("T1", "U2", "en")
    en = h.answer_now(Caller("T1", "U2", "C1"), "speculative")
    assert en is not None and "Read next" in en.text and fetch.calls == 0
    assert h.answer_now(Caller("T1", "U3", "C1"), "speculative") is None  # locale unknown yet


def test_a_look_up_of_unknown_kind_is_never_answered_in_the_ack_but_none_at_all_is(runtime):
    assert Handlers(runtime, users_info=lambda t, u: UserInfo()).answer_now(ALICE, "help") is None
    assert Handlers(runtime, users_info=no_users_info).answer_now(ALICE, "help") is not None


def test_the_cache_says_what_it_does_not_remember():
    fetch = CountingFetch()
    fresh = UserInfoCache(fetch)
    with pytest.raises(NotCached):
        fresh.cached("T1", "U1")
    fresh("T1", "U1")
    assert fresh.cached("T1", "U1") == UserInfo() and fetch.calls == 1
    expired = UserInfoCache(fetch, ttl=0.0)
    expired("T1", "U1")
    with pytest.raises(NotCached):
        expired.cached("T1", "U1")


def test_a_cut_command_says_so_in_the_ack_too(runtime):
    h = Handlers(runtime, users_info=no_users_info)
    long_text = "speculative " + "x" * (grammar.MAX_TEXT + 50)
    now = h.answer_now(ALICE, long_text)
    assert now is not None and now.payload() == h.command(ALICE, long_text).payload()
    assert now.blocks[0] != h.command(ALICE, "speculative").blocks[0]


def test_a_kept_search_reply_is_the_fresh_one_and_changes_with_what_was_read(runtime):
    """Search replies are kept per text, page, language and posts read (as a track's path):
    the kept reply is the one rendered afresh, and marking a result read gives a new one."""
    h = Handlers(runtime)
    first = h.command(ALICE, "nixl")
    assert first.payload() == replies.search_now(h.context(ALICE, typed="nixl"), "nixl", None, 0).payload()
    assert h.command(ALICE, "nixl") is first
    top = runtime.holder.loaded.matcher.search("nixl", limit=1).results[0].post_id
    h.command(ALICE, f"read {top}")
    after = h.command(ALICE, "nixl")
    assert after.payload() != first.payload()
    assert after.payload() == replies.search_now(h.context(ALICE, typed="nixl"), "nixl", None, 0).payload()
    assert h.command(Caller("T1", "U9", "C1"), "nixl") is first  # nothing read: the same reply


def test_thanks_gets_a_short_welcome_in_the_readers_language(runtime):
    h = Handlers(runtime)
    assert "welcome" in h.command(ALICE, "thanks!").text
    assert "不客气" in h.command(ALICE, "谢谢").text


def test_whats_new_lists_the_newest_posts_and_pages_through_them(runtime):
    """``what's new`` shows the newest posts, those with a link first and of those the vLLM blog's
    (issue 41), each newest first (a post known only to be after a day before it), and *More
    results* pages on through the same list, not a search for the words."""
    from bot.slack.views.search import MAX_RESULTS

    cat = runtime.holder.catalog
    h = Handlers(runtime)
    newest = sorted(
        cat.posts,
        key=lambda p: (
            p.url is not None,
            p.url is not None and p.source.kind == "vllm-blog",
            p.published.latest,
            p.published.earliest,
        ),
        reverse=True,
    )
    reply = h.command(ALICE, "what's new?")
    assert reply.text.startswith("Newest posts")
    titles = [p.title for p in newest[:MAX_RESULTS]]
    assert [line.removeprefix("• ") for line in reply.text.splitlines()[1:]] == titles
    more = next(
        e for b in reply.blocks for e in b.get("elements", []) if e.get("action_id", "").startswith("more_results")
    )
    page2 = h.action(ALICE, "more_results", json.loads(more["value"]))
    assert page2.text.splitlines()[1].removeprefix("• ") == newest[MAX_RESULTS].title
    assert "最新文章" in h.command(ALICE, "最新文章").text


def test_whats_new_for_a_follower_says_their_tracks_come_first(runtime):
    """(QA) A follower's list leads with their tracks' posts, so its heading says so; the list is
    the vLLM blog's posts of the followed track first, newest first."""
    cat = runtime.holder.catalog
    h = Handlers(runtime)
    h.command(ALICE, "follow spec")
    reply = h.command(ALICE, "what's new?")
    assert reply.text.startswith("Newest posts, the vLLM blog's in the tracks you follow first")
    first = reply.text.splitlines()[1].removeprefix("• ")
    post = next(p for p in cat.posts if p.title == first)
    assert "spec" in cat.tracks_of(post.id) and post.source.kind == "vllm-blog"
    assert h.command(ALICE, "最新文章").text.startswith("最新文章（vLLM 博客中你关注的主题排在前面）")


def test_whats_new_in_a_track_lists_that_tracks_posts_and_pages_within_it(runtime):
    """(QA) ``what's new in pd`` was a search whose words found "A New Course"; it lists the track's
    posts (the linked vLLM blog's first, newest first) and *More results* stays in the track."""
    cat = runtime.holder.catalog
    h = Handlers(runtime)
    reply = h.command(ALICE, "what's new in speculative decoding?")
    assert reply.text.startswith("Newest posts in Speculative decoding")
    titles = {cat.post(p).title: p for p in cat.order("spec")}
    shown = [line.removeprefix("• ") for line in reply.text.splitlines()[1:] if line.startswith("• ")]
    assert shown and all(title in titles for title in shown)
    dates = [cat.post(titles[title]).published.latest for title in shown]
    assert dates == sorted(dates, reverse=True)
    more = next(
        e for b in reply.blocks for e in b.get("elements", []) if e.get("action_id", "").startswith("more_results")
    )
    page2 = h.action(ALICE, "more_results", json.loads(more["value"]))
    second = [line.removeprefix("• ") for line in page2.text.splitlines()[1:] if line.startswith("• ")]
    assert second and all(title in titles for title in second) and not set(second) & set(shown)
    assert h.command(ALICE, "推测解码最新文章").text.startswith("推测解码的最新文章")
    assert "Newest posts in" not in h.command(ALICE, "what's new in sourdough baking").text
