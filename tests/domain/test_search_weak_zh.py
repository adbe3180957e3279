"""Chinese questions in plain words (holdout sets zh s-v, 2026-12-07), on the repo's catalog, each
asked in other words than the sets' rows. The plain-words fallback (:mod:`bot.domain.search.plain`)
refused them: a Chinese character pair counted half a word whatever it was, so a question sharing
the field's rare pairs (测速, 副本) with a post still fell under the bars of shared words; the
question's Chinese glossary forms (注意力, A卡) did not reach the posts' richer English text; and
common Traditional-only characters (畫, 報, 疊, 訊) were not folded to Simplified, so a Traditional
question shared fewer pairs with the posts than its Simplified twin. Everyday Chinese questions
about other things must stay refused."""

from __future__ import annotations

import pytest

from bot.domain.text import TRADITIONAL
from tests.domain.search_asks import ids as _ids
from tests.domain.search_asks import refused as _refused


def test_rare_shared_pairs_count_as_words(matcher):
    """A leaderboard's speed test (测速, 排行, 输出速度): the pairs are rare in the posts, so each
    counts as a word and the post on topping the leaderboard answers."""
    query = "那个测速排行榜上输出速度排第一的部署方案，背后都做了哪些优化"
    assert "vllm-tops-artificial-analysis" in _ids(matcher, query, 3)


def test_a_rare_pair_standing_alone_counts_as_a_word(matcher):
    """逐字 and 标出 are rare pairs of the posts with no known pair beside them: each a word, so the
    post on marking made-up sentences token by token answers (halves alone fall under the bars)."""
    assert "halugate" in _ids(matcher, "调了工具拿到正确资料，模型的回答还是会编几句，有没有办法逐字标出来", 3)


@pytest.mark.parametrize("query", ["A卡跑注意力计算，几个后端里哪个最快", "在A卡上，注意力计算用哪个后端最快"])
def test_chinese_glossary_forms_reach_the_posts_english_words(matcher, query):
    """注意力 and A卡 are glossary forms of attention and AMD: the ROCm attention backends post."""
    assert "rocm-attention-backends" in _ids(matcher, query, 3)


def test_traditional_only_characters_fold_to_simplified():
    """The everyday Traditional-only characters read as their Simplified forms."""
    assert "堆疊資訊 畫面 報錯 重複 丟掉 聲音".translate(TRADITIONAL) == "堆叠资讯 画面 报错 重复 丢掉 声音"


def test_a_traditional_question_finds_what_its_simplified_twin_finds(matcher):
    """The same question in Traditional and in Simplified characters shows the same posts."""
    simplified = _ids(matcher, "同一套模型，画面生成的时候报错说记忆体不够，怎么办", 3)
    assert simplified
    assert _ids(matcher, "同一套模型，畫面生成的時候報錯說記憶體不夠，怎麼辦", 3) == simplified


@pytest.mark.parametrize(
    "query",
    [
        "家里wifi老断",
        "电脑开机很慢怎么办",
        "打印机卡纸",
        "想学做蛋糕从哪开始",
        "家里wifi老断，路由器要不要换",
        "公司打印机老卡纸，要换哪个牌子",
        "电脑开机很慢，是不是要换固态硬盘",
        "想学做蛋糕从哪开始，烤箱温度怎么设",
        "手機畫面一直閃，是螢幕壞了嗎",
        "打游戏显卡温度太高，帧数掉得厉害",
    ],
)
def test_everyday_chinese_questions_stay_refused(matcher, query):
    """Wi-Fi, a slow boot, a paper jam, baking, a phone screen, a hot graphics card: no post."""
    assert _refused(matcher, query)
