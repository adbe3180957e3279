"""The position a placer suggests in a track, once it knows where each step the post could become
would sit and how much weight each has (:meth:`bot.domain.catalog.placement.Placer._place`). Pure.

A suggestion is right when it is within one step of the curated position, so the position chosen is
the one that puts the most weight within one step of it: any position of the path, not only one a
step kind sits at. When the kinds disagree (an early essential step, or further reading), a
position between two heavy kinds covers both. ``benchmarks/placement.py`` (catalog 2026.12.32, feed
text), position within one step: the kinds' own positions 0.599 (94 of 157); any position, with
:data:`~bot.domain.catalog.placement.PRIOR_WEIGHT` 0.25 (the similar steps' votes four times the
catalog's shares) and the ranking of :mod:`~bot.domain.catalog.placement_rank`, 0.675 (106).
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.domain.catalog.models import Level

Kind = tuple[bool, Level]
"""A step a post can become: ``(essential, level)``."""


def hedged_position(where: Mapping[Kind, int], weights: Mapping[Kind, float], essentials: int) -> tuple[int, Kind]:
    """The 1-based position (``1 .. max(where) + 1``) whose one-step neighbourhood holds the most
    ``weights`` of the kinds at ``where`` (kind -> the 1-based position the catalog's order gives
    a step of that kind), and the kind the post becomes there: the heaviest of those within one step,
    one at the position itself first. The kind must fit the position in a path of ``essentials``
    essential steps (an essential step at most one past them, further reading after them), so a
    position no kind can fill is not offered. Ties go to the position with the most weight of its
    own, then the earliest. Raises ``ValueError`` when ``where`` is empty."""
    if not where:
        raise ValueError("no step kind to place")

    def fits(kind: Kind, at: int) -> bool:
        return at <= essentials + 1 if kind[0] else at > essentials

    best: tuple[float, float, int] | None = None
    chosen: tuple[int, Kind] | None = None
    for at in range(1, max(where.values()) + 2):
        near = [k for k, p in where.items() if abs(p - at) <= 1]
        fitting = [k for k in near if fits(k, at)]
        if not fitting:
            continue
        cover = sum(weights[k] for k in near)
        own = sum(weights[k] for k in near if where[k] == at)
        if best is None or (cover, own, -at) > best:
            best = (cover, own, -at)
            chosen = (at, max(fitting, key=lambda k: (where[k] == at, weights[k])))
    if chosen is None:  # every kind's own place fits it (a kind's own position is in the range)
        kind = max(where, key=lambda k: weights[k])
        return where[kind], kind
    return chosen
