"""Issue 40, bot.domain.course and the picture's marks: a track's weeks at a budget are the weekly
DM's rule applied week after week (every step once; the essential path in the weeks the Slack
``plan`` reply states), the tracks' suggested order (a track after its ``before``, the gentler
first), titles cut at a word boundary, the next step marked and each box linking to its post."""

from __future__ import annotations

import re

import pytest

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain import paths
from bot.domain.budget import DEFAULT_MINUTES, step_cost, weeks_to_finish
from bot.domain.catalog import load_catalog
from bot.domain.catalog.models import LEVELS, Step, Track
from bot.domain.course import course_plan, level_range, suggested_order
from bot.domain.picture import MAX_TITLE, cut_title, path_graph
from bot.domain.plan import plan_reader_week
from tests.domain.test_paths import _post, _track, build

CATALOG = load_catalog(DEFAULT_CATALOG_DIR)
TRACKS = [t.id for t in CATALOG.tracks]


@pytest.mark.parametrize("track_id", TRACKS)
@pytest.mark.parametrize("budget", [DEFAULT_MINUTES, 20, 120])
def test_the_weeks_take_every_step_once_and_follow_the_weekly_rule(track_id: str, budget: int) -> None:
    plan = course_plan(CATALOG, track_id, budget)
    path = paths.track_path(CATALOG, track_id)
    taken = [s.post_id for w in plan.weeks for s in w.steps]
    assert sorted(taken) == sorted(s.post_id for s in path.steps) and len(taken) == len(set(taken))
    assert [w.number for w in plan.weeks] == list(range(1, len(plan.weeks) + 1))
    for w in plan.weeks:  # a week holds more than one step only while they fit the budget
        assert len(w.steps) == 1 or sum(step_cost(s.post.minutes) for s in w.steps) <= budget, w.number
    first = [pid for _tid, pid in plan_reader_week(CATALOG, [track_id], [], budget)]
    assert [s.post_id for s in plan.weeks[0].steps] == first
    # the essential path ends in the week the Slack plan reply says it does
    assert len(plan.essential_weeks) == weeks_to_finish([s.post.minutes for s in path.essentials], budget)
    assert all(not w.essential for w in plan.further_weeks)
    assert plan.essential_weeks + plan.further_weeks == plan.weeks


def test_a_weeks_minutes_are_its_steps_known_minutes() -> None:
    for w in course_plan(CATALOG, "spec").weeks:
        assert w.minutes == sum(s.post.minutes or 0 for s in w.steps)
        assert w.counted == all(s.post.minutes_source == "counted" for s in w.steps)


def test_the_suggested_order_puts_a_track_after_the_tracks_it_builds_on() -> None:
    order = suggested_order(CATALOG)
    assert sorted(order) == sorted(TRACKS)
    for i, tid in enumerate(order):
        assert all(order.index(b) < i for b in CATALOG.track(tid).before if CATALOG.has_track(b)), tid
    assert not CATALOG.track(order[0]).before


def _leveled(tid: str, levels: list[str], before: tuple[str, ...] = ()) -> Track:
    steps = [Step(post=f"{tid}{i}", level=lv, essential=True) for i, lv in enumerate(levels)]
    return _track(tid, steps).model_copy(update={"before": before})


def test_the_gentler_track_comes_first_and_a_cycle_does_not_lose_a_track() -> None:
    tracks = [
        _leveled("deep", ["intro", "capstone"]),
        _leveled("easy", ["intro", "core"]),
        _leveled("next", ["intro"], before=("deep",)),
        _leveled("loop-a", ["intro"], before=("loop-b",)),
        _leveled("loop-b", ["intro"], before=("loop-a",)),
    ]
    posts = [_post(s.post, 1 + i) for t in tracks for i, s in enumerate(t.steps)]
    catalog = build(posts, tracks)
    assert suggested_order(catalog) == ("easy", "deep", "next", "loop-a", "loop-b")
    assert level_range(paths.track_path(catalog, "deep")) == ("intro", "capstone")
    assert level_range(paths.track_path(catalog, "next")) == ("intro", "intro")


@pytest.mark.parametrize("track_id", TRACKS)
def test_level_range_is_the_essential_steps_lowest_and_highest(track_id: str) -> None:
    ess = set(paths.essentials(CATALOG, track_id))
    ranks = sorted(LEVELS.index(s.level) for s in CATALOG.track(track_id).steps if s.post in ess)
    assert level_range(paths.track_path(CATALOG, track_id)) == (LEVELS[ranks[0]], LEVELS[ranks[-1]])


@pytest.mark.parametrize("title", sorted({p.title for p in CATALOG.posts}))
def test_a_title_is_cut_at_a_word_boundary(title: str) -> None:
    cut = cut_title(title)
    if len(title) <= MAX_TITLE:
        assert cut == title
        return
    assert len(cut) <= MAX_TITLE and cut.endswith("…")
    kept = cut.removesuffix("…")
    assert title.startswith(kept) and kept
    assert title[len(kept)] in " ,;:-–—(/" or not re.search(r"\w", title[len(kept)]), (title, cut)


def test_a_title_without_spaces_is_cut_where_it_must() -> None:
    assert cut_title("推" * 60) == "推" * (MAX_TITLE - 1) + "…"
    assert cut_title("word " * 20, 12) == "word word…"
    assert cut_title("abcdefghijkl mnop", 12) == "abcdefghijk…"  # no space in the second half


def test_the_next_step_is_marked_and_every_box_links_to_its_post() -> None:
    ess = paths.essentials(CATALOG, "spec")
    anonymous = path_graph(CATALOG, "spec")
    assert [n.id for n in anonymous.nodes if n.next] == [ess[0]]
    reader = path_graph(CATALOG, "spec", read=[ess[0]])
    step = paths.next_step(CATALOG, "spec", [ess[0]])
    assert step is not None and [n.id for n in reader.nodes if n.next] == [step.post] != [ess[0]]
    for node in anonymous.nodes:
        if node.kind != "track":
            assert node.url == CATALOG.post(node.id).read_link(CATALOG.manifest)[0]
            assert node.tooltip == CATALOG.post(node.id).title


def test_the_svg_boxes_are_links() -> None:
    import shutil

    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    from bot.pictures import render

    svg = render(CATALOG, "spec", "svg").decode()
    links = re.findall(r'<a xlink:href="([^"]+)"', svg)
    want = [CATALOG.post(p).read_link(CATALOG.manifest)[0] for p in paths.reading_order(CATALOG, "spec")]
    assert [x.replace("&amp;", "&") for x in links] == want
    assert svg.count("▶") == 1
