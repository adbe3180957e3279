"""Reading order and next-in-path: pure functions over the catalog models.

A track's path is a partial order (each step may come ``after`` others). The order shown is a
deterministic topological order (Kahn's algorithm) where, among the ready steps, essential comes
before further reading, then a known link before none, then the lower level, then the earlier
publication date (a range counts from its first day), then the post id.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.domain.budget import ESSENTIAL_MAX_MINUTES, ESSENTIAL_STEPS_MAX, step_cost
from bot.domain.catalog.models import LEVELS, Post, Step, Track
from bot.domain.graphs import first_cycle

if TYPE_CHECKING:  # pragma: no cover
    from bot.domain.catalog.compiled import Catalog

_LEVEL_RANK = {name: rank for rank, name in enumerate(LEVELS)}


class CycleError(ValueError):
    """The ``after`` references of a track form a cycle; ``cycle`` lists post ids, first == last."""

    def __init__(self, cycle: list[str]):
        self.cycle = cycle
        super().__init__("cycle: " + " -> ".join(cycle))


def compute_order(track: Track, posts: Mapping[str, Post]) -> tuple[str, ...]:
    """The track's post ids in reading order (``posts`` by id give the dates; a missing one sorts
    as undated). Raises :class:`CycleError` for a cycle of ``after`` and ``KeyError`` when an
    ``after`` names no step of the track."""
    steps = {s.post: s for s in track.steps}
    indegree = {pid: 0 for pid in steps}
    followers: dict[str, list[str]] = {pid: [] for pid in steps}
    for step in track.steps:
        for ref in set(step.after):
            if ref not in steps:
                raise KeyError(ref)
            indegree[step.post] += 1
            followers[ref].append(step.post)

    def key(pid: str) -> tuple[int, int, int, str, str]:
        post = posts.get(pid)
        date = post.published.earliest.isoformat() if post else "9999-12-31"
        linked = post is not None and post.url is not None
        return (0 if steps[pid].essential else 1, 0 if linked else 1, _LEVEL_RANK[steps[pid].level], date, pid)

    ready = [key(pid) for pid, deg in indegree.items() if deg == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        *_, pid = heapq.heappop(ready)
        order.append(pid)
        for nxt in followers[pid]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(ready, key(nxt))
    if len(order) != len(steps):
        remaining = [pid for pid in steps if pid not in set(order)]
        cycle = first_cycle({pid: steps[pid].after for pid in remaining}, remaining)
        raise CycleError(cycle[::-1] if cycle else sorted(remaining)[:1])
    return tuple(order)


def soft_claim_warnings(track: Track, order: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(message, post id)`` warnings for soft claims that collide or do not hold in ``order``;
    the message gives a covering resolution's reason, or says it is unresolved."""
    index = {pid: i for i, pid in enumerate(order)}
    resolved = {pid: res.reason.en for res in track.resolutions for pid in res.steps}
    out: list[tuple[str, str]] = []
    claimed: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for step in track.steps:
        for claim in step.claims:
            group = tuple(sorted(set(claim.among) | {step.post})) if claim.among else ()
            claimed.setdefault((claim.position, group), []).append(step.post)
            members = group or order
            positions = [index[p] for p in members if p in index]
            if not positions:
                continue
            target = min(positions) if claim.position == "first" else max(positions)
            if index[step.post] != target:
                scope = "the whole path" if not claim.among else "its group " + ", ".join(group)
                why = "unresolved: add a resolution with the reason"
                if step.post in resolved:
                    why = f"resolved: {resolved[step.post]}"
                says = f"{claim.source} says read it {claim.position} in {scope}"
                out.append((f"{says}, but it is step {index[step.post] + 1} of {len(order)} ({why})", step.post))
    for (position, group), pids in claimed.items():
        if len(pids) > 1:
            scope = "the whole path" if not group else "the same group"
            why = "unresolved: add a resolution naming these steps"
            if any(set(pids) <= set(res.steps) for res in track.resolutions):
                why = "resolved: see the track's resolutions"
            claim_text = f"{len(pids)} steps each claim to be read {position} in {scope}"
            out.append((f"{claim_text}: {', '.join(pids)} ({why})", pids[0]))
    return out


# --- next in path ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """Where a post sits in a track: ``position`` is 1-based, ``of`` the path length."""

    track_id: str
    position: int
    of: int


def next_step(catalog: Catalog, track_id: str, read: Iterable[str]) -> Step | None:
    """The first unread step in path order whose ``after`` steps are all in ``read`` (post ids or
    former ids); ``None`` when the path is done. Raises ``KeyError`` for an unknown track."""
    done = _resolve(catalog, read)
    for step in catalog.path(track_id):
        if step.post not in done and all(ref in done for ref in step.after):
            return step
    return None


def progress(catalog: Catalog, track_id: str, read: Iterable[str]) -> tuple[int, int]:
    """``(read steps, total steps)`` of a track for a reader. Raises ``KeyError`` for an unknown track."""
    done = _resolve(catalog, read)
    order = catalog.order(track_id)
    return sum(1 for pid in order if pid in done), len(order)


