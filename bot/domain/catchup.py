"""The "catch me up" of issue 44: the posts that entered the catalog since a reader last read, in the
tracks they follow or have started, each with its place in their path and the earlier step it
revisits (``catalog/relations.yaml``), then their next step. Pure."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime

from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Relation

MAX_NEW = 20
"""New posts listed at most, newest first (a reader back after months gets the newest 20)."""


@dataclass(frozen=True)
class NewPost:
    """A post new to the reader: its ``step`` in the track ``track_id``; ``relation``: how it
    revisits an earlier post (the first relation whose earlier post is on this path, else the
    first), ``revisits``: that earlier post's step on this path (``None``: not on it or no relation)."""

    track_id: str
    step: paths.PathStep
    relation: Relation | None = None
    revisits: paths.PathStep | None = None


@dataclass(frozen=True)
class CatchUp:
    """What is new for a reader: ``since`` the first day whose new posts count (UTC; ``None`` when
    they have neither read nor followed anything), ``new`` newest first (at most :data:`MAX_NEW`),
    ``more`` how many more there were, ``tracks`` the track ids looked at (followed first, in follow
    order, then started ones in catalog order) and ``next`` the state of the first of them with a
    step left (``None``: none)."""

    since: date | None
    new: tuple[NewPost, ...]
    more: int
    tracks: tuple[str, ...]
    next: paths.TrackState | None


def reader_tracks(catalog: Catalog, follows: Sequence[str], read: Iterable[str]) -> tuple[str, ...]:
    """The tracks a reader follows (those the catalog has, in ``follows`` order), then those they
    have started (:func:`~bot.domain.paths.started_tracks`: an essential step read) without
    following them, in catalog order."""
    followed = [tid for tid in follows if catalog.has_track(tid)]
    started = [tid for tid in paths.started_tracks(catalog, set(read)) if tid not in followed]
    return (*followed, *started)


def _new_post(catalog: Catalog, track_id: str, step: paths.PathStep) -> NewPost:
    """The :class:`NewPost` of ``step`` in ``track_id``, with the relation to a step of that path first."""
    relations = catalog.relations_of(step.post_id)
    path = paths.track_path(catalog, track_id)
    on_path = {s.post_id: s for s in path.steps}
    relation = next((r for r in relations if r.earlier in on_path), relations[0] if relations else None)
    revisits = on_path.get(relation.earlier) if relation is not None else None
    return NewPost(track_id, step, relation, revisits)


def catch_up(catalog: Catalog, follows: Sequence[str], read: Iterable[str], since: datetime | None) -> CatchUp:
    """The :class:`CatchUp` of a reader following ``follows`` who read ``read`` (post ids, former
    ids count), new since ``since`` (aware; their last read, else their first follow; ``None``:
    nothing is new). A post is new when it entered the catalog
    (:attr:`~bot.domain.catalog.models.Post.entered`) on ``since``'s UTC day or later and the reader
    has not read it; a post on several of their tracks is listed once, in the first."""
    resolved = {pid for p in read if (pid := catalog.resolve_post_id(p))}
    tracks = reader_tracks(catalog, follows, resolved)
    day = since.astimezone(UTC).date() if since is not None else None
    found: dict[str, NewPost] = {}
    for tid in tracks if day is not None else ():  # no day: nothing is new
        for step in paths.track_path(catalog, tid).steps:
            pid = step.post_id
            if day is not None and step.post.entered >= day and pid not in found and pid not in resolved:
                found[pid] = _new_post(catalog, tid, step)
    new = sorted(found.values(), key=lambda n: n.step.post.entered, reverse=True)
    states = (paths.track_state(catalog, tid, resolved) for tid in tracks)
    nxt = next((s for s in states if s.next is not None), None)
    return CatchUp(day, tuple(new[:MAX_NEW]), max(0, len(new) - MAX_NEW), tracks, nxt)
