"""Digest composition: pure functions over the real catalog (and variants of it built in memory)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.domain.plan import plan_reader_week
from bot.domain.schedule import period_of
from bot.slack.mrkdwn import esc
from bot.slack.views.blocks import decode_value
from bot.slack.views.digest import ChannelDigest, compose_channel_digest, preview_subscription
from bot.slack.views.digest_render import RENDERER
from bot.slack.views.plan_dm import MAX_DM_STEPS, BudgetDmComposer
from tests.standin.blockkit import validate_blocks


def _sub(track: str, k: int = 1, cursor: int = 0, version: str | None = None, id: int = 7):
    return replace(preview_subscription(track, k, cursor, id), last_catalog_version=version)


def _walk_to_end(catalog: Catalog, track: str, k: int, lang: str = "en") -> list[ChannelDigest]:
    """Every digest a channel gets from subscribing to the end of the path (and one more)."""
    sub = _sub(track, k)
    out = []
    for _ in range(40):
        digest = compose_channel_digest(catalog, sub, None, lang)
        out.append(digest)
        if digest.reply is None:
            break
        sub = replace(sub, cursor=digest.cursor, last_catalog_version=digest.version)
    return out


def _buttons(blocks):
    out = []
    for b in blocks:
        if b.get("accessory", {}).get("type") == "button":
            out.append(b["accessory"])
        if b["type"] == "actions":
            out.extend(b["elements"])
    return out


def _shown(title: str) -> str:
    """A title as a digest shows it (escaped for mrkdwn, ``|`` kept out of link syntax)."""
    return esc(title).replace("|", "¦")


def _all_text(reply) -> str:
    return reply.text + json.dumps(reply.blocks, ensure_ascii=False)


def variant(
    catalog: Catalog,
    version: str,
    *,
    drop: dict[str, list[str]] | None = None,
    retitle: dict[str, str] | None = None,
    aliases: dict[str, tuple[str, ...]] | None = None,
    rename: dict[str, str] | None = None,
) -> Catalog:
    """A copy of ``catalog`` as version ``version`` with steps dropped from tracks, posts
    retitled, aliases added or post ids renamed (the old id kept as an alias)."""
    drop, retitle, aliases, rename = drop or {}, retitle or {}, aliases or {}, rename or {}
    posts = []
    for p in catalog.posts:
        update = {}
        if p.id in retitle:
            update["title"] = retitle[p.id]
        if p.id in aliases:
            update["aliases"] = aliases[p.id]
        if p.id in rename:
            update["id"] = rename[p.id]
            update["aliases"] = (*p.aliases, p.id)
        posts.append(p.model_copy(update=update))
    new_id = lambda pid: rename.get(pid, pid)  # noqa: E731
    tracks = []
    for tr in catalog.tracks:
        gone = set(drop.get(tr.id, []))
        steps = []
        for s in tr.steps:
            if s.post in gone:
                continue
            steps.append(
                s.model_copy(
                    update={"post": new_id(s.post), "after": tuple(new_id(a) for a in s.after if a not in gone)}
                )
            )
        tracks.append(tr.model_copy(update={"steps": tuple(steps)}))
    by_id = {p.id: p for p in posts}
    orders = {tr.id: paths.compute_order(tr, by_id) for tr in tracks}
    manifest = catalog.manifest.model_copy(update={"version": version})
    return Catalog.build(manifest=manifest, posts=posts, tracks=tracks, orders=orders)


# --- channel digests -----------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_channel_walks_every_step_of_every_track_once_in_path_order(catalog: Catalog, k: int) -> None:
    for track in catalog.tracks:
        digests = _walk_to_end(catalog, track.id, k)
        walked = [p for d in digests for p in d.steps]
        # QA round 8: a step without a link is passed over (it comes once linked), never sent alone
        order, end = catalog.order(track.id), digests[-1].cursor
        linked = [p for p in order[:end] if catalog.post(p).url is not None]
        assert walked == linked, track.id
        if end < len(order):  # what is left waits for a link: a step without one, or one read after it
            unlinked = {p for p in order if catalog.post(p).url is None}
            assert order[end] in unlinked or set(catalog.step(track.id, order[end]).after) & unlinked
        sent = [d for d in digests if d.reply is not None]
        assert all(1 <= len(d.steps) <= k for d in sent)
        assert len(sent) == -(-len(linked) // k)  # ceil: weeks to the end
        assert digests[-1].reply is None  # after the end: nothing to say
        assert digests[-1].done or end < len(order)
        for d in sent:
            validate_blocks(d.reply.blocks)
            assert d.reply.text and d.reply.response_type == "in_channel"


def test_the_first_digest_introduces_the_path_and_later_ones_do_not(catalog: Catalog) -> None:
    first, second = _walk_to_end(catalog, "spec", 1)[:2]
    steps = len(catalog.order("spec"))
    assert f"reads the *Speculative decoding* path together: {steps} steps, 1 a week" in _all_text(first.reply)
    assert "path together" not in _all_text(second.reply)


def test_each_step_carries_its_note_prerequisites_and_position(catalog: Catalog) -> None:
    digests = _walk_to_end(catalog, "spec", 1)
    order = catalog.order("spec")
    for d in (d for d in digests if d.reply):
        post = d.steps[0]
        step = catalog.step("spec", post)
        text = _all_text(d.reply)
        assert f"step {order.index(post) + 1} of {len(order)}" in text
        assert _shown(catalog.post(post).title) in text
        assert catalog.post(post).url is not None  # QA round 8: a step without a link waits for it
        if step.note:
            assert esc(step.note.en[:60]) in text
        for before in paths.read_before(catalog, "spec", post):
            assert "Read first:" in text and _shown(catalog.post(before.post).title) in text


def test_read_first_leaves_out_the_posts_listed_above_it_in_the_same_digest(catalog: Catalog) -> None:
    """(QA) Several steps in one digest: every step's *Read first* named the step right above it. A
    prerequisite listed above is left out; one from an earlier week's digest is still named."""
    order = catalog.order("spec")
    first = compose_channel_digest(catalog, _sub("spec", 7), None)
    assert len(first.steps) >= 3
    for i, block in enumerate(b for b in first.reply.blocks if b.get("accessory", {}).get("type") == "button"):
        text = block["text"]["text"]
        for above in first.steps[:i]:
            assert not any(
                line.startswith("Read first:") and _shown(catalog.post(above).title) in line
                for line in text.splitlines()
            ), (first.steps[i], above)
    later = compose_channel_digest(catalog, _sub("spec", 1, cursor=order.index("eagle-3-1")), None)
    before = [s.post for s in paths.read_before(catalog, "spec", "eagle-3-1")]
    assert later.steps == ("eagle-3-1",) and before
    assert "Read first:" in _all_text(later.reply)
    assert all(_shown(catalog.post(p).title) in _all_text(later.reply) for p in before)


