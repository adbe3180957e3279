"""The "catch me up" logic over the repo's catalog (pure): the posts that entered the catalog since a day, in
a reader's followed and started tracks, with their place and the relation they carry."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.domain import paths
from bot.domain.catalog import load_catalog
from bot.domain.catchup import MAX_NEW, catch_up, reader_tracks
from tests.evaldata import REPO

CATALOG = load_catalog(REPO / "catalog")
SINCE = datetime(2026, 8, 1, 9, 30, tzinfo=UTC)


def _expected(track_ids: list[str], read: set[str]) -> set[str]:
    day = SINCE.date()
    return {
        pid for tid in track_ids for pid in CATALOG.order(tid) if CATALOG.post(pid).entered >= day and pid not in read
    }


def test_new_posts_are_those_entered_since_the_day_in_followed_and_started_tracks_unread() -> None:
    read = {"hybrid-ssm-disagg", "decode-context-parallelism", "p-eagle"}  # p-eagle: spec is started
    cu = catch_up(CATALOG, ["pd"], read, SINCE)
    started = [t.id for t in CATALOG.tracks if t.id != "pd" and read & set(paths.essentials(CATALOG, t.id))]
    assert cu.tracks == ("pd", *started) and "spec" in started and cu.since == SINCE.date()
    # a post read as another track's further reading starts no track (one rule with `next`, session 11)
    further = [t.id for t in CATALOG.tracks if t.id not in ("pd", *started) and read & set(CATALOG.order(t.id))]
    assert further and not set(further) & set(cu.tracks[1:]), further
    listed = {n.step.post_id for n in cu.new}
    assert listed == _expected(["pd", *started], read) and cu.more == 0
    assert "decode-context-parallelism" not in listed  # new, but read
    dates = [n.step.post.entered for n in cu.new]
    assert dates == sorted(dates, reverse=True)
    assert len(listed) == len(cu.new)  # a post of both tracks is listed once


def test_a_post_that_revisits_a_step_of_the_path_says_which() -> None:
    cu = catch_up(CATALOG, ["pd"], {"hybrid-ssm-disagg"}, SINCE)
    qwen = next(n for n in cu.new if n.step.post_id == "qwen35-25k-tps")
    assert qwen.track_id == "pd" and qwen.relation is not None and qwen.relation.kind == "follows"
    assert qwen.revisits is not None and qwen.revisits.post_id == "hybrid-ssm-disagg"
    assert qwen.revisits.number == paths.track_path(CATALOG, "pd").step("hybrid-ssm-disagg").number
    plain = next(n for n in cu.new if n.relation is None)
    assert plain.revisits is None


def test_the_next_step_is_the_first_tracks_and_nothing_is_new_since_today() -> None:
    today = datetime(2026, 12, 6, 8, 0, tzinfo=UTC)
    cu = catch_up(CATALOG, ["spec", "pd"], set(), today)
    assert cu.new == () and cu.next is not None and cu.next.track_id == "spec"
    assert cu.next.next is not None and cu.next.next.post_id == paths.next_step(CATALOG, "spec", ()).post


def test_no_reading_day_or_no_track_finds_nothing() -> None:
    assert catch_up(CATALOG, ["spec"], set(), None).new == ()
    nothing = catch_up(CATALOG, [], set(), SINCE)
    assert nothing.tracks == () and nothing.new == () and nothing.next is None
    assert reader_tracks(CATALOG, ["no-such-track", "quant"], {"spec-decode"}) == ("quant", "spec")


def test_a_reader_back_after_a_long_time_gets_the_newest_few() -> None:
    every = [t.id for t in CATALOG.tracks]
    cu = catch_up(CATALOG, every, set(), datetime(2020, 1, 1, tzinfo=UTC))
    assert len(cu.new) == MAX_NEW and cu.more == len(CATALOG.posts) - MAX_NEW
