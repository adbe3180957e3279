"""Rendered pieces of replies that depend only on the catalog and the language, made once.

A track's step lines, the next-step detail, a post's search entry: their text is the same for
every reader of one catalog version, so views render each once per (catalog, language, track or
post, and the one or two flags the piece depends on) and reuse it. The pieces are
:class:`~bot.slack.mrkdwn.Mrkdwn` strings (immutable) or Block Kit dicts made by slack-sdk's models
(handed out as copies), so a reply is byte for byte what rendering afresh gives.

The cache is keyed by the catalog object (a reload makes a new one; its pieces go when it is
garbage-collected) and bounded: a catalog's table is emptied when it reaches :data:`MAX_PIECES`.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from bot.catalog import Catalog

MAX_PIECES = 4096
"""Pieces kept per catalog. Most are a few hundred bytes; a track's path sections for one
reading state (which steps are read, which is next) are a few kB, and there is one per state
met, so the bound keeps the cache to some megabytes whatever people read."""

T = TypeVar("T")

_tables: dict[int, tuple[weakref.ref[Catalog], dict[Hashable, Any]]] = {}
_lock = threading.Lock()


def _table(catalog: Catalog) -> dict[Hashable, Any]:
    key = id(catalog)
    hit = _tables.get(key)
    if hit is not None and hit[0]() is catalog:
        return hit[1]
    with _lock:
        hit = _tables.get(key)
        if hit is not None and hit[0]() is catalog:
            return hit[1]
        table: dict[Hashable, Any] = {}

        def forget(_ref: weakref.ref[Catalog], key: int = key) -> None:
            _tables.pop(key, None)

        ref = weakref.ref(catalog, forget)
        _tables[key] = (ref, table)
        return table


def piece(catalog: Catalog, key: Hashable, make: Callable[[], T]) -> T:
    """``make()`` for ``key`` within ``catalog``, made once and then reused. ``make`` must give
    an immutable value (or one nobody changes) that depends only on the catalog and ``key``;
    two threads may both make a missing piece (the last one is kept)."""
    table = _table(catalog)
    try:
        return table[key]
    except KeyError:
        pass
    value: T = make()
    if len(table) >= MAX_PIECES:
        table.clear()
    table[key] = value
    return value


BlockDicts = TypeVar("BlockDicts", dict[str, Any], list[dict[str, Any]])


def block(catalog: Catalog, key: Hashable, make: Callable[[], BlockDicts]) -> BlockDicts:
    """A Block Kit dict (or a list of them) made once by ``make`` (slack-sdk's models and their
    validation), handed out as a deep copy so that a caller changing its reply cannot change
    the next one."""
    fresh: BlockDicts = _fresh(piece(catalog, key, make))
    return fresh


def _fresh(value: Any) -> Any:
    """A copy of JSON-shaped data (dicts, lists, then immutable leaves): ``copy.deepcopy`` without
    its memo, a few times quicker on Block Kit dicts."""
    if type(value) is dict:
        return {k: _fresh(v) for k, v in value.items()}
    if type(value) is list:
        return [_fresh(v) for v in value]
    return value
