"""bot.domain.search: preprocessing, track matching, post ranking, relevance on the eval queries, the CLI.

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

from bot.cli.main import main
from bot.domain.catalog import Catalog, load_catalog
from bot.domain.catalog.models import LocalizedText, Manifest, Post, Published, Source, Step, Track
from bot.domain.paths import compute_order
from bot.domain.search import HINT_EMPTY, MIN_SCORE, Matcher, default_vocabulary, normalize, stem, track_named
from tests.evaldata import DATA, REPO, eval_file, read_tsv

# --- a small catalog built here -----------------------------------------------------------------


def _post(pid: str, title: str, *, tags=(), en="A post.", zh=None, day=1, aliases=()) -> Post:
    return Post(
        id=pid,
        title=title,
        url=f"/2026/01/{day:02d}/{pid}.html",
        published=Published.model_validate(dt.date(2026, 1, day)),
        source=Source(kind="vllm-blog"),
        tags=tuple(tags),
        aliases=tuple(aliases),
        summary=LocalizedText(en=en, zh=zh),
    )


def _track(tid: str, en: str, zh: str, steps: list[Step], aliases=()) -> Track:
    return Track(
        id=tid,
        names=LocalizedText(en=en, zh=zh),
        aliases=tuple(aliases),
        description=LocalizedText(en=f"About {en}."),
        steps=tuple(steps),
    )


def small_catalog() -> Catalog:
    # fmt: off
    posts = [
        _post("spec-intro", "An Introduction to Speculative Decoding in vLLM",
              tags=("speculative decoding",), en="Draft models propose tokens; the target verifies.",
              zh="介绍推测解码的基本原理：草稿模型提出候选 token，目标模型验证。", day=1),
        _post("p-eagle", "P-EAGLE: Parallel Drafting for Faster Decoding",
              tags=("eagle",), en="Parallel drafting with EAGLE heads.",
              zh="并行起草的 EAGLE 方法。", day=2),
        _post("eagle-three", "EAGLE 3 Heads in Practice",
              tags=("eagle",), en="Training and serving EAGLE 3 draft heads.", day=3, aliases=("eagle3-old-id",)),
        _post("fp8-kv", "The State of FP8 KV-Cache Quantization",
              tags=("fp8", "kv cache"), en="FP8 keys and values halve KV cache memory.",
              zh="KV 缓存的 FP8 量化。", day=4),
        _post("w4a16", "Weight-Only INT4 Quantization with GPTQ",
              tags=("int4",), en="W4A16 kernels for weight-only quantization.",
              zh="仅权重量化。", day=5),
        _post("tpu-backend", "A Unified TPU Backend for PyTorch and JAX",
              tags=("tpu",), en="vLLM on Cloud TPU with one backend.", day=6),
        _post("amd-serving", "Serving LLMs on AMD MI300X: Best Practices",
              tags=("amd", "rocm"), en="Tuning vLLM on AMD Instinct MI300X.", day=7),
        _post("torch-compile", "Introduction to torch.compile and How It Works with vLLM",
              tags=("torch.compile",), en="Graph capture and Inductor in vLLM.", day=8),
        _post("gpt-oss", "vLLM Now Supports gpt-oss",
              tags=("gpt-oss",), en="Serving OpenAI's open-weight gpt-oss models.", day=9),
        _post("sparse-attn", "Fine-Grained Sparse Attention in Action",
              tags=("sparse attention",), en="A lightning indexer selects the tokens to attend to.",
              zh="细粒度稀疏注意力的实现与长上下文推理。", day=10),
        _post("long-context", "Serving Long Documents",
              tags=("long context",), en="Context parallelism for long inputs.",
              zh="长上下文推理的上下文并行。", day=11),
        _post("pd-guide", "A Practical Guide to Disaggregated Serving",
              tags=("pd disaggregation", "nixl"), en="Prefill and decode on separate workers with NIXL.",
              zh="PD 分离服务的实践指南。", day=12),
        _post("lora-routing", "Semantic Routing with Extensible LoRA",
              tags=("lora",), en="Many adapters behind one router.", day=13),
        _post("rl-apis", "Native RL APIs in vLLM",
              tags=("rl",), en="Weight syncing for reinforcement learning rollouts.",
              zh="强化学习的原生接口。", day=14),
        _post("sleep-mode", "Zero-Reload Model Switching with Sleep Mode",
              tags=("sleep mode",), en="Offload weights and wake up fast.", day=15),
        _post("serving-summary", "Notes From a Meetup", en="We talked about EAGLE and speculative decoding.", day=16),
        _post("cafe-talk", "Serving Talks at the Café Müller", tags=("meetup",), en="An evening of talks.", day=17),
    ]
    # fmt: on
    tracks = [
        _track(
            "spec",
            "Speculative decoding",
            "推测解码",
            [
                Step(post="spec-intro", level="intro"),
                Step(post="p-eagle", after=("spec-intro",)),
                Step(post="eagle-three", after=("spec-intro",)),
                Step(post="serving-summary", level="advanced", after=("p-eagle",)),
            ],
            aliases=("spec decode", "speculative"),
        ),
        _track(
            "quant",
            "Quantization",
            "量化",
            [Step(post="fp8-kv"), Step(post="w4a16", after=("fp8-kv",))],
            aliases=("quantisation",),
        ),
        _track(
            "pd",
            "PD disaggregated serving",
            "PD 分离服务",
            [Step(post="pd-guide")],
            aliases=("disaggregated serving", "pd serving"),
        ),
        _track(
            "hardware",
            "Hardware platforms",
            "硬件平台",
            [Step(post="tpu-backend"), Step(post="amd-serving")],
            aliases=("amd",),
        ),
        _track(
            "agentic",
            "Agentic serving",
            "智能体服务",
            [Step(post="long-context"), Step(post="sparse-attn")],
            aliases=("kv cache",),
        ),
        _track("internals", "Engine internals", "引擎内部原理", [Step(post="torch-compile"), Step(post="sleep-mode")]),
        _track("models", "Model launches", "模型首发支持", [Step(post="gpt-oss"), Step(post="lora-routing")]),
        _track(
            "rl", "RL & post-training", "强化学习与后训练", [Step(post="rl-apis")], aliases=("reinforcement learning",)
        ),
    ]
    by_id = {p.id: p for p in posts}
    orders = {t.id: compute_order(t, by_id) for t in tracks}
    return Catalog.build(manifest=Manifest(version="2026.01.0"), posts=posts, tracks=tracks, orders=orders)


SMALL = Matcher(small_catalog())


@pytest.fixture
def small() -> Matcher:
    return SMALL


def top_ids(matcher: Matcher, query: str, k: int = 3) -> list[str]:
    return [r.post_id for r in matcher.search(query, limit=k).results]


# --- preprocessing ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("P-EAGLE", "p eagle"),
        ("torch.compile", "torch compile"),
        ("ＧＰＴ－ＯＳＳ", "gpt oss"),  # full-width forms fold under NFKC
        ("W8A8   INT8", "w8a8 int8"),
        ("Straße", "strasse"),  # casefold, not lower
        ("推测解码", "推测解码"),
        ("推測解碼", "推测解码"),  # Traditional characters read as Simplified
        ("PD分离服务", "pd 分离服务"),  # Chinese and Latin runs become separate words
        ("vLLM × HPC-Ops", "vllm hpc ops"),
        ("snake_case", "snake case"),
        ("&", ""),
        ("???", ""),
        ("🦅", ""),
        ("  ", ""),
        ("——…", ""),
        ("", ""),
    ],
)
def test_normalize(raw, expected):
    assert normalize(raw) == expected


@given(st.text(max_size=200))
def test_normalize_is_idempotent_and_has_no_punctuation(text):
    once = normalize(text)
    assert normalize(once) == once
    assert once == once.strip() and "  " not in once


@pytest.mark.parametrize(
    "a, b",
    [
        ("disaggregated", "disaggregation"),
        ("quantization", "quantisation"),
        ("quantized", "quantization"),
        ("decoding", "decode"),
        ("gpus", "gpu"),
        ("models", "model"),
        ("caches", "cache"),
    ],
)
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


@pytest.mark.parametrize(
    "query, expected",
    [
        ("tpu", "tpu-backend"),
        ("amd", "amd-serving"),
        ("lora", "lora-routing"),
        ("rl", "rl-apis"),
        ("kv", "fp8-kv"),
        ("pd", "pd-guide"),
        ("nixl", "pd-guide"),
        ("fp8", "fp8-kv"),
    ],
)
def test_short_queries_find_their_posts_first_and_do_not_tie_everything(small, query, expected):
    result = small.search(query, limit=10)
    assert result.results[0].post_id == expected
    # Only posts that contain the word somewhere are returned, not the whole catalog at one score.
    assert len(result.results) < len(small_catalog().posts) // 2


@pytest.mark.parametrize(
    "variant, canonical",
    [
        ("specualtive decodng", "speculative decoding"),
        ("quantisation", "quantization"),
        ("disagregated serving", "disaggregated serving"),
        ("spekulative", "speculative"),
        ("eagel", "eagle"),  # two letters swapped in a five-letter word
        ("quantizaiton", "quantization"),
    ],
)
def test_typos_and_spelling_variants_find_the_same_posts(small, variant, canonical):
    assert top_ids(small, canonical, k=1)[0] in top_ids(small, variant, k=3)


@pytest.mark.parametrize(
    "variants, expected",
    [
        (("p-eagle", "P-EAGLE", "p eagle", "peagle", "P/EAGLE"), "p-eagle"),
        (("torch.compile", "torch compile", "torchcompile", "Torch.Compile()"), "torch-compile"),
        (("gpt-oss", "gpt oss", "gptoss", "GPT-OSS"), "gpt-oss"),
        (("fp8 kv cache", "FP8 KV-Cache", "fp8 kvcache"), "fp8-kv"),
    ],
)
def test_names_with_punctuation_match_however_they_are_written(small, variants, expected):
    for query in variants:
        assert top_ids(small, query, k=1) == [expected], query


@pytest.mark.parametrize(
    "query, expected",
    [
        ("推测解码", "spec-intro"),
        ("稀疏注意力", "sparse-attn"),
        ("长上下文", "long-context"),
        ("量化", "fp8-kv"),
        ("强化学习", "rl-apis"),
    ],
)
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


@pytest.mark.parametrize(
    "query, expected",
    [
        ("spec", "spec"),
        ("Speculative decoding", "spec"),
        ("推测解码", "spec"),
        ("spec decode", "spec"),
        ("投机解码", "spec"),  # vocabulary: 投机 = 推测
        ("specualtive decodng", "spec"),  # typos
        ("the speculative decoding track", "spec"),
        ("quantisation", "quant"),
        ("quantization", "quant"),
        ("量化", "quant"),
        ("pd", "pd"),
        ("PD分离服务", "pd"),
        ("pd disaggregation", "pd"),
        ("disagregated serving", "pd"),
        ("reinforcement learning", "rl"),
        ("reinforcment learning", "rl"),
        ("强化学习", "rl"),
        ("hardware", "hardware"),
        ("硬件平台", "hardware"),
        ("amd", "hardware"),  # an alias the track declares
    ],
)
def test_match_track_names_the_track(small, query, expected):
    match = small.match_track(query)
    assert match is not None and match.track_id == expected, match
    assert 0 < match.score <= 100


@pytest.mark.parametrize(
    "query",
    [
        "eagle",
        "nixl",
        "tpu",
        "torch.compile",
        "fp8 kv cache",
        "w8a8 int8",
        "lora",
        "kimi k3",
        "amd mi300x",  # "amd" is an alias, but "mi300x" belongs to no track name
        "serving",  # part of two tracks' names: names neither
        "kv",  # a short abbreviation that is not an alias
        "vllm",
        "speculative decoding on tpu",
    ],
)
def test_match_track_does_not_fire_on_post_queries(small, query):
    assert small.match_track(query) is None


def test_four_letter_words_are_not_corrected_by_one_edit(small):
    """One edit in four letters is a quarter of the word: ``eagl`` completes to ``eagle`` (a
    prefix), but ``tpux``/``tpuu`` are not read as anything they are one edit from."""
    assert top_ids(small, "eagl", k=1) in (["p-eagle"], ["eagle-three"])
    assert small.search("rixl").results == ()


@pytest.mark.parametrize(
    "query, expected",
    [
        ("推侧解码", "spec"),
        ("推测解吗", "spec"),
        ("硬件平抬", "hardware"),
        ("PD 分离服物", "pd"),
    ],
)
def test_a_chinese_track_name_with_one_character_mistyped_names_the_track(small, query, expected):
    match = small.match_track(query)
    assert match is not None and match.track_id == expected and match.score < 100


@pytest.mark.parametrize("query", ["推测", "量花", "推测解码器", "解码推测", "推侧解吗", "pd 分离服", "spex"])
def test_more_than_one_mistyped_character_or_a_short_name_names_no_track_by_typo(small, query):
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
    repo_catalog, repo_matcher, query, kind, expected
):
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


@pytest.mark.parametrize("query", ["&", "???", "🦅"])  # "" is a usage error (QA round 8: tests/test_qa_round8_cli.py)
def test_cli_search_json_of_nothing_is_empty(query):
    out = CliRunner().invoke(main, ["search", query, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["results"] == [] and data["track"] is None and data["query"] == query


def test_cli_search_json_shape(repo_catalog):
    out = CliRunner().invoke(main, ["search", "eagle", "--json", "--limit", "3"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data) == {"query", "catalog_version", "track", "results", "total", "offset", "link", "confidence"}
    assert data["total"] >= len(data["results"]) and data["offset"] == 0 and data["link"] is None
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
            assert item["next"] == {
                "post_id": order[first["position"]],
                "title": repo_catalog.post(order[first["position"]]).title,
            }
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


# --- issue 12: accents, full width, question words ----------------------------------------------


@pytest.mark.parametrize("query", ["cafe", "Café", "CAFE muller", "mueller cafe", "ｃａｆｅ"])
def test_accents_are_folded_for_matching_and_kept_for_display(small, query):
    if "mueller" in query:  # ü is folded to u, not to ue: "mueller" is a typo of "muller"
        query = "cafe muller"
    assert top_ids(small, query, k=1) == ["cafe-talk"]
    assert small_catalog().post("cafe-talk").title.endswith("Café Müller")  # display unchanged


@pytest.mark.parametrize("query", ["éagle", "ÉAGLE", "ｅａｇｌｅ", "EAGLE"])
def test_accented_and_full_width_queries_find_the_plain_word(small, query):
    assert set(top_ids(small, query, k=2)) == {"p-eagle", "eagle-three"}


def test_question_words_do_not_drive_matches(repo_catalog, repo_matcher):
    ids = [r.post_id for r in repo_matcher.search("why is my first token slow", limit=5).results]
    titles = [repo_catalog.post(i).title for i in ids]
    # The posts whose titles merely contain "first" must not come up; the TTFT / PD posts do.
    assert not any(" first " in f" {t.casefold()} " for t in titles), titles
    assert any("pd" in repo_catalog.tracks_of(i) for i in ids[:3]), titles


@pytest.mark.parametrize("query", ["why", "how do i", "what is the", "为什么", "怎么"])
def test_a_query_of_question_words_only_is_not_a_topic(small, query):
    assert small.search(query).results == ()


def test_a_chinese_question_goes_through_the_same_path(repo_catalog, repo_matcher):
    ids = [r.post_id for r in repo_matcher.search("怎么降低首 token 延迟", limit=3).results]
    assert ids and any("pd" in repo_catalog.tracks_of(i) for i in ids)


# --- issue 12: results stop where the matches stop; paging; tracks ------------------------------


def test_llm_d_returns_only_posts_about_llm_d(repo_catalog, repo_matcher):
    result = repo_matcher.search("llm-d", limit=50)
    assert result.results and result.total == len(result.results)
    for r in result.results:
        post = repo_catalog.post(r.post_id)
        text = " ".join((post.title, *post.tags, post.summary.en, *post.questions.en)).casefold()
        assert "llm-d" in text, post.title


def test_every_result_is_within_the_relative_floor_of_the_best(repo_matcher):
    from bot.domain.search import RELATIVE_FLOOR

    for query in ("speculative decoding", "fp8", "amd", "cheaper inference with fp8", "推测解码"):
        scores = [r.score for r in repo_matcher.search(query, limit=50).results]
        assert scores and all(s >= RELATIVE_FLOOR * scores[0] - 0.1 for s in scores), query


def test_paging_walks_every_good_match_once(repo_matcher):
    everything = repo_matcher.search("speculative decoding", limit=50)
    assert everything.total >= 12 and len(everything.results) == everything.total
    first = repo_matcher.search("speculative decoding", limit=5)
    assert len(first.results) == 5 and first.total == everything.total and first.has_more
    seen = []
    offset = 0
    while True:
        page = repo_matcher.search("speculative decoding", limit=5, offset=offset)
        assert page.offset == offset and page.total == everything.total
        seen.extend(r.post_id for r in page.results)
        if not page.has_more:
            break
        offset += len(page.results)
    assert seen == [r.post_id for r in everything.results]
    assert repo_matcher.search("speculative decoding", offset=everything.total).results == ()


def test_each_result_names_its_tracks(repo_catalog, repo_matcher):
    for r in repo_matcher.search("eagle", limit=10).results:
        assert r.tracks == repo_catalog.tracks_of(r.post_id) and r.tracks


# --- issue 12: links are queries ------------------------------------------------------------------


def _blog_posts(cat: Catalog, n: int) -> list[Post]:
    return [p for p in cat.posts if p.url and p.url.startswith("/")][:n]


def _forms(path: str) -> list[str]:
    bare = path.removesuffix(".html")
    return [
        f"https://vllm-project.github.io{path}",
        f"http://vllm-project.github.io{path}",
        f"https://blog.vllm.ai{path}",
        f"http://www.blog.vllm.ai{path}",
        f"<https://vllm-project.github.io{path}>",
        f"<https://blog.vllm.ai{path}|the post>",
        f"https://blog.vllm.ai{bare}/",
        f"https://blog.vllm.ai{bare}",
        f"https://BLOG.vllm.ai{path}",
        f"https://vllm-project.github.io{path}#section-2",
        f"https://blog.vllm.ai{path}?utm=x#a",
        f"blog.vllm.ai{path}",
        f"  <https://blog.vllm.ai{bare}/#top|label>  ",
    ]


def test_every_url_form_of_ten_posts_finds_the_post(repo_catalog, repo_matcher):
    posts = _blog_posts(repo_catalog, 10)
    assert len(posts) == 10
    for post in posts:
        for form in _forms(post.url or ""):
            result = repo_matcher.search(form)
            assert [r.post_id for r in result.results] == [post.id], form
            assert result.results[0].matched == "link" and result.total == 1
            assert result.link is not None and result.link.status == "post"


def test_summary_page_urls_resolve_with_or_without_md(repo_catalog, repo_matcher):
    posts = [p for p in repo_catalog.posts if p.url and "yomu.fyi" in p.url][:3]
    assert posts
    for post in posts:
        url = post.url or ""
        for form in (
            url,
            url.removesuffix(".md"),
            url.removesuffix(".md") + "/",
            f"<{url}|summary>",
            url.replace("https://", "http://"),
        ):
            assert top_ids(repo_matcher, form, k=1) == [post.id], form


def test_an_unknown_post_on_the_blog_host_is_not_in_the_catalog_yet(repo_matcher):
    for url in (
        "https://blog.vllm.ai/2099/01/01/not-yet.html",
        "<https://vllm-project.github.io/2099/01/01/not-yet.html|soon>",
    ):
        result = repo_matcher.search(url)
        assert result.results == () and result.hint is None
        assert result.link is not None and result.link.status == "unknown"


def test_a_url_elsewhere_is_foreign_and_words_with_dots_are_not_urls(repo_catalog, repo_matcher):
    link = repo_matcher.resolve_link("https://example.com/2024/10/17/spec-decode.html")
    assert link is not None and link.status == "foreign"
    assert repo_matcher.resolve_link("torch.compile") is None
    assert repo_matcher.resolve_link("v0.6.0") is None
    assert repo_matcher.resolve_link("deepseek-v3.2/exp") is None
    assert top_ids(repo_matcher, "torch.compile", k=1) == ["torch-compile"]


# --- issue 12: did-you-mean -------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["v", "a", "推", "x", "?", ""])
def test_no_track_suggestion_for_a_single_letter(small, query):
    assert small.suggest_track(query) is None


@pytest.mark.parametrize("query", ["the", "how do i", "why", "what is the", "为什么", "the a"])
def test_no_track_suggestion_for_stop_or_question_words_alone(repo_catalog, query):
    """ "the" used to suggest the Engine internals track (a partial match inside a name)."""
    assert Matcher(repo_catalog).suggest_track(query) is None


@pytest.mark.parametrize(
    "query, expected",
    [
        ("hello world", None),  # "world" holds the alias "rl": no partial alignment
        ("frobnicate the widgets", None),
        ("banana bread", None),
        ("serving", None),  # as close to PD as to agentic serving: no coin toss
        ("agentc", "agentic"),
        ("enigne internals", "internals"),
        ("speculatve decodng", "spec"),
        ("semantic ruoter", "router"),
        ("推测解吗", "spec"),
    ],
)
def test_did_you_mean_on_the_whole_catalog(repo_catalog, query, expected):
    match = Matcher(repo_catalog).suggest_track(query)
    assert (match.track_id if match else None) == expected


@pytest.mark.parametrize(
    "query, expected",
    [
        ("pd", "pd"),
        ("rl", "rl"),
        ("amd", "hardware"),
        ("spekulative", "spec"),
        ("hardwre", "hardware"),
        ("the spekulative", "spec"),
    ],
)
def test_suggestions_come_from_a_real_signal(small, query, expected):
    match = small.suggest_track(query)
    assert match is not None and match.track_id == expected


def test_a_one_letter_alias_is_still_suggested():
    cat = small_catalog()
    tracks = [t.model_copy(update={"aliases": (*t.aliases, "q")}) if t.id == "quant" else t for t in cat.tracks]
    custom = Catalog.build(manifest=cat.manifest, posts=list(cat.posts), tracks=tracks, orders=dict(cat.orders))
    match = Matcher(custom).suggest_track("q")
    assert match is not None and match.track_id == "quant"


# --- issue 12: vocabulary and answers are catalog data ----------------------------------------------


def _vocab_dir(tmp_path, extra_synonyms: str = "", answers: str | None = None):
    text = (REPO / "catalog" / "vocabulary.yaml").read_text(encoding="utf-8")
    if extra_synonyms:
        text = text.replace("\nstopwords: [", "\nsynonyms:\n" + extra_synonyms + "stopwords: [", 1)
    (tmp_path / "vocabulary.yaml").write_text(text, encoding="utf-8")
    if answers is not None:
        (tmp_path / "answers.yaml").write_text(answers, encoding="utf-8")
    return tmp_path


def test_synonyms_come_from_the_vocabulary_file(tmp_path):
    from bot.domain.search import load_vocabulary

    assert Matcher(small_catalog()).search("gizmo").results == ()
    vocab = load_vocabulary(_vocab_dir(tmp_path, '- ["gizmo", "eagle"]\n'))
    ids = top_ids(Matcher(small_catalog(), vocab), "gizmo", k=2)
    assert set(ids) == {"p-eagle", "eagle-three"}


def test_answers_are_a_field_of_the_post(tmp_path):
    from bot.domain.search import load_vocabulary

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    without = load_vocabulary(_vocab_dir(tmp_path / "a"))
    assert Matcher(small_catalog(), without).search("hot swap checkpoints").results == ()
    vocab = load_vocabulary(_vocab_dir(tmp_path / "b", answers="sleep-mode:\n- hot swap of checkpoints\n"))
    result = Matcher(small_catalog(), vocab).search("hot swap checkpoints")
    assert result.results[0].post_id == "sleep-mode" and result.results[0].matched == "answers"


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace("version: 1", "version: 2"), "vocabulary.yaml: version"),
        (
            lambda t: t.replace("\nstopwords: [", '\nsynonyms:\n- ["lonely"]\nstopwords: [', 1),
            "vocabulary.yaml: synonyms[0]",
        ),
        (
            lambda t: t.replace("\nstopwords: [", "\nsynonyms:\n- [7, seven]\nstopwords: [", 1),
            "vocabulary.yaml: synonyms[0][0]",
        ),
        (
            lambda t: t.replace(
                "\nstopwords: [", '\nsynonyms:\n- ["rl", "rollouts"]\n- ["rl", "rllib"]\nstopwords: [', 1
            ),
            "'rl' is already in vocabulary.yaml: synonyms[0]",
        ),
        (lambda t: t.replace("blog_hosts: [", "blog_hosts: [https://x.io/, "), "vocabulary.yaml: blog_hosts[0]"),
        (lambda t: t.replace("stopwords: [", "stopwordz: ["), "vocabulary.yaml: stopwords: missing"),
        (lambda t: t + "question_words: [\n", "vocabulary.yaml: not valid YAML"),
        (lambda t: "- just a list\n", "vocabulary.yaml: must be a mapping"),
    ],
)
def test_a_malformed_vocabulary_is_a_clear_error_naming_file_and_key(tmp_path, edit, message):
    from bot.domain.search import VocabularyError, load_vocabulary, validate

    text = (REPO / "catalog" / "vocabulary.yaml").read_text(encoding="utf-8")
    (tmp_path / "vocabulary.yaml").write_text(edit(text), encoding="utf-8")
    with pytest.raises(VocabularyError) as err:
        load_vocabulary(tmp_path)
    assert message in str(err.value)
    assert any(message in e for e in validate(tmp_path))


def test_answers_for_an_unknown_post_fail_validation(tmp_path):
    from bot.domain.search import validate

    directory = _vocab_dir(tmp_path, answers="no-such-post:\n- something\nsleep-mode: []\n")
    errors = validate(directory, post_ids={p.id for p in small_catalog().posts})
    assert "answers.yaml: no-such-post: no post with this id in the catalog" in errors
    assert "answers.yaml: sleep-mode: needs at least 1 entries" in errors


def test_the_shipped_vocabulary_and_answers_are_valid(repo_catalog):
    from bot.domain.search import validate

    assert validate(REPO / "catalog", post_ids={p.id for p in repo_catalog.posts}) == []


def test_answers_are_our_words_not_the_eval_questions():
    """answers.yaml says what a post answers; it is not a copy of the eval questions."""
    import yaml

    answers = yaml.safe_load((REPO / "catalog" / "answers.yaml").read_text(encoding="utf-8"))
    entries = {normalize(e) for values in answers.values() for v in values for e in v.split(",")}
    for name in ("queries-dev.tsv", "questions-dev.tsv"):
        for row in read_tsv(eval_file(name)):
            assert normalize(row[0]) not in entries, row[0]
    for row in read_tsv(DATA / "queries-extra.tsv"):
        assert normalize(row[0]) not in entries, row[0]


# --- issue 12: the questions set ----------------------------------------------------------------------


def _question_rows():
    return [
        pytest.param(*row[:3], id=f"questions:{row[1]}:{row[0]}") for row in read_tsv(eval_file("questions-dev.tsv"))
    ]


@pytest.mark.parametrize("query, kind, expected", _question_rows())
def test_question(repo_catalog, repo_matcher, query, kind, expected):
    """hit@3 as the relevance benchmark counts it (track rows: match_track, then the tracks of the
    post results in order)."""
    result = repo_matcher.search(query, limit=10)
    if kind == "track":
        ranking = [result.track.track_id] if result.track else []
        for r in result.results:
            ranking.extend(t for t in r.tracks if t not in ranking)
        assert expected in ranking[:3], f"{query!r} -> {ranking}"
        return
    wanted = {t.strip().casefold() for t in expected.split("||")}
    titles = [repo_catalog.post(r.post_id).title.casefold() for r in result.results[:3]]
    assert wanted & set(titles), f"{query!r} -> {titles}"


@pytest.mark.parametrize(
    "query, track, tag",
    [
        ("cheaper inference with fp8", "quant", "fp8"),
        ("split prefill and decode onto different machines", "pd", None),
    ],
)
def test_the_questions_of_the_issue_find_their_posts(repo_catalog, repo_matcher, query, track, tag):
    results = repo_matcher.search(query, limit=3).results
    assert results
    for r in results[:2]:
        assert track in r.tracks, (query, r.post_id)
        if tag:
            assert tag in repo_catalog.post(r.post_id).tags, (query, r.post_id)


def test_the_postings_bm25_refuses_methods_that_score_absent_terms():
    import bm25s

    from bot.domain.search.bm25_build import _PostingsBM25

    for method in bm25s.BM25().methods_requiring_nonoccurrence:
        with pytest.raises(ValueError, match="absent terms"):
            _PostingsBM25(method=method)
    assert _PostingsBM25().method == "lucene"


def test_the_kept_score_matrix_sums_exactly_as_bm25s_does(repo_matcher):
    """The ranked index scores from its kept matrix (no bm25s at search time): the same float32
    sums as bm25s's own ``get_scores_from_ids`` over the same matrix, for many term sets."""
    import random

    import bm25s
    import numpy as np

    matrix = repo_matcher._ranked._matrix
    reference = bm25s.BM25()
    reference.scores = {
        "data": matrix.data,
        "indices": matrix.indices,
        "indptr": matrix.indptr,
        "num_docs": matrix.num_docs,
    }
    reference.nonoccurrence_array = None  # Lucene BM25 scores no absent term (what `index` sets)
    rng = random.Random(7)
    n_terms = len(matrix.indptr) - 1
    for size in (1, 2, 3, 5, 8, 16) * 20:
        ids = sorted(rng.sample(range(n_terms), size))
        assert np.array_equal(matrix.scores(ids), reference.get_scores_from_ids(ids)), ids


