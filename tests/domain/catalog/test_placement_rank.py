"""Issue 41: how a placer ranks tracks beyond a post's words (:mod:`bot.domain.catalog.placement_rank`:
the title's second opinion, the shares of other companies' posts) and how it picks a position
(:mod:`bot.domain.catalog.placement_position`: any position of the path, the most weight within one
step of it)."""

from __future__ import annotations

import pytest

from bot.domain.catalog import load_catalog
from bot.domain.catalog.placement import Placer
from bot.domain.catalog.placement_position import hedged_position
from bot.domain.catalog.placement_rank import second_opinion, source_shares
from tests.domain.catalog.helpers import CATALOG


def test_a_position_between_two_heavy_kinds_covers_both() -> None:
    """An essential reading would sit at 5, a further one at 7, each about as likely: 6 is within
    one step of both (either kind's own place covers only itself), and as the sixth step of a
    path of four essentials it is further reading."""
    where = {(True, "advanced"): 5, (False, "core"): 7, (False, "advanced"): 12}
    weights = {(True, "advanced"): 0.45, (False, "core"): 0.4, (False, "advanced"): 0.15}
    assert hedged_position(where, weights, essentials=4) == (6, (False, "core"))


def test_a_clear_kind_keeps_its_own_position_and_ties_go_early() -> None:
    where = {(True, "core"): 3, (False, "core"): 9}
    assert hedged_position(where, {(True, "core"): 0.8, (False, "core"): 0.2}, essentials=5) == (3, (True, "core"))
    assert hedged_position(where, {(True, "core"): 0.5, (False, "core"): 0.5}, essentials=5) == (3, (True, "core"))
    with pytest.raises(ValueError):
        hedged_position({}, {}, essentials=0)


def test_the_kind_given_fits_the_position_chosen() -> None:
    """Whatever the weights, an essential step is offered within one step past the essentials
    and further reading after them (``catalog accept`` reads the flag from the position)."""
    where = {(True, "intro"): 1, (True, "core"): 4, (True, "advanced"): 5, (False, "core"): 6, (False, "advanced"): 9}
    for seed in range(40):
        weights = {k: ((seed * 7 + i * 13) % 11 + 1) / 11 for i, k in enumerate(where)}
        at, kind = hedged_position(where, weights, essentials=4)
        assert (at <= 5) if kind[0] else (at > 4), (weights, at, kind)
        assert abs(where[kind] - at) <= 1


def test_the_title_names_the_second_track_when_the_body_wanders() -> None:
    ranked = ["quant", "spec", "rl", "models"]
    assert second_opinion(ranked, {"models": 0.9, "spec": 0.2}, str) == ["quant", "models", "spec", "rl"]
    assert second_opinion(ranked, {}, str) == ranked  # no opinion: the whole text's order
    assert second_opinion(ranked[:2], {"spec": 1.0}, str) == ranked[:2]


def test_a_meetup_recap_keeps_its_titles_second_track() -> None:
    """A recap whose title is about the community and whose long body retells talks on quantization
    and drafters: the whole text ranks the speculative-decoding track second; the title alone ranks
    the community's track (getting started and developing) second, and it now takes that place."""
    placer = Placer(load_catalog(CATALOG))
    title = "Meetup recap: our community in Seoul"
    body = " ".join(
        ["Talks covered FP8 and NVFP4 quantization with llm-compressor and calibrating the scales."] * 15
        + ["Another talk covered speculative decoding drafters and acceptance length."] * 15
    )
    alone = [s.track for s in placer.suggest(title, limit=2)]
    got = [s.track for s in placer.suggest(title, "", body, limit=2)]
    assert got == alone == ["hardware", "developers"], (got, alone)


def test_other_companies_posts_lean_to_the_tracks_that_hold_them() -> None:
    """The same title from the vLLM blog and from another company's blog: the catalog files most
    of its company posts under deployment, so the company's post ranks that track first."""
    catalog = load_catalog(CATALOG)
    placer = Placer(catalog)
    shares = placer.elsewhere
    assert max(shares, key=lambda t: shares[t]) == "ops" and "router" not in shares
    title = "Turning GPUs into an internal service with quotas"
    blog = placer.suggest(title, vllm_blog=True, limit=2)
    other = placer.suggest(title, vllm_blog=False, limit=2)
    assert blog[0].track != "ops" and other[0].track == "ops", (blog, other)


def test_source_shares_count_steps_not_from_the_vllm_blog() -> None:
    steps = [("ops", False), ("ops", False), ("quant", False), ("quant", True), ("spec", True)]
    assert source_shares(steps) == {"ops": 0.5, "quant": 0.25}
    assert source_shares([("spec", True)]) == {}
