"""A track read as a course (issue 40), pure: the weeks a reader who follows it gets at a weekly
budget, and the order the tracks are suggested in.

The weeks are not a rule of their own: they are :func:`bot.domain.plan.plan_reader_week` (the weekly
DM's rule) for a reader following only this track, applied week after week from nothing read, each
week's steps counted as read for the next. At :data:`bot.domain.budget.DEFAULT_MINUTES` that is
what ``/vllm-path follow <track>`` sends a new reader.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.catalog.attached import PerCatalog
from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.models import LEVELS
from bot.domain.graphs import ordered
from bot.domain.paths import PathStep, TrackPath, track_path
from bot.domain.plan import reader_week

_LEVEL_RANK = {name: rank for rank, name in enumerate(LEVELS)}


@dataclass(frozen=True)
class PlanWeek:
    """One week of a :class:`CoursePlan`: its 1-based ``number``, its ``steps`` in the order they
    come, and their ``minutes`` (the known ones summed; ``counted``: all known and counted)."""

    number: int
    steps: tuple[PathStep, ...]
    minutes: int
    counted: bool

    @property
    def essential(self) -> bool:
        """Whether the week holds a step of the essential path."""
        return any(s.essential for s in self.steps)


@dataclass(frozen=True)
class CoursePlan:
    """A track's ``weeks`` at ``minutes_per_week`` for a reader starting it (see the module)."""

    track_id: str
    minutes_per_week: int
    weeks: tuple[PlanWeek, ...]

    @property
    def essential_weeks(self) -> tuple[PlanWeek, ...]:
        """The weeks up to the one that finishes the essential path."""
        last = max((w.number for w in self.weeks if w.essential), default=0)
        return self.weeks[:last]

    @property
    def further_weeks(self) -> tuple[PlanWeek, ...]:
        """The weeks after the essential path (further reading only)."""
        return self.weeks[len(self.essential_weeks) :]


_plans: PerCatalog[CoursePlan] = PerCatalog()


def course_plan(catalog: Catalog, track_id: str, minutes_per_week: int = DEFAULT_MINUTES) -> CoursePlan:
    """The :class:`CoursePlan` of ``track_id`` at ``minutes_per_week`` (kept with the catalog).
    Raises ``KeyError`` for an unknown track."""
    path = track_path(catalog, track_id)
    return _plans.get(catalog, (track_id, minutes_per_week), lambda: _plan(catalog, path, minutes_per_week))


def _plan(catalog: Catalog, path: TrackPath, minutes_per_week: int) -> CoursePlan:
    week_of = reader_week(catalog)
    track_id = path.track.id
    read: set[str] = set()
    weeks: list[PlanWeek] = []
    for number in range(1, len(path.steps) + 1):  # each week takes at least one unread step
        chosen = [path.step(pid) for _tid, pid in week_of([track_id], read, minutes_per_week)]
        if not chosen:
            break
        read.update(s.post_id for s in chosen)
        minutes = sum(s.post.minutes or 0 for s in chosen)
        counted = all(s.post.minutes is not None and s.post.minutes_source == "counted" for s in chosen)
        weeks.append(PlanWeek(number, tuple(chosen), minutes, counted))
    return CoursePlan(track_id, minutes_per_week, tuple(weeks))


def level_range(path: TrackPath) -> tuple[str, str]:
    """``(lowest, highest)`` level among the essential steps of ``path`` (all its steps' when none
    is essential): what a reader starting it needs, and how far it goes."""
    levels = sorted({s.level for s in path.essentials or path.steps}, key=_LEVEL_RANK.__getitem__)
    return levels[0], levels[-1]


def suggested_order(catalog: Catalog) -> tuple[str, ...]:
    """Every track id in the order to suggest them: a track after the tracks its ``before`` names;
    among the tracks ready, the gentler first (the lower top of :func:`level_range`), then catalog order.
    Tracks caught in a cycle of ``before`` (``catalog check`` refuses one) come last, in catalog order."""
    ids = [t.id for t in catalog.tracks]
    at = {tid: i for i, tid in enumerate(ids)}
    needs = {tid: {b for b in catalog.track(tid).before if b in at and b != tid} for tid in ids}

    def key(tid: str) -> tuple[int, int, str]:
        return _LEVEL_RANK[level_range(track_path(catalog, tid))[1]], at[tid], tid

    out = ordered(ids, needs, key)
    return tuple(out) + tuple(tid for tid in ids if tid not in set(out))
