"""bot.domain.paths: reading order, next in path, what to read before/after a post, positions, progress,
and the `vllm-path next` command."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli.main import main
from bot.domain.catalog import Catalog, load_catalog
from bot.domain.catalog.models import (
    ExternalPrerequisite,
    LocalizedText,
    Manifest,
    Post,
    Published,
    Source,
    Step,
    Track,
)
from bot.domain.paths import CycleError, compute_order, next_step, positions, progress, read_after, read_before
from tests.evaldata import REPO, eval_file, read_tsv


def _post(pid: str, day: int, aliases=()) -> Post:
    return Post(
        id=pid,
        title=f"Post {pid}",
        url=f"/2026/01/{day:02d}/{pid}.html",
        published=Published.model_validate(dt.date(2026, 1, day)),
        source=Source(kind="vllm-blog"),
        aliases=tuple(aliases),
        summary=LocalizedText(en=f"About {pid}."),
    )


def _track(tid: str, steps: list[Step]) -> Track:
    return Track(
        id=tid,
        names=LocalizedText(en=f"Track {tid}", zh=f"路径 {tid}"),
        description=LocalizedText(en="A track."),
        steps=tuple(steps),
    )


def build(posts: list[Post], tracks: list[Track]) -> Catalog:
    by_id = {p.id: p for p in posts}
    return Catalog.build(
        manifest=Manifest(version="2026.01.0"),
        posts=posts,
        tracks=tracks,
        orders={t.id: compute_order(t, by_id) for t in tracks},
    )


def small_catalog() -> Catalog:
    """Track ``main``: a (intro) -> b, c (core, c after a) -> d (advanced, after b and c) -> e
    (capstone, after d), with dates that would put them in another order if levels did not rule;
    track ``side`` shares c and d."""
    posts = [
        _post("a", 9),
        _post("b", 3),
        _post("c", 1, aliases=("c-old",)),
        _post("d", 2),
        _post("e", 5),
        _post("x", 4),
    ]
    main_track = _track(
        "main",
        [
            Step(post="e", level="capstone", after=("d",)),
            Step(
                post="d",
                level="advanced",
                after=("b", "c"),
                external_prerequisites=(ExternalPrerequisite(title="The vLLM docs", url="https://docs.vllm.ai"),),
                note=LocalizedText(en="Read after b and c."),
            ),
            Step(post="c", after=("a",)),
            Step(post="b"),
            Step(post="a", level="intro"),
        ],
    )
    side = _track("side", [Step(post="x"), Step(post="c"), Step(post="d", after=("c",))])
    return build(posts, [main_track, side])


SMALL = small_catalog()


@pytest.fixture
def cat() -> Catalog:
    return SMALL


# --- reading order ------------------------------------------------------------------------------


def test_order_is_topological_then_level_then_date(cat):
    # main: a (intro, though the newest) first; then c (Jan 1) and b (Jan 3), both core and
    # ready, by date; then d and e by level and prerequisites.
    assert cat.order("main") == ("a", "c", "b", "d", "e")
    # side, all core: c (Jan 1) and x (Jan 4) are ready; after c, d (Jan 2) beats x.
    assert cat.order("side") == ("c", "d", "x")


def test_ties_on_level_and_date_break_by_post_id():
    posts = [_post("zeta", 1), _post("alpha", 1)]
    track = _track("t", [Step(post="zeta"), Step(post="alpha")])
    assert compute_order(track, {p.id: p for p in posts}) == ("alpha", "zeta")


def test_a_cycle_is_reported_with_its_members():
    posts = [_post("a", 1), _post("b", 2), _post("c", 3)]
    track = _track("t", [Step(post="a", after=("c",)), Step(post="b", after=("a",)), Step(post="c", after=("b",))])
    with pytest.raises(CycleError) as info:
        compute_order(track, {p.id: p for p in posts})
    cycle = info.value.cycle
    assert cycle[0] == cycle[-1] and set(cycle) == {"a", "b", "c"}


def test_an_unknown_prerequisite_is_a_key_error():
    track = _track("t", [Step(post="a", after=("nope",))])
    with pytest.raises(KeyError):
        compute_order(track, {"a": _post("a", 1)})


# --- next in path -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "read, expected",
    [
        ((), "a"),
        (("a",), "c"),
        (("a", "c"), "b"),
        (("a", "b", "c"), "d"),
        (("b",), "a"),  # read out of order: the first unread step still comes first
        (("a", "b", "c", "d"), "e"),
        (("a", "c-old"), "b"),  # a former id counts as the post
        (("a", "nope", "x"), "c"),  # unknown ids and posts of other tracks are ignored
    ],
)
def test_next_step(cat, read, expected):
    assert next_step(cat, "main", read).post == expected


def test_next_step_is_none_when_the_path_is_done(cat):
    assert next_step(cat, "main", {"a", "b", "c", "d", "e"}) is None


def test_next_step_of_an_unknown_track_is_a_key_error(cat):
    with pytest.raises(KeyError):
        next_step(cat, "nope", ())


@given(st.sets(st.sampled_from(["a", "b", "c", "d", "e", "x", "c-old", "zzz"])))
@settings(max_examples=200, deadline=None)
def test_next_step_is_the_first_unread_step_whose_prerequisites_are_read(read):
    cat = SMALL
    done = {cat.resolve_post_id(p) for p in read} - {None}
    for tid in ("main", "side"):
        step = next_step(cat, tid, read)
        unread = [p for p in cat.order(tid) if p not in done]
        if step is None:
            assert unread == []
            continue
        assert step.post not in done
        assert all(ref in done for ref in step.after)
        earlier = cat.order(tid)[: cat.order(tid).index(step.post)]
        assert not [p for p in earlier if p not in done and all(ref in done for ref in cat.step(tid, p).after)]


def test_progress(cat):
    assert progress(cat, "main", ()) == (0, 5)
    assert progress(cat, "main", {"a", "c-old", "x", "nope"}) == (2, 5)
    assert progress(cat, "side", {"a", "c-old", "x"}) == (2, 3)


def test_positions_in_each_track(cat):
    assert [(p.track_id, p.position, p.of) for p in positions(cat, "d")] == [("main", 4, 5), ("side", 2, 3)]
    assert [(p.track_id, p.position, p.of) for p in positions(cat, "c-old")] == [("main", 2, 5), ("side", 1, 3)]
    assert positions(cat, "nope") == []


def test_read_before_lists_the_prerequisites_in_path_order(cat):
    assert [s.post for s in read_before(cat, "main", "d")] == ["c", "b"]
    assert read_before(cat, "main", "a") == ()
    assert [e.title for e in cat.step("main", "d").external_prerequisites] == ["The vLLM docs"]
    with pytest.raises(KeyError):
        read_before(cat, "main", "x")


def test_read_after_lists_the_dependents_and_the_next_step(cat):
    assert [s.post for s in read_after(cat, "main", "a")] == ["c"]  # next and dependent
    assert [s.post for s in read_after(cat, "main", "c")] == ["b", "d"]  # next b, dependent d
    assert [s.post for s in read_after(cat, "main", "c-old")] == ["b", "d"]
    assert read_after(cat, "main", "e") == ()
    with pytest.raises(KeyError):
        read_after(cat, "main", "x")


# --- on the repo catalog ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def repo() -> Catalog:
    return load_catalog(REPO / "catalog")


def test_a_reader_following_next_reads_each_path_in_order(repo):
    """In path order, but a step without a link yet is passed over while a linked step that does
    not come after it is left (issue 41); every step is read in the end, each after its ``after``."""
    for track in repo.tracks:
        read: list[str] = []
        while (step := next_step(repo, track.id, read)) is not None:
            assert all(ref in read for ref in step.after)
            if not repo.post(step.post).url:  # offered only when no linked step can be read now
                ready = [
                    s.post
                    for s in repo.path(track.id)
                    if s.post not in read and repo.post(s.post).url and all(r in read for r in s.after)
                ]
                assert not ready, (track.id, step.post, ready)
            read.append(step.post)
        assert sorted(read) == sorted(repo.order(track.id))


def test_following_next_honours_the_eval_order_constraints(repo):
    titles = {p.title: p.id for p in repo.posts}
    for tid, earlier, later in read_tsv(eval_file("path-order.tsv")):
        read: list[str] = []
        while (step := next_step(repo, tid, read)) is not None:
            read.append(step.post)
        assert read.index(titles[earlier]) < read.index(titles[later]), (tid, earlier, later)


def test_positions_match_the_order_for_every_post(repo):
    for post in repo.posts:
        places = positions(repo, post.id)
        assert [p.track_id for p in places] == list(repo.tracks_of(post.id))
        for p in places:
            assert repo.order(p.track_id)[p.position - 1] == post.id
            assert p.of == len(repo.order(p.track_id))


def test_bot_paths_imports_first_in_a_fresh_interpreter():
    """`import bot.domain.paths` before anything else must not hit the paths <-> catalog import cycle."""
    out = subprocess.run([sys.executable, "-c", "import bot.domain.paths"], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


# --- `vllm-path next` ---------------------------------------------------------------------------


def _next(*args: str):
    return CliRunner().invoke(main, ["next", *args])


def test_cli_next_json_from_the_start(repo):
    out = _next("spec", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data) == {"catalog_version", "track", "next", "progress", "done"}
    order = repo.order("spec")
    assert data["track"] == {"id": "spec", "name": repo.track("spec").names.en}
    assert data["next"]["post_id"] == order[0] and data["next"]["position"] == 1
    essential = sum(1 for s in repo.track("spec").steps if s.essential)
    assert data["next"]["of"] == len(order)
    assert data["progress"] == {"read": 0, "total": len(order), "essential_read": 0, "essential": essential}
    assert data["done"] is False
    step = repo.step("spec", order[0])
    assert data["next"]["level"] == step.level
    assert data["next"]["note"] == (step.note.en if step.note else None)
    assert data["next"]["url"] == repo.url_of(repo.post(order[0]))


def test_cli_next_moves_along_and_lists_prerequisites(repo):
    order = repo.order("pd")
    args = ["pd", "--json"]
    for pid in order[:3]:
        args += ["--read", pid]
    data = json.loads(_next(*args).output)
    expected = next_step(repo, "pd", order[:3])
    assert data["next"]["post_id"] == expected.post
    assert data["progress"]["read"] == 3
    assert [a["post_id"] for a in data["next"]["after"]] == [s.post for s in read_before(repo, "pd", expected.post)]
    assert all(a["read"] == (a["post_id"] in order[:3]) for a in data["next"]["after"])


def test_cli_next_says_when_the_path_is_done(repo):
    args = ["quant"]
    for pid in repo.order("quant"):
        args += ["--read", pid]
    data = json.loads(_next(*args, "--json").output)
    assert data["next"] is None and data["done"] is True
    assert data["progress"]["read"] == data["progress"]["total"]
    text = _next(*args)
    assert text.exit_code == 0 and "done" in text.output.lower()


@pytest.mark.parametrize("name", ["spec", "Speculative decoding", "推测解码", "specualtive decodng"])
def test_cli_next_resolves_the_track_like_search(name):
    data = json.loads(_next(name, "--json").output)
    assert data["track"]["id"] == "spec"


def test_cli_next_refuses_an_unknown_track_or_post():
    out = _next("no-such-track")
    assert out.exit_code == 2 and "no track matches" in out.output  # click's usage error, like path-image
    out = _next("spec", "--read", "no-such-post")
    assert out.exit_code == 1 and "no-such-post" in out.output


def test_cli_next_text_output(repo):
    out = _next("rl")
    assert out.exit_code == 0
    first = repo.post(repo.order("rl")[0])
    assert first.title in out.output and f"of {len(repo.order('rl'))}" in out.output


def test_cli_next_shows_the_reading_time_and_labels_references_as_slack_does(repo):
    """(QA) The text said "Know first" where Slack says "Background", and showed no minutes."""
    from bot.domain.paths import track_path

    step = next(s for s in track_path(repo, "pd").steps if s.background and s.post.minutes is not None)
    order = list(repo.order("pd"))
    args = ["pd"] + [a for pid in order[: step.number - 1] for a in ("--read", pid)]
    data = json.loads(_next(*args, "--json").output)
    assert data["next"]["post_id"] == step.post_id and data["next"]["minutes"] == step.post.minutes
    text = _next(*args).output
    assert f"{step.post.minutes} min): {step.post.title}" in text
    from bot.domain.outside_refs import reference_title

    assert f"  Background: {reference_title(step.background[0])}" in text and "Know first" not in text


@pytest.mark.parametrize(
    "written", ["p-eagle", "p_eagle", "P-EAGLE", "p\u2010eagle", "p\u2011eagle", "p\u2013eagle", "p\uff0deagle"]
)
def test_a_post_id_written_with_another_dash_or_in_capitals_names_its_post(written):
    """Autocorrect turns ``-`` into a typographic hyphen or dash; people type ``_`` (QA, 2026-12-07)."""
    catalog = load_catalog(REPO / "catalog")
    assert catalog.resolve_post_id(written) == "p-eagle"
    assert catalog.resolve_post_id("p eagle") is None and catalog.resolve_post_id("p--eagle") is None


def test_the_essential_path_is_kept_per_catalog_and_a_new_catalog_gets_its_own():
    """``essentials`` is computed once a catalog (App Home asks it of every track on every open); a
    catalog loaded again with other essential steps (a curator's accept) answers its own."""
    from bot.domain.paths import essentials

    posts = [_post("a", 1), _post("b", 2), _post("c", 3)]
    first = build(posts, [_track("t", [Step(post="a", essential=True), Step(post="b"), Step(post="c")])])
    second = build(posts, [_track("t", [Step(post="a"), Step(post="b", essential=True), Step(post="c")])])
    assert essentials(first, "t") == ("a",)
    assert essentials(second, "t") == ("b",)
    assert essentials(first, "t") is essentials(first, "t")  # kept, not computed again
    with pytest.raises(KeyError):
        essentials(first, "no-such-track")
