"""Symptom questions land on the post that answers them (QA findings on answer quality): "why is
my X high", "how do I … on <hardware>", "如何在 … 上部署", typed with typos, in English and Chinese.
Runs the QA engineer's queries and ``tests/data/symptoms-dev.tsv`` (written before the fixes were
run) on the repo's catalog, and the general causes one by one."""

from __future__ import annotations

import pytest

from bot.domain.search import normalize
from bot.domain.search.weights import UNLINKED_PENALTY
from tests.evaldata import DATA, read_tsv


def test_ttft_with_long_prompts_finds_the_pd_posts_first(matcher, catalog):
    for query in ("why is my TTFT high with long prompts", "长提示词的首字延迟太高怎么办"):
        result = matcher.search(query, limit=3)
        assert result.results, query
        assert all("pd" in catalog.tracks_of(r.post_id) for r in result.results[:2]), (query, result.results)


def test_an_exact_answer_phrase_of_an_unlinked_post_is_shown_with_the_score_it_ranks_by(matcher):
    result = matcher.search("TTFT too high", limit=25)
    ids = [r.post_id for r in result.results]
    assert "taking-vllm-apart" in ids[:3]
    hit = result.results[ids.index("taking-vllm-apart")]
    assert (hit.matched, hit.score) == ("answers", 100.0 - UNLINKED_PENALTY)
    scores = [r.score for r in result.results]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("query", ["how do I serve a model on AMD", "如何在 AMD 上部署模型"])
def test_serving_on_amd_suggests_the_hardware_track_and_its_post(matcher, query):
    result = matcher.search(query, limit=3)
    assert result.track is not None and result.track.track_id == "hardware"
    assert result.results[0].post_id == "vllm-serving-amd"
    assert result.confidence == "confident"


KNOWN_MISSES = {
    "显存不够放不下模型，怎么量化": "a multimodal AutoRound post whose question says 显存不够 + 量化 ranks first",
}
"""Rows of the set the search does not answer yet (measured, not tuned away: the set was written
before the fixes were run)."""


def _rows() -> list:
    rows = [(q, [t.strip() for t in exp.split("||")]) for q, _kind, exp in read_tsv(DATA / "symptoms-dev.tsv")]
    return [
        pytest.param(q, titles, marks=pytest.mark.xfail(reason=KNOWN_MISSES[q], strict=True))
        if q in KNOWN_MISSES
        else pytest.param(q, titles)
        for q, titles in rows
    ]


@pytest.mark.parametrize(("query", "titles"), _rows())
def test_a_symptom_question_finds_its_post(matcher, catalog, query, titles):
    ranked = [catalog.post(r.post_id).title for r in matcher.search(query, limit=3).results]
    if len(titles) == 1:
        assert ranked[:1] == titles, ranked
    else:
        assert set(ranked) & set(titles), ranked


def test_a_one_letter_stop_word_makes_no_name_with_its_neighbour(matcher):
    # "i" + "serve" and "a" + "model" are indexed somewhere (as "llm" + "d" is): not as names.
    def concepts(query: str) -> list[tuple[float, set[str]]]:
        units = matcher._units(normalize(query), query=True)
        return [(c.weight, {t for alt, _ in c.alternatives for t in alt}) for c in matcher._concepts(units)]

    serve, model, _ = concepts("how do i serve a model on amd")
    assert {"serv"} <= serve[1] and {"model"} <= model[1]
    assert serve[0] == pytest.approx(concepts("serve")[0][0])
    assert concepts("llm-d")[0][1] == {"llmd"}


def test_the_measure_a_symptom_word_qualifies_is_the_subject(matcher):
    def weights(query: str) -> list[float]:
        return [c.weight for c in matcher._concepts(matcher._units(normalize(query), query=True))]

    plain, symptom = weights("ttft with long prompts"), weights("ttft high with long prompts")
    assert symptom[0] > plain[0] and symptom[1] == pytest.approx(plain[1])
    assert weights("high ttft")[0] == pytest.approx(symptom[0])


