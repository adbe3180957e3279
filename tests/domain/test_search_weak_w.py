"""Blind set w's off-topic rows (Chinese plain words): a character beside a glossary word is no
typo of a longer one (半马训练计划 is no 后训练), and a drone's video link is another product."""

from __future__ import annotations

import pytest

from tests.domain.search_asks import refused, track


@pytest.mark.parametrize(
    "query",
    [
        "全马训练每周跑量多少",  # 马 + 训练: a marathon's training, read as 后训练 before
        "狗训练师怎么找",  # a dog trainer
        "猫训练砂盆",
        "无人机图传延迟太高画面卡顿",  # a drone's video link
        "drone video feed lags a lot",
    ],
)
def test_everyday_chinese_beside_a_field_word_stays_refused(matcher, query):
    assert refused(matcher, query), query
    assert track(matcher, query) is None, query


def test_a_typo_of_a_glossary_word_typed_alone_is_still_read(matcher):
    """The one-character-off reading still holds where no glossary word stands beside the
    character (``量话`` alone is ``量化``)."""
    assert not refused(matcher, "量话")
