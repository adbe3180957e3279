"""Reading order and next-in-path: pure functions over the catalog models.

A track's path is a partial order: each :class:`~bot.catalog.models.Step` may name the steps it
comes ``after``. The linear order shown to people is a deterministic topological order (Kahn's
algorithm) where, among the steps that are ready, an essential step comes before further reading,
then the lowest level comes first (intro < core < advanced < capstone), then the earliest
publication date (a date range counts from its first day), then the post id.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.catalog.models import LEVELS, Post, Step, Track

if TYPE_CHECKING:  # pragma: no cover
    from bot.catalog.compiled import Catalog

_LEVEL_RANK = {name: rank for rank, name in enumerate(LEVELS)}


class CycleError(ValueError):
    """The ``after`` references of a track form a cycle; ``cycle`` lists post ids, first == last."""

    def __init__(self, cycle: list[str]):
        self.cycle = cycle
        super().__init__("cycle: " + " -> ".join(cycle))


def _find_cycle(graph: Mapping[str, tuple[str, ...]], nodes: Iterable[str]) -> list[str]:
    """A cycle among ``nodes`` following ``after`` edges (node -> the steps it comes after)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                return list(reversed(cycle))
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(nodes):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return sorted(nodes)[:1]


def compute_order(track: Track, posts: Mapping[str, Post]) -> tuple[str, ...]:
    """The track's post ids in reading order.

    ``posts`` maps post id to :class:`Post` (for dates); a step whose post is missing sorts as if
    undated. Raises :class:`CycleError` when the ``after`` references form a cycle and
    ``KeyError`` when an ``after`` names a post that is not a step of the track.
    """
    steps = {s.post: s for s in track.steps}
    indegree = {pid: 0 for pid in steps}
    followers: dict[str, list[str]] = {pid: [] for pid in steps}
    for step in track.steps:
        for ref in set(step.after):
            if ref not in steps:
                raise KeyError(ref)
            indegree[step.post] += 1
            followers[ref].append(step.post)

    def key(pid: str) -> tuple[int, int, str, str]:
        post = posts.get(pid)
        date = post.published.earliest.isoformat() if post else "9999-12-31"
        return (0 if steps[pid].essential else 1, _LEVEL_RANK[steps[pid].level], date, pid)

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
        graph = {pid: steps[pid].after for pid in remaining}
        raise CycleError(_find_cycle(graph, remaining))
    return tuple(order)


def soft_claim_warnings(track: Track, order: tuple[str, ...]) -> list[tuple[str, str]]:
    """Warnings for soft claims ("read first/last") that collide or do not hold in ``order``.

    Returns ``(message, post id)`` pairs. A claim covered by one of the track's ``resolutions``
    carries the written reason in its message; an uncovered one says it is unresolved.
    """
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
                why = (f"resolved: {resolved[step.post]}" if step.post in resolved
                       else "unresolved: add a resolution with the reason")
                out.append((f"{claim.source} says read it {claim.position} in {scope}, "
                            f"but it is step {index[step.post] + 1} of {len(order)} ({why})", step.post))
    for (position, group), pids in claimed.items():
        if len(pids) > 1:
            scope = "the whole path" if not group else "the same group"
            covered = any(set(pids) <= set(res.steps) for res in track.resolutions)
            why = "resolved: see the track's resolutions" if covered else \
                "unresolved: add a resolution naming these steps"
            out.append((f"{len(pids)} steps each claim to be read {position} in {scope}: "
                        f"{', '.join(pids)} ({why})", pids[0]))
    return out


# --- next in path ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """Where a post sits in a track: ``position`` is 1-based, ``of`` the path length."""

    track_id: str
    position: int
    of: int


def next_step(catalog: Catalog, track_id: str, read: Iterable[str]) -> Step | None:
    """The next step of a track for a reader who has read ``read`` (post ids or former ids).

    The first step in path order that is unread and whose prerequisites (``after``) are all read;
    ``None`` when the path is done. Raises ``KeyError`` for an unknown track.
    """
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
    out = []
    for tid in catalog.tracks_of(pid):
        order = catalog.order(tid)
        out.append(Position(tid, order.index(pid) + 1, len(order)))
    return out


def read_before(catalog: Catalog, track_id: str, post_id: str) -> tuple[Step, ...]:
    """The steps of ``track_id`` to read before ``post_id`` (its ``after`` list, in path order).

    External prerequisites are on the step itself (``catalog.step(...).external_prerequisites``).
    Raises ``KeyError`` when the post is not a step of the track.
    """
    step = catalog.step(track_id, catalog.resolve_post_id(post_id) or post_id)
    refs = set(step.after)
    return tuple(s for s in catalog.path(track_id) if s.post in refs)


def read_after(catalog: Catalog, track_id: str, post_id: str) -> tuple[Step, ...]:
    """What comes after ``post_id`` in ``track_id``: the steps that name it in ``after`` and the
    next step in path order (deduplicated, in path order). Raises ``KeyError`` when not a step."""
    pid = catalog.resolve_post_id(post_id) or post_id
    catalog.step(track_id, pid)
    order = catalog.order(track_id)
    i = order.index(pid)
    wanted = {s.post for s in catalog.path(track_id) if pid in s.after}
    if i + 1 < len(order):
        wanted.add(order[i + 1])
    return tuple(s for s in catalog.path(track_id) if s.post in wanted)


def _resolve(catalog: Catalog, read: Iterable[str]) -> set[str]:
    out = set()
    for pid in read:
        resolved = catalog.resolve_post_id(pid)
        if resolved:
            out.add(resolved)
    return out


def unread_among(catalog: Catalog, read: Iterable[str], post_ids: Iterable[str]) -> list[str]:
    """The posts of ``post_ids`` (current ids) not yet read, in the given order. Progress kept
    under a post's former id (an alias, from before a rename or merge) counts as read."""
    done = {catalog.resolve_post_id(p) or p for p in read}
    return [p for p in post_ids if p not in done]


def with_former_ids(catalog: Catalog, post_ids: Iterable[str]) -> list[str]:
    """``post_ids`` each followed by its former ids (aliases), without repeats: every id under
    which progress on these posts may be stored."""
    return list(dict.fromkeys(x for p in post_ids for x in (p, *catalog.post(p).aliases)))
