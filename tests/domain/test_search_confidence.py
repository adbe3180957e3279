"""Questions worded as problems (issue 26), on the repo's catalog: the problem-style questions
land on the posts and tracks they mean, read through ``vllm-path search --json`` as a reader's door
would; other tools' names are not typos. The on-topic decision and the confidence of a search are
issue 38's, tested in ``test_search_answers.py``.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from tests.evaldata import REPO, eval_file, read_tsv

LAUNCH_POST = "vllm-pagedattention-launch"
TTFT_POSTS = {
    "redhat-pd-tuning-without-new-hardware",
    "bidirectional-kv-transfer",
    "taking-vllm-apart",
    "moriio-kv-connector",
}


def _rows(*paths):
    return [
        pytest.param(row[0], row[1], row[2], id=f"{path.stem}:{row[0]}") for path in paths for row in read_tsv(path)
    ]


def _search_json(query: str) -> dict:
    out = CliRunner().invoke(main, ["search", query, "--json", "--limit", "5"])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def test_another_tools_name_is_not_matched_through_the_stem_of_a_catalog_word(matcher):
    """QA: ``windows`` matched the "window" of sliding-window attention (same stem) as a confident
    hit; a tool's name no post says as typed is not a catalog word."""
    assert "window" in matcher._surface and "windows" not in matcher._surface
    assert matcher.search("windows").confidence == "none"
    assert matcher.search("does vllm support windows").confidence != "confident"
    assert matcher.search("sliding window attention").confidence == "confident"


def test_a_typo_of_a_catalog_word_is_still_corrected(matcher):
    assert matcher.search("specualtive decodng").confidence == "confident"
    assert matcher.search("llama").confidence == "confident"  # the word itself still matches


# --- the reply --------------------------------------------------------------------------------


def _text(reply) -> str:
    return json.dumps(reply.blocks, ensure_ascii=False)


def test_the_cli_json_carries_the_confidence():
    assert _search_json("how to bake sourdough bread")["confidence"] == "none"
    assert _search_json("how to bake sourdough bread")["results"] == []
    assert _search_json("eagle")["confidence"] == "confident"


# --- questions worded as problems -------------------------------------------------------------


def test_first_token_faster_finds_a_time_to_first_token_post():
    top3 = [r["post_id"] for r in _search_json("how do I make my first token faster")["results"][:3]]
    assert TTFT_POSTS & set(top3), top3


def test_what_is_prefix_caching_puts_a_prefix_caching_post_first(catalog):
    first = _search_json("what is prefix caching")["results"][0]["post_id"]
    post = catalog.post(first)
    assert "prefix caching" in {t.casefold() for t in post.tags} or "prefix" in post.summary.en.casefold()


@pytest.mark.parametrize(
    "query", ["what is vllm", "What is vLLM?", "I am new to vllm", "I'm new to vLLM", "vllm 是什么"]
)
def test_what_is_vllm_leads_to_the_pagedattention_launch_post(query):
    data = _search_json(query)
    assert data["results"][0]["post_id"] == LAUNCH_POST
    assert data["results"][0]["url"]


def test_the_launch_post_is_not_first_for_every_vllm_query():
    data = _search_json("vllm on amd gpus")
    assert data["results"] and data["results"][0]["post_id"] != LAUNCH_POST


@pytest.mark.parametrize("query", ["how do I make decoding faster", "怎么让解码更快", "怎麼讓解碼更快"])
def test_make_decoding_faster_opens_the_speculative_track(matcher, query):
    assert _search_json(query)["track"]["id"] == "spec"
    match = matcher.match_track(query)
    assert match is not None and match.track_id == "spec"  # the reply opens the track's path


@pytest.mark.parametrize(
    "traditional, simplified",
    [
        ("推測解碼", "推测解码"),
        ("預填充", "预填充"),
        ("解碼", "解码"),
        ("緩存", "缓存"),
        ("快取", "缓存"),
        ("後訓練", "后训练"),
    ],
)
def test_traditional_chinese_finds_what_simplified_finds(matcher, traditional, simplified):
    found = [r.post_id for r in matcher.search(traditional, limit=3).results]
    assert found and found == [r.post_id for r in matcher.search(simplified, limit=3).results]
    assert matcher.match_track(traditional) == matcher.match_track(simplified)


