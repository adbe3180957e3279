"""The classes of QA round 20 (a new user's requests and symptoms), on the repo's catalog, each asked in
other words than the round's. A request for a piece of work (a poem, a translation, a job) beside the
product's name only is refused; a script calling the server points at its API. Running words and
English quantities add no subject (``run ... on a cpu``), Chinese running words rank nothing. The
field's own symptoms read as their terms: preemption, outputs changing between runs. A term typed
alone, or asked how to use, leads with its glossary ``intro`` post. Posts shown tied at 100: the
original article before a company's summary of one, a track named orders the ties by its path."""

from __future__ import annotations

import dataclasses

from bot.domain.search import Matcher, default_vocabulary
from tests.domain.search_asks import ids as _ids
from tests.domain.search_asks import refused as _refused
from tests.domain.search_asks import track as _track


def test_a_request_for_a_piece_of_work_beside_the_product_name_is_refused(matcher):
    """A haiku, a song, a translation, an internship: the only word of ours is ``vllm``; the refusal
    is the polite one, naming no field word (no ``known`` to search for instead)."""
    for query in (
        "compose a haiku about vllm",
        "sing me a song on vllm please",
        "translate into german: vllm serves models",
        "any vllm internships or careers this summer",
        "用 vllm 写一首诗",
    ):
        result = matcher.search(query)
        assert _refused(matcher, query), (query, [r.post_id for r in result.results])
        assert result.known is None, query


def test_the_task_rule_is_the_vocabulary_s(catalog):
    """Without ``task_words`` the same request is answered by the post sharing its everyday words:
    the refusal comes from the rule, not from the words being unknown."""
    plain = Matcher(catalog, dataclasses.replace(default_vocabulary(), task_words=frozenset()))
    assert not _refused(plain, "translate into german: vllm serves models fast")
    assert _refused(Matcher(catalog), "translate into german: vllm serves models fast")


def test_a_piece_of_work_on_a_telling_term_still_finds_its_posts(matcher):
    """Beside a telling term the request is searched: its term's posts are shown."""
    spec = set(_ids(matcher, "speculative decoding", 10))
    shown = _ids(matcher, "a limerick about speculative decoding", 3)
    assert shown and shown[0] in spec, shown


def test_a_script_calling_the_server_points_at_its_api(matcher):
    """Calling vLLM from a program goes through its OpenAI-compatible API: the API track is named and
    a post on that API leads, whether asked how or asked to write the code."""
    api = set(_ids(matcher, "openai compatible api", 5))
    for query in ("how do i call vllm from my python code", "write a small script that calls vllm"):
        shown = _ids(matcher, query, 3)
        assert shown and shown[0] in api, (query, shown)
        assert _track(matcher, query) == "apis", query


def test_running_words_add_no_subject_to_a_platform_question(matcher):
    """``run ... on a cpu`` is asked as ``vllm on cpu`` is (not refused for ``run``), in English or
    Chinese; a Chinese running word ranks nothing (no Model Runner first)."""
    cpu = _ids(matcher, "vllm on cpu", 1)
    for query in ("can i run it on a cpu", "will it run on cpu", "CPU 上跑 vllm", "在 CPU 上运行"):
        assert _ids(matcher, query, 1) == cpu, query


def test_an_english_quantity_does_not_block_a_symptom(matcher):
    """``lots of parallel requests`` beside low throughput: the question is still answered."""
    for query in ("throughput drops with lots of parallel requests", "low throughput with several concurrent users"):
        assert _ids(matcher, query, 3), query


def test_buying_or_running_off_the_field_stays_refused(matcher):
    """A chip to buy, a run on a treadmill: running words make nothing on-topic by themselves."""
    for query in ("which cpu should i buy for gaming", "how long should i run on a treadmill"):
        assert _refused(matcher, query), query


def test_preempted_requests_read_as_preemption(matcher):
    """Preemption is a term of the field: the KV offloading connector (recomputing prefill after it)
    is among the first posts, in English and Chinese."""
    offload = _ids(matcher, "offload kv cache to cpu ram after preemption", 1)
    for query in ("my requests keep getting preempted", "请求总是被抢占"):
        shown = _ids(matcher, query, 3)
        assert offload[0] in shown, (query, shown)


def test_outputs_changing_between_runs_read_as_nondeterminism(matcher):
    """The same prompt answered differently each time is the determinism question."""
    determinism = set(_ids(matcher, "nondeterministic outputs", 3))
    for query in ("same prompt gives different outputs every time", "同一个问题每次结果不一致"):
        shown = _ids(matcher, query, 1)
        assert shown and shown[0] in determinism, (query, shown)


def test_asking_how_to_use_a_term_leads_with_its_intro(matcher):
    """Asking how to use a term is a look-up of it: the glossary's ``intro`` post leads, not a post
    on a side matter (a security threat) that names it in its title. A term typed alone keeps its
    ranking (the shared eval's ``lora`` accepts the posts naming it in their titles)."""
    intro = next(t.intro for t in default_vocabulary().glossary if t.term == "lora")
    assert intro is not None
    for query in ("how do i use lora", "lora 怎么用"):
        assert _ids(matcher, query, 1) == [intro], query


def test_the_original_article_leads_its_summary_at_a_shown_tie(matcher, catalog):
    """Posts shown tied at 100: the original article before a summary of another's article."""
    shown = matcher.search("peagle", limit=5).results
    tied = [r.post_id for r in shown if r.score >= 100.0]
    kinds = [catalog.post(pid).read_link(catalog.manifest)[1] for pid in tied]
    assert "summary" in kinds and kinds[0] != "summary", list(zip(tied, kinds, strict=True))


def test_a_named_track_orders_its_ties_by_its_path(matcher, catalog):
    """A platform question naming the hardware track lists its ties in that track's reading order."""
    result = matcher.search("amd 上能跑 vllm 吗", limit=5)
    assert result.track is not None and result.track.track_id == "hardware"
    steps = [s.post for s in catalog.track("hardware").steps]
    tied = [r.post_id for r in result.results if r.score >= 100.0]
    on_path = [pid for pid in tied if pid in steps]
    assert on_path and tied[0] == on_path[0] == min(on_path, key=steps.index), tied
