"""Ranked retrieval (BM25, with the bm25s library) over each post's words, for questions.

:class:`RankedIndex` is BM25 over the fuzzy index's terms of each post (title counted twice, tags,
id, English and Chinese summaries, ``catalog/answers.yaml``): stems of Latin words of 2+ letters,
joins of adjacent words, CJK bigrams; stop and question words left out. Query tokens
(:func:`bm25_tokens`) are read the same way, Chinese stop and question words cut out of CJK runs
(``怎么降低首token延迟`` → ``降低 低首 … 延迟``). Scores are bm25s's Lucene BM25 (``k1=1.5``,
``b=0.75``), summed over the query's distinct tokens.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, cast

import bm25s
import bm25s.scoring
import numpy as np
from bm25s.tokenization import Tokenized

from bot.domain.search.analysis import _bigrams, _parts, stem
from bot.domain.search.vocabulary import Vocabulary

# bm25s sets its logger to DEBUG when imported: let it follow the root logger's level (LOG_LEVEL).
logging.getLogger("bm25s").setLevel(logging.NOTSET)


def _cjk_cutter(words: frozenset[str]) -> re.Pattern[str] | None:
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


class _PostingsBM25(bm25s.BM25):  # type: ignore[misc]  # bm25s ships no types
    """bm25s's BM25 with ``build_index_from_ids`` overridden to build the same score matrix (idf
    and tf functions of ``method``, float32 CSC) from :class:`Postings` with array operations: tens
    of milliseconds, not bm25s's 0.6 s loop, for 10,000 posts. Methods that score absent terms
    (``bm25l``, ``bm25+``) raise ``ValueError``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.method in self.methods_requiring_nonoccurrence:
            raise ValueError(f"BM25 method {self.method!r} scores absent terms too: use lucene, robertson or atire")

    def build_index_from_ids(
        self, unique_token_ids: Any, corpus_token_ids: Any, show_progress: bool = True, leave_progress: bool = False
    ) -> dict[str, Any]:
        postings: Postings = corpus_token_ids
        self.nonoccurrence_array = None
        n_docs, n_vocab = postings.n_docs, len(unique_token_ids)
        doc_len = np.bincount(postings.docs, weights=postings.tf, minlength=n_docs)
        avg_doc_len = doc_len.mean()
        doc_freqs = np.bincount(postings.terms, minlength=n_vocab)
        idf_of = bm25s.scoring._select_idf_scorer(self.idf_method)
        idf = np.zeros(n_vocab, dtype=self.dtype)
        present = np.flatnonzero(doc_freqs)
        values, inverse = np.unique(doc_freqs[present], return_inverse=True)
        idf[present] = np.array([idf_of(int(df), N=n_docs) for df in values.tolist()], dtype=self.dtype)[inverse]
        tfc = bm25s.scoring._select_tfc_scorer(self.method)(
            tf_array=postings.tf,
            l_d=doc_len.astype(np.int64)[postings.docs],
            l_avg=avg_doc_len,
            k1=self.k1,
            b=self.b,
            delta=self.delta,
        )
        data = (idf[postings.terms] * tfc).astype(self.dtype)
        indptr = np.zeros(n_vocab + 1, dtype=np.int64)
        np.cumsum(doc_freqs, out=indptr[1:])
        return {
            "data": data,
            "indices": postings.docs.astype(self.int_dtype, copy=False),
            "indptr": indptr,
            "num_docs": n_docs,
        }


class RankedIndex:
    """BM25 over the posts of one catalog (document ``i`` is ``catalog.posts[i]``); ``vocab`` maps
    each term to its id (the fuzzy index's). Read-only: :meth:`scores` may be called from any thread.
    """

    def __init__(self, postings: Postings, vocab: dict[str, int], vocabulary: Vocabulary) -> None:
        self.ignorable = vocabulary.ignorable
        self.cutter = _cjk_cutter(self.ignorable)
        self.vocab = vocab
        self.n = postings.n_docs
        self._bm25: bm25s.BM25 | None = None
        if self.n and vocab and len(postings.terms):
            corpus = Tokenized(ids=cast(list[list[int]], postings), vocab=dict(vocab))
            self._bm25 = retriever = _PostingsBM25()
            retriever.index(corpus, create_empty_token=False, show_progress=False)

    def query_tokens(self, text: str) -> list[str]:
        """The query's tokens (as :func:`bm25_tokens`)."""
        return bm25_tokens(text, self.ignorable, self.cutter)

    def scores(self, tokens: list[str], df: list[int], max_terms: int = 16) -> np.ndarray | None:
        """BM25 score of every post for the distinct known ``tokens`` (float32, ``n`` posts), or
        ``None`` when none is known. Terms in over half the posts (``df``: posts per term id) are
        left out and only the ``max_terms`` rarest scored (ties: the earlier token)."""
        if self._bm25 is None:
            return None
        vocab = self.vocab
        ids = list(dict.fromkeys(vocab[t] for t in tokens if t in vocab))  # in the query's order
        ids = sorted((i for i in ids if df[i] * 2 <= self.n), key=df.__getitem__)[:max_terms]
        if not ids:
            return None
        scores: np.ndarray = self._bm25.get_scores_from_ids(sorted(ids))
        return scores
