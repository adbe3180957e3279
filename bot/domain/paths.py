"""Reading order and next-in-path: pure functions over the catalog models.

A track's path is a partial order (each step may come ``after`` others). The order shown is a
deterministic topological order (Kahn's algorithm) where, among the ready steps, essential comes
before further reading, then a known link before none, then the lower level, then the earlier
publication date (a range counts from its first day), then the post id.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from bot.domain.budget import ESSENTIAL_MAX_MINUTES, ESSENTIAL_STEPS_MAX, step_cost
from bot.domain.catalog.attached import PerCatalog
from bot.domain.catalog.models import LEVELS, ExternalPrerequisite, Post, Step, Track
from bot.domain.graphs import first_cycle, ordered

if TYPE_CHECKING:  # pragma: no cover
    from bot.domain.catalog.compiled import Catalog

_LEVEL_RANK = {name: rank for rank, name in enumerate(LEVELS)}
_S = TypeVar("_S")


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
    for step in track.steps:
        for ref in step.after:
            if ref not in steps:
                raise KeyError(ref)

    def key(pid: str) -> tuple[int, int, int, int, str, str]:
        post = posts.get(pid)
        date = post.published.earliest.isoformat() if post else "9999-12-31"
        linked = post is not None and post.url is not None
        step = steps[pid]
        return (0 if step.essential else 1, int(step.closes), 0 if linked else 1, _LEVEL_RANK[step.level], date, pid)

    order = ordered(steps, {pid: s.after for pid, s in steps.items()}, key)
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
    """The reader's next step (post ids or former ids in ``read``): the first unread step with a
    link in path order whose ``after`` steps are all read (steps without a link yet are passed over:
    no one can read them; a step that must come after one waits for it); else the first unread
    one whose ``after`` steps are read; ``None`` when the path is done. Raises ``KeyError`` for an
    unknown track."""
    done = _resolve(catalog, read)
    steps = catalog.path(track_id)
    unlinked = {s.post for s in steps if catalog.post(s.post).url is None}
    return _next_of(steps, done, unlinked, lambda s: s.post, lambda s: s.after)


def _next_of(
    steps: Iterable[_S],
    done: set[str] | frozenset[str],
    unlinked: set[str] | frozenset[str],
    post: Callable[[_S], str],
    after: Callable[[_S], Iterable[str]],
) -> _S | None:
    """:func:`next_step`'s rule over ``steps`` (``post`` and ``after`` read a step's id and its ``after``)."""
    steps = list(steps)
    for s in steps:  # a linked step, passing over steps without a link it does not come after
        if post(s) not in done and post(s) not in unlinked and all(r in done for r in after(s)):
            return s
    return next((s for s in steps if post(s) not in done and all(r in done for r in after(s))), None)


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


_essentials_kept: PerCatalog[tuple[str, ...]] = PerCatalog()


def essentials(catalog: Catalog, track_id: str) -> tuple[str, ...]:
    """The post ids of a track's essential path in reading order: the steps marked ``essential``,
    or for a track marking none the linked steps in order within the essential path's limits
    (:mod:`bot.domain.budget`), at least one. Raises ``KeyError`` for an unknown track. Computed once
    a catalog and kept with it (App Home asks it of every track: 11% of an open's CPU,
    ``benchmarks/home_open.py``)."""
    return _essentials_kept.get(catalog, track_id, lambda: _essentials(catalog, track_id))


def _essentials(catalog: Catalog, track_id: str) -> tuple[str, ...]:
    """:func:`essentials`, computed."""
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


# --- one description of a path, for every view -----------------------------------------------------


@dataclass(frozen=True)
class PathStep:
    """One step of a track's path as every door shows it (the same for every reader).

    ``number`` is its 1-based place in reading order; ``essential`` whether it is on the essential
    path (:func:`essentials`), else further reading; ``read_first`` the post ids its ``after``
    names and ``then`` those naming it in ``after`` plus the step after it (:func:`read_before`,
    :func:`read_after`), in path order; ``background`` and ``afterwards`` its references outside
    the catalog (``kind`` prerequisite and follow-up). Minutes are the post's (``None``: unknown)."""

    post: Post
    step: Step
    number: int
    essential: bool
    read_first: tuple[str, ...]
    then: tuple[str, ...]
    background: tuple[ExternalPrerequisite, ...]
    afterwards: tuple[ExternalPrerequisite, ...]

    @property
    def post_id(self) -> str:
        """The step's current post id."""
        return self.step.post

    @property
    def level(self) -> str:
        """The stated level (one of :data:`bot.domain.catalog.models.LEVELS`)."""
        return self.step.level


