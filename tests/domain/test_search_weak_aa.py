"""On-topic questions refused that a plain word search answers (holdout set aa, 2026-12-08), each
asked here in other words than the set's rows, on the repo's catalog. Two classes, each a rule:

* another tool's name told as part of the asker's setup (a training framework's sharding stage
  written with a hyphen, a dashboard word in Chinese) beside the problem: the plain-words fallback
  answers when its best post holds every such tool's name and most of the question's words
  (:mod:`bot.domain.search.setup_tools`); a question on a tool that a post only mentions stays refused;
* an everyday word typed one letter off inside a glossary form of three words (``illegal memory
  acess``): read as the form (:mod:`bot.domain.search.phrase_typos`).
"""

from __future__ import annotations

import pytest

from bot.domain.search.phrase_typos import fix_pair_typos
from tests.domain.search_asks import ids as _ids
from tests.domain.search_asks import refused as _refused


@pytest.mark.parametrize(
    "query",
    [
        "ppo for a reasoning model on ray with zero-3: sampling long chains of thought takes most of each step",
        "推理模型上跑 ppo，ray 配 zero3，长思维链那段生成拖慢整轮",
    ],
)
def test_a_training_framework_told_as_the_setup_finds_the_post_on_it(matcher, query):
    """ZeRO-3 (joined as ``zero3`` in the post's text) beside RL's sampling problem: the OpenRLHF post."""
    assert "openrlhf-vllm" in _ids(matcher, query, 3)


def test_a_chinese_dashboard_word_beside_an_internal_api_platform_finds_it(matcher):
    """``看板`` (an other-tool word) beside an internal model API with keys and quotas on OpenShift."""
    query = "想在 openshift 上给公司内部做统一的模型 API 服务，带 key 管理、限流和成本看板"
    assert "redhat-models-as-a-service" in _ids(matcher, query, 3)


@pytest.mark.parametrize(
    "query",
    [
        "ollama keeps crashing when i pull a new model, how to fix",
        "my llama.cpp server says unsupported model architecture for a gguf i made last night, old llama.cpp build?",
    ],
)
def test_a_question_on_the_tool_itself_stays_refused(matcher, query):
    """A tool no post names, or one a post only mentions beside a few generic words: refused."""
    assert _refused(matcher, query)


def test_an_everyday_word_typed_off_inside_a_three_word_form_is_read_as_the_form():
    """The pure rule: one word of a three-word form one edit off is replaced (the last first)."""
    forms = {("illegal", "memory", "access"), ("prefix", "cach")}
    near = {"acess": ["access"], "memroy": ["memory"]}

    def fix(text: str) -> str:
        return fix_pair_typos(text, lambda w: near.get(w, []), lambda w: w, forms, lambda w: w not in near)

    assert fix("got an illegal memory acess again") == "got an illegal memory access again"
    assert fix("illegal memroy access") == "illegal memory access"
    assert fix("illegal memory access") == "illegal memory access"


def test_a_cuda_memory_error_with_a_typo_finds_the_core_dump_post(matcher):
    """A kernel's illegal memory access, its last word typed off, beside a useless stack: the post
    on finding the culprit with a CUDA core dump."""
    assert "cuda-core-dump-debugging" in _ids(
        matcher, "keep hitting an illegal memory acess in my kernel, no idea where", 3
    )
