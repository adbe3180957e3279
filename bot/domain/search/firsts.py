"""A product's first release asked for: ``semantic router first major release``, ``what was in the
first release of the semantic router``, ``semantic router 的第一个版本``. A question with a first word
(``first``, ``initial``, ``debut``, ``inaugural``, ``earliest``) followed within a few words by a
release word (``release``, ``launch``, ``version``), or a Chinese first release (``第一个版本``,
``首个大版本``, ``首发版本``, ``初版``), prefers among its close matches the posts that say they are a
first release: their title or summary says so (``The First Major Release``, ``首个大版本``) or their
title names version 0.1 or 1.0 of something (``Semantic Router v0.1``; ``vLLM V1`` is an engine, no
1.0). They gain :data:`FIRST_RELEASE_BONUS` points when they score at least :data:`FIRST_SHARE` of
the best (the product's posts, not another's first release). A question naming a version itself
(``v0.2``) or a release after the first (``since the first release``) is left as ranked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bot.domain.search.analysis import _Unit
from bot.domain.search.reorder import Ranked, adjusted
from bot.domain.search.versions import versions_in

FIRST_RELEASE_BONUS = 10.0
"""Score points for a close match that says it is a first release, when the question asks for one."""

FIRST_SHARE = 0.8
"""The share of the best score a post needs to gain :data:`FIRST_RELEASE_BONUS`: a post on the
question's product, not the first release of another."""

_FIRST_WORDS = frozenset({"first", "1st", "initial", "debut", "inaugural", "earliest"})
_RELEASE_WORDS = frozenset({"release", "releases", "released", "launch", "launched", "version", "versions"})
_AFTER_WORDS = frozenset({"after", "since", "following", "post", "beyond"})
"""Words that, just before the first word, ask about what came later (``since the first release``)."""

_WINDOW = 4
"""At most this many words between the first word and the release word (``first big semantic router release``)."""

_HAN_ASKS_RE = re.compile(r"(?:第一|首)个?(?:大|正式|主要)?版本|首发版本?|首次发布|初版|第一版|首版")
"""A Chinese first release in a question (its Chinese units joined)."""

_SAYS_RE = re.compile(
    r"\b(?:first|initial|debut|inaugural)\s+(?:(?:major|big|stable|public|official|full)\s+)?(?:release|version)\b"
    r"|(?:第一|首)个(?:大|正式|主要)?版本|首发版本|首次发布|初版",
    re.IGNORECASE,
)
"""A post's text saying it is a first release."""


def asks_first_release(units: Sequence[_Unit]) -> bool:
    """Whether the query's ``units`` ask for a first release (module docstring): a first word then,
    within :data:`_WINDOW` words, a release word, not just after an ``after`` word; or a Chinese first
    release. ``False`` when the query names a version (``v0.2``: the version decides)."""
    latin = [u.text.casefold() for u in units if u.kind == "latin"]
    if versions_in(" ".join(latin)):
        return False
    if _HAN_ASKS_RE.search("".join(u.text for u in units if u.kind != "latin")):
        return True
    for i, word in enumerate(latin):
        if word not in _FIRST_WORDS or any(w in _AFTER_WORDS for w in latin[max(0, i - 2) : i]):
            continue
        if any(w in _RELEASE_WORDS for w in latin[i + 1 : i + 2 + _WINDOW]):
            return True
    return False


def says_first_release(title: str, summary: str) -> bool:
    """Whether a post of ``title`` and ``summary`` (its English and Chinese summaries, joined) says it
    is a first release: in words, or by version 0.1 or 1.0 (as typed: ``v1.0``, not ``V1``) in its title."""
    if _SAYS_RE.search(title) or _SAYS_RE.search(summary):
        return True
    for v in versions_in(title):
        if v.numbers == (0, 1) or (
            v.numbers == (1,) and re.search(rf"{re.escape(v.family)}[ _-]?{v.letter}1\.0", title, re.IGNORECASE)
        ):
            return True
    return False


def first_release_first(
    ranked: list[Ranked], units: Sequence[_Unit], text_of: Callable[[int], tuple[str, str]]
) -> list[Ranked]:
    """``ranked`` (best first) with the posts that say they are a first release (``text_of(doc)``:
    post number ``doc``'s title and summary; :func:`says_first_release`) and score at least
    :data:`FIRST_SHARE` of the best gaining :data:`FIRST_RELEASE_BONUS`, best first again; unchanged
    when the query asks for no first release (:func:`asks_first_release`)."""
    if not ranked or not asks_first_release(units):
        return ranked
    bar = FIRST_SHARE * max(r[0] for r in ranked) - 1e-9
    close = {doc for score, doc, _, _ in ranked if score >= bar}
    return adjusted(
        ranked, lambda doc: FIRST_RELEASE_BONUS if doc in close and says_first_release(*text_of(doc)) else 0.0
    )


__all__ = ["FIRST_RELEASE_BONUS", "FIRST_SHARE", "asks_first_release", "first_release_first", "says_first_release"]