@dataclass(frozen=True)
class TrackPath:
    """A track's path, built once per catalog (:func:`track_path`): ``steps`` in reading order,
    ``essentials`` and ``further`` of them in path order, the essential path's minutes (and whether
    all were counted), and ``before``, the ids of tracks to read first that the catalog has."""

    track: Track
    steps: tuple[PathStep, ...]
    essentials: tuple[PathStep, ...]
    further: tuple[PathStep, ...]
    essential_minutes: int
    minutes_counted: bool
    before: tuple[str, ...]
    unlinked: frozenset[str] = frozenset()
    """The post ids of its steps without a link yet (no one can read them)."""

    def step(self, post_id: str) -> PathStep:
        """The step of the current post id ``post_id``; ``KeyError`` when it is not on this path."""
        for s in self.steps:
            if s.post_id == post_id:
                return s
        raise KeyError(post_id)


@dataclass(frozen=True)
class TrackState:
    """A reader's place in a track (:func:`track_state`): the :class:`TrackPath`, the current ids
    of the posts they have read (any track), the ``next`` step (``None``: the path is done), and
    ``first`` the tracks of ``before`` whose essential path they have not finished, as paths."""

    path: TrackPath
    read: frozenset[str]
    next: PathStep | None
    first: tuple[TrackPath, ...] = ()

    @property
    def track_id(self) -> str:
        """The track's id."""
        return self.path.track.id

    @property
    def read_count(self) -> int:
        """Steps of this path read."""
        return sum(1 for s in self.path.steps if s.post_id in self.read)

    @property
    def total(self) -> int:
        """Steps of this path."""
        return len(self.path.steps)

    @property
    def essentials_done(self) -> bool:
        """Whether every essential step is read."""
        return all(s.post_id in self.read for s in self.path.essentials)

    @property
    def passed_over(self) -> tuple[PathStep, ...]:
        """Unread steps without a link before :attr:`next` in path order: passed over for now."""
        if self.next is None or self.next.post.url is None:
            return ()
        return tuple(
            s for s in self.path.steps[: self.next.number - 1] if s.post_id not in self.read and s.post.url is None
        )

    @property
    def held_back(self) -> tuple[PathStep, ...]:
        """Unread steps with a link before :attr:`next` in path order: each comes ``after`` a step
        not read yet (one without a link, or one waiting for such), so it waits; the catalog's
        reading order is a hard rule (``catalog/README.md``), so :attr:`next` passes them too."""
        if self.next is None:
            return ()
        return tuple(
            s
            for s in self.path.steps[: self.next.number - 1]
            if s.post_id not in self.read and s.post.url is not None and self.unread_first(s)
        )

    @property
    def essentials_read(self) -> int:
        """Essential steps read."""
        return sum(1 for s in self.path.essentials if s.post_id in self.read)

    @property
    def minutes_left(self) -> int:
        """Minutes of reading left: of the unread essential steps, or once those are read of the
        unread further reading; steps of unknown length count nothing (the catalog's minutes)."""
        return sum(s.post.minutes or 0 for s in self._left())

    @property
    def unknown_left(self) -> int:
        """Steps among those :attr:`minutes_left` counts whose length is unknown (no link yet)."""
        return sum(1 for s in self._left() if s.post.minutes is None)

    def _left(self) -> list[PathStep]:
        left = [s for s in self.path.essentials if s.post_id not in self.read]
        return left or [s for s in self.path.further if s.post_id not in self.read]

    @property
    def further_left(self) -> int:
        """Steps of further reading not read yet."""
        return sum(1 for s in self.path.further if s.post_id not in self.read)

    def is_read(self, step: PathStep) -> bool:
        """Whether the reader has read ``step``'s post (under its current or a former id)."""
        return step.post_id in self.read

    def unread_first(self, step: PathStep) -> tuple[str, ...]:
        """The post ids of ``step.read_first`` the reader has not read yet."""
        return tuple(p for p in step.read_first if p not in self.read)


