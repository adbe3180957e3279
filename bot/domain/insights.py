"""Reading insights for a workspace's admins (pure: plain rows in, counts out).

Active readers, reads per ISO week, a funnel per track, the share of each track's followers who
finished its essential path within :data:`FINISH_DAYS` of following, the most-read posts and digest
health per channel. Counts only: a count of readers below :data:`MIN_READERS` (other than 0) is
hidden (``None``): the readers ever and lately, a post's or a step's; so are the reads per week of a
workspace with fewer readers (empty), so no one's reading can be singled out.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bot.domain import paths
from bot.domain.catalog import Catalog

ACTIVE_DAYS = 28
"""A reader is active when they marked a post read within this many days (4 weeks)."""
WEEKS = 8
"""Weeks shown in the reads-per-week sparkline."""
MIN_READERS = 4
"""Smallest count of readers shown for one post or one step (above 3: no one can be singled out)."""
FINISH_DAYS = 28
"""Days after following within which finishing a track's essential path counts (4 weeks)."""
TOP_POSTS = 5
"""Posts listed under *most read*."""
SPARKS = "▁▂▃▄▅▆▇█"


@dataclass(frozen=True)
class TrackFunnel:
    """``reached[k]``: readers of at least ``k + 1`` of the ``steps``; ``readers``: of at least one."""

    track_id: str
    steps: int
    readers: int | None
    reached: tuple[int | None, ...]


@dataclass(frozen=True)
class TrackCompletion:
    """Of a track's followers who followed it at least :data:`FINISH_DAYS` ago (``cohort``), how many
    had read every step of its essential path within :data:`FINISH_DAYS` of following (``finished``)
    and ``share`` = finished / cohort (0..1). A cohort of 1 to ``MIN_READERS - 1``: all three ``None``;
    1 to ``MIN_READERS - 1`` finishers: ``finished`` and ``share`` ``None`` (a share of a known cohort
    would tell their number)."""

    track_id: str
    cohort: int | None
    finished: int | None
    share: float | None


@dataclass(frozen=True)
class ChannelHealth:
    """A channel's subscriptions (``active``, ``paused`` and why) and the ledger's ``sent`` /
    ``skipped`` / ``failed`` periods in the last :data:`ACTIVE_DAYS` days."""

    channel_id: str
    active: int = 0
    paused: int = 0
    reasons: tuple[str, ...] = ()
    sent: int = 0
    skipped: int = 0
    failed: int = 0


@dataclass(frozen=True)
class Insights:
    """The numbers for one workspace at ``now`` (UTC)."""

    team_id: str
    now: datetime
    readers_total: int | None
    """People who ever read; ``None`` for 1 to ``MIN_READERS - 1`` (:func:`shown`)."""
    readers_active: int | None
    """People who read in the last :data:`ACTIVE_DAYS` days; ``None`` for 1 to ``MIN_READERS - 1``."""
    reads_per_week: tuple[tuple[str, int], ...]
    """``(ISO week, reads)`` oldest first; empty when fewer than ``MIN_READERS`` people ever read."""
    funnels: tuple[TrackFunnel, ...]
    top_posts: tuple[tuple[str, int], ...]
    channels: tuple[ChannelHealth, ...] = field(default=())
    completions: tuple[TrackCompletion, ...] = field(default=())
    """Tracks with a cohort (:class:`TrackCompletion`), in catalog order."""

    def sparkline(self) -> str:
        """Reads per week as block characters, oldest week first (``▁`` for none)."""
        return sparkline([n for _, n in self.reads_per_week])

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: times as ISO 8601 strings."""
        data = asdict(self)
        data["now"] = self.now.isoformat()
        data["sparkline"] = self.sparkline()
        return data


def sparkline(values: Sequence[int]) -> str:
    """One block character per value, scaled to the largest (``▁`` for 0)."""
    top = max(values, default=0)
    if top <= 0:
        return SPARKS[0] * len(values)
    return "".join(SPARKS[0] if v <= 0 else SPARKS[max(1, round(v / top * (len(SPARKS) - 1)))] for v in values)


def _week(at: datetime) -> str:
    year, week, _ = at.isocalendar()
    return f"{year}-W{week:02d}"


def shown(n: int) -> int | None:
    """``n``, or None for a count of 1 to ``MIN_READERS - 1`` readers (hidden: it could single someone out)."""
    return n if n >= MIN_READERS or n == 0 else None


def _funnel(catalog: Catalog, track_id: str, by_user: dict[str, set[str]]) -> TrackFunnel:
    """How many readers read at least 1, 2, … posts of the track (small counts hidden)."""
    order = catalog.order(track_id)
    counts = [c for posts in by_user.values() if (c := sum(1 for p in order if p in posts))]
    reached = tuple(shown(sum(1 for c in counts if c >= k)) for k in range(1, len(order) + 1))
    return TrackFunnel(track_id, len(order), shown(len(counts)), reached)


def _completions(
    catalog: Catalog,
    by_user: dict[str, dict[str, datetime]],
    follows: Iterable[tuple[str, str, datetime]],
    now: datetime,
) -> tuple[TrackCompletion, ...]:
    """Each track's :class:`TrackCompletion` among ``follows`` ``(user, track, followed_at)``: a
    follower finished when the last of their reads of the essential steps (``by_user``: user -> post
    -> read_at) is at most :data:`FINISH_DAYS` after they followed (reading before following counts)."""
    window = timedelta(days=FINISH_DAYS)
    cohorts: dict[str, list[bool]] = defaultdict(list)
    for user, track_id, followed_at in follows:
        if not catalog.has_track(track_id) or followed_at > now - window:
            continue
        reads = by_user.get(user, {})
        times = [reads.get(pid) for pid in catalog.essentials(track_id)]
        done = bool(times) and all(at is not None and at <= followed_at + window for at in times)
        cohorts[track_id].append(done)
    out = []
    for track in catalog.tracks:
        if not (flags := cohorts.get(track.id)):
            continue
        cohort, finished = shown(len(flags)), shown(sum(flags))
        if cohort is None:
            finished = None
        out.append(
            TrackCompletion(track.id, cohort, finished, finished / cohort if cohort and finished is not None else None)
        )
    return tuple(out)


def _channels(subscriptions: Iterable[Any], deliveries: Iterable[tuple[str, str, int]]) -> tuple[ChannelHealth, ...]:
    """Each subscribed channel's subscriptions (active, paused and why) and deliveries, by channel id."""
    health: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"active": 0, "paused": 0, "reasons": [], "sent": 0, "skipped": 0, "failed": 0}
    )
    for sub in subscriptions:
        h = health[sub.channel_id]
        h["active" if sub.status == "active" else "paused"] += 1
        if sub.status != "active" and sub.pause_reason and sub.pause_reason not in h["reasons"]:
            h["reasons"].append(sub.pause_reason)
    for destination, outcome, n in deliveries:
        if destination in health and outcome in ("sent", "skipped", "failed"):
            health[destination][outcome] += n
    return tuple(ChannelHealth(cid, **(h | {"reasons": tuple(h["reasons"])})) for cid, h in sorted(health.items()))


