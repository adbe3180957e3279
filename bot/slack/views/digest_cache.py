"""DM parts cached by what they say, not by who reads: bounded, and as cheap out of order.

A speed layer kept for ``benchmarks/compose_dm.py`` (100,000 people x 10 tracks, random read
sets, ≤ 2 s): 1.6 s of CPU with it, 46 s without (``docs/benchmarks.md``, "Stop 23: speed
layers measured").

:class:`bot.slack.views.digest.DmComposer` keeps a DM's part about a track per *set of posts
read in that track*: out-of-order readers make hundreds of thousands of variants. Yet the part
says only the track's **next step** and **how many of its steps are read**, so
:class:`KeyedDmComposer` (same output) caches it by ``(catalog version, language, track, next
step, read count)`` in a shared ``cachetools.LRUCache`` of ``max_parts`` entries. The next step
comes from a few integer operations per step (:class:`NextStepIndex`), for a one-word track
from a table indexed by the read bits of its first :data:`PREFIX_STEPS` steps (filled on use).
The composer's exact-bits lookup stays a first-level shortcut for tracks whose every read
pattern fits ``max_exact`` entries, cleared when a track holds more: memory is bounded whatever
people read.

Thread-safe: the caches are guarded by a lock where they change, and two threads rendering the
same key produce equal parts.
"""

from __future__ import annotations

import threading
from typing import Any

from cachetools import LRUCache

from bot.domain.catalog import Catalog
from bot.domain.catalog.attached import PerCatalog
from bot.slack.views.digest import DmComposer

_MISSING: Any = object()
_BEYOND: Any = object()
"""The next step is not decided by a track's first :data:`PREFIX_STEPS` steps."""
PREFIX_STEPS = 12
"""Steps of a track whose read bits index the next-step table (4,096 entries per track)."""
_NEVER = 1 << 4096
"""A need mask no read bits can meet (a prerequisite outside the track)."""

DEFAULT_MAX_PARTS = 20_000
"""Rendered parts kept (each a few hundred bytes): every (track, next step, count) of a catalog
of ~150 steps in two languages fits many times over."""
DEFAULT_MAX_EXACT = 20_000
"""Exact read-bits shortcuts kept per track before that track's shortcut table is cleared."""

_parts: LRUCache[tuple[Any, ...], Any] = LRUCache(maxsize=DEFAULT_MAX_PARTS)
_parts_lock = threading.Lock()


class NextStepIndex:
    """For one composer: a track's read bits -> ``(next step's post id or None, steps read)``,
    from the composer's bit layout. A step with a prerequisite outside the track is never next
    (as in :func:`bot.domain.paths.next_step`, which looks only at the track's posts read)."""

    def __init__(self, composer: DmComposer):
        catalog = composer.catalog
        self._steps: dict[str, list[tuple[str, tuple[int, int], tuple[tuple[int, int], ...] | None]]] = {}
        self._single: dict[str, list[tuple[str, int, int]]] = {}
        for track in catalog.tracks:
            tid = track.id
            word, mask = composer._plan[tid]
            words = [word] if word >= 0 else [w for w, _m in mask]
            position = {w: i for i, w in enumerate(words)}
            steps: list[tuple[str, tuple[int, int], tuple[tuple[int, int], ...] | None]] = []
            for step in catalog.path(tid):
                w, bit = composer._pair[(tid, step.post)]
                own = (position[w], bit)
                need: dict[int, int] | None = {}
                for ref in step.after:
                    pair = composer._pair.get((tid, catalog.resolve_post_id(ref) or ref))
                    if pair is None:
                        need = None  # a prerequisite outside the track: never next
                        break
                    assert need is not None
                    need[position[pair[0]]] = need.get(position[pair[0]], 0) | pair[1]
                steps.append((step.post, own, None if need is None else tuple(sorted(need.items()))))
            self._steps[tid] = steps
            if len(words) == 1:  # one word: plain int masks, an impossible need never met
                self._single[tid] = [
                    (post, own[1], _NEVER if need is None else sum(m for _w, m in need)) for post, own, need in steps
                ]

    def key(self, track_id: str, bits: Any) -> tuple[str | None, int]:
        """``(next post id or None when done, steps read)`` for ``bits`` (an int, or a tuple of
        ints for a track spread over several words, as the composer makes them)."""
        single = self._single.get(track_id)
        if single is not None:
            for post, bit, mask in single:
                if not bits & bit and bits & mask == mask:
                    return post, bits.bit_count()
            return None, bits.bit_count()
        words = bits if isinstance(bits, tuple) else (bits,)
        count = sum(int(w).bit_count() for w in words)
        for post, (i, bit), need in self._steps[track_id]:
            if not words[i] & bit and need is not None and all(words[j] & m == m for j, m in need):
                return post, count
        return None, count


