"""The classes of search findings of QA round 16 (2026-12-07), on the repo's catalog, each with the
round's queries and others of the same class: a version the query names that no post has (the
nearest version is ``closest``, not a match; the right version still matches), a typo that makes a
glossary form of two words (``prefix cashing``), determinism and ``paged`` as field words, an
everyday attribute of a thing (``price``) no post speaks of, a tie that is only the unit of a number
(``3.5 hours``), telling terms no post holds (``mistral``), a how-to question led by a post on
another matter of the thing, and a weak best score labelled a match."""

from __future__ import annotations

import pytest

from bot.domain.search.phrase_typos import fix_pair_typos
from bot.domain.search.versions import Version, compatible, versions_in
from tests.domain.search_asks import ids as _ids
from tests.domain.search_asks import refused as _refused

# --- 1. a version no post has ------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "gemma 3",
        "llama 2",
        "glm-4.6",
        "kimi k1.5",
        "EAGLE-2",
        "vllm v0.7",
        "speculators v0.4",
        "gemma 3 on vllm",
        "deepseek r2",
        "qwen 4",
        "kimi k4",
        "glm 6",
        "llama 5 scout",
    ],
)
def test_a_version_no_post_has_is_at_most_closest(matcher, query):
    """Gemma 4 is the nearest post to ``gemma 3``, not its answer."""
    result = matcher.search(query)
    assert result.confidence in ("closest", "none"), (result.confidence, _ids(matcher, query))


@pytest.mark.parametrize(
    ("query", "post"),
    [
        ("gemma 4", "gemma-4"),
        ("eagle 3", "eagle-3-1"),
        ("eagle 3.1", "eagle-3-1"),
        ("v0.6.0", "v0-6-0-perf-update"),
        ("llama 3", "llama-3-1"),
        ("llama 4", "llama-4"),
        ("kimi k2", "kimi-k2-tool-calling-accuracy"),
        ("glm 4.5", "glm-4-5"),
        ("deepseek v4", "deepseek-v4"),
        ("nemotron 3 ultra", "nemotron-3-ultra-vllm"),
        ("vllm v1", "vllm-v1"),
        ("speculators v0.3", "speculators-v030"),
        ("speculators v0.5", "speculators-v050"),
    ],
)
def test_the_right_version_still_matches(matcher, query, post):
    """A guard: a version a post names is still a confident match, that post first."""
    result = matcher.search(query)
    assert result.confidence == "confident", (query, _ids(matcher, query))
    assert result.results[0].post_id == post, _ids(matcher, query)


def test_versions_are_read_with_their_family():
    """Sizes, counts and chips are no versions; a letter and trailing zeros are read."""
    assert versions_in("Kimi K2's tool calls") == (Version("kimi", "k", (2,)),)
    assert versions_in("vLLM v0.6.0: 2.7x throughput") == (Version("vllm", "v", (0, 6)),)
    assert versions_in("EAGLE3 on 8x H100, llama 3 8b") == (Version("eagle", "", (3,)), Version("llama", "", (3,)))
    assert versions_in("nvidia h100 with 128k context") == ()
    assert versions_in("the 5 best") == (Version("the", "", (5,)),)
    assert versions_in("the 5 best", frozenset({"the"})) == ()


def test_a_precision_is_no_version():
    """``int8`` and ``int4`` are bit widths; a name of four letters or more may join its version."""
    assert versions_in("fp8 vs int8 vs int4") == ()
    assert versions_in("qwen3 and eagle3") == (Version("qwen", "", (3,)), Version("eagle", "", (3,)))


@pytest.mark.parametrize(
    "query",
    [
        "on an old vllm 0.5 the gpu sits idle a lot, profiling shows the http server and scheduling eat most"
        " of each step on 1xH100",
        "deepseek r1 on gb200 nvl72 with wide ep: how do nvfp4 moe dispatch and scaling down prefill instances help",
    ],
)
def test_a_version_in_a_long_question_is_its_setting(matcher, query):
    """A guard (eval rows kept confident): the version is the setting of a question on other terms."""
    assert matcher.search(query).confidence == "confident", _ids(matcher, query)


def test_compatible_versions():
    assert compatible(Version("llama", "", (3,)), Version("llama", "", (3, 1)))
    assert compatible(Version("kimi", "", (2,)), Version("kimi", "k", (2,)))
    assert not compatible(Version("gemma", "", (3,)), Version("gemma", "", (4,)))
    assert not compatible(Version("glm", "", (4, 6)), Version("glm", "", (4, 5)))
    assert not compatible(Version("deepseek", "r", (1,)), Version("deepseek", "v", (1,)))
    assert not compatible(Version("qwen", "", (3,)), Version("llama", "", (3,)))


# --- 2. off-topic questions --------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "what is the price of an H100",
        "how much is the price of an h100",
        "what is the price of a mi300x",
        "what is the price of an a100",
    ],
)
def test_an_everyday_attribute_no_post_speaks_of_is_refused(matcher, query):
    """The posts name the chip, not its price."""
    assert _refused(matcher, query), _ids(matcher, query)