def compute(
    catalog: Catalog,
    team_id: str,
    reads: Iterable[tuple[str, str, datetime]],
    now: datetime,
    subscriptions: Iterable[Any] = (),
    deliveries: Iterable[tuple[str, str, int]] = (),
    follows: Iterable[tuple[str, str, datetime]] = (),
) -> Insights:
    """The insights of ``team_id`` at ``now`` (aware UTC) from ``reads`` ``(user id, stored post
    id, read_at)``, ``subscriptions`` (with ``channel_id``, ``status``, ``pause_reason``), the
    ledger's ``deliveries`` ``(destination, outcome, count)`` (DM destinations are left out) and the
    track ``follows`` ``(user id, track id, followed_at)``."""
    by_user: dict[str, set[str]] = defaultdict(set)
    read_at: dict[str, dict[str, datetime]] = defaultdict(dict)
    active: set[str] = set()
    weeks: Counter[str] = Counter()
    since = now - timedelta(days=ACTIVE_DAYS)
    for user, stored, at in reads:
        if (post := catalog.resolve_post_id(stored)) is None:
            continue
        by_user[user].add(post)
        read_at[user][post] = min(at, read_at[user].get(post, at))
        if at >= since:
            active.add(user)
        weeks[_week(at)] += 1
    week_keys = [_week(now - timedelta(weeks=i)) for i in range(WEEKS - 1, -1, -1)]
    funnels = tuple(_funnel(catalog, track.id, by_user) for track in catalog.tracks)
    per_post = Counter(p for posts in by_user.values() for p in posts)
    ranked = sorted(per_post.items(), key=lambda x: (-x[1], x[0]))
    top = tuple((p, n) for p, n in ranked if n >= MIN_READERS)[:TOP_POSTS]
    # under four readers: their weekly reads would be someone's own reading (and none: nothing to show)
    weekly = tuple((w, weeks.get(w, 0)) for w in week_keys) if len(by_user) >= MIN_READERS else ()
    channels = _channels(subscriptions, deliveries)
    completions = _completions(catalog, read_at, follows, now)
    total, recent = shown(len(by_user)), shown(len(active))  # "1 active reader" would be someone's reading
    return Insights(team_id, now, total, recent, weekly, funnels, top, channels, completions)


def still_finished(
    catalog: Catalog, finished: Iterable[tuple[str, str]], reads: Iterable[tuple[str, str, datetime]]
) -> dict[str, int]:
    """``{track id: readers}`` of the recorded finishes ``finished`` ``(user id, track id)`` whose
    essential steps are all still read in ``reads`` ``(user id, stored post id, read_at)``: a step
    marked unread reopens the path (as App Home shows it); tracks the catalog lacks are left out.
    Raw counts: the caller hides the small ones (:func:`shown`)."""
    by_user: dict[str, set[str]] = defaultdict(set)
    for user, stored, _ in reads:
        by_user[user].add(stored)
    counts: Counter[str] = Counter()
    for user, track_id in finished:
        if catalog.has_track(track_id) and paths.essentials_done(catalog, track_id, by_user.get(user, ())):
            counts[track_id] += 1
    return dict(counts)
