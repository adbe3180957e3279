"""The numbers ``reminders cancel <n>`` counts: a reminder keeps its number while one before it is
cancelled, until the cancelled one's day has passed (QA: ``reminders cancel 1`` sent twice cancelled
two reminders, the list being numbered again after the first). Numbers follow the order reminders
were set (the store's row ids), not their days, so a reminder set later never takes the number of
one cancelled before it (QA round 7: ``remind p-eagle tomorrow``, ``reminders cancel 1``, ``remind
spec-decode tomorrow`` listed spec-decode as 1)."""

from __future__ import annotations

from typing import Any

from bot.store.snapshots import Reminder


def numbered(store: Any, team: str, user: str) -> tuple[list[Reminder], list[int], list[Reminder]]:
    """``(pending reminders soonest first, the number of each, every numbered reminder in order)``:
    the numbered ones are the pending reminders (already due, about to be sent, or to come) and the
    cancelled ones still to come (``store.reminder_slots``), in the order they were set (row id: a
    moved reminder keeps its row, so its number); a cancelled one (the latest of its post) keeps its
    place, unlisted, until its post has a pending reminder again, which takes that place.
    ``store``: a :class:`bot.store.Store` (or one with its interface)."""
    pending: list[Reminder] = store.reminders(team, user)
    every: list[Reminder] = store.reminder_slots(team, user)
    last = {r.post_id: r.id for r in sorted(every, key=lambda r: r.id) if r.status != "pending"}
    again = {r.post_id for r in pending}  # a cancelled one set again: no number of its own
    slots = [r for r in every if r.status == "pending" or (r.post_id not in again and last[r.post_id] == r.id)]
    coming = {r.id for r in slots}
    first: dict[str, int] = {}
    for r in sorted(every, key=lambda r: r.id):  # a post set again takes back its cancelled one's place
        first.setdefault(r.post_id, r.id)
    order = sorted([r for r in pending if r.id not in coming] + slots, key=lambda r: first.get(r.post_id, r.id))
    place = {r.id: i for i, r in enumerate(order, 1)}
    return pending, [place[r.id] for r in pending], order
