"""Workspace-wide reading facts for admins' insights (raw rows; :mod:`bot.domain.insights` counts)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select

from bot.store.base import StoreCore
from bot.store.models import ChannelSubscription, DigestDelivery, ReadingProgress
from bot.store.validate import check_id


class InsightsRepo(StoreCore):
    """Per-team reads and delivery outcomes (never across teams)."""

    def team_reads(self, team: str) -> list[tuple[str, str, datetime]]:
        """Every read of ``team``: ``(user id, post id as stored, read_at UTC)``, oldest first."""
        check_id(team, "team")
        stmt = select(ReadingProgress.user_id, ReadingProgress.post_id, ReadingProgress.read_at)
        stmt = stmt.where(ReadingProgress.team_id == team).order_by(ReadingProgress.read_at, ReadingProgress.user_id)
        with self._read() as s:
            return [(u, p, at) for u, p, at in s.execute(stmt)]

    def delivery_counts(self, team: str, since: datetime) -> list[tuple[str, str, int]]:
        """Ledger rows of ``team`` claimed since ``since`` (aware) by destination and outcome:
        ``(destination channel or user id, 'sent' | 'skipped' | 'failed' | 'claimed', count)``
        (a period settled without posting is ``skipped``)."""
        check_id(team, "team")
        with self._read() as s:
            rows = s.execute(
                select(DigestDelivery.destination, DigestDelivery.status, _SKIPPED, func.count())
                .where(DigestDelivery.team_id == team, DigestDelivery.claimed_at >= since)
                .group_by(DigestDelivery.destination, DigestDelivery.status, _SKIPPED)
            )
            return [(d, _outcome(st, sk), int(n)) for d, st, sk, n in rows]

    def operator_totals(self) -> tuple[dict[str, int], dict[str, int]]:
        """Counts for operators' metrics, all workspaces: ledger rows by outcome (``sent``,
        ``skipped``, ``failed``, ``claimed``) and channel subscriptions by status."""
        deliveries: dict[str, int] = {}
        with self._read() as s:
            stmt = select(DigestDelivery.status, _SKIPPED, func.count()).group_by(DigestDelivery.status, _SKIPPED)
            for status, skipped, n in s.execute(stmt):
                outcome = _outcome(status, skipped)
                deliveries[outcome] = deliveries.get(outcome, 0) + int(n)
            by_status = select(ChannelSubscription.status, func.count()).group_by(ChannelSubscription.status)
            subs = {status: int(n) for status, n in s.execute(by_status)}
        return deliveries, subs


_SKIPPED = func.coalesce(DigestDelivery.error, "").like("skipped:%")
"""Whether a ledger row was settled without posting (:meth:`bot.store.Store.skip_delivery`)."""


def _outcome(status: str, skipped: bool) -> str:
    return "skipped" if skipped and status == "sent" else status