def test_the_digest_that_finishes_the_path_says_so_once(catalog: Catalog) -> None:
    digests = [d for d in _walk_to_end(catalog, "rl", 3) if d.reply]
    closing = [d for d in digests if "That was the last step" in _all_text(d.reply)]
    waiting = [p for p in catalog.order("rl") if catalog.post(p).url is None]
    if waiting:  # QA round 8: not the last step while some wait for a link; the last digest says so
        assert not closing and f"{len(waiting)} step" in _all_text(digests[-1].reply)
        return
    assert closing == [digests[-1]] and closing[0].done
    assert "all 8 steps of *Reinforcement learning*" in _all_text(
        closing[0].reply
    ) or f"all {len(catalog.order('rl'))} steps" in _all_text(closing[0].reply)


def test_buttons_are_mark_read_follow_snooze_stop_with_the_digest_view(catalog: Catalog) -> None:
    digest = compose_channel_digest(catalog, _sub("pd", 2, id=42))
    buttons = _buttons(digest.reply.blocks)
    kinds = [b["action_id"].split(":")[0] for b in buttons]
    assert kinds == ["mark_read", "mark_read", "follow", "snooze", "stop"]
    assert len({b["action_id"] for b in buttons}) == len(buttons)
    for b in buttons:
        data = decode_value(b["value"])
        assert data["v"] == "digest:42"
    assert [decode_value(b["value"])["p"] for b in buttons[:2]] == list(digest.steps)
    assert decode_value(buttons[2]["value"])["t"] == "pd"
    assert buttons[4]["confirm"]["style"] == "danger"  # Stop asks first: it stops it for everyone


def test_zh_digest_uses_chinese_notes_on_bilingual_tracks(catalog: Catalog) -> None:
    digest = compose_channel_digest(catalog, _sub("spec"), None, "zh")
    step = catalog.step("spec", digest.steps[0])
    assert step.note.zh[:20] in _all_text(digest.reply)
    assert "推测解码" in digest.reply.blocks[0]["text"]["text"]
    validate_blocks(digest.reply.blocks)


