"""The digest decision, pure: which steps of a track a channel gets this week and what is new.

A subscription's ``cursor`` counts the steps of the path (in the order of catalog version
``last_catalog_version``) the channel has been through; each digest brings the next steps and
announces what a newer catalog version added. The views render a :class:`ChannelPlan`; the
deliverer stores its ``cursor`` and ``version`` once sent.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from bot.domain import paths
from bot.domain.budget import fit, step_cost
from bot.domain.catalog import Catalog

MIN_STEPS_PER_WEEK = 1
MAX_STEPS_PER_WEEK = 3
NewKind = Literal["behind", "moved"]
"""Why a post is announced: added before the channel's place (``behind``), or moved up before it
by a re-ordering (``moved``). A post added after it simply comes in order."""


class SubscriptionLike(Protocol):
    """What planning needs of a channel subscription (read-only, so frozen dataclasses match)."""

    @property
    def id(self) -> int: ...
    @property
    def track_id(self) -> str: ...
    @property
    def cursor(self) -> int: ...
    @property
    def steps_per_week(self) -> int: ...
    @property
    def last_catalog_version(self) -> str | None: ...


def channel_minutes(sub: SubscriptionLike) -> int | None:
    """The channel's own weekly budget in minutes, ``None`` when it has none (then ``steps_per_week``)."""
    minutes: int | None = getattr(sub, "minutes_per_week", None)
    return minutes or None


@dataclass(frozen=True)
class ChannelPlan:
    """This week's digest of one subscription. ``steps`` (post ids), ``new`` (``(post id, kind)``)
    and ``added`` (posts a newer catalog version added) are in path order; ``cursor`` after this
    digest, of ``total``; ``closing`` completes the path; ``first`` is the channel's first digest.
    """

    track_id: str
    steps: tuple[str, ...]
    new: tuple[tuple[str, NewKind], ...]
    added: tuple[str, ...]
    cursor: int
    total: int
    closing: bool
    first: bool
    version: str
    path: paths.TrackPath
    """The track's path (:func:`bot.domain.paths.track_path`), for the steps' places and references."""
    essentials_finished: bool = False
    """This digest passes the last essential step (only one does: the cursor only moves forward)."""
    minutes_per_week: int | None = None
    """The budget this week was planned by (:func:`channel_minutes`)."""

    @property
    def done(self) -> bool:
        """The path is complete after this digest (or was already)."""
        return self.cursor >= self.total

    @property
    def empty(self) -> bool:
        """Nothing to post this week: no step left and nothing new."""
        return not self.steps and not self.new


def walk(
    catalog: Catalog,
    track_id: str,
    cursor: int,
    steps_per_week: int,
    old_order: Sequence[str] | None,
    minutes_per_week: int | None = None,
) -> tuple[tuple[str, ...], tuple[tuple[str, NewKind], ...], frozenset[str], int, int]:
    """``(steps, new, added, new cursor, total)`` for a channel at ``cursor`` of ``old_order`` (the
    path in the cursor's catalog version; ``None``: the current one). This week's steps follow the
    last seen post in the current order (``steps_per_week``, or what fits ``minutes_per_week``);
    unseen posts before it are announced (once: the new cursor counts them as seen).
    """
    order = catalog.order(track_id)
    k = max(MIN_STEPS_PER_WEEK, min(MAX_STEPS_PER_WEEK, steps_per_week))
    resolved = order if old_order is None else [catalog.resolve_post_id(p) or p for p in old_order]
    seen, added = set(resolved[:cursor]), set(order) - set(resolved)
    pos = {p: i for i, p in enumerate(order)}
    frontier = max((pos[p] for p in seen if p in pos), default=-1) + 1
    if minutes_per_week:
        k = fit([catalog.post(p).minutes for p in order[frontier:]], minutes_per_week)
    steps = tuple(order[frontier : frontier + k])
    new: tuple[tuple[str, NewKind], ...] = tuple(
        (p, "behind" if p in added else "moved") for p in order[:frontier] if p not in seen
    )
    return steps, new, frozenset(added), frontier + len(steps), len(order)


def plan_channel_digest(
    catalog: Catalog, sub: SubscriptionLike, snapshot: Mapping[str, Sequence[str]] | None = None
) -> ChannelPlan:
    """This week's :class:`ChannelPlan` for ``sub``; ``snapshot`` is the store's
    ``catalog_snapshot(sub.last_catalog_version)`` (``{track id: [post ids]}``) or ``None``.
    Raises ``KeyError`` when the catalog has no track ``sub.track_id``.
    """
    track_id = sub.track_id
    catalog.track(track_id)  # KeyError for a track the catalog no longer has
    old_order = None
    if snapshot is not None and sub.last_catalog_version not in (None, catalog.version) and track_id in snapshot:
        old_order = list(snapshot[track_id])
    budget = channel_minutes(sub)
    steps, new, added, cursor, total = walk(
        catalog, track_id, max(0, sub.cursor), sub.steps_per_week, old_order, budget
    )
    ess = set(paths.essentials(catalog, track_id))
    order = catalog.order(track_id)
    walked = [catalog.resolve_post_id(p) or p for p in (old_order or order)][: max(0, sub.cursor)]
    had_all = ess <= set(walked)
    if getattr(sub, "after_essentials", "further") == "stop":
        if had_all:  # nothing more to send
            steps, new, added, cursor = (), (), frozenset(), max(0, sub.cursor)
        else:  # the week that finishes the essential path ends with its last essential step
            kept = _through_essentials(steps, ess - set(walked))
            steps, cursor = steps[:kept], cursor - (len(steps) - kept)
    return ChannelPlan(
        track_id=track_id,
        steps=steps,
        new=new,
        added=tuple(p for p in order if p in added),
        cursor=cursor,
        total=total,
        closing=cursor >= total and bool(steps),
        first=sub.cursor == 0 and sub.last_catalog_version is None,
        version=catalog.version,
        essentials_finished=not had_all and ess <= set(order[:cursor]),
        minutes_per_week=budget,
        path=paths.track_path(catalog, track_id),
    )