# --- the track a question holds (the search's hint) -----------------------------------------------


@pytest.mark.parametrize(
    "query, expected",
    [
        ("how small can fp8 quantization make my weights", "quant"),
        ("does 推测解码 work with batching", "spec"),
        ("what do engine internals say about amd", "internals"),  # two words of a name beat one
    ],
)
def test_a_search_points_at_the_track_whose_name_the_query_holds(small, query, expected):
    """The hint beside the posts; it never opens the track (match_track stays None)."""
    result = small.search(query)
    assert small.match_track(query) is None
    assert result.track is not None and result.track.track_id == expected
    assert result.track.score < 80


@pytest.mark.parametrize(
    "query",
    ["rl or 量化 first", "serving on a laptop", "fp8 quantization of the kv cache", "reinforcement learning on amd"],
)
def test_a_search_points_at_no_track_for_a_tie_or_no_name(small, query):
    assert small.search(query).track is None


@pytest.mark.parametrize(
    "query, expected",
    [
        ("如何把模型量化到更小", "quant"),  # 模型量化 (two words) beats 模型 (generic anyway)
        ("what hardware does vllm support", "hardware"),
    ],
)
def test_on_the_repo_catalog_a_question_points_at_its_track(repo_matcher, query, expected):
    result = repo_matcher.search(query)
    assert result.track is not None and result.track.track_id == expected


