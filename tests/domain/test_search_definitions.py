"""Definition questions (``what is X``, ``X 是什么``, ``explain X``, ``X explained``), a new user's
finding (2026-12-07): ``what is kv cache`` led with PegaFlow, FP8 KV-cache quantization and
TurboQuant, posts that use the KV cache in a specialised setting, while the PagedAttention launch
post, which explains it, was seventh. A definition question of one term now leads with the post
introducing the term (:mod:`bot.domain.search.define`), on the repo's catalog."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.domain.search import validate
from tests.evaldata import relevance_default_sets

REPO = Path(__file__).resolve().parents[2]


def _top(matcher, query: str, n: int = 1) -> list[str]:
    return [r.post_id for r in matcher.search(query, limit=n).results]


@pytest.mark.parametrize("query", ["what is kv cache", "explain the kv cache to me", "kv cache 是什么"])
def test_a_definition_question_leads_with_the_earliest_essential_step_holding_its_term(matcher, query):
    """``kv cache`` has no glossary track; the track whose name holds it (Agentic serving & KV
    cache) opens with the PagedAttention launch post, which holds the term: it leads, in English and
    Chinese framing alike, before the specialised posts (PegaFlow, FP8 KV cache)."""
    assert _top(matcher, query) == ["vllm-pagedattention-launch"]


def test_the_same_term_without_a_definition_frame_keeps_its_ranking(matcher):
    """Asked without a frame, or with a second telling term (``fp8 kv cache 是什么``: their
    combination), the posts on the specialised setting still lead."""
    assert _top(matcher, "what is kv cache") == ["vllm-pagedattention-launch"]
    assert _top(matcher, "kv cache offloading to cpu") != ["vllm-pagedattention-launch"]
    assert _top(matcher, "fp8 kv cache 是什么") == ["fp8-kvcache"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("量化是什么", "redhat-quantization-guide"),
        ("what is expert parallelism", "large-scale-serving-wide-ep"),
        ("what are cuda graphs", "torch-compile"),
        ("chunked prefill explained", "anatomy-of-vllm"),
    ],
)
def test_a_definition_question_leads_with_the_glossarys_intro_post(matcher, query, expected):
    """A glossary term's ``intro`` (the post whose text explains it to a newcomer) is its introducer,
    before the track's first essential step (PTPC-FP8 opens the quantization path) and where the
    term has no track (expert parallelism: Elastic EP led)."""
    assert _top(matcher, query) == [expected]


def test_a_glossary_intro_naming_no_post_is_a_catalog_error(tmp_path):
    for name in ("vocabulary.yaml", "glossary.yaml", "answers.yaml"):
        if (REPO / "catalog" / name).is_file():
            shutil.copy(REPO / "catalog" / name, tmp_path / name)
    glossary = tmp_path / "glossary.yaml"
    glossary.write_text(
        glossary.read_text(encoding="utf-8").replace("intro: torch-compile", "intro: no-such-post"), encoding="utf-8"
    )
    errors = validate(tmp_path, post_ids={"torch-compile", "anatomy-of-vllm"} | _all_post_ids())
    assert any("cuda graphs: intro: no post with this id" in e for e in errors)


def _all_post_ids() -> set[str]:
    from bot.domain.catalog import load_catalog

    return {p.id for p in load_catalog(REPO / "catalog").posts}


def test_the_definitions_set_is_a_default_set_of_the_benchmark():
    assert "definitions-dev.tsv" in relevance_default_sets()
