"""The numbers ``reminders cancel <n>`` counts: a reminder keeps its number while one before it is
cancelled, until the cancelled one's day has passed (QA: ``reminders cancel 1`` sent twice cancelled
two reminders, the list being numbered again after the first)."""

from __future__ import annotations

from typing import Any

from bot.store.snapshots import Reminder


def numbered(store: Any, team: str, user: str) -> tuple[list[Reminder], list[int], list[Reminder]]:
    """``(pending reminders soonest first, the number of each, every numbered reminder in order)``:
    the numbered ones are the pending reminders already due (about to be sent) then those to come,
    pending or cancelled (``store.reminder_slots``); a cancelled one (the latest of its post) keeps its
    place, unlisted, until its post has a pending reminder again.
    ``store``: a :class:`bot.store.Store` (or one with its interface)."""
    pending: list[Reminder] = store.reminders(team, user)
    every: list[Reminder] = store.reminder_slots(team, user)
    last = {r.post_id: r.id for r in sorted(every, key=lambda r: r.id) if r.status != "pending"}
    again = {r.post_id for r in pending}  # a cancelled one set again: no number of its own
    slots = [r for r in every if r.status == "pending" or (r.post_id not in again and last[r.post_id] == r.id)]
    coming = {r.id for r in slots}
    order = [r for r in pending if r.id not in coming] + slots
    place = {r.id: i for i, r in enumerate(order, 1)}
    return pending, [place[r.id] for r in pending], order
