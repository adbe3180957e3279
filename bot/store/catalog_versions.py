"""Catalog versions the app has seen, with each track's path at that version."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import func, select

from bot.domain.catalog.versions import newest_version
from bot.store.base import StoreCore
from bot.store.models import CatalogVersion
from bot.store.validate import check_id, check_ids


class CatalogVersionsRepo(StoreCore):
    """Catalog versions, first-seen times and path snapshots."""

    def record_catalog_version(self, version: str, snapshot: Mapping[str, Sequence[str]]) -> bool:
        """Remember a catalog version and each track's path ``{track_id: [post ids in order]}``.
        True if the version is new; a known version keeps its first snapshot."""
        check_id(version, "version")
        if not isinstance(snapshot, Mapping):
            raise ValueError("snapshot must be a mapping {track_id: [post ids]}")
        data: dict[str, list[str]] = {}
        for track, posts in snapshot.items():
            check_id(track, "track id")
            data[track] = check_ids(posts, "post id") if posts else []
        return self._insert_new(CatalogVersion, version=version, first_seen_at=self._now(), snapshot=data)

    def catalog_snapshot(self, version: str) -> dict[str, list[str]] | None:
        """``{track_id: [post ids]}`` recorded for ``version``, or None if unknown."""
        with self._read() as s:
            data = s.scalar(select(CatalogVersion.snapshot).where(CatalogVersion.version == version))
            return None if data is None else {k: list(v) for k, v in data.items()}

    def latest_catalog_version(self) -> str | None:
        """The most recently first-seen catalog version, or None; ties go by CalVer (``newest_version``)."""
        with self._read() as s:
            newest = select(func.max(CatalogVersion.first_seen_at)).scalar_subquery()
            versions = s.scalars(select(CatalogVersion.version).where(CatalogVersion.first_seen_at == newest)).all()
            return newest_version(versions)
