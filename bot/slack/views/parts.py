"""Rendered Block Kit parts kept per catalog, so a reply is assembled rather than rebuilt.

Building blocks through slack-sdk's models (validation included) is most of a slash command's
cost, and a part (say a step's section in a track reply) depends only on the catalog, the
language and a few facts of the reader's state, so it is built once and its serialised dict is
reused. The caches are bounded dicts per catalog object (dropped with the catalog, so ``catalog
reload`` starts afresh). Cached dicts are shared: treat
:attr:`bot.slack.views.blocks.Reply.blocks` as read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from slack_sdk.models.blocks import Block

from bot.domain.catalog import Catalog
from bot.domain.catalog.attached import PerCatalog

MAX_PARTS = 20_000
"""Rendered parts kept per catalog (each well under 1 KB): every step of every track in every
state and language of a catalog many times the blog's size."""
MAX_REPLIES = 2_000
"""Whole replies kept per catalog (:func:`memo_reply`), about 2 KB each beyond the parts they
share: under ~4 MB whatever the mix of reading states."""

_MISSING = object()
_caches: PerCatalog[dict[Hashable, Any]] = PerCatalog()


def _cache_of(catalog: Catalog, name: str = "parts") -> dict[Hashable, Any]:
    return _caches.get(catalog, name, dict)


_T = TypeVar("_T")


def memo(catalog: Catalog, key: Hashable, build: Callable[[], _T]) -> _T:
    """The value kept for ``key`` (a tuple naming everything the value depends on besides
    ``catalog``; its first item names the kind of part), computed with ``build()`` on first use.
    A plain dict per catalog, shared by threads without a lock (one entry's read or write is
    atomic in CPython; two threads missing at once build equal values); emptied when it holds
    :data:`MAX_PARTS` entries."""
    return _memo_in(_cache_of(catalog), MAX_PARTS, key, build)


def memo_reply(catalog: Catalog, key: Hashable, build: Callable[[], _T]) -> _T:
    """:func:`memo` for whole replies, at most :data:`MAX_REPLIES` per catalog: most readers of a
    track are in one of a few states, so a command's reply is mostly a look-up. The value is
    shared: do not change it."""
    return _memo_in(_cache_of(catalog, "replies"), MAX_REPLIES, key, build)


def _memo_in(cache: dict[Hashable, Any], limit: int, key: Hashable, build: Callable[[], _T]) -> _T:
    hit = cache.get(key, _MISSING)
    if hit is not _MISSING:
        return hit
    value = build()
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value


def rendered(catalog: Catalog, key: Hashable, build: Callable[[], Block]) -> dict[str, Any]:
    """The serialised block for ``key`` (see :func:`memo`), built with ``build()`` and
    ``to_dict()`` (slack-sdk's validation) on first use; shared between replies: do not change it."""
    return memo(catalog, ("block", key), lambda: build().to_dict())


def cache_info(catalog: Catalog) -> dict[str, int]:
    """``{'parts': n, 'max_parts': m, 'replies': r, 'max_replies': M}`` for ``catalog``'s caches."""
    return {
        "parts": len(_cache_of(catalog)),
        "max_parts": MAX_PARTS,
        "replies": len(_cache_of(catalog, "replies")),
        "max_replies": MAX_REPLIES,
    }