def _through_essentials(steps: Sequence[str], missing: set[str]) -> int:
    """How many of ``steps`` to send so that none comes after the last of the ``missing``
    essential steps (all of ``steps`` when some essential step is still missing after them)."""
    missing = set(missing)
    for i, post in enumerate(steps):
        missing.discard(post)
        if not missing:
            return i + 1
    return len(steps)


@dataclass(frozen=True)
class BudgetPreview:
    """A :class:`SubscriptionLike` for previews, with a budget (minutes) and ``after_essentials``."""

    id: int
    track_id: str
    cursor: int
    steps_per_week: int
    last_catalog_version: str | None
    minutes_per_week: int | None = None
    after_essentials: str = "further"


def plan_reader_week(
    catalog: Catalog,
    follows: Sequence[str],
    read: Iterable[str],
    minutes_per_week: int,
    limit: int | None = None,
) -> tuple[tuple[str, str], ...]:
    """This week's ``(track id, post id)`` steps for a reader's DM: the followed tracks' unread
    linked steps in reading order (an unlinked one when a track has no other), while they fit
    ``minutes_per_week`` (:func:`bot.domain.budget.fit`, at least one); each post once, at most
    ``limit``. ``read``: post ids or former ids; unknown tracks and ids are ignored."""
    return tuple(reader_week(catalog)(follows, read, minutes_per_week, limit))


def new_behind(
    catalog: Catalog, follows: Sequence[str], read: Iterable[str], snapshot: Mapping[str, Sequence[str]] | None
) -> tuple[tuple[str, str, int], ...]:
    """``(track id, post id, step number from 1)`` for a reader's DM: the unread posts of the
    followed tracks that ``catalog`` added since ``snapshot`` (the store's ``catalog_snapshot`` of the
    version their last DM was built on; ``None``: nothing is new) and that come before a post they
    have read, so their walk has passed them. Path order per track, each post once."""
    if not snapshot:
        return ()
    former = {a: p.id for p in catalog.posts for a in p.aliases}
    read = {former.get(p, p) for p in read}
    out: dict[str, tuple[str, str, int]] = {}
    for tid in dict.fromkeys(follows):
        if not catalog.has_track(tid) or tid not in snapshot:
            continue
        order, old = catalog.order(tid), {former.get(p, p) for p in snapshot[tid]}
        last_read = max((i for i, p in enumerate(order) if p in read), default=-1)
        for i, p in enumerate(order[:last_read]):
            if p not in old and p not in read:
                out.setdefault(p, (tid, p, i + 1))
    return tuple(out.values())


def reader_week(catalog: Catalog) -> ReaderWeek:
    """The :class:`ReaderWeek` of ``catalog`` (a fan-out keeps one: ``plan_dm.BudgetDmComposer``)."""
    return ReaderWeek(catalog)


class ReaderWeek:
    """:func:`plan_reader_week` for one catalog, fast enough for a fan-out to 100,000 readers: each
    track is walked over rows ``(post id, cost in minutes, linked, its after steps)`` in
    :func:`paths.reading_order` against the reader's set of read ids; a step waits for its ``after``
    steps (as :func:`paths.next_step`), so an unlinked one it comes after holds it back. Thread-safe
    (read-only after construction)."""

    def __init__(self, catalog: Catalog):
        self._former = {a: p.id for p in catalog.posts for a in p.aliases}
        after = {(tr.id, s.post): s.after for tr in catalog.tracks for s in catalog.path(tr.id)}
        self._rows: dict[str, tuple[tuple[str, int, bool, tuple[str, ...]], ...]] = {
            tr.id: tuple(
                (
                    pid,
                    step_cost(catalog.post(pid).minutes),
                    catalog.post(pid).url is not None,
                    after.get((tr.id, pid), ()),
                )
                for pid in paths.reading_order(catalog, tr.id)
            )
            for tr in catalog.tracks
        }

    def __call__(
        self, follows: Sequence[str], read: Iterable[str], minutes_per_week: int, limit: int | None = None
    ) -> list[tuple[str, str]]:
        if not isinstance(read, (set, frozenset)) or (self._former and not self._former.keys().isdisjoint(read)):
            read = {self._former.get(p, p) for p in read}
        most = limit or sys.maxsize
        chosen: list[tuple[str, str]] = []
        taken: set[str] = set()
        used = 0
        # One loop, written out: a generator of unread steps cost the DM fan-out benchmark 5-8 %.
        for tid in follows:
            spare: tuple[str, int] | None = None
            linked_left = False
            for pid, cost, linked, first in self._rows.get(tid, ()):
                if pid in read or pid in taken:
                    continue
                if first and not all(f in read or f in taken for f in first):
                    continue  # a step to read after another waits for it
                if not linked:
                    spare = spare or (pid, cost)
                    continue
                linked_left = True
                if chosen and used + cost > minutes_per_week:
                    return chosen
                chosen.append((tid, pid))
                taken.add(pid)
                used += cost
                if used >= minutes_per_week or len(chosen) >= most:
                    return chosen
            if not linked_left and spare is not None:  # only unlinked steps left: the first one
                if chosen and used + spare[1] > minutes_per_week:
                    return chosen
                chosen.append((tid, spare[0]))
                taken.add(spare[0])
                used += spare[1]
                if used >= minutes_per_week or len(chosen) >= most:
                    return chosen
        return chosen