@pytest.mark.parametrize("query", ["怎么在昇腾上部署", "怎麼在昇騰上部署", "how do I deploy on ascend"])
def test_deploying_on_ascend_finds_the_ascend_post_first(matcher, query):
    assert matcher.search(query, limit=3).results[0].post_id == "hardware-plugin"


@pytest.mark.parametrize(
    "query",
    [
        "how do I split prefill and decode onto different machines",
        "run prefill and decode on different machines",
        "prefill and decode split across separate nodes",
    ],
)
def test_prefill_and_decode_apart_points_at_the_pd_track(query):
    data = _search_json(query)
    assert data["track"] is not None and data["track"]["id"] == "pd", data["track"]


def test_the_shared_question_set_scores_hit3_through_the_cli(catalog):
    """``../shared/eval/questions-dev.tsv`` through ``vllm-path search --json``: a post row hits
    when an expected title is in the top 3; a track row when the reply names the track (its
    ``track``) or, failing that, a top-3 post is a step of it."""
    rows = read_tsv(eval_file("questions-dev.tsv"))
    hits = 0
    for query, kind, expected in (r[:3] for r in rows):
        data = _search_json(query)
        top3 = data["results"][:3]
        if kind == "track":
            named = [data["track"]["id"]] if data["track"] else []
            named += [t["id"] for r in top3 for t in r["tracks"]]
            hits += expected.strip() in named[:3]
        else:
            wanted = {t.strip().casefold() for t in expected.split("||")}
            hits += bool(wanted & {r["title"].casefold() for r in top3})
    assert hits / len(rows) >= 0.95, hits


def test_problem_phrases_are_read_as_their_topic(matcher):
    assert matcher._rewrite("how do i make decoding faster") == "how do i make speculative decoding"
    assert matcher._rewrite("decodingfaster") == "decodingfaster"  # whole words only
    assert matcher._rewrite("怎么让解码更快") == "怎么让推测解码"  # Chinese has no spaces between words


@pytest.mark.parametrize(
    "problems, message",
    [
        ("problems: [[only-one]]\n", "vocabulary.yaml: problems[0]"),
        ("problems: {a: b}\n", "vocabulary.yaml: problems: must be a list"),
    ],
)
def test_a_malformed_problems_list_is_a_clear_error(tmp_path, problems, message):
    from bot.domain.search import VocabularyError, load_vocabulary

    text = (REPO / "catalog" / "vocabulary.yaml").read_text(encoding="utf-8")
    start = text.index("problems:\n")
    end = text.index("\nother_names: [") + 1
    (tmp_path / "vocabulary.yaml").write_text(text[:start] + problems + text[end:], encoding="utf-8")
    with pytest.raises(VocabularyError) as err:
        load_vocabulary(tmp_path)
    assert message in str(err.value)


@pytest.mark.parametrize(
    "query",
    [
        "best recipe for chocolate chip cookies",
        "how long do I boil an egg",
        "best time to visit iceland",
        "how to train a cnn in tensorflow",
        "best pizza in new york",
        "redis cache eviction",
        "javascript memory leak",
        "mysql index tuning",
    ],
)
def test_one_common_word_of_an_off_topic_question_shows_no_closest_posts(matcher, query):
    """A post holding only a common word (best, time, memory, cache, index) of a question about
    something else is no answer: the reply says nothing matches, as for a question none of whose
    words the catalog holds."""
    result = matcher.search(query, limit=5)
    assert result.confidence == "none" and result.results == (), [(r.post_id, r.coverage) for r in result.results]


@pytest.mark.parametrize(
    "query",
    [
        "nixl on my homelab",
        "lora adapters for tenants",
        "怎么在昇腾上部署",
        "怎么用vllm部署模型",
    ],
)
def test_a_topic_word_beside_words_no_post_holds_still_answers(matcher, query):
    assert matcher.search(query, limit=5).results, query
