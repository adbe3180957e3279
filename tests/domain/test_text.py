"""bot.domain.text: one normalisation for the command grammar and search."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.domain.text import clean, decode_slack, fold, fold_accents


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("ｆｏｌｌｏｗ　ｓｐｅｃ", "follow spec"),  # full-width letters and the ideographic space
        ("ｈｅｌｐ", "help"),
        ("  follow \t\n spec  ", "follow spec"),
        ("Café", "cafe"),
        ("ÉAGLE", "eagle"),
        ("éagle", "eagle"),
        ("naïve Ångström", "naive angstrom"),
        ("Straße", "strasse"),  # casefold, not lower
        ("推测解码", "推测解码"),  # CJK unchanged
        ("が", "が"),  # kana keep their dakuten
        ("한국어", "한국어"),  # Hangul recomposes
        ("Ｐ－ＥＡＧＬＥ", "p-eagle"),
    ],
)
def test_fold(raw, expected):
    assert fold(raw) == expected


def test_clean_keeps_case_and_accents_for_display():
    assert clean("ｆｏｌｌｏｗ　Café") == "follow Café"
    assert clean("  EAGLE  3 ") == "EAGLE 3"


@pytest.mark.parametrize(
    "raw, expected",
    [
        (
            "<https://blog.vllm.ai/2024/10/17/spec-decode.html|Spec decode>",
            "https://blog.vllm.ai/2024/10/17/spec-decode.html",
        ),
        ("<https://blog.vllm.ai/x>", "https://blog.vllm.ai/x"),
        ("read <https://a.io/p|p> now", "read https://a.io/p now"),
        ("hi <@U123ABC> there", "hi there"),
        ("<@U123|someone> eagle", "eagle"),
        ("<!here> spec", "spec"),
        ("<!channel> spec", "spec"),
        ("<!subteam^S1|@team> spec", "spec"),
        ("@here nixl", "nixl"),  # typed as words, Slack sends them unescaped: mentions too
        ("@Channel banana @everyone", "banana"),
        ("mail a@here.io", "mail a@here.io"),  # inside a word: kept
        ("in <#C123|general>", "in #general"),
        ("<mailto:a@b.io|a@b.io>", "a@b.io"),
        ("<!date^1392734382^{date}|Feb 18, 2014>", "Feb 18, 2014"),
        ("Q&amp;A &lt;tag&gt;", "Q&A <tag>"),
        ("a < b > c", "a < b > c"),  # not markup: left alone
        ("", ""),
    ],
)
def test_slack_markup_and_entities_are_decoded(raw, expected):
    assert clean(raw) == expected


def test_decode_slack_is_the_only_step_that_touches_markup():
    assert decode_slack("&amp;") == "&"
    assert decode_slack("ｆｏｏ") == "ｆｏｏ"  # NFKC is clean's job


def test_fold_accents_fast_path_returns_the_same_object_for_plain_text():
    text = "plain ascii"
    assert fold_accents(text) is text
    assert fold_accents("推测") == "推测"


@given(st.text(max_size=200))
def test_fold_and_clean_are_idempotent_and_trimmed(text):
    once = clean(text)
    assert clean(once) == once
    assert once == once.strip() and "  " not in once
    folded = fold(text)
    assert fold(folded) == folded
