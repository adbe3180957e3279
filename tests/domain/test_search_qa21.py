"""QA round 21 (2026-12-08), in other words than the tester's: beside the product's own name,
another runtime whose name a post writes hyphenated (``TensorRT-LLM``, indexed joined) is a name
that post says, so comparing it with vLLM finds the post instead of being refused as a tool no post
mentions (:meth:`bot.domain.search.topic.TopicIndex._other_tool`). Without vLLM named, a question on
that tool alone is still another tool's question (its engine builds, its plugins)."""

from __future__ import annotations

import pytest

from tests.domain.search_asks import ids as _ids
from tests.domain.search_asks import refused as _refused


@pytest.mark.parametrize("query", ["is tensorrt-llm faster than vllm", "how does vllm stack up against tensorrt-llm"])
def test_a_hyphenated_runtime_compared_with_vllm_finds_the_comparing_post(matcher, query):
    """The v0.6.0 performance update compares vLLM with TensorRT-LLM: it is shown."""
    assert "v0-6-0-perf-update" in _ids(matcher, query)


def test_the_hyphenated_runtime_alone_stays_another_tools_question(matcher):
    """Its own build trouble, vLLM unnamed, is no post's subject."""
    assert _refused(matcher, "tensorrt-llm plugin build keeps failing")
