"""The catalog posts a new post's text links to, for :class:`bot.domain.catalog.placement.Placer`.
Pure.

A blog post that links to an earlier post of the catalog builds on it: in a track that holds the
linked post, the new post is read after it (the placer gives its trial step an ``after`` on the
linked steps, :func:`after_links`). Links are read from the body as the feed gives it: Markdown
links and images' addresses, HTML ``href`` attributes and bare ``http(s)://`` addresses; a path
without a host (``/2025/01/27/v1.html``, ``/blog/anatomy-of-vllm``) is one on the blog
(``blog_base_url``). Each resolves as a pasted link does (:class:`bot.domain.search.links.LinkIndex`:
every form the blog's paths have taken, on every blog host). Measured on catalog 2026.12.18 and
the blog's texts: 26 (post, linked step of the same track) pairs, the linking post after the
linked one in the curated order in 23 (the curators' ``after`` says so in 13 of them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from bot.domain.catalog.models import Step
from bot.domain.search.links import LinkIndex

_ADDRESS = re.compile(
    r"\]\(\s*<?([^)\s>]+)"  # a Markdown link's or image's address
    r"|\bhref\s*=\s*[\"']([^\"']+)[\"']"  # an HTML link's
    r"|(https?://[^\s)\"'<>\]]+)",  # a bare address
    re.IGNORECASE,
)


def linked_posts(text: str, index: LinkIndex, base_url: str, known: Iterable[str] | None = None) -> tuple[str, ...]:
    """The ids of the catalog posts ``text`` links to, in the order first linked, each once;
    ``known``: only these ids (a placer's own posts: never the post being placed). A path without a
    host is read on ``base_url``."""
    allowed = None if known is None else set(known)
    found: dict[str, None] = {}
    for match in _ADDRESS.finditer(text):
        address = (match.group(1) or match.group(2) or match.group(3)).strip()
        if address.startswith("/") and not address.startswith("//"):
            address = base_url.rstrip("/") + address
        elif not address.lower().startswith(("http://", "https://")):
            continue  # an anchor (#results), a relative file (figure.png), a mailto:
        result = index.resolve(address)
        if result is None or result.status != "post" or result.post_id is None:
            continue
        if allowed is None or result.post_id in allowed:
            found.setdefault(result.post_id, None)
    return tuple(found)


def after_links(linked: Iterable[str], steps: Mapping[str, Step], *, essential: bool) -> tuple[str, ...]:
    """The ``after`` of a trial step (``essential`` or further reading) for a post linking to
    ``linked`` in a track whose steps by post id are ``steps``: the linked steps of the track, the
    further-reading ones only when the trial step is further reading too (an essential post comes
    before the further reading in any case; one that links to a further-reading post, as the v1
    engine's post links to a performance update, is not pushed behind it)."""
    return tuple(p for p in linked if p in steps and (steps[p].essential or not essential))
