"""The rules of a track's essential path and of cross-track prerequisites (``before``), as issues.

Each rule is a small function returning :class:`~bot.domain.catalog.issues.CatalogIssue` s;
:func:`essential_path_issues` runs them all in the order ``catalog check`` reports them.
Pure: no I/O.
"""

from __future__ import annotations

from bot.domain.catalog.issues import CatalogIssue
from bot.domain.catalog.models import Post, Step, Track
from bot.domain.graphs import first_cycle

ESSENTIALS_MAX_STEPS = 8
"""At most this many essential steps per track (issue 24: a path people finish)."""
ESSENTIALS_MAX_MINUTES = 90
"""At most this many minutes of reading (sum of the essential posts' ``minutes``) per track."""


def before_issues(rel: str, track: Track, track_ids: set[str]) -> list[CatalogIssue]:
    """``before`` names known tracks (``track_ids``) other than ``track`` itself: one error per bad name."""
    issues: list[CatalogIssue] = []
    entry = f"track '{track.id}'"
    for tid in track.before:
        if tid == track.id:
            issues.append(CatalogIssue(rel, entry, "before", "a track cannot be read before itself"))
        elif tid not in track_ids:
            issues.append(CatalogIssue(rel, entry, "before", f"unknown track {tid!r}"))
    return issues


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


def _count_and_reason_issues(rel: str, track: Track, essentials: list[Step]) -> list[CatalogIssue]:
    """At most :data:`ESSENTIALS_MAX_STEPS` essential steps, and an ``essentials_reason`` (with
    ``zh`` on a bilingual track)."""
    issues: list[CatalogIssue] = []
    entry = f"track '{track.id}'"
    if len(essentials) > ESSENTIALS_MAX_STEPS:
        issues.append(
            CatalogIssue(rel, entry, "essential", f"{len(essentials)} essential steps; at most {ESSENTIALS_MAX_STEPS}")
        )
    if track.essentials_reason is None:
        issues.append(CatalogIssue(rel, entry, "essentials_reason", "say why these steps are the essential path"))
    elif track.bilingual and not track.essentials_reason.zh:
        issues.append(
            CatalogIssue(rel, entry, "essentials_reason.zh", "bilingual track: the reason needs a Chinese text")
        )
    return issues


def _essential_post_issues(
    rel: str, track: Track, essentials: list[Step], by_id: dict[str, Post]
) -> list[CatalogIssue]:
    """Each essential post has a known ``url`` and ``minutes``, together at most
    :data:`ESSENTIALS_MAX_MINUTES` minutes (an unknown post is skipped: reported elsewhere)."""
    issues: list[CatalogIssue] = []
    total = 0
    for step in essentials:
        post = by_id.get(step.post)
        if post is None:
            continue  # unknown post, reported
        step_entry = f"track '{track.id}' step '{step.post}'"
        if post.url is None:
            issues.append(
                CatalogIssue(
                    rel,
                    step_entry,
                    "essential",
                    "a post whose link is not known yet cannot be essential: make it further reading",
                )
            )
        if post.minutes is None:
            issues.append(
                CatalogIssue(
                    rel,
                    step_entry,
                    "essential",
                    "an essential post needs 'minutes' (its reading time) so the "
                    f"path can be checked against {ESSENTIALS_MAX_MINUTES} minutes",
                )
            )
        else:
            total += post.minutes
    if total > ESSENTIALS_MAX_MINUTES:
        issues.append(
            CatalogIssue(
                rel,
                f"track '{track.id}'",
                "essential",
                f"the essential steps take {total} minutes; at most {ESSENTIALS_MAX_MINUTES}",
            )
        )
    return issues


def _order_issues(rel: str, track: Track, order: tuple[str, ...]) -> list[CatalogIssue]:
    """In reading order ``order`` (post ids): the first step, when essential, is at level
    ``intro``, and no essential step follows a further step."""
    issues: list[CatalogIssue] = []
    steps = {s.post: s for s in track.steps}
    flags = [steps[pid].essential for pid in order]
    first = order[0]  # a further step first is reported below (before an essential one)
    if steps[first].essential and steps[first].level != "intro":
        issues.append(
            CatalogIssue(
                rel,
                f"track '{track.id}' step '{first}'",
                "level",
                f"the first essential step is at level {steps[first].level!r}; "
                "it must be 'intro' (a post a newcomer to the topic can start with)",
            )
        )
    if False in flags and True in flags[flags.index(False) :]:
        late = order[flags.index(True, flags.index(False))]
        issues.append(
            CatalogIssue(
                rel,
                f"track '{track.id}' step '{late}'",
                "essential",
                "an essential step comes after further reading in the path: "
                "it (or a step it comes after) must not follow a further step",
            )
        )
    return issues


def track_essential_issues(
    rel: str, track: Track, by_id: dict[str, Post], order: tuple[str, ...] | None, *, uses_essentials: bool
) -> list[CatalogIssue]:
    """The essential-path rules for one track (see :func:`essential_path_issues`); ``order`` is the
    track's reading order, or ``None`` when it could not be computed (the order rules are skipped)."""
    essentials = [s for s in track.steps if s.essential]
    if not essentials:
        if not uses_essentials:
            return []  # a catalog from before essential paths (2026.12.4 and older) still loads
        return [
            CatalogIssue(
                rel,
                f"track '{track.id}'",
                "essential",
                f"no essential step: mark 1 to {ESSENTIALS_MAX_STEPS} steps 'essential: true'",
            )
        ]
    issues = _count_and_reason_issues(rel, track, essentials)
    issues.extend(_essential_post_issues(rel, track, essentials, by_id))
    if order is not None:
        issues.extend(_order_issues(rel, track, order))
    return issues


def essential_path_issues(
    posts: list[tuple[str, Post]], tracks: list[tuple[str, Track]], orders: dict[str, tuple[str, ...]]
) -> list[CatalogIssue]:
    """The rules of the essential path and of cross-track prerequisites, as errors.

    ``posts`` and ``tracks`` are ``(file relative to the catalog folder, model)`` pairs. For every
    track: 1 to :data:`ESSENTIALS_MAX_STEPS` essential steps, each a post with a known ``url`` and
    ``minutes``, together at most :data:`ESSENTIALS_MAX_MINUTES` minutes; the first in reading order
    (``orders``, from :func:`bot.domain.paths.compute_order`) at level ``intro``; every essential
    step before every further step in that order; an ``essentials_reason`` (with ``zh`` on a
    bilingual track). ``before`` names known tracks other than the track itself and the
    ``before`` references form no cycle. A track missing from ``orders`` (its order could not be
    computed, already reported) is checked only for what does not need the order. A catalog
    where no track marks an essential step (the versions before 2026.12.5) is not asked for one,
    so old versions still load (``catalog diff``); once one track has essentials, every track needs
    them.
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
