"""The fields of a post the search index reads, their weights, and the inverted index's postings.

A term's posting value is the weight of the best field it occurs in plus a small bonus per further
field (:func:`mask_value`), so the best field can be read back (:func:`field_of`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

FIELD_WEIGHTS = {"title": 1.0, "tags": 0.9, "id": 0.8, "questions": 0.75, "answers": 0.7, "summary": 0.6, "track": 0.4}
"""How much a match in each field of a post counts (the best field of a term wins). ``questions``
are the post's own problem questions (``Post.questions``, English and Chinese); ``answers`` the
questions and terms of ``catalog/answers.yaml`` (no multi-field bonus)."""

_FIELD_BONUS = 0.03
"""Added to a term's best field weight per further field (of title, tags, id, summary, questions): at most 0.12."""

BIT_TITLE, _BIT_TAGS, _BIT_ID, _BIT_SUMMARY, _BIT_ANSWERS, _BIT_QUESTIONS = 1, 2, 4, 8, 16, 32
FIELD_BITS = np.array(
    [BIT_TITLE, _BIT_TAGS, _BIT_ID, _BIT_SUMMARY, _BIT_SUMMARY, _BIT_ANSWERS, _BIT_QUESTIONS], dtype=np.uint8
)
"""The field of each text the index reads per post, in order (title, tags, ids, English summary,
Chinese summary, answers, questions in both languages)."""

_WEIGHED_BITS = (
    (BIT_TITLE, "title"),
    (_BIT_TAGS, "tags"),
    (_BIT_ID, "id"),
    (_BIT_SUMMARY, "summary"),
    (_BIT_QUESTIONS, "questions"),
)


def mask_value(mask: int) -> float:
    """The posting value of a term in the fields of ``mask`` (bits as :data:`FIELD_BITS`): the best
    field's weight plus ``_FIELD_BONUS`` per further field, at least ``answers`` when there."""
    weights = [FIELD_WEIGHTS[f] for bit, f in _WEIGHED_BITS if mask & bit]
    value = max(weights, default=0.0) + _FIELD_BONUS * max(len(weights) - 1, 0)
    return max(value, FIELD_WEIGHTS["answers"]) if mask & _BIT_ANSWERS else value


MASK_VALUES = np.array([mask_value(m) for m in range(64)], dtype=np.float32)
""":func:`mask_value` of every mask, for array look-up."""


def field_of(value: float) -> str:
    """The field whose weight a posting value carries (weight plus at most 0.12 of bonus)."""
    return max(((w, f) for f, w in FIELD_WEIGHTS.items() if w <= value + 1e-4), default=(0.0, "track"))[1]


@dataclass(frozen=True)
class PairPostings:
    """The distinct (term, post) pairs of a catalog, sorted by term id, then post number:
    ``index`` (term → id, by first occurrence), ``terms`` (int64), ``docs`` (int32), ``masks``
    (uint8, the :data:`FIELD_BITS` of the pair) and ``counts`` (float32, how often the post's
    fields say the term: its term frequency)."""

    index: dict[str, int]
    terms: np.ndarray
    docs: np.ndarray
    masks: np.ndarray
    counts: np.ndarray


def pair_postings(chunks: list[list[str]], n: int) -> PairPostings:
    """The (term, post) pairs of ``chunks`` (the terms of each field of each of ``n`` posts,
    ``len(FIELD_BITS)`` per post); the field bits of equal pairs or-ed."""
    all_terms = list(itertools.chain.from_iterable(chunks))
    index = {t: i for i, t in enumerate(dict.fromkeys(all_terms))}
    lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    term_ids = np.fromiter(map(index.__getitem__, all_terms), dtype=np.int64, count=len(all_terms))
    chunk_docs = np.repeat(np.arange(n, dtype=np.int32), len(FIELD_BITS))
    width = max(n, 1)
    keys = term_ids * width
    keys += np.repeat(chunk_docs, lengths)
    del term_ids
    bits = np.repeat(np.tile(FIELD_BITS, n), lengths)
    order = np.argsort(keys)  # the keys' order; equal keys are merged below, so any sort
    keys, bits = keys[order], bits[order]
    del order
    first = (
        np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))) if len(keys) else np.zeros(0, dtype=np.int64)
    )
    masks = np.bitwise_or.reduceat(bits, first) if len(first) else bits
    counts = np.diff(np.append(first, len(keys))).astype(np.float32)
    return PairPostings(index, keys[first] // width, (keys[first] % width).astype(np.int32), masks, counts)
