"""Chinese word segmentation for queries: rjieba (jieba-rs, whose dictionary ships in its wheel)
with a user dictionary made from the catalog's own Chinese words.

A query's Chinese runs are cut into words (``推测解码太慢`` → ``推测解码`` / ``太慢``), so that its
particles and filler words (``怎么办``, ``太``, ``了``) drop out as words and its unknown words are
single words, not character pairs that each count against a match. Catalog text is still indexed
as character bigrams: a query word finds a post holding all of its bigrams.

The segmenter loads on the first Chinese query that is not one dictionary word (about 0.1 s and
40 MB, measured in a bare venv), so a process that never reads Chinese never loads it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

HMM = False
"""Whether rjieba guesses words its dictionaries lack (its HMM): off, so that an unknown run falls
apart into characters (卡上 → 卡 / 上) rather than into made-up words that hide a catalog word."""

USER_WORD_FREQ = 200_000
"""The frequency given to each user-dictionary word: high enough that jieba keeps a catalog term
whole (``首字延迟``, ``昇腾``) where its own dictionary would split it."""


class Segmenter:
    """Cuts CJK runs into words; ``words``: the user dictionary (CJK runs of 2+ characters).
    Thread-safe; the rjieba instance is built once, on first use."""

    def __init__(self, words: Iterable[str]) -> None:
        self.words = frozenset(w for w in words if len(w) >= 2)
        self._jieba: Any = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, object]:
        """The user dictionary only: the segmenter and lock are made again (:mod:`bot.domain.search.cache`)."""
        return {"words": self.words}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["words"])  # type: ignore[misc]

    def _load(self) -> Any:
        """The rjieba instance with the user dictionary (built under a lock, once)."""
        if self._jieba is None:
            with self._lock:
                if self._jieba is None:
                    import rjieba  # deferred: a process that reads no Chinese never loads it

                    jieba = rjieba.Jieba()
                    for word in sorted(self.words):
                        jieba.add_word(word, USER_WORD_FREQ, None)
                    self._jieba = jieba
        return self._jieba

    def cut(self, run: str) -> list[str]:
        """The words of a CJK run (no spaces in it), in order; a run that is one dictionary word
        (or one character) is returned whole without loading the segmenter."""
        if len(run) < 2 or run in self.words:
            return [run]
        return [w for w in self._load().cut(run, HMM) if w.strip()]