class KeyedDmComposer(DmComposer):
    """A :class:`DmComposer` whose parts are cached by (catalog version, language, track, next
    step, read count) in a bounded LRU (see the module docstring). Same output."""

    def __init__(self, catalog: Catalog, lang: str = "en", *, max_exact: int = DEFAULT_MAX_EXACT):
        super().__init__(catalog, lang)
        self.max_exact = max_exact
        self._index = NextStepIndex(self)
        self._single = self._index._single
        self._version = catalog.version
        # one-word tracks whose steps hold consecutive bits in path order: the next step as
        # decided by the first PREFIX_STEPS steps' bits, tabled per prefix (filled on use);
        # exact shortcuts are kept only for tracks whose every read pattern fits max_exact
        self._prefix: dict[str, tuple[int, int, list[Any], bool]] = {}
        for tid, single in self._single.items():
            if single and single[0][1] > 0:
                shift = single[0][1].bit_length() - 1
                if [bit for _p, bit, _n in single] == [1 << (shift + i) for i in range(len(single))]:
                    steps = min(len(single), PREFIX_STEPS)
                    low_mask = (1 << steps) - 1
                    self._prefix[tid] = (shift, low_mask, [_MISSING] * (1 << steps), (1 << len(single)) <= max_exact)
        # (track, next step, read count) -> part: bounded by the catalog's size
        self._keyed: dict[tuple[Any, ...], Any] = {}

    def _part(self, track_id: str, key: Any) -> tuple[dict[str, Any], str] | None:
        """The part for read bits ``key`` of ``track_id``: from this composer's keyed parts, else
        the shared keyed LRU, else rendered by :class:`DmComposer`; noted under ``key`` in the
        track's exact shortcuts (cleared when they hold ``max_exact``)."""
        prefix = self._prefix.get(track_id)
        if prefix is not None:  # the common case: one word, the first steps' answer tabled
            shift, low_mask, table, keep_exact = prefix
            low = (key >> shift) & low_mask
            next_post = table[low]
            if next_post is _MISSING:
                next_post = table[low] = self._next_in_prefix(track_id, low)
            if next_post is _BEYOND:
                next_post = self._index.key(track_id, key)[0]
            ck = (track_id, next_post, key.bit_count())
        else:
            keep_exact = True
            ck = (track_id, *self._index.key(track_id, key))
        part = self._keyed.get(ck, _MISSING)  # this composer's view of the shared LRU
        if part is _MISSING:
            part = self._keyed_miss(track_id, key, ck)
        if keep_exact:
            exact = self._parts[track_id]
            if len(exact) >= self.max_exact:  # a racing clear only costs a look-up again
                exact.clear()
            exact[key] = part
        return part

    def _next_in_prefix(self, track_id: str, low: int) -> str | None:
        """The next step of a reader whose read bits of the track's first steps (its
        ``PREFIX_STEPS`` lowest bits, shifted down) are ``low``, when those bits decide it;
        :data:`_BEYOND` when the next step lies further (or needs a later step's bit)."""
        single = self._single[track_id]
        shift = self._prefix[track_id][0]
        for i, (post, bit, need) in enumerate(single[:PREFIX_STEPS]):
            if need >> shift >= 1 << PREFIX_STEPS:
                return _BEYOND  # a prerequisite beyond the prefix: let the full walk decide
            bit, need = bit >> shift, need >> shift
            if not low & bit and low & need == need:
                return post
            if i == len(single) - 1:
                return None  # every step of the track is in the prefix: done
        return _BEYOND

    def _keyed_miss(self, track_id: str, key: Any, ck: tuple[Any, ...]) -> tuple[dict[str, Any], str] | None:
        shared = (self._version, self.lang, *ck)
        with _parts_lock:  # an LRU lookup reorders its entries: not safe without the lock
            part = _parts.get(shared, _MISSING)
        if part is _MISSING:
            part = super()._part(track_id, key)  # renders (and notes the exact key)
            prefix = self._prefix.get(track_id)
            if prefix is not None and not prefix[3]:
                self._parts[track_id].pop(key, None)  # this track keeps no exact shortcuts
            with _parts_lock:
                _parts[shared] = part
        self._keyed[ck] = part
        return part


_composers: PerCatalog[KeyedDmComposer] = PerCatalog()


def dm_composer(catalog: Catalog, lang: str = "en") -> KeyedDmComposer:
    """The shared :class:`KeyedDmComposer` for ``catalog`` and ``lang`` (built on first use;
    dropped when the catalog object is garbage-collected)."""
    return _composers.get(catalog, lang, lambda: KeyedDmComposer(catalog, lang))


def cache_info() -> dict[str, int]:
    """Sizes of the shared parts cache: ``{'parts': n, 'max_parts': m}``."""
    return {"parts": len(_parts), "max_parts": int(_parts.maxsize)}


def clear() -> None:
    """Empty the shared parts cache and forget the composers (tests, benchmarks)."""
    with _parts_lock:
        _parts.clear()
    _composers.clear()