def test_catalog_text_is_escaped_and_nothing_mentions_anyone(catalog: Catalog) -> None:
    first = catalog.order("spec")[0]
    evil = variant(catalog, "2099.01.0", retitle={first: "Hi <!channel> & <@U123> <#C1|x> <!here>"})
    digest = compose_channel_digest(evil, _sub("spec"))
    text = _all_text(digest.reply)
    for live in ("<!channel>", "<!here>", "<@U123>", "<#C1"):
        assert live not in text
    assert "&lt;!channel&gt; &amp; &lt;@U123&gt;" in text
    dm = RENDERER.dm_digest(evil, ["spec"], set(), "en")
    assert "<!channel>" not in _all_text(dm) and "&lt;!channel&gt;" in _all_text(dm)


def test_additions_of_a_new_catalog_version_are_announced_once(catalog: Catalog) -> None:
    order = list(catalog.order("spec"))
    behind, ahead = order[1], order[-1]  # the channel is 4 steps in
    old = variant(catalog, "2026.01.0", drop={"spec": [behind, ahead]})
    old_order = list(old.order("spec"))
    snapshot = {"spec": old_order}
    sub = _sub("spec", 1, cursor=4, version="2026.01.0")
    digest = compose_channel_digest(catalog, sub, snapshot)
    text = _all_text(digest.reply)
    # issue 41: the post behind the channel is named once; the one ahead comes in order, unnamed
    assert f"New in {catalog.track('spec').names.en}: " in text and "(step 2)" in text
    assert _shown(catalog.post(behind).title) in text
    assert _shown(catalog.post(ahead).title) not in text
    assert set(digest.added) == {behind, ahead}
    # The week's step is the one after the four the channel had: old_order[4] (order shifted).
    assert digest.steps == (old_order[4],)
    assert digest.cursor == order.index(old_order[4]) + 1 and digest.version == catalog.version
    # Next week, on the current version: no more announcements, the walk goes on.
    nxt = compose_channel_digest(
        catalog, replace(sub, cursor=digest.cursor, last_catalog_version=digest.version), snapshot
    )
    assert "New in" not in _all_text(nxt.reply)
    assert nxt.steps == (order[digest.cursor],)
    validate_blocks(digest.reply.blocks)


def test_after_the_end_only_additions_are_announced(catalog: Catalog) -> None:
    order = list(catalog.order("rl"))
    old = variant(catalog, "2026.01.0", drop={"rl": [order[-1]]})
    done = _sub("rl", 1, cursor=len(order) - 1, version="2026.01.0")
    # Nothing new: nothing to post.
    same = compose_channel_digest(old, replace(done, last_catalog_version=old.version))
    assert same.reply is None and same.done
    # The current version adds the last step: it comes as this week's step, marked new, and the
    # path is done again.
    digest = compose_channel_digest(catalog, done, {"rl": list(old.order("rl"))})
    assert digest.steps == (order[-1],) and digest.done
    assert f"new in catalog {catalog.version}" in _all_text(digest.reply)


def test_a_renamed_post_keeps_the_channels_place(catalog: Catalog) -> None:
    order = list(catalog.order("pd"))
    renamed = variant(catalog, "2099.01.0", rename={order[1]: order[1] + "-v2"})
    sub = _sub("pd", 1, cursor=2, version=catalog.version)
    digest = compose_channel_digest(renamed, sub, {"pd": order})
    assert digest.steps == (order[2],) and not digest.added
    assert "New in" not in _all_text(digest.reply)


def test_removed_steps_do_not_stall_or_repeat_the_walk(catalog: Catalog) -> None:
    order = list(catalog.order("quant"))
    smaller = variant(catalog, "2099.01.0", drop={"quant": [order[0], order[1]]})
    sub = _sub("quant", 1, cursor=3, version=catalog.version)
    digest = compose_channel_digest(smaller, sub, {"quant": order})
    assert digest.steps == (order[3],)
    assert digest.cursor == list(smaller.order("quant")).index(order[3]) + 1


def test_unknown_track_raises_keyerror(catalog: Catalog) -> None:
    with pytest.raises(KeyError):
        compose_channel_digest(catalog, _sub("no-such-track"))


def test_period_is_the_iso_week_of_the_local_fire_time() -> None:
    from datetime import UTC, datetime

    sunday_late_utc = datetime(2026, 12, 6, 23, 30, tzinfo=UTC)  # Monday 08:30 in Tokyo
    assert period_of(sunday_late_utc, "UTC") == "2026-W49"
    assert period_of(sunday_late_utc, "Asia/Tokyo") == "2026-W50"
    assert period_of(datetime(2027, 1, 1, 12, tzinfo=UTC), "UTC") == "2026-W53"


# --- DM digests -----------------------------------------------------------------------------------


