"""The classes of misses of the holdout round u (2026-12-07), on the repo's catalog, each asked in
other words than the round's rows. Round u showed field words (gpu, instances, cached, embedding,
checkpoints, 内存不够, 评估) carrying a data team's question about its other infrastructure: notebook
instances, a CI runner's docker layer cache, a vector database, a BI dashboard over a warehouse, a
shared drive, video calls, spreadsheets and 看板. Those are other products' things
(``other_names`` of ``catalog/vocabulary.yaml``): the question is about them. Traditional
characters of everyday questions (``時間``, ``資料``) fold to Simplified (bot/domain/text.py);
``影片`` (Taiwan) is ``视频``; plain Chinese names of hidden states (中间层的输出) and of open
governance (中立的基金会) are glossary forms."""

from __future__ import annotations

from bot.domain.text import TRADITIONAL
from tests.domain.search_asks import ids as _ids
from tests.domain.search_asks import refused as _refused


def test_another_products_thing_named_beside_field_words_is_refused(matcher):
    """Field words beside another product's thing (a notebook instance, a docker layer cache, a
    vector database, a BI dashboard, a shared drive, a video call) ask about that product."""
    assert _refused(
        matcher, "idle gpu notebooks on our cloud account keep burning money, can instances shut down alone"
    )
    assert _refused(matcher, "build agents fill their disks with cached docker layers, how often to clean them")
    assert _refused(matcher, "reindexing our vector database after a new embedding model, how to avoid an outage")
    assert _refused(matcher, "bi dashboard is sluggish since the warehouse doubled, is caching the answer")
    assert _refused(matcher, "model checkpoints filled up the shared drive, where else can the team store them")


def test_chinese_questions_about_meetings_and_spreadsheets_are_refused(matcher):
    """A video meeting that stutters for lack of memory, evaluation numbers gathered in spreadsheets
    and a 看板: an office tool's question, whatever field words (内存不够, 模型, 评估) it holds."""
    assert _refused(matcher, "开视频会议的时候画面一卡一卡的，是不是电脑内存不够")
    assert _refused(matcher, "每次模型评估的分数都记在不同的表格里，想汇总成一个看板")


def test_a_real_serving_question_beside_the_same_words_is_still_answered(matcher):
    """The same field words in their serving sense still find posts (no product named)."""
    assert _ids(matcher, "vllm kv cache offloading to cpu memory", 3)
    assert _ids(matcher, "显存不够，kv 缓存能不能放到内存里", 3)


def test_everyday_traditional_characters_fold_to_simplified():
    """``時間`` reads as ``时间``, ``資料`` as ``资料``, ``兩週`` as ``两周``, ``減少`` as ``减少``."""
    assert "時間 資料 兩週 減少".translate(TRADITIONAL) == "时间 资料 两周 减少"


def test_taiwan_video_word_reads_as_video(matcher):
    """``影片生成`` (Taiwan usage) finds what ``视频生成`` finds."""
    simplified = _ids(matcher, "视频生成模型怎么部署", 3)
    assert simplified
    assert _ids(matcher, "影片生成模型怎么部署", 3) == simplified


def test_plain_chinese_names_of_hidden_states_and_open_governance(matcher):
    """``中间层输出`` asks for hidden states; ``中立的基金会`` for the project's open governance; a
    charity's foundation is no such question."""
    assert "extract-hidden-states" in _ids(matcher, "推理服务能不能直接吐出中间层输出给我训练小模型用", 3)
    assert _ids(matcher, "这个开源项目以后会不会被一家公司控制，有中立的基金会吗", 1) == [
        "open-governance-perf-roadmap"
    ]
    assert _refused(matcher, "慈善基金会怎么申请资助")
