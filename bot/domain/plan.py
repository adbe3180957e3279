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
    waiting: int = 0
    """Steps without a link the channel has not been sent, ``len(unlinked_left)`` (they come once linked)."""
    unlinked_left: tuple[str, ...] = ()
    """Those steps' post ids in path order: passed over for want of a link, and, once no linked step
    is left after ``cursor``, the unlinked steps after it (the rest of the path waits for a link)."""
    passed_over: int = 0
    """Of ``unlinked_left``, the steps before ``cursor``: counted by the cursor, never sent."""

    @property
    def sent(self) -> int:
        """Steps of the path the channel has been sent after this digest: those before ``cursor``
        but the ones :attr:`passed_over` for want of a link (QA round 15: "17 of 17 steps so far"
        beside "1 step waits for a link")."""
        return min(self.cursor, self.total) - self.passed_over

    @property
    def done(self) -> bool:
        """The path is complete after this digest (or was already)."""
        return self.cursor >= self.total

    @property
    def empty(self) -> bool:
        """Nothing to post this week: no step left and nothing new."""
        return not self.steps and not self.new


UNLINKED_KEY = "~unlinked"
"""The key of a version snapshot (:func:`version_snapshot`) listing the posts with no link yet in
that version: the steps a cursor passed over without sending them."""


def version_snapshot(catalog: Catalog) -> dict[str, list[str]]:
    """What to record of ``catalog``'s version for later digests: each track's path (track id ->
    post ids, the order cursors count in) and, under :data:`UNLINKED_KEY`, its posts without a link."""
    snapshot = {t.id: list(catalog.order(t.id)) for t in catalog.tracks}
    snapshot[UNLINKED_KEY] = sorted(p.id for p in catalog.posts if p.url is None)
    return snapshot


@dataclass(frozen=True)
class Walk:
    """:func:`walk_path`'s week: ``steps`` to send (first the steps passed over before that have a
    link now, ``relinked``, then the next linked ones), ``new`` and ``added`` as in
    :class:`ChannelPlan`, the new ``cursor`` of ``total``; ``waiting``: steps passed over that still
    have no link; ``sent_before``: the steps the channel had been sent; ``ends``: the cursor after
    each of ``steps`` (for a week cut short)."""

    steps: tuple[str, ...]
    new: tuple[tuple[str, NewKind], ...]
    added: frozenset[str]
    cursor: int
    total: int
    waiting: tuple[str, ...]
    relinked: tuple[str, ...]
    sent_before: frozenset[str]
    ends: tuple[int, ...]


def walk_path(
    catalog: Catalog,
    track_id: str,
    cursor: int,
    steps_per_week: int,
    old_order: Sequence[str] | None,
    minutes_per_week: int | None = None,
    old_unlinked: Iterable[str] | None = None,
) -> Walk:
    """A channel's week at ``cursor`` of ``old_order`` (the path in the cursor's catalog version;
    ``None``: the current one). The steps the cursor counts are those the channel has been through:
    sent, or passed over for want of a link (``old_unlinked``: the cursor version's posts with no
    link, :data:`UNLINKED_KEY` of its snapshot; ``None`` with ``old_order``: a version recorded
    before, whose steps were all sent). This week: the passed-over steps that have a link now,
    then the next linked steps after the last seen post in the current order (``steps_per_week``,
    or what fits ``minutes_per_week``), passing over a step without a link when a linked step
    follows (as :func:`bot.domain.paths.next_step`), also when that step is to be read after the
    unlinked one (it cannot be sent, so it is not waited for); unseen linked posts before it are
    announced (once: the new cursor counts them as seen). A step without a link is never spent: it
    waits, counted in the new cursor as passed over, and comes once a version links it.
    """
    order = catalog.order(track_id)
    unlinked_now = {p for p in order if catalog.post(p).url is None}
    resolved = order if old_order is None else [catalog.resolve_post_id(p) or p for p in old_order]
    old_ids = {catalog.resolve_post_id(p) or p for p in (old_unlinked or ())}
    unlinked_then = unlinked_now if old_order is None else old_ids
    prefix = resolved[:cursor]
    seen, added = set(prefix), set(order) - set(resolved)
    passed = {p for p in prefix if p in unlinked_then}
    pos = {p: i for i, p in enumerate(order)}
    frontier = max((pos[p] for p in seen if p in pos), default=-1) + 1
    before = order[:frontier]
    relinked = tuple(p for p in before if p in passed and p not in unlinked_now)
    waiting = [p for p in before if p in unlinked_now and (p in passed or p not in seen)]
    new: tuple[tuple[str, NewKind], ...] = tuple(
        (p, "behind" if p in added else "moved") for p in before if p not in seen and p not in unlinked_now
    )
    # QA round 13: a step to read after one without a link does not wait for it (nor do the steps
    # after it): the unlinked one cannot be sent, is passed over and comes once linked. Waiting
    # stalled a channel for good (agentic after 5 of 13 steps, spec after 13 of 17).
    ahead = [(i, p) for i, p in enumerate(order[frontier:], frontier) if p not in unlinked_now]
    k = max(MIN_STEPS_PER_WEEK, min(MAX_STEPS_PER_WEEK, steps_per_week))
    if minutes_per_week:
        lengths = [catalog.post(p).minutes for p in (*relinked, *(p for _, p in ahead))]
        k = fit(lengths, minutes_per_week)
    forward = ahead[: max(0, k - len(relinked))]
    new_cursor = forward[-1][0] + 1 if forward else frontier
    waiting += [p for p in order[frontier:new_cursor] if p in unlinked_now]
    return Walk(
        steps=relinked + tuple(p for _, p in forward),
        new=new,
        added=frozenset(added),
        cursor=new_cursor,
        total=len(order),
        waiting=tuple(waiting),
        relinked=relinked,
        sent_before=frozenset(seen - passed),
        ends=(frontier,) * len(relinked) + tuple(i + 1 for i, _ in forward),
    )


