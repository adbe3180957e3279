"""The rules of a track's essential path and of cross-track prerequisites (``before``), as
:class:`~bot.domain.catalog.issues.CatalogIssue` s. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Iterator

from bot.domain.budget import ESSENTIAL_MAX_MINUTES, ESSENTIAL_STEPS_MAX
from bot.domain.catalog.issues import CatalogIssue
from bot.domain.catalog.models import Post, Step, Track
from bot.domain.graphs import first_cycle


def before_issues(rel: str, track: Track, track_ids: set[str]) -> Iterator[CatalogIssue]:
    """``before`` names known tracks (``track_ids``) other than ``track`` itself: one error per bad name."""
    for tid in track.before:
        if tid == track.id:
            yield CatalogIssue(rel, f"track '{track.id}'", "before", "a track cannot be read before itself")
        elif tid not in track_ids:
            yield CatalogIssue(rel, f"track '{track.id}'", "before", f"unknown track {tid!r}")


def before_cycle_issues(tracks: list[tuple[str, Track]]) -> list[CatalogIssue]:
    """One error on the first track of a cycle of ``before`` references (none without a cycle)."""
    known = {t.id for _, t in tracks}
    graph = {t.id: tuple(b for b in t.before if b in known) for _, t in tracks}  # unknown: reported on its own
    cycle = first_cycle(graph, graph)
    if not cycle:
        return []
    rel = next(r for r, t in tracks if t.id == cycle[0])
    return [
        CatalogIssue(rel, f"track '{cycle[0]}'", "before", f"cycle in the tracks to read before: {' -> '.join(cycle)}")
    ]


def _count_and_reason_issues(rel: str, track: Track, essentials: list[Step]) -> Iterator[CatalogIssue]:
    """At most :data:`ESSENTIAL_STEPS_MAX` essential steps, and an ``essentials_reason``."""
    entry = f"track '{track.id}'"
    if len(essentials) > ESSENTIAL_STEPS_MAX:
        yield CatalogIssue(rel, entry, "essential", f"{len(essentials)} essential steps; at most {ESSENTIAL_STEPS_MAX}")
    if track.essentials_reason is None:
        yield CatalogIssue(rel, entry, "essentials_reason", "say why these steps are the essential path")
    elif track.bilingual and not track.essentials_reason.zh:
        yield CatalogIssue(rel, entry, "essentials_reason.zh", "bilingual track: the reason needs a Chinese text")


def _essential_post_issues(
    rel: str, track: Track, essentials: list[Step], by_id: dict[str, Post]
) -> Iterator[CatalogIssue]:
    """Each essential post has a ``url`` and ``minutes``, together at most :data:`ESSENTIAL_MAX_MINUTES`."""
    total = 0
    for step in essentials:
        if (post := by_id.get(step.post)) is None:
            continue  # unknown post, reported
        entry = f"track '{track.id}' step '{step.post}'"
        if post.url is None:
            no_link = "a post whose link is not known yet cannot be essential: make it further reading"
            yield CatalogIssue(rel, entry, "essential", no_link)
        if post.minutes is None:
            why = f"so the path can be checked against {ESSENTIAL_MAX_MINUTES} minutes"
            yield CatalogIssue(rel, entry, "essential", f"an essential post needs 'minutes' (its reading time) {why}")
        else:
            total += post.minutes
    if total > ESSENTIAL_MAX_MINUTES:
        too_long = f"the essential steps take {total} minutes; at most {ESSENTIAL_MAX_MINUTES}"
        yield CatalogIssue(rel, f"track '{track.id}'", "essential", too_long)


def _order_issues(rel: str, track: Track, order: tuple[str, ...]) -> Iterator[CatalogIssue]:
    """In ``order``: an essential first step is ``intro``; no essential step follows a further one."""
    steps = {s.post: s for s in track.steps}
    flags = [steps[pid].essential for pid in order]
    first = steps[order[0]]  # a further step first is reported below (before an essential one)
    if first.essential and first.level != "intro":
        level = f"the first essential step is at level {first.level!r}; it must be 'intro'"
        newcomer = "(a post a newcomer to the topic can start with)"
        yield CatalogIssue(rel, f"track '{track.id}' step '{first.post}'", "level", f"{level} {newcomer}")
    if False in flags and True in flags[flags.index(False) :]:
        late = order[flags.index(True, flags.index(False))]
        after = "an essential step comes after further reading in the path: it (or a step it comes after)"
        yield CatalogIssue(
            rel, f"track '{track.id}' step '{late}'", "essential", f"{after} must not follow a further step"
        )


def track_essential_issues(
    rel: str, track: Track, by_id: dict[str, Post], order: tuple[str, ...] | None, *, uses_essentials: bool
) -> Iterator[CatalogIssue]:
    """The essential-path rules for one track (the order rules only with an ``order``)."""
    essentials = [s for s in track.steps if s.essential]
    if not essentials:
        if uses_essentials:  # else a catalog from before essential paths (2026.12.4 and older): it still loads
            mark = f"no essential step: mark 1 to {ESSENTIAL_STEPS_MAX} steps 'essential: true'"
            yield CatalogIssue(rel, f"track '{track.id}'", "essential", mark)
        return
    yield from _count_and_reason_issues(rel, track, essentials)
    yield from _essential_post_issues(rel, track, essentials, by_id)
    if order is not None:
        yield from _order_issues(rel, track, order)


def essential_path_issues(
    posts: list[tuple[str, Post]], tracks: list[tuple[str, Track]], orders: dict[str, tuple[str, ...]]
) -> list[CatalogIssue]:
    """Every rule of this module as errors, per track in file order, then the ``before`` cycle.

    ``posts`` and ``tracks`` are ``(file in the catalog folder, model)`` pairs; ``orders`` the
    reading orders by track id. A catalog where no track marks an essential step (before
    2026.12.5) is not asked for one, so old versions still load.
    """
    issues: list[CatalogIssue] = []
    by_id = {p.id: p for _, p in posts}
    track_ids = {t.id for _, t in tracks}
    uses_essentials = any(s.essential for _, t in tracks for s in t.steps)
    for rel, track in tracks:
        issues.extend(before_issues(rel, track, track_ids))
        issues.extend(track_essential_issues(rel, track, by_id, orders.get(track.id), uses_essentials=uses_essentials))
    issues.extend(before_cycle_issues(tracks))
    return issues
