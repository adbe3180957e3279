"""Search order a reader met in QA, on the repo's catalog: a question every title answers (``what
is vllm``) lists the general posts first among those tied at 100, and ``latest <topic>`` lists the
posts on the topic newest first."""

from __future__ import annotations

import pytest

from bot.domain.search.reorder import NEWEST_SHARE


@pytest.mark.parametrize("query", ["what is vllm", "vllm", "什么是 vllm", "vllm 是什么"])
def test_posts_tied_at_100_list_the_getting_started_steps_first(matcher, catalog, query):
    """(QA) ``what is vllm`` listed vLLM-Omni's AutoRound and TTS posts right after the launch post,
    all at 100: every title says "vLLM". Among the tied, the getting-started track's essential intro
    and core steps come first, in reading order."""
    results = matcher.search(query, limit=5).results
    ids = [r.post_id for r in results]
    assert ids[0] == "vllm-pagedattention-launch", ids
    starters = [s.post for s in catalog.track("developers").steps if s.essential and s.level in ("intro", "core")]
    assert ids[1] in starters, ids
    assert not {"vllm-omni-autoround", "vllm-omni-tts"} & set(ids), ids


def test_a_query_with_a_telling_term_keeps_its_relevance_order(matcher):
    # "p-eagle" is no generic word: the post itself first, not the most general post on it
    assert matcher.search("p-eagle", limit=1).results[0].post_id == "p-eagle"


@pytest.mark.parametrize("query", ["latest eagle", "newest eagle", "the latest on eagle", "最新 eagle"])
def test_latest_topic_lists_the_posts_on_it_newest_first(matcher, catalog, query):
    """(QA) ``latest eagle`` was ranked by relevance (EAGLE 3.1 of May before September's P-EAGLE
    guide): the posts that hold the topic and score near the best are listed newest first."""
    result = matcher.search(query, limit=10)
    plain = matcher.search("eagle", limit=10)
    assert {r.post_id for r in result.results} == {r.post_id for r in plain.results}  # the same posts
    best = plain.results[0].score
    near = [r for r in result.results if r.score >= NEWEST_SHARE * best]
    days = [catalog.post(r.post_id).published.latest for r in near]
    shown = [(r.post_id, d) for r, d in zip(near, days, strict=True)]
    assert len(near) >= 4 and days == sorted(days, reverse=True), shown
    assert result.results[0].post_id == "redhat-p-eagle-speculators"
    assert [r.post_id for r in result.results[: len(near)]] == [r.post_id for r in near]  # weaker ones after


def test_latest_does_not_reorder_other_searches(matcher):
    # "最新版" (the newest version) is no "latest …" lead, nor is a word starting with "latest"
    assert matcher.search("最新版vllm怎么装").results == matcher.search("最新版vllm怎么装").results
    assert matcher.search("eagle", limit=3).results[0].post_id == "eagle-3-1"
