"""The classes of misses of the holdout round m (2026-12-07; Slack messages: inline code, code blocks,
quotes, emoji codes, mentions, pasted non-blog links with words, numbers with units, X vs Y; Chinese
short and long, Traditional characters, Cantonese words; written before a run, first run en 0.920 /
1.000 / 0.960 (bm25+q MRR 0.973), zh 0.960 / 1.000 / 0.980, topics 0.933 / 1.000 / 0.967, off-topic
5 of 12 shown), on the repo's catalog: home networking, CDNs and a laptop's display and power settings
are other things; a link pasted inside a question stands for its site's name and its path's words;
Cantonese function words are stop words and 打机 is gaming; a memory usage is any program's, not
the GPU's, beside another tool; a question listing many terms is answered by the post holding them
all; "a series", 合集, 成体系, 由浅入深 ask for a track; 发布当天 is day 0 and "fewer bits" quantization;
a platform named without another track prefers the post whose title names it."""

from __future__ import annotations

import re

import pytest

from bot.domain.search import Matcher
from bot.domain.search.analysis import normalize
from bot.domain.search.links import link_words


def _ids(matcher: Matcher, query: str, n: int = 5) -> list[str]:
    return [r.post_id for r in matcher.search(query, limit=n).results]


def _refused(matcher: Matcher, query: str) -> bool:
    result = matcher.search(query)
    return result.results == () and result.confidence == "none"


def _track(matcher: Matcher, query: str) -> str | None:
    track = matcher.search(query).track
    return track.track_id if track else None


@pytest.mark.parametrize(
    "query",
    [
        # the round's
        "home wifi mesh router keeps dropping the 5GHz band :signal_strength: TP-Link Deco vs Eero for a "
        "3-floor house?",
        "Cloudflare CDN cache hit ratio dropped after we added query-string versioning, how do cache keys / "
        "prefix purge work? https://developers.cloudflare.com/cache/",
        "MacBook 合盖 sleep mode 之后外接显示器唤醒不了，```pmset -g```看了 hibernatemode=3，要怎么改？",
        # new wordings
        "our office wifi router drops clients every hour, netgear vs tp-link?",
        "外接显示器 sleep mode 唤醒不了",
        "CDN cache hit rate low after deploy, how to purge cache keys by prefix",
        "wifi router p99 latency spikes at night",
    ],
)
def test_home_networking_cdns_and_laptop_display_settings_are_other_things(matcher, query):
    assert _refused(matcher, query), _ids(matcher, query)


def test_a_pasted_link_stands_for_its_sites_name_and_its_paths_words():
    def words(url: str) -> str:
        match = re.search(r"\S+", url)
        assert match is not None
        return link_words(match).strip()

    assert words("https://developers.cloudflare.com/cache/") == "cloudflare cache"
    assert words("https://huggingface.co/google/diffusiongemma") == "huggingface google diffusiongemma"
    assert words("https://github.com/vllm-project/vllm/issues/12345") == "github vllm project vllm"
    assert words("https://docs.vllm.ai/en/latest/design/prefix_caching.html") == "vllm design prefix caching"
    assert words("https://www.bbc.co.uk/news") == "bbc news"


def test_a_link_to_another_site_names_what_the_question_is_about(matcher):
    # the round's Cloudflare question without the word "Cloudflare": the link's host says it
    query = "cache hit ratio dropped after query-string versioning, how do cache keys / prefix purge work? https://developers.cloudflare.com/cache/"
    assert _refused(matcher, query), _ids(matcher, query)


def test_a_pasted_model_link_names_the_model(matcher):
    # the link was dropped whole: "how does vllm run" was left, about nothing in particular
    ids = _ids(matcher, "how does vllm run https://huggingface.co/google/diffusiongemma ?", 3)
    assert ids and all("diffusion" in i for i in ids), ids


@pytest.mark.parametrize("query", ["打机 显存 唔够 点算", "打機 顯存 唔夠 點算"])
def test_cantonese_gaming_is_another_thing(matcher, query):
    assert _refused(matcher, query), _ids(matcher, query)


@pytest.mark.parametrize("word", ["点样", "咩", "有冇", "係", "嘅", "喺", "睇"])
def test_cantonese_function_words_are_no_terms(matcher, word):
    units = matcher._units(normalize(f"Nemotron 3.5 Lightning {word} 首发"), query=True)
    assert normalize(word) not in {t.text for t in matcher._topicality(units).terms}
    assert normalize(word) in matcher._ignorable


def test_a_memory_usage_beside_another_tool_is_that_tools(matcher):
    query = "Redis 集群 大 key 导致 p99 延迟 2s，```MEMORY USAGE``` 查到 80MB 的 hash，要怎么拆？"  # the round's
    assert _refused(matcher, query), _ids(matcher, query)
    assert _ids(matcher, "vllm gpu memory usage too high", 1)  # vLLM's own is still searched


def test_a_post_holding_every_term_of_a_long_list_leads(matcher):
    query = (  # the round's: FSM (a rare word of one item) led to the structured decoding post
        "new hire asks for one long read that walks from `LLMEngine` constructor → engine core → scheduler → "
        "forward pass → chunked prefill, prefix caching, FSM guided decoding, then multi-node. the Aleksa "
        "Gordic one?"
    )
    assert _ids(matcher, query, 1) == ["anatomy-of-vllm"], _ids(matcher, query)


@pytest.mark.parametrize(
    ("query", "track"),
    [
        ("我们用 vLLM 当 RL rollout 引擎（GRPO、权重同步、训推一致），有没有成体系的文章合集", "rl"),
        ("prefill 和 decode 拆开放不同 GPU，KV 怎么传、NIXL connector 点样配，想由浅入深睇晒", "pd"),
        ("新模型發佈當天 vLLM 就支援，有冇成個系列可以順住睇？", "models"),
        (
            "FP8 vs NVFP4 vs MXFP4 vs INT4 for weights and KV cache on 8xH100 — is there a curated set of posts "
            "on serving with fewer bits?",
            "quant",
        ),
    ],
)
def test_a_series_or_a_collection_asks_for_a_track(matcher, query, track):
    assert _track(matcher, query) == track


def test_launch_flags_of_a_model_size_find_that_models_launch(matcher):
    query = (  # the round's: Nemotron 3 Ultra's post (MTP, mamba cache, reasoning parser) led
        "pasting our launch flags:```vllm serve ... --moe-backend humming --mamba-cache-mode align "
        "--enable-mamba-cache-stochastic-rounding --reasoning-parser nemotron_v3```is this the recommended "
        "day-0 recipe for the 30B-A3B nvidia model with MTP, or did I copy it from the wrong post? <@U012ABC>"
    )
    assert _ids(matcher, query, 1) == ["nemotron-3-5-lightning-vllm"], _ids(matcher, query)


def test_a_platform_named_without_a_track_prefers_the_post_whose_title_names_it(matcher):
    # the round's: the router release that also runs on AMD (ONNX) led the AMD × Semantic Router post
    query = "Semantic Router 喺 AMD GPU 上跑，ONNX 轻量路由 定 vLLM 推理 兩條路"
    assert _ids(matcher, query, 1) == ["semantic-router-amd"], _ids(matcher, query)
