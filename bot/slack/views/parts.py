"""Values kept per catalog (bounded, dropped with it): whole replies (:func:`memo_reply`) and the
parts a reply's key is made of (:func:`memo`). Kept values are shared: treat them as read-only.

Speed layers (docs/benchmarks.md, "Speed layers and the benchmarks that need them"): both are
needed by ``benchmarks/command_latency.py`` (50 people, ``/vllm-path speculative``), whose CPU per
request rose from 1.26-1.31x the no-op's to 1.86-1.87x without :func:`memo_reply` and to 1.49-1.56x
without :func:`memo` of the track's path line (target <= 1.3x)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from bot.domain.catalog import Catalog
from bot.domain.catalog.attached import PerCatalog
from bot.domain.insights import MIN_READERS
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn

if TYPE_CHECKING:
    from bot.domain.paths import TrackState

MAX_PARTS = 20_000
"""Parts kept per catalog (each well under 1 KB)."""
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
        return cast(_T, hit)  # a key is only ever built by one ``build``, so ``hit`` is its type
    value = build()
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value


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


def read_count(state: TrackState, lang: str) -> Mrkdwn:
    """How far a reader is in a track, counted as every reply counts (issue 40: the essential path
    first): ``2 of 8 essential read · 5 of 17 in all`` until the essential path is read, then
    ``9 of 17 read``."""
    if state.path.essentials and not state.essentials_done:
        done, essential = state.essentials_read, len(state.path.essentials)
        return t(
            "count.essential_and_all", lang, done=done, essential=essential, read=state.read_count, total=state.total
        )
    return t("count.all", lang, read=state.read_count, total=state.total)
