"""The vocabulary's problem phrases are found without a regex (:class:`PhraseFinder`, issue 43: a cold
``search`` compiled a 226-phrase pattern on every run): it must find exactly what the pattern it
replaced finds, on the real phrases and on made-up ones."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.domain.search.analysis import _CJK, PhraseFinder, normalize
from bot.domain.search.vocabulary import load_vocabulary

CATALOG = Path(__file__).resolve().parents[2] / "catalog"
EDGE = rf"[^\W_{_CJK}]"


def by_pattern(phrases: list[str], text: str) -> list[tuple[int, int, str]]:
    """What the replaced ``re`` pattern found: the phrases longest first, not inside a Latin word."""
    longest_first = sorted(dict.fromkeys(p for p in phrases if p), key=len, reverse=True)
    if not longest_first:
        return []
    pattern = re.compile(rf"(?<!{EDGE})(?:{'|'.join(map(re.escape, longest_first))})(?!{EDGE})")
    return [(m.start(), m.end(), m.group(0)) for m in pattern.finditer(text)]


def test_the_catalogs_problem_phrases_are_found_as_the_pattern_found_them() -> None:
    phrases = [normalize(p) for p, _ in load_vocabulary(CATALOG).problems]
    finder = PhraseFinder(phrases)
    texts = [f"x{p}" for p in phrases] + [f"{p}s and {p}" for p in phrases] + [f"我们的{p}怎么办" for p in phrases]
    texts += ["how do i " + " ".join(phrases[i : i + 3]) for i in range(0, len(phrases), 3)]
    found_any = 0
    for text in texts:
        assert finder.find(text) == by_pattern(phrases, text), text
        found_any += bool(finder.find(text))
    assert found_any > len(phrases)  # the texts hold phrases: the comparison is not of two empty lists


ALPHABET = st.sampled_from([*"abc _-1é", "一", "二", "ж"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(ALPHABET, min_size=1, max_size=4), max_size=6), st.text(ALPHABET, max_size=30))
def test_any_phrases_in_any_text_are_found_as_the_pattern_finds_them(phrases: list[str], text: str) -> None:
    assert PhraseFinder(phrases).find(text) == by_pattern(phrases, text)


def test_a_phrase_inside_a_latin_word_is_not_found_but_inside_chinese_it_is() -> None:
    finder = PhraseFinder(["slow start", "冷启动"])
    assert finder.find("a slow startup") == []
    assert finder.find("a slow start, then") == [(2, 12, "slow start")]
    assert finder.find("模型冷启动慢") == [(2, 5, "冷启动")]
    assert not PhraseFinder([]) and PhraseFinder(["x"])
