"""The tracks the catalog relates to a track (what a reader who finished its essential path is
offered next, :func:`bot.slack.commands.plan.next_choice`): those built on it, those its posts' relations
reach, those sharing its posts. From the catalog alone (tracks' ``before``, ``catalog/relations.yaml``,
the paths)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from bot.domain.catalog import Catalog


def related_track(cat: Catalog, track_id: str, finished: Collection[str] = ()) -> str | None:
    """The track id of :func:`related_choice`, else None."""
    chosen = related_choice(cat, track_id, finished)
    return chosen[0] if chosen else None


MIN_SHARED = 2
"""The fewest posts a track must share with a finished path to be offered for sharing them (QA round
19: one shared post offered an unrelated track)."""


def related_choice(cat: Catalog, track_id: str, finished: Collection[str] = ()) -> tuple[str, str, int] | None:
    """The first of :func:`related_choices`, else None."""
    return next(iter(related_choices(cat, track_id, finished)), None)


def related_choices(cat: Catalog, track_id: str, finished: Collection[str] = ()) -> list[tuple[str, str, int]]:
    """The tracks the catalog relates to ``track_id`` and why, best first, ``(track id, reason,
    count)``: those naming it in ``before`` (``after``: read after it), then the tracks most often
    holding a post that ``catalog/relations.yaml`` links to or from a post of its path (``linked``: a
    sequel, an update; ``count`` such posts), then those sharing at least :data:`MIN_SHARED` posts with
    its path (``shared``, ``count`` posts); ties go to catalog order. Never ``track_id``, a
    ``finished`` one nor one of ``track_id``'s own ``before`` (its prerequisite: QA round 19); each once."""
    skip = {*finished, track_id, *cat.track(track_id).before}
    order = {tr.id: i for i, tr in enumerate(cat.tracks)}
    after = [tr.id for tr in cat.tracks if track_id in tr.before]
    steps = cat.order(track_id)
    linked: Counter[str] = Counter()
    for rel in cat.relations:
        earlier = rel.updates or rel.follows or ""
        other = earlier if rel.post in steps else rel.post if earlier in steps else None
        linked.update(cat.tracks_of(other) if other else ())
    shared = Counter(tid for pid in steps for tid in cat.tracks_of(pid))

    def ranked(counts: Counter[str]) -> list[tuple[str, int]]:
        return sorted(((tid, n) for tid, n in counts.items()), key=lambda kv: (-kv[1], order.get(kv[0], 0)))

    choices = [
        *((tid, "after", 0) for tid in after),
        *((tid, "linked", n) for tid, n in ranked(linked)),
        *((tid, "shared", n) for tid, n in ranked(shared) if n >= MIN_SHARED),
    ]
    seen: set[str] = set()
    kept = []
    for choice in choices:
        if choice[0] not in skip and choice[0] not in seen and cat.has_track(choice[0]):
            seen.add(choice[0])
            kept.append(choice)
    return kept


__all__ = ["MIN_SHARED", "related_choice", "related_choices", "related_track"]
