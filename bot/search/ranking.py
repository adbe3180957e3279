"""Ranked retrieval (BM25, with the bm25s library) over each post's words, for questions.

The fuzzy matcher scores how much of the query's *concepts* a post covers, which is right for
names and keywords; a question in a sentence ("why is my time to first token so high") needs
term weighting over everything a post says. :class:`RankedIndex` is BM25 over the same terms the
fuzzy index holds for each post (built from its term ids, so the text is analysed once): the title
(counted twice: a title word says more than a summary word), the blog's tags, the post id, our
English and Chinese summaries, and the questions and terms it answers (``catalog/answers.yaml``):
stemmed Latin words of 2+ letters, joins of adjacent words (``llm-d`` → ``llmd``), and character
bigrams of CJK runs; the vocabulary's stop and question words are left out. Query tokens
(:func:`bm25_tokens`) are read the same way, with Chinese stop and question words cut out of CJK
runs (``怎么降低首token延迟`` → ``降低 低首 … 延迟``).

Scores are bm25s's Lucene BM25 (``k1=1.5``, ``b=0.75``), summed over the query's distinct tokens.
"""

from __future__ import annotations

import re

import bm25s
import numpy as np
from bm25s.tokenization import Tokenized

from bot.search.analysis import _bigrams, _parts, stem
from bot.search.vocabulary import Vocabulary

__all__ = ["RankedIndex", "bm25_tokens", "ignorable_terms"]

def _cjk_cutter(words: frozenset[str]) -> re.Pattern[str] | None:
    cjk = sorted((w for w in words if w and not w.isascii()), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, cjk))) if cjk else None


def bm25_tokens(text: str, ignorable: frozenset[str],
                cutter: re.Pattern[str] | None = None) -> list[str]:
    """The ranked-retrieval tokens of ``text`` (see the module docstring), in order.

    ``ignorable``: stop and question words (folded), skipped along with their joins; ``cutter``: a
    pattern of the Chinese ones, removed from CJK runs before bigrams are taken."""
    out: list[str] = []
    prev = ""
    for cjk, latin in _parts(text):
        if cjk:
            prev = ""
            pieces = cutter.split(cjk) if cutter is not None else [cjk]
            for piece in pieces:
                if piece:
                    out.extend(_bigrams(piece))
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
    """Index terms that stop and question words become (stems of the Latin ones, bigrams of the
    Chinese ones): left out of the ranked-retrieval corpus."""
    words = vocabulary.ignorable
    out = {stem(w) for w in words if w.isascii()}
    out.update(b for w in words if not w.isascii() and len(w) > 1 for b in _bigrams(w))
    return out


class RankedIndex:
    """BM25 over the posts of one catalog (document ``i`` is ``catalog.posts[i]``).

    ``corpus[i]`` lists the term ids of post ``i`` (a title term twice), ``vocab`` maps each term
    to its id (the fuzzy index's term table). Read-only after construction; :meth:`scores` may be
    called from any thread.
    """

    def __init__(self, corpus: list[list[int]], vocab: dict[str, int],
                 vocabulary: Vocabulary) -> None:
        self.ignorable = vocabulary.ignorable
        self.cutter = _cjk_cutter(self.ignorable)
        self.vocab = vocab
        self.n = len(corpus)
        self._bm25: bm25s.BM25 | None = None
        if self.n and vocab and any(corpus):
            retriever = bm25s.BM25()
            retriever.index(Tokenized(ids=corpus, vocab=dict(vocab)), create_empty_token=False,
                            show_progress=False)
            self._bm25 = retriever

    def query_tokens(self, text: str) -> list[str]:
        """The query's tokens (as :func:`bm25_tokens`)."""
        return bm25_tokens(text, self.ignorable, self.cutter)

    def scores(self, tokens: list[str], df: list[int] | None = None,
               max_terms: int = 16) -> np.ndarray | None:
        """BM25 score of every post for the distinct ``tokens`` known to the index (float32 array
        of ``n`` posts), or ``None`` when no token is known. With ``df`` (posts per term id), terms
        found in over half the posts are left out (their BM25 weight is near zero) and only the
        ``max_terms`` rarest are scored (a pasted paragraph costs no more than a question)."""
        if self._bm25 is None:
            return None
        ids = list({self.vocab[t] for t in tokens if t in self.vocab})
        if df is not None:
            ids = sorted((i for i in ids if df[i] * 2 <= self.n), key=df.__getitem__)[:max_terms]
        if not ids:
            return None
        scores: np.ndarray = self._bm25.get_scores_from_ids(sorted(ids))
        return scores
