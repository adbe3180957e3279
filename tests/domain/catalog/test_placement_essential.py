"""Issue 41: the placer's essential model, its markup-free bodies and its single capstone.

``benchmarks/placement.py`` measures what these buy (leave-one-out over the shipped catalog with
the blog's texts); here: the fit finds the direction in its rows, the model a placer fits never
reads the left-out post's text, a body's HTML is not words, and a track that has its capstone is
offered no second one.
"""

from __future__ import annotations

from bot.domain.catalog import load_catalog
from bot.domain.catalog.placement import SINGLE_LEVELS, Placer, plain
from bot.domain.catalog.placement_essential import cross_cosines, essential_share, features, fit
from tests.domain.catalog.helpers import CATALOG


def test_the_fit_finds_that_early_posts_are_essential() -> None:
    rows = [features(i / 100, 0.3 + 0.4 * (i % 2), home=i % 3 == 0) for i in range(101)]
    labels = [i < 40 for i in range(101)]  # the older two fifths essential, whatever else
    model = fit(rows, labels)
    assert model.weights[1] < -2 and abs(model.weights[2]) < 0.5 and abs(model.weights[3]) < 0.5
    assert model.probability(features(0.05, 0.5, home=True)) > 0.7
    assert model.probability(features(0.95, 0.5, home=True)) < 0.2
    assert fit(rows[:5], labels[:5]).weights == ()  # too few rows: the bare share
    assert fit(rows[:5], labels[:5]).probability(rows[0]) == 1.0


def test_similarity_is_counted_only_where_it_is_positive() -> None:
    assert essential_share([(0.375, True), (0.125, False), (-0.25, False)]) == 0.75
    assert essential_share([(0.0, True)]) == 0.5
    assert cross_cosines({"q": {"a": 0.6, "b": 0.8}}, {"d": {"b": 1.0}, "e": {"c": 1.0}}) == {"q": {"d": 0.8}}


def test_markup_is_not_words() -> None:
    body = (
        '<p align="center"><picture><img src="/assets/figures/korea-meetup/banner.jpg" width="100%">'
        "</picture><br></p> Rebellions showed an NPU. See [the slides](https://example.com/deck.pdf)."
    )
    assert "assets" not in plain(body) and "picture" not in plain(body) and "example.com" not in plain(body)
    vec = Placer(load_catalog(CATALOG)).vector("A meetup", content=body)
    assert {"rebellion", "npu", "slide"} & set(vec)
    assert not {"asset", "figure", "picture", "img", "align", "width", "br"} & set(vec)


def test_the_essential_model_never_reads_the_left_out_posts_text() -> None:
    catalog = load_catalog(CATALOG)
    post = next(p for p in catalog.posts if catalog.tracks_of(p.id) and p.source.kind == "vllm-blog" and p.url)
    texts = {p.id: f"body of {p.id}" for p in catalog.posts}
    placer = Placer(catalog, texts=texts, leave_out=post.id)
    assert post.id not in placer.texts and len(placer.texts) == len(texts) - 1
    assert placer.essential_model.weights  # fitted on the other steps
    assert 0 < placer.essential_model.prior < 1


def test_a_track_that_has_its_capstone_is_offered_no_second() -> None:
    catalog = load_catalog(CATALOG)
    # spec ends on an essential capstone (P-EAGLE) that its other EAGLE posts resemble: before the
    # rule 6 of its first 8 steps, placed leave-one-out, were offered a second capstone
    track = next(t for t in catalog.tracks if t.id == "spec")
    capstone = next(s.post for s in track.steps if s.level == "capstone")
    assert "capstone" in SINGLE_LEVELS
    for step in track.steps[:8]:
        if step.post == capstone:
            continue
        post = catalog.post(step.post)
        placer = Placer(catalog, leave_out=post.id)
        for s in placer.suggest(
            post.title, post.summary.en, published=post.published.earliest, limit=len(catalog.tracks)
        ):
            holds = any(x.level == "capstone" for t in placer.tracks if t.id == s.track for x in t.steps)
            assert not (holds and s.level == "capstone"), (post.id, s.track)
