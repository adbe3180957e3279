"""bot.search: preprocessing, track matching, post ranking, relevance on the eval queries, the CLI.

Two kinds of catalog: a small one built here (each behaviour in isolation, with answers that
follow from its data) and the repo's catalog (the eval queries: ``queries-dev.tsv`` from the
shared folder when present, else the committed copy, plus our own ``queries-extra.tsv``).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from dataclasses import FrozenInstanceError

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.catalog import Catalog, load_catalog
from bot.catalog.models import LocalizedText, Manifest, Post, Published, Source, Step, Track
from bot.cli import main
from bot.paths import compute_order
from bot.search import HINT_EMPTY, MIN_SCORE, Matcher, default_vocabulary, normalize, stem
from tests.evaldata import DATA, REPO, eval_file, read_tsv

# --- a small catalog built here -----------------------------------------------------------------


def _post(pid: str, title: str, *, tags=(), en="A post.", zh=None, day=1, aliases=()) -> Post:
    return Post(id=pid, title=title, url=f"/2026/01/{day:02d}/{pid}.html",
                published=Published.model_validate(dt.date(2026, 1, day)),
                source=Source(kind="vllm-blog"), tags=tuple(tags), aliases=tuple(aliases),
                summary=LocalizedText(en=en, zh=zh))


def _track(tid: str, en: str, zh: str, steps: list[Step], aliases=()) -> Track:
    return Track(id=tid, names=LocalizedText(en=en, zh=zh), aliases=tuple(aliases),
                 description=LocalizedText(en=f"About {en}."), steps=tuple(steps))


def small_catalog() -> Catalog:
    posts = [
        _post("spec-intro", "An Introduction to Speculative Decoding in vLLM",
              tags=("speculative decoding",), en="Draft models propose tokens; the target verifies.",
              zh="介绍推测解码的基本原理：草稿模型提出候选 token，目标模型验证。", day=1),
        _post("p-eagle", "P-EAGLE: Parallel Drafting for Faster Decoding", tags=("eagle",),
              en="Parallel drafting with EAGLE heads.", zh="并行起草的 EAGLE 方法。", day=2),
        _post("eagle-three", "EAGLE 3 Heads in Practice", tags=("eagle",),
              en="Training and serving EAGLE 3 draft heads.", day=3, aliases=("eagle3-old-id",)),
        _post("fp8-kv", "The State of FP8 KV-Cache Quantization", tags=("fp8", "kv cache"),
              en="FP8 keys and values halve KV cache memory.", zh="KV 缓存的 FP8 量化。", day=4),
        _post("w4a16", "Weight-Only INT4 Quantization with GPTQ", tags=("int4",),
              en="W4A16 kernels for weight-only quantization.", zh="仅权重量化。", day=5),
        _post("tpu-backend", "A Unified TPU Backend for PyTorch and JAX", tags=("tpu",),
              en="vLLM on Cloud TPU with one backend.", day=6),
        _post("amd-serving", "Serving LLMs on AMD MI300X: Best Practices", tags=("amd", "rocm"),
              en="Tuning vLLM on AMD Instinct MI300X.", day=7),
        _post("torch-compile", "Introduction to torch.compile and How It Works with vLLM",
              tags=("torch.compile",), en="Graph capture and Inductor in vLLM.", day=8),
        _post("gpt-oss", "vLLM Now Supports gpt-oss", tags=("gpt-oss",),
              en="Serving OpenAI's open-weight gpt-oss models.", day=9),
        _post("sparse-attn", "Fine-Grained Sparse Attention in Action", tags=("sparse attention",),
              en="A lightning indexer selects the tokens to attend to.",
              zh="细粒度稀疏注意力的实现与长上下文推理。", day=10),
        _post("long-context", "Serving Long Documents", tags=("long context",),
              en="Context parallelism for long inputs.", zh="长上下文推理的上下文并行。", day=11),
        _post("pd-guide", "A Practical Guide to Disaggregated Serving",
              tags=("pd disaggregation", "nixl"), en="Prefill and decode on separate workers with NIXL.",
              zh="PD 分离服务的实践指南。", day=12),
        _post("lora-routing", "Semantic Routing with Extensible LoRA", tags=("lora",),
              en="Many adapters behind one router.", day=13),
        _post("rl-apis", "Native RL APIs in vLLM", tags=("rl",),
              en="Weight syncing for reinforcement learning rollouts.", zh="强化学习的原生接口。", day=14),
        _post("sleep-mode", "Zero-Reload Model Switching with Sleep Mode", tags=("sleep mode",),
              en="Offload weights and wake up fast.", day=15),
        _post("serving-summary", "Notes From a Meetup", en="We talked about EAGLE and speculative decoding.",
              day=16),
    ]
    tracks = [
        _track("spec", "Speculative decoding", "推测解码",
               [Step(post="spec-intro", level="intro"), Step(post="p-eagle", after=("spec-intro",)),
                Step(post="eagle-three", after=("spec-intro",)),
                Step(post="serving-summary", level="advanced", after=("p-eagle",))],
               aliases=("spec decode", "speculative")),
        _track("quant", "Quantization", "量化",
               [Step(post="fp8-kv"), Step(post="w4a16", after=("fp8-kv",))], aliases=("quantisation",)),
        _track("pd", "PD disaggregated serving", "PD 分离服务",
               [Step(post="pd-guide")], aliases=("disaggregated serving", "pd serving")),
        _track("hardware", "Hardware platforms", "硬件平台",
               [Step(post="tpu-backend"), Step(post="amd-serving")], aliases=("amd",)),
        _track("agentic", "Agentic serving", "智能体服务",
               [Step(post="long-context"), Step(post="sparse-attn")], aliases=("kv cache",)),
        _track("internals", "Engine internals", "引擎内部原理",
               [Step(post="torch-compile"), Step(post="sleep-mode")]),
        _track("models", "Model launches", "模型首发支持",
               [Step(post="gpt-oss"), Step(post="lora-routing")]),
        _track("rl", "RL & post-training", "强化学习与后训练", [Step(post="rl-apis")],
               aliases=("reinforcement learning",)),
    ]
    by_id = {p.id: p for p in posts}
    orders = {t.id: compute_order(t, by_id) for t in tracks}
    return Catalog.build(manifest=Manifest(version="2026.01.0"), posts=posts, tracks=tracks,
                         orders=orders)


SMALL = Matcher(small_catalog())


@pytest.fixture
def small() -> Matcher:
    return SMALL


def top_ids(matcher: Matcher, query: str, k: int = 3) -> list[str]:
    return [r.post_id for r in matcher.search(query, limit=k).results]


# --- preprocessing ------------------------------------------------------------------------------


@pytest.mark.parametrize("raw, expected", [
    ("P-EAGLE", "p eagle"),
    ("torch.compile", "torch compile"),
    ("ＧＰＴ－ＯＳＳ", "gpt oss"),            # full-width forms fold under NFKC
    ("W8A8   INT8", "w8a8 int8"),
    ("Straße", "strasse"),                   # casefold, not lower
    ("推测解码", "推测解码"),
    ("PD分离服务", "pd 分离服务"),              # Chinese and Latin runs become separate words
    ("vLLM × HPC-Ops", "vllm hpc ops"),
    ("snake_case", "snake case"),
    ("&", ""), ("???", ""), ("🦅", ""), ("  ", ""), ("——…", ""), ("", ""),
])
def test_normalize(raw, expected):
    assert normalize(raw) == expected


@given(st.text(max_size=200))
def test_normalize_is_idempotent_and_has_no_punctuation(text):
    once = normalize(text)
    assert normalize(once) == once
    assert once == once.strip() and "  " not in once


@pytest.mark.parametrize("a, b", [
    ("disaggregated", "disaggregation"), ("quantization", "quantisation"), ("quantized", "quantization"),
    ("decoding", "decode"), ("gpus", "gpu"), ("models", "model"), ("caches", "cache"),
])
def test_stem_joins_spelling_and_inflection_variants(a, b):
    assert stem(a) == stem(b)


@pytest.mark.parametrize("word", ["fp8", "w8a8", "v4", "tps", "pd", "moe", "nixl"])
def test_stem_keeps_short_words_and_words_with_digits(word):
    assert stem(word) == word


# --- empty and junk queries ---------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "&", "???", "🦅", "   ", "——", "!!! ??? ...", "🚀🚀🚀"])
def test_nothing_to_search_gives_no_posts_and_a_hint(small, query):
    result = small.search(query)
    assert result.results == ()
    assert result.hint == HINT_EMPTY
    assert result.track is None
    assert small.match_track(query) is None


@pytest.mark.parametrize("query", ["zzqxv", "blorptastic frobnicator", "量子纠缠"])
def test_a_query_that_matches_nothing_returns_nothing_rather_than_a_best_guess(small, query):
    result = small.search(query)
    assert result.results == ()
    assert result.hint is None


@given(st.text(max_size=400))
@settings(max_examples=150, deadline=None)
def test_any_text_gives_a_well_formed_result(text):
    result = SMALL.search(text, limit=4)
    assert len(result.results) <= 4
    scores = [r.score for r in result.results]
    assert scores == sorted(scores, reverse=True)
    assert all(MIN_SCORE <= s <= 100 for s in scores)
    assert len({r.post_id for r in result.results}) == len(result.results)
    assert (result.hint is not None) == (normalize(text) == "")


def test_results_and_matches_are_immutable(small):
    result = small.search("eagle")
    with pytest.raises(FrozenInstanceError):
        result.results[0].score = 1.0  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        small.match_track("spec").track_id = "x"  # type: ignore[union-attr,misc]


def test_limit_is_respected_and_clamped(small):
    assert len(small.search("vllm", limit=2).results) <= 2
    assert len(small.search("vllm", limit=0).results) <= 1
    assert len(small.search("vllm", limit=10_000).results) <= 50


def test_a_very_long_query_is_read_up_to_a_cap(small):
    text = ("how do I make eagle drafting faster " * 100)[:3000]
    result = small.search(text)
    assert result.results and result.results[0].post_id in {"p-eagle", "eagle-three"}
    assert small.match_track(text) is None


# --- ranking on the small catalog ---------------------------------------------------------------


def test_title_match_outranks_a_summary_only_match(small):
    ids = top_ids(small, "eagle", k=5)
    assert set(ids[:2]) == {"p-eagle", "eagle-three"}
    assert ids.index("serving-summary") > 1  # "EAGLE" only in its summary


@pytest.mark.parametrize("query, expected", [
    ("tpu", "tpu-backend"), ("amd", "amd-serving"), ("lora", "lora-routing"), ("rl", "rl-apis"),
    ("kv", "fp8-kv"), ("pd", "pd-guide"), ("nixl", "pd-guide"), ("fp8", "fp8-kv"),
])
def test_short_queries_find_their_posts_first_and_do_not_tie_everything(small, query, expected):
    result = small.search(query, limit=10)
    assert result.results[0].post_id == expected
    # Only posts that contain the word somewhere are returned, not the whole catalog at one score.
    assert len(result.results) < len(small_catalog().posts) // 2


@pytest.mark.parametrize("variant, canonical", [
    ("specualtive decodng", "speculative decoding"),
    ("quantisation", "quantization"),
    ("disagregated serving", "disaggregated serving"),
    ("spekulative", "speculative"),
])
def test_typos_and_spelling_variants_find_the_same_posts(small, variant, canonical):
    assert top_ids(small, canonical, k=1)[0] in top_ids(small, variant, k=3)


@pytest.mark.parametrize("variants, expected", [
    (("p-eagle", "P-EAGLE", "p eagle", "peagle", "P/EAGLE"), "p-eagle"),
    (("torch.compile", "torch compile", "torchcompile", "Torch.Compile()"), "torch-compile"),
    (("gpt-oss", "gpt oss", "gptoss", "GPT-OSS"), "gpt-oss"),
    (("fp8 kv cache", "FP8 KV-Cache", "fp8 kvcache"), "fp8-kv"),
])
def test_names_with_punctuation_match_however_they_are_written(small, variants, expected):
    for query in variants:
        assert top_ids(small, query, k=1) == [expected], query


@pytest.mark.parametrize("query, expected", [
    ("推测解码", "spec-intro"), ("稀疏注意力", "sparse-attn"), ("长上下文", "long-context"),
    ("量化", "fp8-kv"), ("强化学习", "rl-apis"),
])
def test_chinese_without_spaces_finds_posts(small, query, expected):
    assert expected in top_ids(small, query, k=3)


def test_chinese_query_finds_english_only_posts_through_the_vocabulary(small):
    # "sleep mode" has no Chinese text; 睡眠模式 reaches it through the bilingual vocabulary.
    assert top_ids(small, "睡眠模式", k=1) == ["sleep-mode"]


def test_former_post_ids_are_searchable(small):
    assert top_ids(small, "eagle3-old-id", k=1) == ["eagle-three"]


def test_matched_names_the_field(small):
    by_id = {r.post_id: r for r in small.search("eagle", limit=10).results}
    assert by_id["p-eagle"].matched == "title"
    assert by_id["serving-summary"].matched == "summary"


def test_posts_of_a_named_track_rank_for_the_track_name(small):
    # No post of the pd track says "分离" outside pd-guide; the track's Chinese name still links it.
    assert top_ids(small, "PD 分离服务", k=1) == ["pd-guide"]


def test_searches_from_many_threads_agree_with_one(small):
    queries = ["eagle", "推测解码", "tpu", "specualtive decodng", "&", "gpt-oss"] * 20
    expected = {q: small.search(q) for q in set(queries)}
    errors: list[str] = []

    def work(chunk):
        for q in chunk:
            if small.search(q) != expected[q]:
                errors.append(q)

    threads = [threading.Thread(target=work, args=(queries[i::4],)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


# --- track matching on the small catalog --------------------------------------------------------


@pytest.mark.parametrize("query, expected", [
    ("spec", "spec"), ("Speculative decoding", "spec"), ("推测解码", "spec"), ("spec decode", "spec"),
    ("投机解码", "spec"),             # vocabulary: 投机 = 推测
    ("specualtive decodng", "spec"),  # typos
    ("the speculative decoding track", "spec"),
    ("quantisation", "quant"), ("quantization", "quant"), ("量化", "quant"),
    ("pd", "pd"), ("PD分离服务", "pd"), ("pd disaggregation", "pd"), ("disagregated serving", "pd"),
    ("reinforcement learning", "rl"), ("reinforcment learning", "rl"), ("强化学习", "rl"),
    ("hardware", "hardware"), ("硬件平台", "hardware"),
    ("amd", "hardware"),              # an alias the track declares
])
def test_match_track_names_the_track(small, query, expected):
    match = small.match_track(query)
    assert match is not None and match.track_id == expected, match
    assert 0 < match.score <= 100


@pytest.mark.parametrize("query", [
    "eagle", "nixl", "tpu", "torch.compile", "fp8 kv cache", "w8a8 int8", "lora", "kimi k3",
    "amd mi300x",   # "amd" is an alias, but "mi300x" belongs to no track name
    "serving",      # part of two tracks' names: names neither
    "kv",           # a short abbreviation that is not an alias
    "vllm", "speculative decoding on tpu",
])
def test_match_track_does_not_fire_on_post_queries(small, query):
    assert small.match_track(query) is None


def test_exact_names_score_100_and_typos_less(small):
    assert small.match_track("Quantization").score == 100
    typo = small.match_track("quantizaton")
    assert typo is not None and typo.track_id == "quant" and typo.score < 100


# --- the eval queries on the repo catalog -------------------------------------------------------


@pytest.fixture(scope="module")
def repo_catalog() -> Catalog:
    return load_catalog(REPO / "catalog")


@pytest.fixture(scope="module")
def repo_matcher(repo_catalog) -> Matcher:
    return Matcher(repo_catalog)


def _eval_rows():
    rows = []
    for path in (eval_file("queries-dev.tsv"), DATA / "queries-extra.tsv"):
        for row in read_tsv(path):
            rows.append(pytest.param(row[0], row[1], row[2], id=f"{path.stem}:{row[1]}:{row[0]}"))
    return rows


@pytest.mark.parametrize("query, kind, expected", _eval_rows())
def test_eval_query(repo_catalog, repo_matcher, query, kind, expected):
    if kind == "track":
        match = repo_matcher.match_track(query)
        assert match is not None and match.track_id == expected, f"{query!r} -> {match}"
        return
    assert kind == "post"
    wanted = {t.strip().casefold() for t in expected.split("||")}
    titles = [repo_catalog.post(r.post_id).title for r in repo_matcher.search(query, limit=3).results]
    assert wanted & {t.casefold() for t in titles}, f"{query!r} -> {titles}"


@pytest.mark.parametrize("query, kind, expected", [p for p in _eval_rows() if p.values[1] == "post"])
def test_post_queries_do_not_name_a_track_unless_the_catalog_declares_them(
        repo_catalog, repo_matcher, query, kind, expected):
    """The Slack app shows a track instead of posts when match_track fires: it must not fire on a
    post query unless the query is literally one of a track's declared names or aliases."""
    match = repo_matcher.match_track(query)
    if match is None:
        return
    track = repo_catalog.track(match.track_id)
    declared = {normalize(n) for n in (track.id, track.names.en, track.names.zh or "", *track.aliases)}
    assert normalize(query) in declared, f"{query!r} -> {match}"


