"""Building the BM25 score matrix of :class:`bot.domain.search.ranking.RankedIndex` with bm25s
(imported here only: a kept index is scored without it)."""

from __future__ import annotations

import logging
from typing import Any, cast

import bm25s
import bm25s.scoring
import numpy as np
from bm25s.tokenization import Tokenized

# bm25s sets its logger to DEBUG when imported: let it follow the root logger's level (LOG_LEVEL).
logging.getLogger("bm25s").setLevel(logging.NOTSET)


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
        postings = corpus_token_ids  # a bot.domain.search.ranking.Postings
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


def score_matrix(postings: Any, vocab: dict[str, int]) -> dict[str, Any]:
    """bm25s's Lucene BM25 score matrix (``k1=1.5``, ``b=0.75``, float32) of ``postings`` (a
    :class:`bot.domain.search.ranking.Postings` over the term ids of ``vocab``), built by
    :class:`_PostingsBM25`: ``{"data", "indices", "indptr", "num_docs"}`` (CSC arrays, as
    ``bm25s.BM25.scores`` holds them)."""
    corpus = Tokenized(ids=cast(list[list[int]], postings), vocab=dict(vocab))
    retriever = _PostingsBM25()
    retriever.index(corpus, create_empty_token=False, show_progress=False)
    built: dict[str, Any] = retriever.scores
    return built


__all__ = ["score_matrix"]