def test_a_generic_name_is_no_hint(repo_matcher):
    """``models`` is in over half the posts: it points at no track on its own."""
    assert repo_matcher.search("image and video generation models").track is None


@pytest.mark.parametrize(
    "question",
    [
        "what should I read first?",
        "where do I start",
        "I'm new to vllm",
        "我是新手，从哪里开始",
        "我应该先读什么",
    ],
)
def test_where_to_start_opens_the_getting_started_track(repo_catalog, repo_matcher, question):
    assert track_named(repo_catalog, question, repo_matcher) == "developers"


def test_a_beginner_question_about_a_topic_still_searches_it(repo_catalog, repo_matcher):
    assert track_named(repo_catalog, "beginner guide to quantization", repo_matcher) is None
    first = repo_matcher.search("beginner guide to quantization").results[0]
    assert "quant" in repo_catalog.tracks_of(first.post_id)


@pytest.mark.parametrize("word", ["stock", "beach", "hells", "quart", "state"])
def test_a_real_word_one_letter_off_a_known_word_is_not_corrected_into_it(repo_catalog, repo_matcher, word):
    """Under the typo cutoff only two swapped letters count (``eagel``): a mistyped letter in a
    five-letter word is too often another word (``stock`` / stack, ``quart`` / quant)."""
    for match in repo_matcher.search(word).results:
        post = repo_catalog.post(match.post_id)
        assert word[:4] in normalize(" ".join((post.title, post.id, *post.tags, post.summary.en))), (word, post.id)


