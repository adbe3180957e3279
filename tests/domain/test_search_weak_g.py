"""The causes behind searches a new user found weak (2026-12-07), on the repo's catalog: a post whose
title names the query's term by an abbreviation (``K8S`` for ``kubernetes``) or inside a compound
title word (``FastMTP``) leads the posts that merely mention the term; an abbreviation of a track's
own name names the track as its alias does (``SD`` as ``PD``); and the glossary gaps that refused
or misread questions (``mooncake transfer engine``, ``scheduler``, ``structured``, ``batch size``)."""

from __future__ import annotations

import pytest

from bot.domain.search import track_named
from bot.domain.search.analysis import _Concept
from bot.domain.search.subject import compound_parts, lift_subjects, subject_bonus, title_terms
from bot.domain.search.weights import TITLE_SUBJECT_BONUS


def _top(matcher, query: str, n: int = 1) -> list[str]:
    return [r.post_id for r in matcher.search(query, limit=n).results]


def test_a_title_saying_the_term_by_its_abbreviation_leads_a_tag_mention(matcher):
    """``kubernetes`` is a tag of several posts; the production-stack post's title says ``K8S``
    (a synonym, read at 0.9): it is the post about it, as ``怎么部署到 k8s`` finds."""
    assert _top(matcher, "kubernetes") == ["stack-release"]
    assert _top(matcher, "怎么部署到 k8s") == ["stack-release"]


def test_a_term_inside_a_compound_title_word_is_the_titles_subject(matcher):
    """``FastMTP`` is ``fast`` + ``MTP``: the post on FastMTP heads leads the Qwen3-Next post, which
    mentions MTP (and spells out multi-token prediction) in its tags and questions."""
    assert _top(matcher, "MTP") == ["redhat-fastmtp-heads"]


def test_compound_parts_split_a_capitalised_word_and_an_acronym_only():
    assert compound_parts("Optimize vLLM speculative decoding with FastMTP heads") == ["fast", "mtp"]
    assert compound_parts("vLLM on DeepSeek with PagedAttention") == []


def test_the_bonus_is_for_another_form_than_the_querys_own_words():
    """A title saying the query's own words gets no bonus (the coverage already counts the title);
    one saying a synonym or a compound part gets the concept's share of the bonus, a share of its
    distance below 100 (none at 100)."""
    terms = title_terms(["Deploy on K8S", "Kubernetes guide", "Cooking pasta", "FastMTP heads"])
    concept = _Concept(1.0, ((("kubernet",), 1.0), (("k8",), 0.9)))
    other = _Concept(3.0, ((("guid",), 1.0),))
    assert subject_bonus([concept], terms, [0, 1, 2], [80.0] * 3) == [TITLE_SUBJECT_BONUS * 20, 0.0, 0.0]
    assert subject_bonus([concept], terms, [0], [100.0]) == [0.0]
    assert subject_bonus([concept, other], terms, [0], [60.0]) == [pytest.approx(TITLE_SUBJECT_BONUS * 40 / 4)]
    mtp = _Concept(1.0, ((("mtp",), 1.0),))
    assert subject_bonus([mtp], terms, [3], [50.0]) == [TITLE_SUBJECT_BONUS * 50]


def test_a_lifted_post_never_passes_the_top_score_and_equal_lifts_keep_their_order():
    terms = title_terms(["On K8S", "K8S again", "Kubernetes"])
    concept = _Concept(1.0, ((("kubernet",), 1.0), (("k8",), 0.9)))
    ranked = [(99.0, 2, "title", 1.0), (90.0, 0, "tags", 1.0), (89.0, 1, "tags", 1.0)]
    lifted = lift_subjects(ranked, [concept], terms)
    assert [r[1] for r in lifted] == [2, 0, 1]
    assert all(r[0] < 100.0 for r in lifted)


@pytest.mark.parametrize("query", ["SD", "sd", "specdec", "PD"])
def test_an_abbreviation_of_a_tracks_name_names_the_track(matcher, catalog, query):
    """``SD`` abbreviates ``speculative decoding``, the spec track's name, as ``PD`` is the pd
    track's alias: both open their track (the same reply), not a search with a hint."""
    expected = "pd" if query == "PD" else "spec"
    assert track_named(catalog, query, matcher) == expected
    assert matcher.match_track(query).score == 100.0


@pytest.mark.parametrize("query", ["MTP", "k8s", "oom"])
def test_an_abbreviation_of_no_tracks_name_names_no_track(matcher, query):
    """``MTP`` abbreviates ``multi-token prediction``, an alias (a subject) of spec, not its name:
    it finds the posts on it."""
    assert matcher.match_track(query) is None


def test_mooncake_transfer_engine_finds_the_mooncake_post(matcher):
    result = matcher.search("mooncake transfer engine", limit=3)
    assert [r.post_id for r in result.results][:1] == ["mooncake-store"]
    assert result.confidence == "confident"


@pytest.mark.parametrize(
    ("query", "among"),
    [
        ("how is the scheduler implemented", {"anatomy-of-vllm", "vllm-v1", "v0-6-0-perf-update"}),
        ("structured", {"struct-decode-intro"}),
        ("batch size 调多大", {"anatomy-of-vllm", "dspark-adaptive-verification", "torch-compile"}),
    ],
)
def test_questions_once_refused_are_answered(matcher, query, among):
    result = matcher.search(query, limit=5)
    assert result.confidence != "none"
    assert among & {r.post_id for r in result.results}


@pytest.mark.parametrize("query", ["windows task scheduler keeps failing", "structured interview questions"])
def test_the_new_forms_alone_with_everyday_words_stay_off_topic(matcher, query):
    assert matcher.search(query, limit=3).confidence == "none"
