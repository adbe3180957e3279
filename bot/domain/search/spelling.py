"""Typo correction and prefix completion of the Latin words of a query (:class:`Speller`).

An unknown word of 4+ letters is corrected against the known words one edit away (a
symmetric-delete index over names: titles, tags, ids, track names, the vocabulary), scored with
rapidfuzz; a long word with no such neighbour against every known word of a similar length. A
known prefix is completed (``specul`` → ``speculative``). Other tools' names (``other_names``:
``ollama``) are never corrected.
"""

from __future__ import annotations

import bisect
import math
import threading
from collections.abc import Callable, Iterable

from rapidfuzz import fuzz, process

from bot.domain.search.analysis import _PARTS_RE, _deletes, english_words, swapped

FULL_SCAN_CHARS = 8
"""An unknown word this long with no known word one edit away is compared with every known word
of a similar length (two typos in one long word)."""

FUZZY_CUTOFF = 85.0
"""``rapidfuzz.fuzz.ratio`` cutoff for typo correction of words of 4+ characters."""

NEAR_CUTOFF = 80.0
"""The ``fuzz.ratio`` cutoff for a known word that is an unknown word of :data:`NEAR_MIN_CHARS`+
letters with two neighbouring letters swapped (``eagel``, ``qaunt``: 80-83)."""

NEAR_MIN_CHARS = 5
"""Shorter unknown words are corrected only at :data:`FUZZY_CUTOFF`."""

SIM_FUZZY = 0.9
"""The similarity of a typo correction (times its ``fuzz.ratio`` / 100)."""

SIM_PREFIX = 0.75
"""The similarity of a prefix completion."""


def _searchable(word: str) -> bool:
    return len(word) >= 3 and not word.isdigit()


class Speller:
    """The known Latin words of one catalog and their typo index (read-only after construction; the
    typo index is built on first use, thread-safe).

    ``names``: words searched by name, in the symmetric-delete index; ``prose``: summary words,
    reached by the full scan only; ``df``: posts per term (orders completions)."""

    def __init__(
        self,
        names: Iterable[str],
        prose: Iterable[str],
        other_names: frozenset[str],
        df: Callable[[str], int],
        stem: Callable[[str], str],
    ) -> None:
        self._named = frozenset(w for w in names if len(w) >= 2)
        self.surface = self._named | {w for w in prose if len(w) >= 2}
        self._sorted = sorted(self.surface)
        self._other_names = other_names
        self._df, self._stem = df, stem
        self._index: tuple[dict[int, list[str]], dict[str, list[str]]] | None = None
        self._lock = threading.Lock()

    def _typo_index(self) -> tuple[dict[int, list[str]], dict[str, list[str]]]:
        """``(known words by length, name words by their one-letter deletions)``, built on the first
        unknown word (tens of milliseconds and most of the index's size: a query of known words,
        and a kept index, never need it)."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    by_len: dict[int, list[str]] = {}
                    for word in filter(_searchable, self.surface):
                        by_len.setdefault(len(word), []).append(word)
                    deletes: dict[str, list[str]] = {}
                    for word in filter(_searchable, self._named):
                        for variant in _deletes(word):
                            deletes.setdefault(variant, []).append(word)
                    self._index = by_len, deletes
        return self._index

    def __getstate__(self) -> dict[str, object]:
        """The words, without the typo index and the lock (:mod:`bot.domain.search.cache`)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_index")}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._index, self._lock = None, threading.Lock()

    def _typos(self, word: str) -> list[tuple[str, float, int]]:
        """rapidfuzz hits ``(known word, ratio, index)`` for an unknown word, best first."""
        by_len, deletes = self._typo_index()
        near = {w for v in _deletes(word) for w in deletes.get(v, ())}
        if near:  # under FUZZY_CUTOFF only two swapped letters: "stock" is no typo of "stack"
            hits = process.extract(
                word, sorted(near), scorer=fuzz.ratio, processor=None, score_cutoff=NEAR_CUTOFF, limit=5
            )
            return [h for h in hits if h[1] >= FUZZY_CUTOFF or (len(word) >= NEAR_MIN_CHARS and swapped(word, h[0]))]
        if len(word) < FULL_SCAN_CHARS:
            return []
        lo, hi = max(3, math.floor(len(word) * 0.74)), math.ceil(len(word) * 1.36)
        choices = [w for n in range(lo, hi + 1) for w in by_len.get(n, ())]
        return process.extract(word, choices, scorer=fuzz.ratio, processor=None, score_cutoff=FUZZY_CUTOFF, limit=5)

    def _completions(self, word: str) -> list[str]:
        """Known words that start with ``word``, most common first (at most 8)."""
        lo = bisect.bisect_left(self._sorted, word)
        hi = bisect.bisect_left(self._sorted, word + "\U0010ffff", lo)  # past the words starting with it
        return sorted(self._sorted[lo:hi], key=lambda w: (-self._df(self._stem(w)), w))[:8]

    def expand(self, word: str) -> tuple[tuple[str, float], ...]:
        """Typo corrections and prefix completions of an unknown Latin word, ``((known word,
        similarity), ...)`` best first; ``()`` for known or short words, digits, other tools' names and
        everyday English words."""
        if word in self.surface or len(word) < 4 or word.isdigit() or word in self._other_names:
            return ()
        if word in english_words():  # "hard" is a word, not a misspelt "hardware"
            return ()
        out = {cand: SIM_FUZZY * ratio / 100.0 for cand, ratio, _ in self._typos(word)}
        for cand in self._completions(word):
            out.setdefault(cand, SIM_PREFIX)
        return tuple(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))

    def near(self, word: str) -> list[str]:
        """The known name words one edit (or two swapped letters) away from ``word`` of 4+ letters,
        best first, whether or not ``word`` is itself a word (``cashing`` → ``caching``): for reading
        a pair of words as a glossary form typed one letter off; ``[]`` for other tools' names."""
        if len(word) < 4 or word.isdigit() or word in self._other_names:
            return []
        return [cand for cand, _, _ in self._typos(word) if cand != word]

    def correct(self, norm: str) -> tuple[str, float]:
        """The text with each unknown Latin word replaced by its best typo correction, and the
        lowest correction ratio (1.0 when nothing was corrected)."""
        words = []
        worst = 1.0
        for cjk, latin in _PARTS_RE.findall(norm):
            fixes = [(w, s) for w, s in self.expand(latin) if s > SIM_PREFIX] if latin else []
            if fixes:
                words.append(fixes[0][0])
                worst = min(worst, fixes[0][1] / SIM_FUZZY)
            else:
                words.append(cjk or latin)
        return " ".join(words), worst
