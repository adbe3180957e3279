"""How a step's references outside the catalog are named in every door (QA round 6).

A reference (:class:`bot.domain.catalog.models.ExternalPrerequisite`) is named by its title without
an id-shaped tail such as ``(v0-disagg-prefill)`` (a curator's working id, not words for a reader),
and one without a link also names the catalog post its note says covers the same ground, so the
reader has something to open. The digest, the track reply and App Home
(:func:`bot.slack.views.links.reference_lines`), the web page (:func:`bot.web.paths.references`)
and ``vllm-path next`` all name a reference through these two functions.
"""

from __future__ import annotations

import re

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import ExternalPrerequisite, Post

_ID_TAIL = re.compile(r"\s*\(\s*(?=[0-9_-]*[a-z])[a-z0-9]+(?:[-_][a-z0-9]+)+\s*\)\s*$")
"""A trailing ``(lower-case-words-joined-by-hyphens)`` with a letter: an id, never a reader's
words (a date such as ``(2026-10-14)`` stays)."""

_TITLE_HEAD = re.compile(r"\s*(?::|—| - )\s*")
"""Where a post title's head ends (``Taking vLLM Apart: A Practical Guide …``)."""

_MIN_HEAD_WORDS = 2
"""A title head of fewer words (``vLLM``) is too loose to say a note names that post."""


def reference_title(ref: ExternalPrerequisite) -> str:
    """``ref``'s title as a reader sees it: without an id-shaped tail in parentheses (the whole
    title when that is all it is). From the catalog's track file (``external_prerequisites``)."""
    shown = _ID_TAIL.sub("", ref.title).strip()
    return shown or ref.title


def covering_post(catalog: Catalog, ref: ExternalPrerequisite) -> Post | None:
    """The catalog post ``ref``'s note names as covering the same ground, for a reference without
    a link (``None`` for a linked one, one without a note, or a note naming no post).

    A note names a post when it contains the post's title, or the title's head before a colon or a
    dash of at least two words (casefolded; the note's text in any language); the longest such name
    wins, then catalog order."""
    if ref.url or ref.note is None:
        return None
    notes = f"{ref.note.en} {ref.note.zh or ''}".casefold()
    best: tuple[int, Post] | None = None
    for post in catalog.posts:
        for name in {post.title, _TITLE_HEAD.split(post.title, maxsplit=1)[0]}:
            name = name.strip().casefold()
            if len(name.split()) >= _MIN_HEAD_WORDS and name in notes and (best is None or len(name) > best[0]):
                best = (len(name), post)
    return None if best is None else best[1]
