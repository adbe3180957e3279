"""Fixes a QA tester asked for, through the real handlers, store and catalog: "what's new"
shows readable posts first, and the
track header's budget hint does not name the default as its example."""

from __future__ import annotations

import json
import re

from bot.domain.budget import DEFAULT_MINUTES, parse_minutes
from bot.slack.commands import replies
from bot.slack.handlers import Caller, Handlers, UserInfo

ALICE = Caller("T1", "U1", "C1")


def handlers(runtime, locale=None, announced=None):
    def announce(team, channel, text):
        (announced if announced is not None else []).append(str(text))

    return Handlers(runtime, users_info=lambda team, user: UserInfo(locale=locale), announce=announce)


def _shown(reply, catalog):
    """The ids of the posts a "what's new" page lists, in its order."""
    ids = re.findall(r"`([a-z0-9][a-z0-9.-]*)`", json.dumps(reply.blocks, ensure_ascii=False))
    known = {p.id for p in catalog.posts}
    return list(dict.fromkeys(i for i in ids if i in known))


def test_whats_new_lists_posts_with_a_link_first_newest_first(runtime):
    h = handlers(runtime)
    cat = runtime.holder.catalog
    ctx = h.context(ALICE)
    shown: list[str] = []
    total = len(cat.posts)
    for offset in range(0, total, 5):
        shown += _shown(replies.latest(ctx, offset=offset), cat)
    assert len(shown) == total
    linked = [cat.post(i).url is not None for i in shown]
    assert linked[0] and not linked[-1]  # the catalog has both
    assert linked == sorted(linked, reverse=True)  # every linked post before every unlinked one
    # issue 41: the vLLM blog's posts before other companies' (the first screen was all summaries)
    blog = [cat.post(i).source.kind == "vllm-blog" for i in shown if cat.post(i).url is not None]
    assert blog[0] and not blog[-1] and blog == sorted(blog, reverse=True)
    for part in (True, False):
        dates = [
            cat.post(i).published.latest
            for i in shown
            if cat.post(i).url is not None and (cat.post(i).source.kind == "vllm-blog") == part
        ]
        assert dates == sorted(dates, reverse=True)
    assert _shown(h.command(ALICE, "what's new"), cat) == shown[:5]


def test_whats_new_leads_with_the_vllm_blog_posts_of_the_tracks_a_reader_follows(runtime):
    """Issue 41: ``what's new`` is the reader's: the vLLM blog's posts of the tracks they follow
    first (newest first), then the blog's others; a reader following nothing gets the blog's newest."""
    h, cat = handlers(runtime), runtime.holder.catalog
    before = _shown(h.command(ALICE, "what's new"), cat)
    assert before and all(cat.post(i).source.kind == "vllm-blog" for i in before)
    track = next(tr.id for tr in cat.tracks if not set(cat.order(tr.id)) & set(before))
    h.command(ALICE, f"follow {track}")
    assert runtime.store.follows("T1", "U1") == [track]
    mine = [
        p
        for p in sorted(
            (cat.post(i) for i in cat.order(track)),
            key=lambda p: (p.published.latest, p.published.earliest),
            reverse=True,
        )
        if p.url is not None and p.source.kind == "vllm-blog"
    ]
    after = _shown(h.command(ALICE, "what's new"), cat)
    assert after == [p.id for p in mine[: len(after)]] and len(after) == min(5, len(mine))
    assert not set(after) & set(before)  # the list changed with what the reader follows


def test_the_track_header_hint_does_not_offer_the_default_as_the_example(runtime):
    for text, hint in (
        ("speculative", r"the default; set yours with `plan (\w+)`"),
        ("推测解码", r"默认值；用 `计划 (\w+)`"),  # the form the Chinese help teaches
    ):
        found = re.search(hint, json.dumps(handlers(runtime).command(ALICE, text).blocks, ensure_ascii=False))
        assert found, text
        assert parse_minutes(found.group(1)) not in (None, DEFAULT_MINUTES)


def test_turning_a_channel_digest_into_a_reading_club_and_back_is_announced_in_the_channel(runtime):
    """QA: ``subscribe spec club`` and ``subscribe spec no club`` changed the channel's digest with
    only a private reply; every change of a channel's digest is announced there in one line."""
    announced: list[str] = []
    h = handlers(runtime, announced=announced)
    h.command(ALICE, "subscribe spec monday 09:00 UTC")
    assert len(announced) == 1 and "subscribed this channel" in announced[0]
    h.command(ALICE, "subscribe spec monday 09:00 UTC club")
    assert len(announced) == 2 and "reading club" in announced[1] and "moved" not in announced[1]
    h.command(ALICE, "subscribe spec monday 09:00 UTC club")  # no change: nothing said
    assert len(announced) == 2
    h.command(ALICE, "subscribe spec no club")
    assert len(announced) == 3 and "turned the reading club" in announced[2]
    h.command(ALICE, "subscribe spec tuesday 09:00 UTC club")  # two changes: one line with both
    assert len(announced) == 4 and "moved" in announced[3] and "now a reading club" in announced[3]
