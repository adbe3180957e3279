"""Requests that name the product or the field but ask for something no post holds (holdout set z,
2026-12-08), each asked here in other words than the set's rows, on the repo's catalog
(:mod:`bot.domain.search.scope`). Three classes, each a rule rather than a word list:

* the field's own names (``vllm``, ``llm``: held by a quarter of the posts or more) beside plain
  words no post holds, more of them than any one post holds of the question's other plain words:
  a stock, a firm's premises, a letter to a debtor;
* a writing verb whose object is no field term and whose words no post holds together: a text
  written for the asker, whatever its kind;
* a comparison of two names no post holds (two vendors): which of them, no post can tell.

Genuine questions with the same framing are still answered."""

from __future__ import annotations

import pytest

from bot.domain.search.analysis import normalize
from bot.domain.search.topic import ON_TOPIC
from tests.domain.search_asks import ids as _ids
from tests.domain.search_asks import refused as _refused


@pytest.mark.parametrize(
    "query",
    [
        "will tesla shares moon once the llm craze fades",
        "llm 概念股 明年还能涨吗 要不要抄底",
        "vllm 老板的私人电话号码",
        "vllm 团队的邮寄地址是多少 我要快递礼物",
        "让 llm 帮我起草一份房租催缴通知",
    ],
)
def test_the_fields_name_beside_words_no_post_holds_is_refused(matcher, query):
    """Only ``vllm`` or ``llm`` of ours, and the rest words no post says: refused."""
    assert _refused(matcher, query)


@pytest.mark.parametrize(
    "query",
    [
        "compose me a resignation letter mentioning my llm work",
        "write me a wedding toast that jokes about llm",
    ],
)
def test_a_text_written_for_the_asker_is_refused(matcher, query):
    """``compose/write me a <text>``: no post is that text, whatever the text is."""
    assert _refused(matcher, query)


def test_two_vendors_no_post_names_compared_is_refused(matcher):
    """Two hosting vendors no post names, compared beside a GPU the posts do name: refused."""
    assert _refused(matcher, "a100 monthly rent coreweave vs vastai for our vllm box")


@pytest.mark.parametrize(
    ("query", "post"),
    [
        ("write a custom op for vllm", "vllm-plugin-system"),
        ("write a python client for vllm", None),
        ("how much does it cost to run vllm on h100", None),
        ("is vllm vendor-owned or under a foundation", "open-governance-perf-roadmap"),
    ],
)
def test_genuine_questions_with_the_same_framing_are_answered(matcher, query, post):
    """Writing code the posts show, a GPU's serving cost, who governs the project: answered (a
    post's words beside the name: ``custom``, ``foundation``; an inflected form of a word the posts
    hold, ``owned`` of ``own``, is no unheard word)."""
    assert not _refused(matcher, query)
    if post is not None:
        assert post in _ids(matcher, query, 3)


def _score(matcher, query: str) -> float:
    return float(matcher._topicality(matcher._units(matcher._rewrite(normalize(query)), query=True)).score)


def test_a_setup_told_in_many_field_terms_beside_another_tool_is_ours(matcher):
    """Replicas, round-robin, multi-turn, cache and a PD split, with nginx in front: the question is
    told in our words (four terms or more that tell posts apart, one a specific term of a track), so
    the tool's name no longer caps it at half a term's worth; which post answers is left to the
    usual guard beside a tool (only a post holding its telling terms)."""
    assert _score(matcher, "副本前面用 nginx 轮询分发请求，多轮聊天缓存经常不命中，pd 分离以后更难分流") >= ON_TOPIC


def test_few_field_terms_beside_another_tool_stay_the_tools(matcher):
    """Three terms beside nginx (round robin, replicas, websocket) ask about nginx: refused."""
    assert _refused(matcher, "nginx upstream round robin across replicas drops websocket connections")


def test_the_everyday_chinese_word_for_a_web_version_is_the_web_interface(matcher):
    """网页端 / 网页版 (the web version of an app) are glossary forms of the web interface: the
    playground that starts a server from a browser answers."""
    assert "vllm-playground" in _ids(matcher, "有没有网页端能点几下就把模型跑起来", 3)


def test_a_writing_request_beside_a_term_a_track_teaches_is_searched(matcher):
    """Asking for code about the field (a script to benchmark throughput) is no text-for-the-asker
    task: the benchmarking posts answer it (new-user round 21); a letter stays refused."""
    shown = matcher.search("write a python script to benchmark vllm throughput", limit=3)
    assert shown.confidence != "none" and shown.results, shown
    assert matcher.search("draft me a cover letter for an llm infra role", limit=3).confidence == "none"
