"""Ranked retrieval (BM25, with the bm25s library) over each post's words, for questions.

The fuzzy matcher scores how much of the query's *concepts* a post covers, which is right for
names and keywords; a question in a sentence ("why is my time to first token so high") needs
term weighting over everything a post says. :class:`RankedIndex` indexes, per post: the title
(twice: a title word says more than a summary word), the blog's tags, our English and Chinese
summaries, and the questions and terms it answers (``catalog/answers.yaml``). Tokens
(:func:`bm25_tokens`): stemmed Latin words of 2+ letters that are not stop or question words,
joins of adjacent such words when one is 3 letters or fewer (``llm-d`` → ``llmd``, ``gpt oss`` →
``gptoss``), and character bigrams of CJK runs after the vocabulary's Chinese stop and question
words are cut out (``怎么降低首token延迟`` → ``降低 低首 … 延迟``).

Scores are bm25s's Lucene BM25 (``k1=1.5``, ``b=0.75``), summed over the query's distinct tokens.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import bm25s
import numpy as np
from bm25s.tokenization import Tokenized

from bot.search.analysis import _bigrams, _parts, stem
from bot.search.vocabulary import Vocabulary

if TYPE_CHECKING:  # pragma: no cover
    from bot.catalog.compiled import Catalog

__all__ = ["RankedIndex", "bm25_tokens"]

JOIN_MAX = 3
"""Adjacent Latin words are also joined into one token when one of them has at most this many
letters (``llm d`` → ``llmd``, ``wide ep`` → ``wideep``)."""


def _cjk_cutter(words: frozenset[str]) -> re.Pattern[str] | None:
    cjk = sorted((w for w in words if w and not w.isascii()), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, cjk))) if cjk else None


def bm25_tokens(text: str, ignorable: frozenset[str],
                cutter: re.Pattern[str] | None = None) -> list[str]:
    """The ranked-retrieval tokens of ``text`` (see the module docstring), in order, repeats kept.

    ``ignorable``: stop and question words (folded); ``cutter``: a pattern of the Chinese ones,
    removed from CJK runs before bigrams are taken."""
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
        if prev and (len(prev) <= JOIN_MAX or len(latin) <= JOIN_MAX):
            out.append(stem(prev + latin))
        prev = latin
        if len(latin) >= 2:
            out.append(stem(latin))
    return out


class RankedIndex:
    """BM25 over the posts of one catalog (document ``i`` is ``catalog.posts[i]``).

    Read-only after construction; :meth:`scores` may be called from any thread.
    """

    def __init__(self, catalog: "Catalog", vocabulary: Vocabulary) -> None:
        self.ignorable = vocabulary.ignorable
        self.cutter = _cjk_cutter(self.ignorable)
        vocab: dict[str, int] = {}
        corpus: list[list[int]] = []
        answers = vocabulary.answers
        for post in catalog.posts:
            text = "\n".join((post.title, post.title, *post.tags, post.summary.en,
                              post.summary.zh or "", *answers.get(post.id, ())))
            ids = [vocab.setdefault(t, len(vocab)) for t in bm25_tokens(text, self.ignorable,
                                                                       self.cutter)]
            corpus.append(ids)
        self.vocab = vocab
        self.n = len(corpus)
        self._bm25: bm25s.BM25 | None = None
        if self.n and vocab:
            retriever = bm25s.BM25()
            retriever.index(Tokenized(ids=corpus, vocab=vocab), show_progress=False)
            self._bm25 = retriever

    def query_tokens(self, text: str) -> list[str]:
        """The query's tokens (as :func:`bm25_tokens`)."""
        return bm25_tokens(text, self.ignorable, self.cutter)

    def scores(self, tokens: list[str]) -> np.ndarray | None:
        """BM25 score of every post for the distinct ``tokens`` known to the index (float32 array
        of ``n`` posts), or ``None`` when no token is known."""
        if self._bm25 is None:
            return None
        ids = sorted({self.vocab[t] for t in tokens if t in self.vocab})
        if not ids:
            return None
        return self._bm25.get_scores_from_ids(ids)
