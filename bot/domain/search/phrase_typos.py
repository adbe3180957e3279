"""Two or three words of a query that are a glossary form with one of them typed one letter off
(``prefix cashing``, ``paged atention``, ``long contex``; ``illegal memory acess``): read as the
form (:func:`fix_pair_typos`).

A word typed off that is itself an English word (``cashing``) is no typo to the word-by-word
speller (:mod:`bot.domain.search.spelling`: ``hard`` is no misspelt ``hardware``), and a typo
corrected word by word is read as that word alone (``atention`` as the loose ``attention``), not
as the form it makes with its neighbour (``paged attention``). Beside a word that starts a form,
the one-letter neighbour that completes the form is what was meant.
"""

from __future__ import annotations

from collections.abc import Callable, Container


def fix_pair_typos(
    norm: str,
    near: Callable[[str], list[str]],
    key: Callable[[str], str],
    forms: Container[tuple[str, ...]],
    keep: Callable[[str], bool],
) -> str:
    """``norm`` (normalized text, words split on spaces) with each run of three, else pair of,
    neighbouring words that is no form of ``forms`` (tuples of word keys: ``key`` stems a word) but
    is one when one of its words of 4+ letters is replaced by a word ``near`` it (one edit away)
    read as that form; a word ``keep`` says is as meant (a stop word, a word the catalog holds:
    ``vllm`` is no ``llm`` typed off) is never replaced."""
    words = norm.split(" ")
    i = 0
    while i + 1 < len(words):
        a, b = words[i], words[i + 1]
        if (key(a), key(b)) in forms or not (a.isalpha() and b.isalpha()):
            i += 1
            continue
        if i + 2 < len(words) and (triple := _fixed_triple(words[i : i + 3], near, key, forms, keep)):
            words[i : i + 3] = triple  # "illegal memory acess": a form of three words, one typed off
            i += 3
            continue
        fixed = _fixed_pair(a, b, near, key, forms, keep)
        if fixed is None:
            i += 1
            continue
        words[i], words[i + 1] = fixed
        i += 2
    return " ".join(words)


def _fixed_triple(
    run: list[str],
    near: Callable[[str], list[str]],
    key: Callable[[str], str],
    forms: Container[tuple[str, ...]],
    keep: Callable[[str], bool],
) -> list[str] | None:
    """The three words ``run`` with one of them (the last first) replaced by a word near it that
    makes them a form of three words, or ``None`` (holdout set aa: an everyday word typed off inside
    a field phrase, ``illegal memory acess``, left the whole phrase unread)."""
    if not all(w.isalpha() for w in run) or tuple(map(key, run)) in forms:
        return None
    for j in (2, 1, 0):
        if keep(run[j]):
            continue
        for cand in near(run[j]):
            fixed = [*run[:j], cand, *run[j + 1 :]]
            if tuple(map(key, fixed)) in forms:
                return fixed
    return None


def _fixed_pair(
    a: str,
    b: str,
    near: Callable[[str], list[str]],
    key: Callable[[str], str],
    forms: Container[tuple[str, ...]],
    keep: Callable[[str], bool],
) -> tuple[str, str] | None:
    """The pair ``(a, b)`` with the second word, else the first, replaced by a word near it that
    makes it a form, or ``None``."""
    if not keep(b):
        for cand in near(b):
            if (key(a), key(cand)) in forms:
                return a, cand
    if not keep(a):
        for cand in near(a):
            if (key(cand), key(b)) in forms:
                return cand, b
    return None


__all__ = ["fix_pair_typos"]