def test_a_symptom_word_is_one_chinese_word(matcher):
    units = matcher._units(normalize("首字延迟太高怎么办"), query=True)
    assert [u.text for u in units][:2] == ["首字延迟", "太高"]


def test_a_synonyms_weight_is_the_concepts(matcher):
    def weight(query: str) -> float:
        return matcher._concepts(matcher._units(normalize(query), query=True))[0].weight

    assert weight("long prompts") == pytest.approx(weight("long context"))


def test_a_post_id_typed_alone_puts_that_post_first(matcher, catalog):
    """(QA) ``p-eagle`` listed the Red Hat summary of P-EAGLE first (both at 100): a query that is a
    post's id puts that post first whenever the search finds it."""
    found = 0
    for post in catalog.posts:
        results = matcher.search(post.id, limit=5).results
        if any(r.post_id == post.id for r in results):
            found += 1
            assert results[0].post_id == post.id, (post.id, [r.post_id for r in results])
    assert found > len(catalog.posts) // 2


# New-user QA pass (catalog 2026.12.13): each row failed before its fix. Causes, by class:
# MoE -> the Mixture-of-Models posts' contrast questions named MoE; CUDA OOM -> DSpark's question
# said "CUDA graph" (the post's word is cudagraphs); first token latency -> "first", "token" and
# "latency" anywhere in HaluGate's text were read as the glossary form; tool calling -> the LoRA
# backdoor post was tagged with the mechanism its attack uses (it stays fifth by its questions).
QA_WRONG_OUT_OF_TOP = [
    ("MoE", "semantic-router-mom-systems", 5),
    ("MoE是什么", "semantic-router-mom-systems", 5),
    ("CUDA OOM", "dspark-adaptive-verification", 5),
    ("first token latency is high", "halugate", 5),
    ("tool calling", "redhat-lora-backdoor", 3),
    # its Chinese question says 开了结构化输出后首字延迟变高: fifth until 2026.12.16, when the posts whose
    # titles say TTFT (the query's term in English) were lifted above it (search/subject.py)
    ("首token延迟很高", "struct-decode-intro", 5),
]


@pytest.mark.parametrize(("query", "wrong", "top"), QA_WRONG_OUT_OF_TOP)
def test_a_post_that_only_mentions_the_query_stays_out_of_its_first_results(matcher, query, wrong, top):
    ids = [r.post_id for r in matcher.search(query, limit=top).results]
    assert ids, query
    assert wrong not in ids, ids


@pytest.mark.parametrize(
    ("query", "track"), [("how to contribute", "developers"), ("怎么给vllm贡献代码", "developers")]
)
def test_a_contributor_question_finds_the_contributor_facing_posts_first(matcher, catalog, query, track):
    """(QA) ``how to contribute`` listed the Korea meetup recap first (its summary and a question
    say "contribute", the install-and-develop guide only its tag): the guide's questions now say
    what it offers contributors (a development build, Python-only or kernel changes)."""
    results = matcher.search(query, limit=3).results
    assert track in catalog.tracks_of(results[0].post_id), [r.post_id for r in results]
    assert "dev-experience" in [r.post_id for r in results]


@pytest.mark.parametrize("query", ["OOM in java heap", "java heap space out of memory", "jvm OOM"])
def test_a_memory_question_about_another_language_is_refused(matcher, query):
    result = matcher.search(query)
    assert result.results == () and result.track is None, [r.post_id for r in result.results]


def test_a_question_word_of_a_form_is_read_with_its_neighbour(matcher):
    # "first token latency": "first" only beside "token" (firsttoken), not anywhere in a post.
    units = matcher._units(normalize("first token latency is high"), query=True)
    own = matcher._concepts(units)[0].alternatives[0][0]
    assert own == ("firsttoken", "latency")
