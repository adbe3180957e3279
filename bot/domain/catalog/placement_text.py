"""The words of a post as :mod:`bot.domain.catalog.placement` reads them: its terms (stemmed words
and neighbouring word pairs, :func:`terms`), its body without markup (:func:`plain`) and TF-IDF
vectors with their cosines. Pure."""

from __future__ import annotations

import functools
import heapq
import itertools
import math
import re
from collections.abc import Mapping

from bot.domain.search.analysis import stem

_WORD = re.compile(r"[a-z][a-z0-9]*(?:[.+-][a-z0-9]+)*|\d+[a-z][a-z0-9]*")
_STOP_WORDS = (
    "a an and are as at be by can do does for from how in into is it its of on or our that the their these this "
    "to was we what when where which who why will with you your vllm post posts blog new more most than then "
    "also about after before between both each use used using uses run runs how's here there all one two not "
    "llm llms model models inference serving"
)
_STOP = frozenset(_STOP_WORDS.split(" "))


@functools.lru_cache(maxsize=4096)
def _terms(text: str) -> tuple[tuple[str, str], ...]:
    words = [(stem(w), w) for w in _WORD.findall(text.casefold()) if w not in _STOP and len(w) > 1]
    return (*words, *((f"{a} {b}", f"{x} {y}") for (a, x), (b, y) in itertools.pairwise(words)))


def terms(text: str, surface: dict[str, str] | None = None) -> list[str]:
    """The stemmed, lower-case Latin words of ``text`` without stop words, then each pair of
    neighbours among them (``"Serving EAGLE-3 drafters"`` → ``["eagle-3", "drafter",
    "eagle-3 drafter"]``); ``surface`` collects each term's first wording."""
    found = _terms(text)
    if surface is not None:
        for term, word in found:
            surface.setdefault(term, word)
    return [term for term, _ in found]


_MARKUP = re.compile(
    r"<!--.*?-->|<(script|style)\b.*?</\1>|<[^>]*>"  # HTML comments, scripts, every tag and its attributes
    r"|!?\[([^\]]*)\]\([^)]*\)"  # a Markdown link or image: its text stays, its address goes
    r"|https?://\S+|&\w+;",  # bare addresses, entities
    re.DOTALL | re.IGNORECASE,
)


def plain(text: str) -> str:
    """A post's body without its markup: HTML tags with their attributes (``<img src=...
    width="100%">``), comments and scripts, link and image addresses (a link's text stays),
    bare URLs and entities, which would otherwise tie every post with a figure to every other."""
    return (
        _MARKUP.sub(lambda m: f" {m.group(2) or ''} ", text) if "<" in text or "](" in text or "://" in text else text
    )


Vector = Mapping[str, float]


def vector(counts: Mapping[str, float], idf: Mapping[str, float], keep: int | None = None) -> dict[str, float]:
    """The unit TF-IDF vector of term ``counts`` (sublinear: ``1 + ln n``), ``keep``: only its heaviest terms."""
    return vector_tf({t: 1 + math.log(n) for t, n in counts.items() if n > 0}, idf, keep)


def vector_tf(tf: Mapping[str, float], idf: Mapping[str, float], keep: int | None = None) -> dict[str, float]:
    """The unit vector of term frequencies ``tf`` times ``idf`` (a term without idf dropped);
    ``keep``: only its heaviest terms."""
    vec = {t: f * idf.get(t, 0.0) for t, f in tf.items()}
    if keep is not None and len(vec) > keep:
        vec = dict(heapq.nlargest(keep, vec.items(), key=lambda item: item[1]))
    norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
    return {t: v / norm for t, v in vec.items() if v}


def weighted(tf: Mapping[str, float], idf: Mapping[str, float]) -> dict[str, float]:
    """The unit vector of ``tf`` times ``idf`` (every term of ``tf`` must have an idf)."""
    vec = {t: f * idf[t] for t, f in tf.items()}
    norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
    return {t: v / norm for t, v in vec.items()}


def cosine(a: Vector, b: Vector) -> float:
    """The cosine of two unit vectors (their dot product)."""
    small, large = (a, b) if len(a) < len(b) else (b, a)
    return sum(v * large.get(t, 0.0) for t, v in small.items())
