"""Slack event de-duplication: remember each ``event_id`` once, forget old ones."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete

from bot.store.base import StoreCore, changed
from bot.store.models import ProcessedEvent
from bot.store.validate import check_id


class EventsRepo(StoreCore):
    """Processed Slack event ids (Slack retries a delivery within minutes)."""

    def record_event(self, event_id: str, team: str) -> bool:
        """Remember a Slack event id. True the first time only (concurrency-safe via the
        primary key): handle the event only when this returns True."""
        check_id(event_id, "event_id"), check_id(team, "team")
        return self._insert_new(ProcessedEvent, event_id=event_id, team_id=team, received_at=self._now())

    def prune_events(self, older_than_s: float = 86_400) -> int:
        """Forget event ids received more than ``older_than_s`` seconds ago (Slack retries
        within minutes). Returns how many were deleted."""
        cutoff = self._now() - timedelta(seconds=older_than_s)
        stmt = (
            delete(ProcessedEvent)
            .where(ProcessedEvent.received_at < cutoff)
            .execution_options(synchronize_session=False)
        )
        with self._write() as s:
            return changed(s, stmt)
