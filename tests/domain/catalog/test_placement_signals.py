"""Issue 41: the signals a placer reads beside the catalog's steps: the glossary's words of each
track (``GLOSSARY_WEIGHT``), the title alone beside a long text (``TITLE_VOTE``) and the links a
post's text makes to catalog posts (:mod:`bot.domain.catalog.placement_links`)."""

from __future__ import annotations

import dataclasses
import datetime as dt

from bot.domain.catalog import load_catalog
from bot.domain.catalog.models import Step
from bot.domain.catalog.placement import Placer
from bot.domain.catalog.placement_links import after_links, linked_posts
from bot.domain.search.links import LinkIndex
from bot.domain.search.vocabulary import GlossaryTerm, load_vocabulary
from tests.domain.catalog.helpers import CATALOG


def test_the_glossary_files_a_word_under_the_track_that_teaches_it() -> None:
    """ "Serving at scale" shares loose words with pd, ops and omni; the track the glossary files
    the phrase under comes first, whichever of the two it is, and the catalog alone says pd."""
    catalog, vocabulary = load_catalog(CATALOG), load_vocabulary(CATALOG)
    title = "Serving at scale"
    bare = Placer(catalog, vocabulary=dataclasses.replace(vocabulary, glossary=()))
    assert bare.suggest(title, limit=1)[0].track == "pd"
    for track in ("ops", "omni"):
        term = GlossaryTerm(term="serving at scale", forms=("serving at scale", "scale out"), track=track)
        placer = Placer(catalog, vocabulary=dataclasses.replace(vocabulary, glossary=(term,)))
        assert placer.suggest(title, limit=1)[0].track == track


def test_a_title_keeps_its_track_when_the_body_dwells_on_another() -> None:
    """A speculative-decoding post whose long body is mostly about the FP8 quantization of its
    drafter: the whole text, title included, ranks quant first (measured: ``TITLE_VOTE = 0``); the
    title alone, counted beside it, keeps it in spec; quant follows (third: the second place is the
    title's own second choice, :func:`~bot.domain.catalog.placement_rank.second_opinion`)."""
    placer = Placer(load_catalog(CATALOG))
    title = "Faster EAGLE-3 speculative decoding drafters"
    body = " ".join(
        ["We quantize the weights and activations to FP8 and NVFP4 with llm-compressor,"]
        + ["calibrate the FP8 scales, compare INT4 and FP8 KV cache quantization and their accuracy."] * 30
    )
    got = placer.suggest(title, "", body, limit=3)
    alone = placer.suggest(title, limit=2)
    assert [s.track for s in got] == ["spec", alone[1].track, "quant"], (got, alone)
    assert placer.suggest(title, limit=1)[0].track == "spec"
    assert placer.suggest("Faster drafters", "", body, limit=1)[0].track == "quant"


def test_the_links_of_a_text_resolve_to_the_catalogs_posts() -> None:
    catalog, vocabulary = load_catalog(CATALOG), load_vocabulary(CATALOG)
    index, base = LinkIndex(catalog, vocabulary), catalog.manifest.blog_base_url
    text = (
        "See [part one](/2026/05/28/speculators-v050.html), <a href='https://blog.vllm.ai/2024/10/17/spec-decode.html'>"
        "this</a>, https://vllm.ai/blog/anatomy-of-vllm and again [it](/2026/05/28/speculators-v050.html); "
        "not ![a figure](/assets/figures/x.png), [a section](#results) nor https://example.com/2024/10/17/spec-decode"
    )
    assert linked_posts(text, index, base) == ("speculators-v050", "spec-decode", "anatomy-of-vllm")
    assert linked_posts(text, index, base, known={"spec-decode"}) == ("spec-decode",)


def test_an_essential_trial_step_follows_only_the_essential_steps_it_links_to() -> None:
    steps = {
        "a": Step(post="a", level="core", essential=True),
        "b": Step(post="b", level="core", essential=False),
    }
    assert after_links(("b", "a", "z"), steps, essential=True) == ("a",)
    assert after_links(("b", "a", "z"), steps, essential=False) == ("b", "a")


def test_a_post_that_links_to_an_essential_step_is_placed_after_it() -> None:
    """An early post (essential by its date) about what agentic's last essential step covers: without
    the link it opens the path, with it it comes right after the step it links to."""
    catalog, vocabulary = load_catalog(CATALOG), load_vocabulary(CATALOG)
    essentials = [p for p in catalog.order("agentic") if catalog.step("agentic", p).essential]
    target = catalog.post(essentials[-1])
    placer = Placer(catalog, vocabulary=vocabulary)
    said = f"{target.summary.en} It builds on the earlier post"
    places = [
        next(
            s
            for s in placer.suggest(
                "Agentic serving", target.summary.en, body, published=dt.date(2020, 1, 1), minutes=8, limit=3
            )
            if s.track == "agentic"
        )
        for body in (f"{said}.", f"{said} [here]({target.url}).")
    ]
    assert all(s.essential for s in places), places
    assert places[0].position < len(essentials) < places[1].position, places


def test_the_placer_never_links_to_the_post_it_leaves_out() -> None:
    catalog, vocabulary = load_catalog(CATALOG), load_vocabulary(CATALOG)
    post = catalog.post("speculators-v050")
    placer = Placer(catalog, vocabulary=vocabulary, leave_out=post.id)
    assert placer.links is not None
    assert linked_posts(f"[self]({post.url})", placer.links, placer.base_url, placer.posts) == ()
