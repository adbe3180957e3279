"""Slack event de-duplication: remember each ``event_id`` once, forget it once no retry can come."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select

from bot.store.base import StoreCore
from bot.store.models import ProcessedEvent
from bot.store.validate import check_aware, check_id


class EventsRepo(StoreCore):
    """Processed Slack event ids (Slack retries a delivery within minutes)."""

    def record_event(self, event_id: str, team: str) -> bool:
        """Remember a Slack event id: True the first time only (race-safe); handle the event only then."""
        check_id(event_id, "event_id"), check_id(team, "team")
        return self._insert_new(ProcessedEvent, event_id=event_id, team_id=team, received_at=self._now())

    def prune_events(self, before: datetime, batch: int = 1000) -> int:
        """Forget the event ids received before ``before`` (aware): ``batch`` rows per transaction, so
        that no call holds the write lock long (SQLite has one for the whole file). Returns the count."""
        check_aware(before, "before")
        if batch < 1:
            raise ValueError(f"batch must be at least 1, got {batch!r}")
        old = select(ProcessedEvent.event_id).where(ProcessedEvent.received_at < before).limit(batch)
        stmt = delete(ProcessedEvent).where(ProcessedEvent.event_id.in_(old.scalar_subquery()))
        total = 0
        while (deleted := self._change(stmt)) > 0:
            total += deleted
            if deleted < batch:
                break
        return total
