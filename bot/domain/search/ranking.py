"""Ranked retrieval (BM25, built with the bm25s library) over each post's words, for questions.

:class:`RankedIndex` is BM25 over the fuzzy index's terms of each post (title counted twice, tags,
id, English and Chinese summaries, ``catalog/answers.yaml``): stems of Latin words of 2+ letters,
joins of adjacent words, CJK bigrams; stop and question words left out. Query tokens
(:func:`bm25_tokens`) are read the same way, Chinese stop and question words cut out of CJK runs
(``怎么降低首token延迟`` → ``降低 低首 … 延迟``). Scores are bm25s's Lucene BM25 (``k1=1.5``,
``b=0.75``), summed over the query's distinct tokens.

bm25s builds the score matrix (:mod:`bot.domain.search.bm25_build`, imported only to build an
index); the index keeps that matrix (CSC arrays) and sums its columns itself, as bm25s's
``get_scores_from_ids`` does: a kept index is restored without importing bm25s, whose version
module reads the installed metadata (``importlib.metadata``: ~20 ms of a cold ``vllm-path search``,
issue 43).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from bot.domain.search.analysis import _bigrams, _parts, stem
from bot.domain.search.vocabulary import Vocabulary


@functools.lru_cache(maxsize=8)
def _cjk_cutter(words: frozenset[str]) -> re.Pattern[str] | None:
    """A pattern of the Chinese ``words`` (longest first), compiled once a process and only when a
    CJK run is cut: a kept index holds the words, not the pattern (unpickling a pattern compiles it
    again, ~5 ms of every cold English search)."""
    cjk = sorted((w for w in words if w and not w.isascii()), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, cjk))) if cjk else None


def bm25_tokens(text: str, ignorable: frozenset[str], cutter: re.Pattern[str] | None = None) -> list[str]:
    """The ranked-retrieval tokens of ``text``, in order. ``ignorable``: stop and question words
    (folded), skipped with their joins; ``cutter``: a pattern of the Chinese ones, cut from CJK runs."""
    out: list[str] = []
    prev = ""
    for cjk, latin in _parts(text):
        if cjk:
            prev = ""
            pieces = cutter.split(cjk) if cutter is not None else [cjk]
            out.extend(bigram for piece in pieces if piece for bigram in _bigrams(piece))
            continue
        if latin in ignorable:
            prev = ""
            continue
        if prev:
            out.append(stem(prev + latin))
        prev = latin
        if len(latin) >= 2:
            out.append(stem(latin))
    return out


def ignorable_terms(vocabulary: Vocabulary) -> set[str]:
    """The index terms of stop and question words (stems, CJK bigrams): left out of the BM25 corpus."""
    words = vocabulary.ignorable
    out = {stem(w) for w in words if w.isascii()}
    out.update(b for w in words if not w.isascii() and len(w) > 1 for b in _bigrams(w))
    return out


@dataclass(frozen=True)
class Postings:
    """The BM25 corpus, one entry per distinct (term, post) pair, sorted by term id, then post:
    ``terms`` (int64, ids of the ``vocab`` given to :class:`RankedIndex`), ``docs`` (int32) and
    ``tf`` (float32; 2 for a title term, else 1; a post's length is its sum)."""

    terms: np.ndarray
    docs: np.ndarray
    tf: np.ndarray
    n_docs: int


@dataclass(frozen=True)
class ScoreMatrix:
    """bm25s's score matrix of a corpus (what ``bm25s.BM25.scores`` holds after ``index``): per
    term id, the posts holding it (``indices``, int32) and their BM25 scores (``data``, float32)
    at ``indptr[id]:indptr[id + 1]`` (int64), over ``num_docs`` posts."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    num_docs: int

    def scores(self, ids: list[int]) -> np.ndarray:
        """The summed score of every post for the term ``ids`` (float32, ``num_docs``): bm25s's
        ``get_scores_from_ids`` (its columns added in the order of ``ids``, post by post, so the
        sums are the same floats; ``tests/domain/test_search.py`` compares them)."""
        out = np.zeros(self.num_docs, dtype=self.data.dtype)
        if not ids:
            return out
        starts, ends = self.indptr[ids], self.indptr[np.asarray(ids) + 1]
        np.add.at(
            out,
            np.concatenate([self.indices[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]),
            np.concatenate([self.data[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]),
        )
        return out


class RankedIndex:
    """BM25 over the posts of one catalog (document ``i`` is ``catalog.posts[i]``); ``vocab`` maps
    each term to its id (the fuzzy index's). Read-only: :meth:`scores` may be called from any thread.
    """

    def __init__(self, postings: Postings, vocab: dict[str, int], vocabulary: Vocabulary) -> None:
        self.ignorable = vocabulary.ignorable
        self.vocab = vocab
        self.n = postings.n_docs
        self._matrix: ScoreMatrix | None = None
        if self.n and vocab and len(postings.terms):
            from bot.domain.search.bm25_build import score_matrix  # bm25s: only to build

            built = score_matrix(postings, vocab)
            self._matrix = ScoreMatrix(built["data"], built["indices"], built["indptr"], int(built["num_docs"]))

    @property
    def cutter(self) -> re.Pattern[str] | None:
        """The pattern cutting :attr:`ignorable`'s Chinese words from a CJK run (:func:`_cjk_cutter`)."""
        return _cjk_cutter(self.ignorable)

    def query_tokens(self, text: str) -> list[str]:
        """The query's tokens (as :func:`bm25_tokens`)."""
        return bm25_tokens(text, self.ignorable, _cjk_cutter(self.ignorable) if not text.isascii() else None)

    def scores(self, tokens: list[str], df: list[int], max_terms: int = 16) -> np.ndarray | None:
        """BM25 score of every post for the distinct known ``tokens`` (float32, ``n`` posts), or
        ``None`` when none is known. Terms in over half the posts (``df``: posts per term id) are
        left out and only the ``max_terms`` rarest scored (ties: the earlier token)."""
        matrix = self._matrix
        if matrix is None:
            return None
        vocab = self.vocab
        ids = list(dict.fromkeys(vocab[t] for t in tokens if t in vocab))  # in the query's order
        ids = sorted((i for i in ids if df[i] * 2 <= self.n), key=df.__getitem__)[:max_terms]
        if not ids:
            return None
        return matrix.scores(sorted(ids))
