"""Task H7: deploy questions about hardware reach the hardware track and its posts (``vllm on
Gaudi``, ``在昇腾上部署``, ``run vllm on intel gpu``); an everyday word of a symptom question is no
subject of its own (``KV cache full``: not the post that says "full attention"); ``128k context``
is long context. Runs ``tests/data/hardware-symptoms-dev.tsv`` (written before the fixes were run)
on the repo's catalog."""

from __future__ import annotations

import dataclasses

import pytest

from bot.domain.search import Matcher, load_vocabulary, normalize
from tests.evaldata import DATA, REPO, read_tsv

PLATFORM_QUESTIONS = [
    "vllm on Gaudi",
    "vllm on habana gaudi hpu",
    "在昇腾上部署",
    "如何在昇腾 910B 上部署 vllm",
    "run vllm on intel gpu",
    "英特尔显卡能跑 vllm 吗",
    "how to serve on TPU",
    "tpu v6e serving",
    "AMD MI300 setup",
    "国产 NPU 怎么接入 vllm",
    "cpu only inference on aarch64",
    "deploy a model on jetson orin",
]


@pytest.mark.parametrize("query", PLATFORM_QUESTIONS)
def test_a_question_about_running_on_a_platform_points_at_the_hardware_track(matcher, catalog, query):
    result = matcher.search(query, limit=3)
    assert result.track is not None and result.track.track_id == "hardware", result.track
    assert result.results, query
    if any("hardware" in catalog.tracks_of(r.post_id) for r in matcher.search(query, limit=50).results):
        first = [t for r in result.results[:2] for t in catalog.tracks_of(r.post_id)]
        assert "hardware" in first, result.results  # a post of the track among the first two


@pytest.mark.parametrize(
    ("query", "post"),
    [
        ("run vllm on intel gpu", "intel-arc-pro-b"),
        ("英特尔显卡能跑 vllm 吗", "intel-arc-pro-b"),
        ("在昇腾上部署", "hardware-plugin"),
        ("AMD MI300 部署配置", "vllm-serving-amd"),
        ("how to serve on intel xpu", "intel-arc-pro-b"),
    ],
)
def test_the_platforms_own_post_is_among_the_first(matcher, query, post):
    assert post in [r.post_id for r in matcher.search(query, limit=3).results]


@pytest.mark.parametrize("query", ["eagle3 speculative decoding on amd", "OOM on H100", "fp8 kv cache on h100"])
def test_another_subject_beside_the_platform_is_not_read_as_a_platform_question(matcher, query):
    # The platform is the setting; the question's other terms choose the answer.
    assert matcher._platform_track(matcher._units(normalize(query), query=True)) is None


def test_the_platform_tracks_come_from_the_vocabulary(catalog):
    vocab = load_vocabulary(REPO / "catalog")
    assert "hardware" in vocab.platform_tracks
    bare = Matcher(catalog, dataclasses.replace(vocab, platform_tracks=frozenset()))
    assert bare.search("vllm on Gaudi").track is None
    assert Matcher(catalog, vocab).search("vllm on Gaudi").track is not None


def test_a_deploy_word_yields_to_the_platform(matcher):
    # 部署 is ops' name, one shared word: the platform the question names is its subject.
    assert matcher.search("在昇腾上部署").track.track_id == "hardware"
    assert matcher.search("如何部署").track is None or matcher.search("如何部署").track.track_id == "ops"


@pytest.mark.parametrize("query", ["KV cache full preempted", "requests get preempted because the kv cache is full"])
def test_an_everyday_word_beside_the_field_term_is_no_subject(matcher, query):
    ids = [r.post_id for r in matcher.search(query, limit=3).results]
    assert ids[0] == "kv-offloading-connector", ids
    assert "qwen3-next" not in ids  # says "full attention" and "KV cache", about neither problem


def test_everyday_words_weigh_less_than_the_field_term(matcher):
    units = matcher._units(normalize("pd disagg setup guide"), query=True)
    concepts = matcher._concepts(units)
    field = max(c.weight for c in concepts if c.alternatives[0][0] not in {("setup",), ("guid",)})
    assert all(c.weight < field for c in concepts if c.alternatives[0][0] in {("setup",), ("guid",)})


@pytest.mark.parametrize("query", ["oom with 128k context", "32k tokens prompt"])
def test_a_context_size_reads_as_long_context(matcher, query):
    units = matcher._units(normalize(query), query=True)
    long_context = matcher._units(normalize("long context"), query=True)[0].group
    assert long_context in {u.group for u in units}


KNOWN_MISSES = {
    "pd disagg setup guide": "the single-node PD post's title says 'Setup'; the guide ranks 5th",
}
"""Rows of the set the search does not answer in its top 3 yet (measured, not tuned away)."""


def _rows() -> list:
    rows = [(q, kind, exp) for q, kind, exp in read_tsv(DATA / "hardware-symptoms-dev.tsv")]
    return [
        pytest.param(*row, marks=pytest.mark.xfail(reason=KNOWN_MISSES[row[0]], strict=True))
        if row[0] in KNOWN_MISSES
        else pytest.param(*row)
        for row in rows
    ]


@pytest.mark.parametrize(("query", "kind", "expected"), _rows())
def test_a_row_of_the_hardware_and_symptoms_set_is_answered(matcher, catalog, query, kind, expected):
    result = matcher.search(query, limit=3)
    if kind == "none":
        assert result.confidence == "none" or not result.results, result.results
        return
    if kind == "track":
        ranked = [result.track.track_id] if result.track else []
        ranked += [t for r in result.results for t in catalog.tracks_of(r.post_id)]
        assert expected in ranked[:3], ranked
        return
    titles = {t.strip() for t in expected.split("||")}
    assert titles & {catalog.post(r.post_id).title for r in result.results}, result.results


@pytest.mark.parametrize(
    ("query", "track"),
    [
        ("gpu out of memory", None),
        ("gpu oom", None),
        ("显卡 显存不够", None),
        ("gpus", "hardware"),
        ("显卡", "hardware"),
    ],
)
def test_a_shared_word_names_its_track_only_when_nothing_else_is_asked(matcher, query, track):
    """``gpus`` and ``显卡`` are aliases of the hardware track, but beside a symptom (out of memory)
    the question is about the symptom: no track hint above its posts (QA: ``gpu out of memory``
    said "This looks like the Hardware platforms track")."""
    found = matcher.search(query, limit=3).track
    assert (found.track_id if found else None) == track, found


@pytest.mark.parametrize("query", ["vllm on mac m3", "mac 上跑 vllm", "run vllm on my macbook"])
def test_a_mac_question_finds_the_post_that_runs_on_a_mac(matcher, query):
    """``m3`` beside ``mac`` is Apple's chip, not MiniMax M3 (QA, 2026-12-07)."""
    assert [r.post_id for r in matcher.search(query, limit=3).results][:1] == ["vllm-playground"]
