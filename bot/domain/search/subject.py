"""Title subjects: a post whose title names a query concept leads posts that merely mention it.

Coverage weighs a term by the best field it occurs in (title 1.0, tags 0.9, questions 0.75, …) and
BM25 by how often a post says it, so a post that mentions a term in its tags and says it ten times
(``MTP`` of the Qwen3-Next post) outranks the post whose title is about it (``FastMTP heads``), and a
title saying the term by its abbreviation (``K8S``, a synonym at 0.9) counts less than a tag saying
it in full (``kubernetes``). The index reads the parts of a compound title word as title words
(:func:`compound_parts`, ``FastMTP``: ``fast``, ``mtp``) and :func:`subject_bonus` lifts each post whose
title names a concept by another form than the query's own words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.domain.search.analysis import _Concept, _text_terms, stem
from bot.domain.search.reorder import Ranked
from bot.domain.search.weights import _SIM_SYNONYM, TITLE_SUBJECT_BONUS

_COMPOUND_RE = re.compile(r"\b([A-Z][a-z]+)([A-Z]{2,}[a-z]?)\b")
"""A word of a capitalised part and an acronym (``FastMTP``, ``SpecDEC``): both parts are title words.
Not ``vLLM`` (one letter before the acronym) nor ``DeepSeek`` (no acronym)."""


def compound_parts(title: str) -> list[str]:
    """The stems of the parts of the compound words of ``title`` (as written: :data:`_COMPOUND_RE`)."""
    return [stem(part.lower()) for m in _COMPOUND_RE.finditer(title) for part in m.groups()]


def title_terms(titles: Sequence[str]) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """Per title (as written, with its case): its index terms (stems, joins of neighbours, CJK
    bigrams), and the stems of the parts of its compound words (:data:`_COMPOUND_RE`)."""
    return tuple((frozenset(_text_terms(title, True, set())), frozenset(compound_parts(title))) for title in titles)


def lift_subjects(
    ranked: list[Ranked], concepts: Sequence[_Concept], terms: Sequence[tuple[frozenset[str], frozenset[str]]]
) -> list[Ranked]:
    """``ranked`` (best first) with each post's score raised by :func:`subject_bonus`, best first
    again (a stable sort: posts as high keep their order)."""
    bonus = subject_bonus(concepts, terms, [r[1] for r in ranked], [r[0] for r in ranked])
    if not any(bonus):
        return ranked
    lifted = [(score + b, doc, field, cov) for (score, doc, field, cov), b in zip(ranked, bonus, strict=True)]
    return sorted(lifted, key=lambda r: -round(r[0], 1))


def subject_bonus(
    concepts: Sequence[_Concept],
    terms: Sequence[tuple[frozenset[str], frozenset[str]]],
    docs: Sequence[int],
    scores: Sequence[float],
) -> list[float]:
    """Per post of ``docs`` (numbers into ``terms``, from :func:`title_terms`) scoring ``scores``
    (0..100, before the bonus): the score points its title earns by naming query ``concepts`` in a
    form the ranking under-reads: a synonym or abbreviation (``K8S`` for ``kubernetes``: a synonym's
    lower similarity) or a part of a compound word (``FastMTP``: BM25 counts the post's "FastMTP"s as
    another word). A title saying the query's own words already counts as the best field. The
    points are ``TITLE_SUBJECT_BONUS`` × the concepts' share of the query's weight × the post's
    distance below 100: the order of posts earning the same share is kept, and none is lifted to
    the top score of 100, where ties are ordered otherwise (``reorder.general_first``)."""
    total = sum(c.weight for c in concepts)
    if total <= 0:
        return [0.0] * len(docs)
    shares = [
        (
            c.weight / total,
            [alt for alt, sim in c.alternatives if sim >= 1.0],
            [alt for alt, sim in c.alternatives if sim >= _SIM_SYNONYM - 1e-9],
        )
        for c in concepts
    ]
    out = []
    for doc, score in zip(docs, scores, strict=True):
        plain, parts = terms[doc]
        full = plain | parts
        named = sum(
            share
            for share, own, alts in shares
            if not any(all(t in plain for t in alt) for alt in own) and any(all(t in full for t in alt) for alt in alts)
        )
        out.append(TITLE_SUBJECT_BONUS * named * max(0.0, 100.0 - score))
    return out