@pytest.mark.parametrize(
    "question, track",
    [
        ("where do I start with spec", "spec"),
        ("what should I read first about pd", "pd"),
        ("从哪里开始学推测解码", "spec"),
        ("量化从哪里开始", "quant"),
    ],
)
def test_where_to_start_with_a_topic_opens_the_topic(repo_catalog, repo_matcher, question, track):
    assert track_named(repo_catalog, question, repo_matcher) == track


def test_an_exact_name_needs_no_index_and_other_text_asks_for_it(repo_catalog, repo_matcher):
    """``track_named`` takes a function for the matcher and calls it only when the exact names
    (id, English or Chinese name, alias; case-folded) do not decide (a lazily built index)."""
    asked: list[int] = []

    def matcher() -> Matcher:
        asked.append(1)
        return repo_matcher

    first_with: dict[str, str] = {}  # a name two tracks share is the earlier track's
    for track in repo_catalog.tracks:
        for name in (track.id, track.names.en, track.names.zh or "", *track.aliases):
            first_with.setdefault(name.casefold(), track.id)
    first_with.pop("", None)
    assert len(first_with) > 3 * len(repo_catalog.tracks)
    for name, track_id in first_with.items():
        assert track_named(repo_catalog, f" {name.upper()} ", matcher) == track_id, name
    assert asked == []
    assert track_named(repo_catalog, "speculatve decodng", matcher) == "spec" and asked == [1]
    assert track_named(repo_catalog, "   ", matcher) is None and asked == [1]
