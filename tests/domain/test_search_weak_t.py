"""The classes of misses of the holdout round t (2026-12-07), on the repo's catalog, each asked in
other words than the round's rows. Round t asks, like round s, without the field's words, and showed
that one curated question sharing enough words does not generalise: a plain-words question is also
answered when the best post's whole text (title, summaries, tags, every curated question) scores
high and shares enough distinct words (bot/domain/search/plain.py, ``POST_SCORE``); plain
descriptions of field concepts and their Chinese forms (A卡, 8位整数, 8位浮点) are glossary forms;
a learning request in plain words names its track. Off-topic questions in plain words stay refused."""

from __future__ import annotations

from tests.domain.search_asks import ids as _ids
from tests.domain.search_asks import refused as _refused
from tests.domain.search_asks import track as _track


def test_a_plain_words_question_the_whole_post_answers_is_shown(matcher):
    """No field term and no single curated question sharing enough, but the whole text of the post
    on the production stack (an open-source reference setup, one Helm chart, dashboards) or of the
    post on decision models (a moderation label with its confidence) holds most of its words."""
    result = matcher.search(
        "is there an open source reference setup we can install with one chart on our cluster, dashboards included"
    )
    assert [r.post_id for r in result.results][:1] == ["stack-release"]
    assert result.confidence == "closest"
    assert _ids(
        matcher, "a self hosted service that returns a quick moderation label and how sure it is, many per second", 1
    ) == ["redhat-diffusiongemma-decision-models"]
    assert _ids(
        matcher, "what really happens to one request inside the engine, from the curl call until words come back", 1
    ) == ["anatomy-of-vllm"]


def test_plain_words_off_the_field_stay_refused_by_the_whole_post_evidence(matcher):
    """Everyday questions sharing a few words with the posts' text (chart, label, confident, shared,
    every, file) are no question about serving models: still refused."""
    assert _refused(matcher, "the whole family wants one recipe book, shared across every kitchen in the house")
    assert _refused(matcher, "which chart should i use for a quick label of how confident the survey answers are")
    assert _refused(matcher, "how do i file an expense report when the receipt is lost")


def test_chinese_plain_names_of_hardware_and_number_formats(matcher):
    """A卡 is an AMD graphics card; 8位整数 is INT8 and 8位浮点 FP8 (Chinese written out in words);
    A卡 beside a game's frame rate is no question about serving."""
    assert _ids(matcher, "我们买了一批A卡 想在上面部署大模型 有什么要注意的", 1) == ["vllm-serving-amd"]
    assert _ids(matcher, "模型权重改成8位整数存储 精度损失大吗", 2)[:1] == ["redhat-w8a8-int8-results"]
    assert "ptpc-fp8-rocm" in _ids(matcher, "模型用8位浮点跑 速度能快多少", 3)
    assert _refused(matcher, "公司新买的A卡游戏帧数很低")


def test_plain_descriptions_of_field_concepts(matcher):
    """Parking unfinished replies in RAM is KV offloading; a tiny model writing ahead, a guess-ahead
    helper, is a draft model; a bot slow to start answering on our GPUs is time to first token. Each stays an
    everyday phrase elsewhere: a CPU branch predictor guessing ahead, a database's write-ahead log,
    a call centre slow to start answering, a car parked in a Ram truck's garage."""
    assert _ids(
        matcher,
        "when memory runs short, can the server park them in ram rather than dropping the half written replies",
        1,
    ) == ["kv-offloading-connector"]
    assert _track(matcher, "could a tiny model write ahead so one user's replies come out faster") == "spec"
    assert _track(matcher, "the guess ahead helper keeps being wrong on our code questions") == "spec"
    assert _ids(matcher, "no money for more gpus and the bot takes forever to start answering our staff", 1) == [
        "redhat-pd-tuning-without-new-hardware"
    ]
    assert _refused(matcher, "our branch predictor guesses ahead on loops, how to measure mispredictions")
    assert _refused(matcher, "write ahead log fills the disk on our database server")
    assert _refused(matcher, "the call center takes forever to start answering the phone")
    assert _refused(matcher, "park my car in the ram truck garage")


def test_a_learning_request_in_plain_words_names_its_track(matcher):
    """Long assistant sessions served on one's own GPUs are agentic serving; installing, reading and
    debugging the code to send a first change, the developers track; generating samples for training
    with scored rewards (打分奖励), reinforcement learning. Rewards for a child's homework, or a first
    change to a wiki, are not."""
    assert (
        _track(matcher, "want to learn how long assistant sessions with tools are served on our own gpus") == "agentic"
    )
    assert (
        _track(matcher, "how do i learn to install it, read the code, debug it and send my first change")
        == "developers"
    )
    assert _track(matcher, "想系统学习 用打分奖励把大模型继续往上训练 这里面生成那步怎么做") == "rl"
    assert _refused(matcher, "打分奖励孩子学习有用吗")
    assert _refused(matcher, "my first change to the wiki got reverted, how do i appeal")