def test_dm_lists_the_planned_steps_of_the_followed_tracks(catalog: Catalog) -> None:
    spec, pd = catalog.order("spec"), catalog.order("pd")
    read = {spec[0], spec[1], pd[0]}
    reply = RENDERER.dm_digest(catalog, ["spec", "pd", "no-such-track"], read, "en", 600)
    assert reply is not None
    validate_blocks(reply.blocks)
    marks = [b for b in _buttons(reply.blocks) if b["action_id"].startswith("mark_read")]
    week = plan_reader_week(catalog, ["spec", "pd"], read, 600)[:MAX_DM_STEPS]
    assert [(decode_value(b["value"])["t"], decode_value(b["value"])["p"]) for b in marks] == list(week)
    assert {t for t, _p in week} == {"spec", "pd"}
    assert all(decode_value(b["value"])["v"] == "digest-dm" for b in _buttons(reply.blocks))
    kinds = [b["action_id"].split(":")[0] for b in _buttons(reply.blocks)]
    assert kinds == ["mark_read"] * len(week) + ["snooze", "stop"]


def test_dm_skips_finished_tracks_and_is_none_when_nothing_is_left(catalog: Catalog) -> None:
    rl = set(catalog.order("rl"))
    reply = RENDERER.dm_digest(catalog, ["rl", "pd"], rl, "en")
    assert reply is not None
    assert {decode_value(b["value"]).get("t") for b in _buttons(reply.blocks)} <= {"pd", None}
    assert RENDERER.dm_digest(catalog, ["rl"], rl, "en") is None
    assert RENDERER.dm_digest(catalog, [], set(), "en") is None


def test_dm_cache_gives_the_same_message_as_a_fresh_composer(catalog: Catalog) -> None:
    import random

    rng = random.Random(5)
    tracks = [t.id for t in catalog.tracks]
    posts = [p.id for p in catalog.posts] + [a for p in catalog.posts for a in p.aliases]
    shared = BudgetDmComposer(catalog, "zh")
    for _ in range(300):
        follows = rng.sample(tracks, rng.randint(1, len(tracks)))
        read = set(rng.sample(posts, rng.randint(0, len(posts))))
        minutes = rng.choice((5, 30, 45, 120, 600))
        a = shared.compose(follows, read, minutes)
        b = BudgetDmComposer(catalog, "zh").compose(follows, read, minutes)
        assert (a is None and b is None) or (a.text == b.text and a.blocks == b.blocks)
        if a is not None:
            validate_blocks(a.blocks)


def test_dm_following_every_track_fits_in_one_message(catalog: Catalog) -> None:
    reply = RENDERER.dm_digest(catalog, [t.id for t in catalog.tracks], set(), "zh", 10_000)
    validate_blocks(reply.blocks)
    assert len(reply.text) <= 3000


def test_dm_counts_a_former_post_id_as_read(catalog: Catalog) -> None:
    order = list(catalog.order("pd"))
    renamed = variant(catalog, "2099.01.0", rename={order[0]: order[0] + "-v2"})
    by_old = RENDERER.dm_digest(renamed, ["pd"], {order[0]}, "en")  # progress recorded under the old id
    by_new = RENDERER.dm_digest(renamed, ["pd"], {order[0] + "-v2"}, "en")
    assert by_old.blocks == by_new.blocks
    shown = {decode_value(b["value"]).get("p") for b in _buttons(by_old.blocks)}
    assert shown and not shown & {order[0], order[0] + "-v2"}


def test_a_dm_names_a_new_post_once_when_the_catch_up_lists_it(catalog: Catalog) -> None:
    """(QA) A post new in a followed path was named by the DM's "New in" line and again by its
    catch-up section. The catch-up's line (with its place in the path) is kept, the other dropped;
    a new post the catch-up does not list keeps its "New in" line."""
    from datetime import UTC, datetime

    from bot.domain.catchup import catch_up

    cu = catch_up(catalog, ["spec"], set(), datetime(2000, 1, 1, tzinfo=UTC))
    listed = cu.new[0]
    unlisted = next(p for p in catalog.order("pd") if p not in {n.step.post_id for n in cu.new})
    order = list(catalog.order("spec"))
    new = [("spec", listed.step.post_id, order.index(listed.step.post_id) + 1), ("pd", unlisted, 1)]
    reply = RENDERER.dm_digest(catalog, ["spec"], set(), "en", None, new, cu)
    validate_blocks(reply.blocks)
    new_lines = [b for b in reply.blocks if "New in" in json.dumps(b)]
    assert len(new_lines) == 1
    assert _shown(catalog.post(unlisted).title) in json.dumps(new_lines[0], ensure_ascii=False)
    assert _shown(catalog.post(listed.step.post_id).title) not in json.dumps(new_lines[0], ensure_ascii=False)
