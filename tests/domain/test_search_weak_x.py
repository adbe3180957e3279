"""Blind set x's refusals, by class: a short plain-words question is answered when the best post
holds its ideas (not its character pairs: bot/domain/search/concepts.py), a Taiwan word for an
interface, learning requests in plain words (a first patch, the guess-then-check trick, hosting
models ourselves), a complaint word, and PagedAttention's problem told as memory reserved up front."""

from __future__ import annotations

import pytest

from bot.domain.search.concepts import held_concepts
from tests.domain.search_asks import ids, refused, topic


def test_ideas_are_counted_once_however_many_tokens_say_them():
    """A glossary form with its English words is one idea, a run of pairs a post holds is one, a
    Latin stem is one: ``路由器`` said as two pairs and ``router`` is one idea held."""
    held_tokens = {"路由", "由器", "router", "kernel", "卡死"}
    forms = {"路由器": ("router",)}
    assert held_concepts("路由器掉线", [], forms, None, held_tokens.__contains__) == (1, 1)
    assert held_concepts("kernel 卡死", [("kernel",)], forms, None, held_tokens.__contains__) == (2, 0)
    assert held_concepts("hot router", [("hot",), ("router", "kernel")], {}, None, held_tokens.__contains__) == (1, 1)
    assert held_concepts("卡死不动", [], {}, None, held_tokens.__contains__) == (1, 1)


@pytest.mark.parametrize(
    ("query", "post"),
    [
        ("算子卡死 怎么查", "cuda-hang-debugging"),  # two ideas, both in the hang-tracing post
        ("回答瞎编 工具结果是对的", "halugate"),  # a made-up answer over right tool output
        ("tired of rebasing our secret fork", "vllm-plugin-system"),  # tired: how the asker feels
    ],
)
def test_a_short_plain_question_whose_ideas_a_post_holds_is_answered(matcher, query, post):
    assert post in ids(matcher, query, 3), query


@pytest.mark.parametrize(
    "query",
    [
        "家里路由器老掉线",  # one idea held (a router), one lacked
        "怎么提高跑步速度",  # two everyday words, a weak score
        "always tired after lunch",
    ],
)
def test_a_short_everyday_question_stays_refused(matcher, query):
    assert refused(matcher, query), query


def test_taiwan_word_for_interface_reads_as_the_web_ui(matcher):
    assert ids(matcher, "網頁介面 可以管理服務嗎", 1) == ["vllm-playground"]


@pytest.mark.parametrize(
    ("query", "track"),
    [
        ("just joined, want to land my first patch, where do i begin", "developers"),
        ("teach me how the guess and check trick speeds up generation", "spec"),
        ("想自托管模型给公司用 从哪开始学", "ops"),
    ],
)
def test_a_plain_learning_request_names_its_track(matcher, query, track):
    assert topic(matcher, query) == track, query


def test_memory_reserved_for_the_longest_output_is_pagedattentions_problem(matcher):
    query = "we reserve memory for the max generation length per request, most of it is wasted"
    assert "vllm-pagedattention-launch" in ids(matcher, query, 3)


def test_a_prefix_pushed_out_of_the_cache_reads_as_eviction(matcher):
    """``挤掉`` (pushed out) is the posts' ``逐出``: the KV offloading post brings evicted prefixes back."""
    assert "kv-offloading-connector" in ids(matcher, "前缀缓存老被挤掉 只好重算", 3)
    assert refused(matcher, "redis keeps evicting my keys")


def test_a_word_inside_another_form_of_a_held_term_is_no_second_idea():
    """``学习`` beside ``打分奖励`` repeats its term (also ``强化学习``): one idea held, not two."""
    holds = {"打分", "分奖", "奖励", "学习", "reinforc", "learn"}.__contains__
    forms = {"打分奖励": ("reinforc", "learn")}
    siblings = {"打分奖励": "强化学习 打分奖励"}
    assert held_concepts("打分奖励孩子学习", [], forms, None, holds) == (2, 1)
    assert held_concepts("打分奖励孩子学习", [], forms, None, holds, siblings) == (1, 1)