@pytest.mark.parametrize(
    "query",
    [
        "what is the meaning of paged attention",
        "what is the latency of eagle 3",
        "what is the cost of prefix caching",
        "what is the cost of running llama 4 on h100",
    ],
)
def test_an_attribute_a_post_holds_still_finds_posts(matcher, query):
    """A guard: a field attribute (latency), or one the best post speaks of, still finds posts."""
    assert _ids(matcher, query), query


@pytest.mark.parametrize("query", ["who maintains vllm", "who are the vllm maintainers"])
def test_who_maintains_vllm_is_the_governance_post(matcher, query):
    assert _ids(matcher, query)[:1] == ["open-governance-perf-roadmap"]


def test_maintainable_still_finds_the_plugin_post(matcher):
    """A guard: the plugin post's own word still finds it."""
    assert _ids(matcher, "maintainable vllm modifications")[:1] == ["vllm-plugin-system"]


# --- 3. refusals of what the catalog covers ----------------------------------------------------


@pytest.mark.parametrize(
    ("query", "post"),
    [
        ("paged atention", "vllm-pagedattention-launch"),
        ("paged attenton", "vllm-pagedattention-launch"),
        ("prefix cashing", "anatomy-of-vllm"),
        ("long contex", "decode-context-parallelism"),
    ],
)
def test_a_form_of_two_words_typed_one_letter_off(matcher, query, post):
    assert post in _ids(matcher, query, 3), _ids(matcher, query)


def test_fix_pair_typos_reads_the_form_and_keeps_known_words():
    forms = {("prefix", "caching"), ("llm", "serve")}

    def near(word: str) -> list[str]:
        return {"cashing": ["caching"], "vllm": ["llm"]}.get(word, [])

    def keep(word: str) -> bool:
        return word == "vllm"

    assert fix_pair_typos("prefix cashing", near, str, forms, keep) == "prefix caching"
    assert fix_pair_typos("vllm serve", near, str, forms, keep) == "vllm serve"  # vllm is as meant
    assert fix_pair_typos("prefix caching", near, str, forms, keep) == "prefix caching"


@pytest.mark.parametrize(
    "query",
    [
        "paged",
        "deterministic",
        "nondeterministic",
        "non-deterministic outputs",
        "model outputs differ between runs nondeterministic",
        "determinism in vllm",
        "确定性推理",
    ],
)
def test_determinism_and_paging_are_field_words(matcher, query):
    ids = _ids(matcher, query, 3)
    assert ids, query
    assert ids[0] in {"vllm-pagedattention-launch", "bitwise-consistent-train-inference", "isoexec"} or any(
        i in {"vllm-pagedattention-launch", "bitwise-consistent-train-inference"} for i in ids
    ), ids


def test_deterministic_in_another_sense_is_not_ours(matcher):
    """A guard: ``deterministic`` beside words of no field of ours is no question on vLLM."""
    assert _refused(matcher, "deterministic finite automaton")


# --- 4. a how-to question ----------------------------------------------------------------------


@pytest.mark.parametrize("query", ["how do I serve LoRA adapters", "how can we serve lora adapters"])
def test_how_to_serve_leads_with_the_serving_post(matcher, query):
    assert _ids(matcher, query)[:1] == ["multi-lora-sagemaker"]


def test_a_post_on_another_matter_still_leads_its_own_question(matcher):
    """A guard: the backdoor post still answers a question on LoRA security."""
    assert _ids(matcher, "lora backdoor")[:1] == ["redhat-lora-backdoor"]


# --- 5. weak evidence --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB",
        "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens"
        " that can be stored in KV cache",
    ],
)
def test_a_weak_best_is_no_match(matcher, query):
    assert matcher.search(query).confidence in ("closest", "none"), _ids(matcher, query)


@pytest.mark.parametrize(
    "query",
    ["new to quant — int8, fp8 or fp4, where do i start", "i'd like to learn prefill decode disaggregation end to end"],
)
def test_a_question_in_words_keeps_its_confidence_at_a_low_score(matcher, query):
    """A guard: only a pasted error is judged by its best score (these score 54-55, right)."""
    result = matcher.search(query)
    assert result.confidence == "confident" and result.results[0].score < 60, (result.confidence, result.results)


@pytest.mark.parametrize("query", ["vllm office hours", "vllm office hours schedule", "vllm hours"])
def test_a_unit_of_a_number_is_no_tie(matcher, query):
    """The Async GRPO post says ``3.5 hours``: no tie to office hours."""
    assert "hf-async-grpo-lora" not in _ids(matcher, query)


@pytest.mark.parametrize("query", ["how to serve mistral", "how do i serve mistral", "deploy mistral"])
def test_telling_terms_no_post_holds_are_refused(matcher, query):
    assert _refused(matcher, query), _ids(matcher, query)


def test_a_telling_term_a_post_holds_still_matches(matcher):
    """A guard: a model some post is on still finds it."""
    assert _ids(matcher, "how to serve deepseek v4")[:1] == ["deepseek-v4"]
