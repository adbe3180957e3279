"""The classes of misses of the holdout round k (2026-12-07; written before a run, first run en
0.886 / 0.971 / 0.929 behind bm25s with one refusal, off-topic 4 of 12 shown), on the repo's catalog:
Python's own libraries, games and their stores, trading and mining are other things (a Chinese name
of one, ``量化交易``, ``矿卡``, is cut as one word: not ``量化`` of quantization); a question asking to
train something few posts are about is answered by the post on training it; the ``-ing`` form of an
``-ize``/``-ise`` verb stems as the verb; a long pasted question keeps its field terms among the
concepts it is ranked by."""

from __future__ import annotations

import pytest

from bot.domain.search import Matcher
from bot.domain.search.analysis import normalize, stem


def _ids(matcher: Matcher, query: str, n: int = 5) -> list[str]:
    return [r.post_id for r in matcher.search(query, limit=n).results]


@pytest.mark.parametrize(
    "query",
    [
        # the round's four
        "python asyncio: one task starves the others when another does blocking file io, how to fix the event "
        "loop scheduling",
        "elden ring stutters with shader cache compilation on steam deck, any fix",
        "矿卡退下来的二手 3090 还能买吗 怎么检测显存有没有坏",
        "股票量化交易回測框架 backtrader 和 vnpy 哪個好用",
        # the same classes, worded otherwise
        "which steam games run well on the steam deck",
        "quant trading backtest framework in python, backtrader or zipline",
        "量化交易策略回测用什么框架",
        "挖矿用的显卡显存坏了怎么检测",
    ],
)
def test_libraries_games_trading_and_mining_are_other_things(matcher, query):
    result = matcher.search(query)
    assert result.results == () and result.confidence == "none", _ids(matcher, query)


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("模型量化 int8 精度下降", "redhat-w8a8-int8"),  # 量化 alone is still quantization
        ("vllm engine core busy loop with asyncio and prefix caching", "vllm-v1"),  # vLLM named beside it
    ],
)
def test_our_words_beside_them_are_still_answered(matcher, query, first):
    ids = _ids(matcher, query)
    assert ids and ids[0].startswith(first), ids


def test_a_chinese_name_of_another_thing_is_cut_whole(matcher):
    # jieba's own dictionary cuts 量化交易 as 量化 / 交易 and 矿卡 as 矿 / 卡: the name is not seen.
    texts = [u.text for u in matcher._units(normalize("股票量化交易 矿卡"), query=True)]
    assert "量化交易" in texts and "矿卡" in texts, texts


@pytest.mark.parametrize(
    "query",
    ["google's diffusiongemma dev guide, the sudoku fine-tuning one?", "fine-tune diffusiongemma on sudoku"],
)
def test_training_what_few_posts_are_about_finds_the_post_on_training_it(matcher, query):
    assert _ids(matcher, query, 1) == ["google-diffusiongemma-guide"], _ids(matcher, query)


def test_training_a_model_many_posts_name_is_still_training(matcher):
    # lora and llama are held by many posts: no post is about training them (test_search_weak_j).
    assert _ids(matcher, "fine-tune llama 3 8b with lora on a single 4090") == []


@pytest.mark.parametrize(
    ("forms", "stemmed"),
    [(("denoise", "denoises", "denoised", "denoising"), "deno"), (("quantize", "quantized", "quantizing"), "quant")],
)
def test_the_ing_form_of_an_ize_or_ise_verb_stems_as_the_verb(forms, stemmed):
    assert {stem(f) for f in forms} == {stemmed}


def test_a_question_worded_with_the_verb_finds_the_post_saying_its_ing_form(matcher):
    # "denoises" was read nowhere: the dLLM launch (tag "denoising") tied the developer guide.
    query = "how does vllm serve a dLLM that denoises whole blocks instead of next-token decoding"
    assert _ids(matcher, query, 1) == ["diffusion-gemma"], _ids(matcher, query)


def test_a_long_pasted_question_keeps_its_field_terms(matcher):
    query = (
        "kimi k3 launch-day recipe exports `VLLM_USE_RUST_FRONTEND=1` and says the chat template is a render "
        "program not jinja, so our --chat-template override does nothing. which post explains this"
    )
    assert _ids(matcher, query, 1) == ["kimi-k3-day-0"], _ids(matcher, query)
    units = matcher._units(matcher._rewrite(normalize(query)), query=True)
    kept = {alt for c in matcher._concepts(units) for alt, _ in c.alternatives}
    assert ("launch", "day") in kept  # a glossary form, commoner than the paste's "exports" and "says"
