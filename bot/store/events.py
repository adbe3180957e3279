"""Slack event de-duplication: remember each ``event_id`` once."""

from __future__ import annotations

from bot.store.base import StoreCore
from bot.store.models import ProcessedEvent
from bot.store.validate import check_id


class EventsRepo(StoreCore):
    """Processed Slack event ids (Slack retries a delivery within minutes)."""

    def record_event(self, event_id: str, team: str) -> bool:
        """Remember a Slack event id: True the first time only (race-safe); handle the event only then."""
        check_id(event_id, "event_id"), check_id(team, "team")
        return self._insert_new(ProcessedEvent, event_id=event_id, team_id=team, received_at=self._now())
