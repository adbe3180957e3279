"""Channel subscriptions: which channel gets which track's digest, when, and how far along."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from bot.domain.schedule import WeeklySchedule
from bot.store.base import StoreCore, changed, update_row
from bot.store.models import ChannelSubscription
from bot.store.snapshots import Subscription, snapshot
from bot.store.validate import check_id, check_reason, check_steps, schedule_columns


def set_cursor_in(s: Session, id: int, cursor: int, catalog_version: str | None, now: datetime) -> bool:
    """In ``s``: set ``id``'s cursor, ``updated_at`` and (unless None) ``catalog_version``; False if no such row."""
    values: dict[str, Any] = {"cursor": cursor, "updated_at": now}
    if catalog_version is not None:
        values["last_catalog_version"] = catalog_version
    return changed(s, update(ChannelSubscription).where(ChannelSubscription.id == id).values(**values)) > 0


class SubscriptionsRepo(StoreCore):
    """Channel subscriptions, keyed by (team, channel, track id) and by row id."""

    def subscribe(
        self,
        team: str,
        channel: str,
        track: str,
        schedule: WeeklySchedule,
        steps_per_week: int = 1,
        created_by: str | None = None,
    ) -> Subscription:
        """Subscribe ``channel`` to ``track``: ``steps_per_week`` (1..3) steps on ``schedule``.
        Re-subscribing updates the schedule and reactivates a paused subscription, keeping its
        cursor (identical arguments change nothing). Returns the subscription. Raises ValueError
        for bad arguments."""
        check_id(team, "team"), check_id(channel, "channel"), check_id(track, "track")
        values = {**schedule_columns(schedule), "steps_per_week": check_steps(steps_per_week)}
        now = self._now()
        key = _key(team, channel, track)
        insert = (
            self._insert(ChannelSubscription)
            .values(**key, **values, cursor=0, status="active", created_by=created_by, created_at=now, updated_at=now)
            .on_conflict_do_nothing()
            .returning(ChannelSubscription.id)
        )
        with self._write() as s:
            new_id = s.execute(insert).scalar()
            row = s.execute(select(ChannelSubscription).filter_by(**key).with_for_update()).scalar_one()
            if new_id is None:
                if row.status != "active" or row.pause_reason is not None:
                    values.update(status="active", pause_reason=None)
                update_row(s, row, values, now)
            return snapshot(Subscription, row)

    def unsubscribe(self, team: str, channel: str, track: str) -> bool:
        """Delete the subscription. True if there was one. Its ledger rows are kept."""
        return self._change(delete(ChannelSubscription).filter_by(**_key(team, channel, track))) > 0

    def subscriptions(self, team: str, channel: str | None = None) -> list[Subscription]:
        """The team's subscriptions (any status; or only ``channel``'s), by channel then track."""
        stmt = select(ChannelSubscription).where(ChannelSubscription.team_id == team)
        if channel is not None:
            stmt = stmt.where(ChannelSubscription.channel_id == channel)
        stmt = stmt.order_by(ChannelSubscription.channel_id, ChannelSubscription.track_id)
        with self._read() as s:
            return [snapshot(Subscription, r) for r in s.scalars(stmt)]

    def get_subscription(self, id: int, team: str | None = None) -> Subscription | None:
        """The subscription ``id``, or None; with ``team``, None also when it is another team's."""
        with self._read() as s:
            row = s.get(ChannelSubscription, id)
            if row is None or (team is not None and row.team_id != team):
                return None
            return snapshot(Subscription, row)

    def active_subscriptions(self) -> list[Subscription]:
        """Active subscriptions of every team, ordered by team, channel, track."""
        stmt = select(ChannelSubscription).where(ChannelSubscription.status == "active")
        stmt = stmt.order_by(ChannelSubscription.team_id, ChannelSubscription.channel_id, ChannelSubscription.track_id)
        with self._read() as s:
            return [snapshot(Subscription, r) for r in s.scalars(stmt)]

    def pause_subscription(self, id: int, reason: str) -> bool:
        """Pause with a visible ``reason`` (e.g. ``'channel archived'``). True if it exists."""
        values = {"status": "paused", "pause_reason": check_reason(reason), "updated_at": self._now()}
        return self._change(update(ChannelSubscription).where(ChannelSubscription.id == id).values(**values)) > 0


def _key(team: str, channel: str, track: str) -> dict[str, Any]:
    return {"team_id": team, "channel_id": channel, "track_id": track}
