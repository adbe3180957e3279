"""The compiled, immutable catalog the rest of the app reads: the validated models, each track's
path in reading order, and read-only lookup tables (``MappingProxyType``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from bot.domain.catalog.models import Manifest, Post, Relation, Step, Track
from bot.domain.catalog.prompts import Prompt

_DASHES = str.maketrans(dict.fromkeys("_\u2010\u2011\u2012\u2013\u2014\u2212\uff0d", "-"))
"""An underscore, the typographic hyphens and dashes, the minus sign and the full-width hyphen:
each read as ``-`` in a post id."""


@dataclass(frozen=True)
class Catalog:
    """A loaded catalog version. Create it with :func:`bot.domain.catalog.load_catalog`."""

    manifest: Manifest
    posts: tuple[Post, ...]
    tracks: tuple[Track, ...]
    orders: Mapping[str, tuple[str, ...]]
    warnings: tuple[str, ...]
    changelog_versions: tuple[str, ...]
    _posts: Mapping[str, Post]
    _aliases: Mapping[str, str]
    _tracks: Mapping[str, Track]
    _steps: Mapping[tuple[str, str], Step]
    _post_tracks: Mapping[str, tuple[str, ...]]
    relations: tuple[Relation, ...] = ()
    """``catalog/relations.yaml``: posts that revisit earlier ones (:class:`Relation`), in file order."""
    prompts: Mapping[str, Prompt] = field(default_factory=lambda: MappingProxyType({}))
    """``catalog/prompts.yaml``: reading clubs' discussion prompts by post id (issue 44)."""

    @classmethod
    def build(
        cls,
        *,
        manifest: Manifest,
        posts: list[Post],
        tracks: list[Track],
        orders: dict[str, tuple[str, ...]],
        warnings: tuple[str, ...] = (),
        changelog_versions: tuple[str, ...] = (),
        relations: tuple[Relation, ...] = (),
        prompts: Mapping[str, Prompt] | None = None,
    ) -> Catalog:
        """Assemble a catalog from validated parts, tracks in the given order (no checks here)."""
        steps = {(t.id, s.post): s for t in tracks for s in t.steps}
        post_tracks: dict[str, list[str]] = {}
        for t in tracks:
            for pid in orders[t.id]:
                post_tracks.setdefault(pid, []).append(t.id)
        aliases = {a: p.id for p in posts for a in p.aliases}
        return cls(
            manifest=manifest,
            posts=tuple(posts),
            tracks=tuple(tracks),
            orders=MappingProxyType(dict(orders)),
            warnings=tuple(warnings),
            changelog_versions=tuple(changelog_versions),
            _posts=MappingProxyType({p.id: p for p in posts}),
            _aliases=MappingProxyType(aliases),
            _tracks=MappingProxyType({t.id: t for t in tracks}),
            _steps=MappingProxyType(steps),
            _post_tracks=MappingProxyType({k: tuple(v) for k, v in post_tracks.items()}),
            relations=tuple(relations),
            prompts=MappingProxyType(dict(prompts or {})),
        )

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as its parts, assembled again by :meth:`build` (the lookup tables are read-only
        proxies, which pickle cannot copy): the search index keeps its catalog this way."""
        parts = (self.manifest, list(self.posts), list(self.tracks), dict(self.orders), self.warnings)
        return (_rebuild, (*parts, self.changelog_versions, self.relations, dict(self.prompts)))

    @property
    def version(self) -> str:
        """The catalog version (CalVer ``YYYY.MM.N``) from the manifest."""
        return self.manifest.version

    def resolve_post_id(self, post_id: str) -> str | None:
        """The current id of a post given its id or a former id (alias), also written with an
        underscore or a typographic hyphen or dash for ``-`` (``p_eagle``, ``p‐eagle`` as autocorrect
        writes it) or in capitals; ``None`` if unknown."""
        if post_id in self._posts:
            return post_id
        found = self._aliases.get(post_id)
        if found is None:
            folded = post_id.translate(_DASHES).casefold()
            if folded != post_id:
                found = folded if folded in self._posts else self._aliases.get(folded)
        return found

    def post(self, post_id: str) -> Post:
        """The post with this id or former id. Raises ``KeyError`` when there is none."""
        return self._posts[self.resolve_post_id(post_id) or post_id]

    def has_post(self, post_id: str) -> bool:
        """Whether ``post_id`` (or a former id) names a post of this catalog."""
        return self.resolve_post_id(post_id) is not None

    def track(self, track_id: str) -> Track:
        """The track with this id. Raises ``KeyError`` when there is none."""
        return self._tracks[track_id]

    def has_track(self, track_id: str) -> bool:
        """Whether ``track_id`` names a track of this catalog."""
        return track_id in self._tracks

    def order(self, track_id: str) -> tuple[str, ...]:
        """The post ids of a track's path in reading order. Raises ``KeyError`` for an unknown track."""
        return self.orders[track_id]

    def path(self, track_id: str) -> tuple[Step, ...]:
        """A track's steps in reading order. Raises ``KeyError`` for an unknown track."""
        return tuple(self._steps[(track_id, pid)] for pid in self.orders[track_id])

    def essentials(self, track_id: str) -> tuple[str, ...]:
        """Post ids of a track's essential steps in reading order. Raises ``KeyError`` for an unknown track."""
        return tuple(pid for pid in self.orders[track_id] if self._steps[(track_id, pid)].essential)

    def further(self, track_id: str) -> tuple[str, ...]:
        """Post ids of a track's further reading in reading order. Raises ``KeyError`` for an unknown track."""
        return tuple(pid for pid in self.orders[track_id] if not self._steps[(track_id, pid)].essential)

    def step(self, track_id: str, post_id: str) -> Step:
        """The step of ``post_id`` in ``track_id``. Raises ``KeyError`` when it is not a step there."""
        return self._steps[(track_id, post_id)]

    def tracks_of(self, post_id: str) -> tuple[str, ...]:
        """Ids of the tracks whose path includes the post (in catalog track order)."""
        return self._post_tracks.get(self.resolve_post_id(post_id) or "", ())

    def relations_of(self, post_id: str) -> tuple[Relation, ...]:
        """The relations in which ``post_id`` (or a former id) revisits an earlier post, in file order."""
        pid = self.resolve_post_id(post_id)
        return tuple(r for r in self.relations if r.post == pid)

    def prompt(self, post_id: str) -> Prompt | None:
        """The reading clubs' discussion prompt of ``post_id`` (or a former id), None without one."""
        return self.prompts.get(self.resolve_post_id(post_id) or "")

    def url_of(self, post: Post) -> str | None:
        """The absolute URL of a post: relative ``/paths`` resolve against the manifest's blog host."""
        return None if post.url is None else post.read_link(self.manifest)[0]


def _rebuild(
    manifest: Manifest,
    posts: list[Post],
    tracks: list[Track],
    orders: dict[str, tuple[str, ...]],
    warnings: tuple[str, ...],
    changelog_versions: tuple[str, ...],
    relations: tuple[Relation, ...] = (),
    prompts: Mapping[str, Prompt] | None = None,
) -> Catalog:
    """A pickled :class:`Catalog` (:meth:`Catalog.__reduce__`) assembled again."""
    return Catalog.build(
        manifest=manifest,
        posts=posts,
        tracks=tracks,
        orders=orders,
        warnings=warnings,
        changelog_versions=changelog_versions,
        relations=relations,
        prompts=prompts,
    )