_paths: PerCatalog[TrackPath] = PerCatalog()


def track_path(catalog: Catalog, track_id: str) -> TrackPath:
    """The :class:`TrackPath` of ``track_id``, built on first use and kept with the catalog (a speed
    layer needed by ``benchmarks/command_latency.py``: built per command, the CPU per request was
    3.6x the no-op's; target <= 1.3x). Raises ``KeyError`` for an unknown track."""
    track = catalog.track(track_id)
    return _paths.get(catalog, track_id, lambda: _build_path(catalog, track))


def _build_path(catalog: Catalog, track: Track) -> TrackPath:
    ess = set(essentials(catalog, track.id))
    steps = tuple(
        PathStep(
            post=catalog.post(step.post),
            step=step,
            number=i + 1,
            essential=step.post in ess,
            read_first=tuple(s.post for s in read_before(catalog, track.id, step.post)),
            then=tuple(s.post for s in read_after(catalog, track.id, step.post)),
            background=tuple(x for x in step.external_prerequisites if x.kind == "prerequisite"),
            afterwards=tuple(x for x in step.external_prerequisites if x.kind == "follow-up"),
        )
        for i, step in enumerate(catalog.path(track.id))
    )
    minutes, counted = total_minutes(catalog, [s.post_id for s in steps if s.essential])
    return TrackPath(
        track=track,
        steps=steps,
        essentials=tuple(s for s in steps if s.essential),
        further=tuple(s for s in steps if not s.essential),
        essential_minutes=minutes,
        minutes_counted=counted,
        before=tuple(b for b in track.before if catalog.has_track(b)),
        unlinked=frozenset(s.post_id for s in steps if s.post.url is None),
    )


def track_state(catalog: Catalog, track_id: str, read: Iterable[str] = ()) -> TrackState:
    """A reader's :class:`TrackState` in ``track_id`` (``read``: post ids, former ids count; unknown
    ones are ignored). Raises ``KeyError`` for an unknown track."""
    path = track_path(catalog, track_id)
    done = frozenset(_resolve(catalog, read))
    nxt = _next_of(path.steps, done, path.unlinked, lambda s: s.post_id, lambda s: s.step.after)
    first = tuple(
        p for p in (track_path(catalog, b) for b in path.before) if not all(s.post_id in done for s in p.essentials)
    )
    return TrackState(path, done, nxt, first)


def started_tracks(catalog: Catalog, read: Collection[str]) -> tuple[str, ...]:
    """The tracks ``next`` and ``recommend`` call started for a reader following none (QA round 8),
    in catalog order: those with an essential step read (``read``: post ids, former ids count). A
    post read only as further reading starts no track (one such post, ``deepseek-v3-2-gb300``, sits
    in three tracks), unless no track is started so: then the one track holding most of the posts
    read (ties: catalog order); ``()`` when no post read is on a path."""
    done = _resolve(catalog, read)
    started = tuple(tr.id for tr in catalog.tracks if not done.isdisjoint(essentials(catalog, tr.id)))
    if started or not done:
        return started
    held = {tr.id: sum(1 for p in catalog.order(tr.id) if p in done) for tr in catalog.tracks}
    best = max(held, key=held.__getitem__)  # the first of the most: catalog order breaks ties
    return (best,) if held[best] else ()


def started_track_states(catalog: Catalog, read: Collection[str], following: Collection[str]) -> list[TrackState]:
    """The tracks a reader of ``read`` (post ids, former ids count) has started
    (:func:`started_tracks`: an essential step read) without following them (``following``: track
    ids), in catalog order, as :class:`TrackState` (App Home; one rule with ``next``, the plan and
    the catch-up since session 11: a further-reading post read starts no track)."""
    touched = set(started_tracks(catalog, read)) if read else set()
    touched.difference_update(following)
    if not touched:
        return []
    return [track_state(catalog, tr.id, read) for tr in catalog.tracks if tr.id in touched]