def test_the_eval_file_is_the_shared_one_or_its_committed_copy():
    path = eval_file("queries-dev.tsv")
    assert path.is_file()
    kinds = {row[1] for row in read_tsv(path)}
    assert kinds == {"track", "post"}


def test_vocabulary_names_no_post(repo_catalog):
    """The vocabulary is domain vocabulary, not a query -> answer table: no entry is a post's title."""
    titles = {normalize(p.title) for p in repo_catalog.posts}
    for group in default_vocabulary().synonyms:
        for term in group:
            assert normalize(term) not in titles, term


# --- the CLI ------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "&", "???", "🦅"])
def test_cli_search_json_of_nothing_is_empty(query):
    out = CliRunner().invoke(main, ["search", query, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["results"] == [] and data["track"] is None and data["query"] == query


def test_cli_search_json_shape(repo_catalog):
    out = CliRunner().invoke(main, ["search", "eagle", "--json", "--limit", "3"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data) == {"query", "catalog_version", "track", "results"}
    assert data["catalog_version"] == repo_catalog.version
    assert 1 <= len(data["results"]) <= 3
    for item in data["results"]:
        assert set(item) == {"post_id", "title", "url", "score", "tracks", "next"}
        post = repo_catalog.post(item["post_id"])
        assert item["title"] == post.title and item["url"] == repo_catalog.url_of(post)
        assert 0 < item["score"] <= 100
        assert [t["id"] for t in item["tracks"]] == list(repo_catalog.tracks_of(post.id))
        for t in item["tracks"]:
            order = repo_catalog.order(t["id"])
            assert t["of"] == len(order) and order[t["position"] - 1] == post.id
        first = item["tracks"][0]
        order = repo_catalog.order(first["id"])
        if first["position"] < first["of"]:
            assert item["next"] == {"post_id": order[first["position"]],
                                    "title": repo_catalog.post(order[first["position"]]).title}
        else:
            assert item["next"] is None


def test_cli_search_names_the_track_in_json():
    data = json.loads(CliRunner().invoke(main, ["search", "推测解码", "--json"]).output)
    assert data["track"]["id"] == "spec" and data["track"]["name"]
    assert data["results"]


def test_cli_search_text_output():
    out = CliRunner().invoke(main, ["search", "torch.compile", "--limit", "1"])
    assert out.exit_code == 0
    assert "torch.compile" in out.output and "1." in out.output
    out = CliRunner().invoke(main, ["search", "&"])
    assert out.exit_code == 0 and HINT_EMPTY in out.output


def test_cli_search_rejects_a_bad_limit():
    assert CliRunner().invoke(main, ["search", "eagle", "--limit", "0"]).exit_code == 2