def plan_channel_digest(
    catalog: Catalog, sub: SubscriptionLike, snapshot: Mapping[str, Sequence[str]] | None = None
) -> ChannelPlan:
    """This week's :class:`ChannelPlan` for ``sub``; ``snapshot`` is the store's
    ``catalog_snapshot(sub.last_catalog_version)`` (``{track id: [post ids]}``, with
    :data:`UNLINKED_KEY` when recorded by :func:`version_snapshot`) or ``None``.
    Raises ``KeyError`` when the catalog has no track ``sub.track_id``.
    """
    track_id = sub.track_id
    catalog.track(track_id)  # KeyError for a track the catalog no longer has
    old_order, old_unlinked = None, None
    if snapshot is not None and sub.last_catalog_version not in (None, catalog.version) and track_id in snapshot:
        old_order = list(snapshot[track_id])
        old_unlinked = snapshot.get(UNLINKED_KEY)
    budget = channel_minutes(sub)
    w = walk_path(catalog, track_id, max(0, sub.cursor), sub.steps_per_week, old_order, budget, old_unlinked)
    steps, new, added, cursor = w.steps, w.new, w.added, w.cursor
    ess = set(paths.essentials(catalog, track_id))
    order = catalog.order(track_id)
    unlinked_now = {p for p in order if catalog.post(p).url is None}
    had_all = ess <= w.sent_before
    stops = getattr(sub, "after_essentials", "further") == "stop"
    if stops:
        if ess - unlinked_now <= w.sent_before:  # nothing more to send but essential steps linked since
            steps = tuple(p for p in w.relinked if p in ess)
            new, added, cursor = (), frozenset(), max(0, sub.cursor) if not steps else w.ends[0]
        else:  # the week that finishes the essential path ends with its last linked essential step
            kept = _through_essentials(steps, ess - w.sent_before - unlinked_now)
            steps, cursor = steps[:kept], (w.ends[kept - 1] if kept else cursor)
    sent_after = (w.sent_before | set(order[:cursor])) - unlinked_now
    waiting = tuple(p for p in w.waiting if order.index(p) < cursor)
    passed_over = len(waiting)
    rest = [p for p in order[cursor:] if p in ess or not stops]
    if all(p in unlinked_now for p in rest):  # QA round 13: the rest of the path only waits for a link
        waiting += tuple(rest)
    return ChannelPlan(
        track_id=track_id,
        steps=steps,
        new=new,
        added=tuple(p for p in order if p in added),
        cursor=cursor,
        total=w.total,
        closing=cursor >= w.total and bool(steps) and not waiting,
        first=sub.cursor == 0 and sub.last_catalog_version is None,
        version=catalog.version,
        essentials_finished=not had_all and ess <= sent_after,
        minutes_per_week=budget,
        path=paths.track_path(catalog, track_id),
        waiting=len(waiting),
        unlinked_left=waiting,
        passed_over=passed_over,
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