def positions(catalog: Catalog, post_id: str) -> list[Position]:
    """A post's place in each of its tracks ("step 3 of 9"), in catalog track order."""
    pid = catalog.resolve_post_id(post_id)
    if pid is None:
        return []
    return [Position(tid, catalog.order(tid).index(pid) + 1, len(catalog.order(tid))) for tid in catalog.tracks_of(pid)]


def read_before(catalog: Catalog, track_id: str, post_id: str) -> tuple[Step, ...]:
    """The steps ``post_id``'s ``after`` names, in path order. Raises ``KeyError`` when not a step."""
    step = catalog.step(track_id, catalog.resolve_post_id(post_id) or post_id)
    refs = set(step.after)
    return tuple(s for s in catalog.path(track_id) if s.post in refs)


def read_after(catalog: Catalog, track_id: str, post_id: str) -> tuple[Step, ...]:
    """The steps naming ``post_id`` in ``after`` and the next step, in path order. ``KeyError``: not a step."""
    pid = catalog.resolve_post_id(post_id) or post_id
    catalog.step(track_id, pid)
    order = catalog.order(track_id)
    i = order.index(pid)
    wanted = {s.post for s in catalog.path(track_id) if pid in s.after} | set(order[i + 1 : i + 2])
    return tuple(s for s in catalog.path(track_id) if s.post in wanted)


def _resolve(catalog: Catalog, read: Iterable[str]) -> set[str]:
    return {r for r in map(catalog.resolve_post_id, read) if r}


def unread_among(catalog: Catalog, read: Iterable[str], post_ids: Iterable[str]) -> list[str]:
    """The posts of ``post_ids`` (current ids) not in ``read``, in order; former ids count as read."""
    done = {catalog.resolve_post_id(p) or p for p in read}
    return [p for p in post_ids if p not in done]


def with_former_ids(catalog: Catalog, post_ids: Iterable[str]) -> list[str]:
    """``post_ids`` each followed by its former ids, without repeats (every id progress may use)."""
    return list(dict.fromkeys(x for p in post_ids for x in (p, *catalog.post(p).aliases)))


# --- essential path, further reading, finishing ---------------------------------------------------


def essentials(catalog: Catalog, track_id: str) -> tuple[str, ...]:
    """The post ids of a track's essential path in reading order: the steps marked ``essential``,
    or for a track marking none the linked steps in order within the essential path's limits
    (:mod:`bot.domain.budget`), at least one. Raises ``KeyError`` for an unknown track."""
    order = catalog.order(track_id)
    if named := set(catalog.track(track_id).essentials):
        return tuple(p for p in order if p in named)
    out: list[str] = []
    used = 0
    for pid in order:
        post = catalog.post(pid)
        if post.url is None:
            continue
        cost = step_cost(post.minutes)
        if out and (len(out) >= ESSENTIAL_STEPS_MAX or used + cost > ESSENTIAL_MAX_MINUTES):
            break
        out.append(pid)
        used += cost
    return tuple(out or order[:1])


def further(catalog: Catalog, track_id: str) -> tuple[str, ...]:
    """The track's steps not in :func:`essentials`, in path order. Raises ``KeyError`` for an unknown track."""
    ess = set(essentials(catalog, track_id))
    return tuple(p for p in catalog.order(track_id) if p not in ess)


def reading_order(catalog: Catalog, track_id: str) -> tuple[str, ...]:
    """Essentials then further reading: the order plans and pictures walk."""
    return essentials(catalog, track_id) + further(catalog, track_id)


def total_minutes(catalog: Catalog, post_ids: Iterable[str]) -> tuple[int, bool]:
    """``(minutes, complete)``: the known minutes summed, and whether all were known and counted."""
    posts = [catalog.post(pid) for pid in post_ids]
    return sum(p.minutes or 0 for p in posts), all(
        p.minutes is not None and p.minutes_source == "counted" for p in posts
    )


def essentials_done(catalog: Catalog, track_id: str, read: Iterable[str]) -> bool:
    """Whether every essential step of the track is read (former ids count)."""
    done = _resolve(catalog, read)
    return all(p in done for p in essentials(catalog, track_id))


def next_track(catalog: Catalog, track_id: str, finished: Iterable[str] = ()) -> str | None:
    """The track to offer after ``track_id``: one naming it in ``before``, else one of its own
    ``before``, else the next in catalog order; never ``track_id`` nor a ``finished`` one."""
    skip = set(finished) | {track_id}
    ids = [t.id for t in catalog.tracks]
    followers = [t.id for t in catalog.tracks if track_id in t.before and t.id not in skip]
    if followers:
        return followers[0]
    own = [b for b in catalog.track(track_id).before if catalog.has_track(b) and b not in skip]
    at = ids.index(track_id)
    return next((tid for tid in own + ids[at + 1 :] + ids[:at] if tid not in skip), None)
