"""Rendered Block Kit parts kept per catalog (bounded, dropped with it), so a reply is assembled
rather than rebuilt; cached dicts are shared: treat ``Reply.blocks`` as read-only."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from slack_sdk.models.blocks import Block

from bot.domain.catalog import Catalog
from bot.domain.catalog.attached import PerCatalog
from bot.domain.insights import MIN_READERS

MAX_PARTS = 20_000
"""Rendered parts kept per catalog (each well under 1 KB)."""
MAX_REPLIES = 2_000
"""Whole replies kept per catalog (:func:`memo_reply`), about 2 KB each beyond their parts."""

_MISSING = object()
_caches: PerCatalog[dict[Hashable, Any]] = PerCatalog()


def _cache_of(catalog: Catalog, name: str = "parts") -> dict[Hashable, Any]:
    return _caches.get(catalog, name, dict)


_T = TypeVar("_T")


def memo(catalog: Catalog, key: Hashable, build: Callable[[], _T]) -> _T:
    """The value kept for ``key`` (all it depends on besides ``catalog``, kind first), ``build()`` on
    first use; in a dict shared by threads unlocked (atomic items), emptied at :data:`MAX_PARTS`."""
    return _memo_in(_cache_of(catalog), MAX_PARTS, key, build)


def memo_reply(catalog: Catalog, key: Hashable, build: Callable[[], _T]) -> _T:
    """:func:`memo` for whole replies (at most :data:`MAX_REPLIES`); shared: do not change them."""
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
    """The serialised ``build()`` for ``key`` (see :func:`memo`); shared: do not change it."""
    return memo(catalog, ("block", key), lambda: build().to_dict())


def cache_info(catalog: Catalog) -> dict[str, int]:
    """``{'parts': n, 'max_parts': m, 'replies': r, 'max_replies': M}`` for ``catalog``'s caches."""
    return {
        "parts": len(_cache_of(catalog)),
        "max_parts": MAX_PARTS,
        "replies": len(_cache_of(catalog, "replies")),
        "max_replies": MAX_REPLIES,
    }


def count_text(n: int | None) -> str:
    """A count as shown to admins: the number, or ``<4`` when hidden (:func:`bot.domain.insights.shown`)."""
    return str(n) if n is not None else f"<{MIN_READERS}"
