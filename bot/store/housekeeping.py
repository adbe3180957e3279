"""The app's own records, no one reader's or channel's: the catalog versions seen (each track's
path at that version), the Slack event ids handled (forgotten once no retry can come), and the
counts behind admins' insights and operators' metrics (raw rows; :mod:`bot.domain.insights` counts)."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import delete, func, select

from bot.domain.catalog.versions import newest_version
from bot.store.base import StoreCore
from bot.store.models import (
    DM_TRACK,
    CatalogVersion,
    ChannelSubscription,
    DigestDelivery,
    HeldRequest,
    ProcessedEvent,
    ReadingProgress,
    TrackFollow,
)
from bot.store.validate import check_aware, check_id, check_ids

if TYPE_CHECKING:
    from bot.store.held_batch import HeldBatcher


class HousekeepingRepo(StoreCore):
    """Catalog versions, processed Slack events, requests acknowledged and not yet
    answered; per-team reads and delivery outcomes (never across teams) and all-workspace totals
    for operators."""

    _held_batch: HeldBatcher | None = None
    _held_batch_lock = threading.Lock()

    def held_batch(self) -> HeldBatcher:
        """The :class:`~bot.store.held_batch.HeldBatcher` of this store (started on first use; its
        flusher thread stops with :meth:`close`): holds and releases in group commits."""
        if self._held_batch is None:
            from bot.store.held_batch import HeldBatcher  # its batching imports the PostgreSQL dialect

            with self._held_batch_lock:
                if self._held_batch is None:
                    self._held_batch = HeldBatcher(self)
        return self._held_batch

    def close(self) -> None:
        """Write the pending releases of :meth:`held_batch`, then :meth:`StoreCore.close`."""
        batcher, self._held_batch = self._held_batch, None
        if batcher is not None:
            batcher.close()
        super().close()

    def held_requests(self, since: datetime, until: datetime) -> list[tuple[int, str, str]]:
        """``(id, body, content_type)`` of every request held from ``since`` to before ``until``
        (aware), oldest first."""
        check_aware(since, "since")
        check_aware(until, "until")
        stmt = select(HeldRequest.c.id, HeldRequest.c.body, HeldRequest.c.content_type)
        stmt = stmt.where(HeldRequest.c.received_at >= since, HeldRequest.c.received_at < until)
        return [(int(i), str(b), str(c)) for i, b, c in self._rows(stmt.order_by(HeldRequest.c.id))]

    def forget_held_requests(self, before: datetime) -> int:
        """Delete the requests held before ``before`` (aware: their ``response_url`` has expired); how many."""
        check_aware(before, "before")
        return self._change(delete(HeldRequest).where(HeldRequest.c.received_at < before))

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
        data = self._scalar(select(CatalogVersion.c.snapshot).where(CatalogVersion.c.version == version))
        return None if data is None else {k: list(v) for k, v in data.items()}

    def version_of_last_dm(self, team: str, user: str) -> str | None:
        """The catalog version ``user``'s last posted weekly DM was built on (issue 41: what is new
        since): the newest first seen by the time it was sent; None before their first DM."""
        check_id(team, "team"), check_id(user, "user")
        mine = (
            DigestDelivery.c.team_id == team,
            DigestDelivery.c.destination == user,
            DigestDelivery.c.track_id == DM_TRACK,
        )
        posted = (DigestDelivery.c.status == "sent", DigestDelivery.c.message_ts.is_not(None))
        sent = select(func.max(DigestDelivery.c.sent_at)).where(*mine, *posted).scalar_subquery()
        then = select(func.max(CatalogVersion.c.first_seen_at)).where(CatalogVersion.c.first_seen_at <= sent)
        return newest_version(
            self._scalars(
                select(CatalogVersion.c.version).where(CatalogVersion.c.first_seen_at == then.scalar_subquery())
            )
        )

    def latest_catalog_version(self) -> str | None:
        """The most recently first-seen catalog version, or None; ties go by CalVer (``newest_version``)."""
        newest = select(func.max(CatalogVersion.c.first_seen_at)).scalar_subquery()
        versions = self._scalars(select(CatalogVersion.c.version).where(CatalogVersion.c.first_seen_at == newest))
        return newest_version(versions)

    def record_event(self, event_id: str, team: str) -> bool:
        """Remember a Slack event id: True the first time only (race-safe); handle the event only then.
        Slack retries a delivery within minutes."""
        check_id(event_id, "event_id"), check_id(team, "team")
        return self._insert_new(ProcessedEvent, event_id=event_id, team_id=team, received_at=self._now())

    def prune_events(self, before: datetime, batch: int = 1000) -> int:
        """Forget the event ids received before ``before`` (aware): ``batch`` rows per transaction, so
        that no call holds the write lock long (SQLite has one for the whole file). Returns the count."""
        check_aware(before, "before")
        if batch < 1:
            raise ValueError(f"batch must be at least 1, got {batch!r}")
        old = select(ProcessedEvent.c.event_id).where(ProcessedEvent.c.received_at < before).limit(batch)
        stmt = delete(ProcessedEvent).where(ProcessedEvent.c.event_id.in_(old.scalar_subquery()))
        total = 0
        while (deleted := self._change(stmt)) > 0:
            total += deleted
            if deleted < batch:
                break
        return total

    def team_reads(self, team: str) -> list[tuple[str, str, datetime]]:
        """Every read of ``team``: ``(user id, post id as stored, read_at UTC)``, oldest first."""
        check_id(team, "team")
        stmt = select(ReadingProgress.c.user_id, ReadingProgress.c.post_id, ReadingProgress.c.read_at)
        stmt = stmt.where(ReadingProgress.c.team_id == team).order_by(
            ReadingProgress.c.read_at, ReadingProgress.c.user_id
        )
        return [(u, p, at) for u, p, at in self._rows(stmt)]

    def team_follows(self, team: str) -> list[tuple[str, str, datetime]]:
        """Every follow of ``team``: ``(user id, track id, followed_at UTC)``, oldest first (an
        unfollow deletes its row, so only current follows are here)."""
        check_id(team, "team")
        stmt = select(TrackFollow.c.user_id, TrackFollow.c.track_id, TrackFollow.c.followed_at)
        stmt = stmt.where(TrackFollow.c.team_id == team).order_by(TrackFollow.c.followed_at, TrackFollow.c.user_id)
        return [(u, t, at) for u, t, at in self._rows(stmt)]

    def delivery_counts(self, team: str, since: datetime) -> list[tuple[str, str, int]]:
        """Ledger rows of ``team`` claimed since ``since`` (aware) by destination and outcome:
        ``(destination channel or user id, 'sent' | 'skipped' | 'failed' | 'claimed', count)``
        (a period settled without posting is ``skipped``)."""
        check_id(team, "team")
        rows = self._rows(
            select(DigestDelivery.c.destination, DigestDelivery.c.status, _SKIPPED, func.count())
            .where(DigestDelivery.c.team_id == team, DigestDelivery.c.claimed_at >= since)
            .group_by(DigestDelivery.c.destination, DigestDelivery.c.status, _SKIPPED)
        )
        return [(d, _outcome(st, sk), int(n)) for d, st, sk, n in rows]

    def operator_totals(self) -> tuple[dict[str, int], dict[str, int]]:
        """Counts for operators' metrics, all workspaces: ledger rows by outcome (``sent``,
        ``skipped``, ``failed``, ``claimed``) and channel subscriptions by status."""
        deliveries: dict[str, int] = {}
        with self._read() as s:
            stmt = select(DigestDelivery.c.status, _SKIPPED, func.count()).group_by(DigestDelivery.c.status, _SKIPPED)
            for status, skipped, n in s.execute(stmt):
                outcome = _outcome(status, skipped)
                deliveries[outcome] = deliveries.get(outcome, 0) + int(n)
            by_status = select(ChannelSubscription.c.status, func.count()).group_by(ChannelSubscription.c.status)
            subs = {status: int(n) for status, n in s.execute(by_status)}
        return deliveries, subs


_SKIPPED = func.coalesce(DigestDelivery.c.error, "").like("skipped:%")
"""Whether a ledger row was settled without posting (:meth:`bot.store.Store.skip_delivery`)."""


def _outcome(status: str, skipped: bool) -> str:
    return "skipped" if skipped and status == "sent" else status
