"""Chinese glossary words typed with one character off (``量话`` for ``量化``, ``前缀缓纯`` for
``前缀缓存``; QA round 10: they found nothing, while a track's Chinese name one character off was
read already): :class:`HanTypos`, used by the query rewrite (:meth:`~bot.domain.search.index.SearchIndex._rewrite`).

A character is read as mistyped only where the segmenter (rjieba, with its own dictionary and the
catalog's words) could not make it part of a word of two or more characters: a real word it knows
(``排查``, ``显存``) is never changed, and a window of the query is replaced only by the one
glossary form it is one character away from (two candidates: nothing changes)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.domain.text import has_han

_GAP = "\0"
"""Stands for the one character that may differ, in :attr:`HanTypos._by_gap` keys."""

MIN_CHARS = 2
"""A glossary form shorter than this is never a correction (one character is too little to go by)."""

MAX_CHARS = 6
"""…nor one longer than this (a long phrase one character off is rare; the window scan stays short)."""


class HanTypos:
    """The glossary's Chinese forms by every one-character gap (``量\\0`` → ``{量化}``); read-only."""

    def __init__(self, forms: Iterable[str], ignorable: Iterable[str] = ()) -> None:
        """``forms``: the glossary's forms; only all-Chinese ones of :data:`MIN_CHARS` to
        :data:`MAX_CHARS` characters are kept. ``ignorable``: stop and question words; a character
        that is one of them (的, 上, 吗) is never the mistyped one."""
        self._plain = frozenset(w for w in ignorable if len(w) == 1)
        self._forms = frozenset(f for f in forms if MIN_CHARS <= len(f) <= MAX_CHARS and all(has_han(c) for c in f))
        self._by_gap: dict[str, set[str]] = {}
        for form in self._forms:
            for i in range(len(form)):
                self._by_gap.setdefault(form[:i] + _GAP + form[i + 1 :], set()).add(form)

    def fix(self, pieces: Sequence[str]) -> str:
        """The Chinese run cut into ``pieces`` (the segmenter's words, in order) with each window of
        whole pieces that is one character off exactly one glossary form replaced by it, the
        differing character a piece of its own (no word of two or more characters, no stop word);
        a window of three characters or more, or the whole run; longest windows first, left to
        right. The run unchanged when none is."""
        text = "".join(pieces)
        if not self._forms:
            return text
        starts = [0]
        for piece in pieces:
            starts.append(starts[-1] + len(piece))
        lone = {starts[i] for i, piece in enumerate(pieces) if len(piece) == 1 and piece not in self._plain}
        out, at = [], 0
        while at < len(text):
            fixed = self._window(text, at, starts, lone)
            if fixed is None:
                out.append(text[at])
                at += 1
            else:
                out.append(fixed)
                at += len(fixed)
        return "".join(out)

    def _window(self, text: str, at: int, starts: list[int], lone: set[int]) -> str | None:
        """The one form a window of whole pieces starting at ``at`` corrects to, else None."""
        if at not in starts:
            return None
        for end in sorted((s for s in starts if MIN_CHARS <= s - at <= MAX_CHARS), reverse=True):
            window = text[at:end]
            if len(window) < 3 and window != text:
                continue  # two characters are a typo only typed alone (量话): 上跑 beside 线 is no 上线
            if window in self._forms:
                return None  # a glossary word as typed
            found = {
                form
                for i in range(len(window))
                if at + i in lone and not self._beside_a_form(window, i)
                for form in self._by_gap.get(window[:i] + _GAP + window[i + 1 :], ())
            }
            if len(found) == 1:
                return found.pop()
            if found:
                return None  # two readings: leave it
        return None

    def _beside_a_form(self, window: str, i: int) -> bool:
        """Whether the character at ``i``, at an end of ``window``, stands beside a glossary form as
        typed (``马`` + ``训练`` in ``半马训练计划``: a half marathon's training, not ``后训练``): the
        question already holds that word, the character belongs to another one (blind set w)."""
        rest = window[1:] if i == 0 else window[:-1] if i == len(window) - 1 else ""
        return rest in self._forms


__all__ = ["HanTypos"]
