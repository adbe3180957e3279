"""A queue message's DM digests as one batch in its worker thread (``digest.send_dms``, issue 43).

:func:`deliver_dms` keeps every rule of :meth:`bot.digest.deliver.Deliverer.deliver_dm` (claim
before the post, record after it, a take-over looks for an earlier post, a killed worker loses
nothing) with one statement where a DM each cost a statement or a hand-off to a flusher thread:
the people's facts read at once (:meth:`bot.store.ledger_batch.BatchedLedgerStore.dm_reads_many`),
the batch's keys claimed at once (``claim_many``), the claimed DMs composed, then posted as
their pacer turns come (:meth:`bot.digest.pacing.SendPacer.each_in_turn`: one store call books
the turns of every send, the thread sleeping until each), and the sent and skipped marks written
at once at the end (``mark_many``).
A claim that grew older than the deliverer's ``renew_after_s`` before its post is renewed
together with the batch's other claims not yet sent (one statement). On a store without those
methods (the plain :class:`bot.store.Store`) each is the store's call per DM.

A speed layer, needed by ``benchmarks/fanout_queue.py`` (issue 43, worker CPU per DM: 1.7-2.2 ms
with each DM claimed, read and recorded through the flusher threads and paced on its own, about
1.2-1.4 ms batched, 20,000 DMs at load 10-17).
Times are aware datetimes; durations seconds.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from bot.digest.deliver import Attempt, Key, Outcome, period_over
from bot.digest.render import Message
from bot.domain.schedule import period_of
from bot.store import DM_TRACK, Delivery
from bot.store.dm_reads import DmReads, read_one

if TYPE_CHECKING:
    from bot.digest.deliver import Deliverer

Mark = tuple[str, Key, str | None]
"""A ledger mark written at the batch's end: ``'sent'`` or ``'skipped'``, the key, the ts or the reason."""

Item = tuple[str, str, datetime]
"""A DM digest of a batch: (team, user, fire), ``fire`` aware."""


def deliver_dms(deliverer: Deliverer, items: Sequence[Item], *, drop_expired: bool = False) -> list[Attempt]:
    """Deliver the DM digests ``items`` as :meth:`Deliverer.deliver_dm` would each (their attempts
    in the same order), in one batch: never raises for Slack's errors; raises the database's when
    reading or claiming fails (nothing was posted then) or when writing the marks fails (the posts
    are then found in their histories by the take-over of those claims)."""
    store = deliverer.store
    people = [(team, user) for team, user, _fire in items]
    reads = getattr(store, "dm_reads_many", None)
    facts: dict[tuple[str, str], DmReads] = reads(people) if reads else {p: read_one(store, *p) for p in people}
    attempts: list[Attempt | None] = [None] * len(items)
    wanted: dict[Key, int] = {}
    for i, (team, user, fire) in enumerate(items):
        dm = facts[(team, user)].dm
        if dm is None or not dm.enabled or dm.status != "active":
            attempts[i] = Attempt(Outcome.INACTIVE)
            continue
        key = (team, user, DM_TRACK, period_of(fire, dm.timezone))
        if drop_expired and period_over(key[3], dm.timezone):
            attempts[i] = Attempt(Outcome.EXPIRED, key[3])
        elif dm.snoozed_until is not None and dm.snoozed_until > fire:
            store.skip_delivery(*key, reason="snoozed", claimed_by=deliverer.claimant)
            attempts[i] = Attempt(Outcome.SNOOZED, key[3])
        elif deliverer._stopping.is_set():
            attempts[i] = Attempt(Outcome.STOPPED, key[3])
        elif key in wanted:  # the same digest twice in a message: the second finds it taken
            attempts[i] = Attempt(Outcome.TAKEN, key[3])
        else:
            wanted[key] = i
    claimed = _claim(deliverer, list(wanted))
    batch = _Batch(deliverer, [key for key in wanted if key in claimed], time.monotonic())
    marks: list[Mark] = []
    ready: list[tuple[int, Key, Any, Message]] = []  # composed, not yet posted
    try:
        for key, i in wanted.items():
            if key not in claimed:
                attempts[i] = Attempt(Outcome.TAKEN, key[3])
                continue
            team, user, fire = items[i]
            what = f"DM digest for a user of team {team}"
            prepare = partial(_prepare, deliverer, i, items[i], key, facts[(team, user)], claimed[key], marks, ready)
            attempts[i] = deliverer._send_claimed(key, what, prepare, batch.at(key))
        batch.keep([key for _i, key, _client, _reply in ready])

        def post(j: int) -> None:
            i, key, client, reply = ready[j]
            send = partial(_post, deliverer, key, client, reply, marks)
            attempts[i] = deliverer._send_claimed(key, f"DM digest for a user of team {key[0]}", send, batch.at(key))
            batch.done(key)

        deliverer._local.renew = batch.renew
        deliverer.pacer.each_in_turn([(key[0], key[1]) for _i, key, _client, _reply in ready], post)
    finally:
        deliverer._local.renew = None
        _write_marks(deliverer, marks)
    return [a if a is not None else Attempt(Outcome.FAILED, error="not tried") for a in attempts]


_PREPARED = Attempt(Outcome.TAKEN)
"""What :func:`_prepare` answers for a DM left to post (replaced by the post's attempt)."""


def _prepare(
    deliverer: Deliverer,
    i: int,
    item: Item,
    key: Key,
    facts: DmReads,
    row: Delivery,
    marks: list[Mark],
    ready: list[tuple[int, Key, Any, Message]],
) -> Attempt:
    """Compose the claimed DM ``key`` and look for an earlier post (a take-over); leave it in
    ``ready`` to post (with ``i``, its place in the batch), or settle it (its mark in ``marks``)
    as :meth:`Deliverer.deliver_dm` would."""
    team, user, fire = item
    dm = facts.dm
    assert dm is not None
    client = deliverer.clients.for_team(team)
    if client is None:
        return deliverer._permanent(key, "no_token", None)
    reply = deliverer.compose_dm(team, user, dm.catchup, dm.lang, facts)
    if reply is None:
        marks.append(("skipped", key, "nothing to suggest"))
        return Attempt(Outcome.NOTHING, key[3])
    try:
        found = deliverer._find_earlier(client, user, key, fire, row)
    except Exception as exc:
        return deliverer._refused(key, exc, None)
    if found is not None:
        marks.append(("sent", key, found))
        return Attempt(Outcome.RECOVERED, key[3], ts=found)
    ready.append((i, key, client, reply))
    return _PREPARED


def _post(deliverer: Deliverer, key: Key, client: Any, reply: Message, marks: list[Mark]) -> Attempt:
    """Post the claimed DM ``key`` in its pacer turn; its sent mark left in ``marks``."""
    try:
        resp = deliverer.post_now(client, key, reply)
    except Exception as exc:
        return deliverer._refused(key, exc, None)
    if resp is None:
        return Attempt(Outcome.TAKEN, key[3])
    ts = resp.get("ts")
    marks.append(("sent", key, ts))
    return Attempt(Outcome.SENT, key[3], ts=ts)


def _claim(deliverer: Deliverer, keys: list[Key]) -> dict[Key, Delivery]:
    """Claim ``keys`` for ``deliverer`` (one statement when the store can); the claimed rows by key."""
    if not keys:
        return {}
    store, me = deliverer.store, deliverer.claimant
    many = getattr(store, "claim_many", None)
    if many is not None:
        rows: dict[Key, Delivery] = many(keys, me, deliverer.stale_after_s, deliverer.max_attempts)
        return rows
    out = {}
    for key in keys:
        if store.claim_delivery(
            *key, claimed_by=me, stale_after_s=deliverer.stale_after_s, max_attempts=deliverer.max_attempts
        ):
            row = store.delivery(*key)
            if row is not None:
                out[key] = row
    return out


def _write_marks(deliverer: Deliverer, marks: list[Mark]) -> None:
    """Write the batch's sent and skipped marks: one statement a kind when the store can."""
    store, me = deliverer.store, deliverer.claimant
    many = getattr(store, "mark_many", None)
    for kind in ("sent", "skipped"):
        these = [(key, value) for k, key, value in marks if k == kind]
        if not these:
            continue
        if many is not None:
            many(kind, these, me)
            continue
        for key, value in these:
            if kind == "sent":
                store.mark_sent(*key, message_ts=value, claimed_by=me)
            else:
                store.mark_skipped(*key, reason=value, claimed_by=me)


class _Batch:
    """The claims of a batch not yet sent, with the monotonic time each was made or last renewed."""

    def __init__(self, deliverer: Deliverer, keys: list[Key], claimed_at: float):
        self.deliverer = deliverer
        self._at = dict.fromkeys(keys, claimed_at)

    def at(self, key: Key) -> float:
        return self._at[key]

    def keep(self, keys: list[Key]) -> None:
        """Forget the claims but ``keys`` (those settled without a post need no renewal)."""
        self._at = {key: self._at[key] for key in keys}

    def done(self, key: Key) -> None:
        self._at.pop(key, None)

    def renew(self, key: Key) -> bool:
        """Renew ``key``'s claim and, in the same statement, those of the batch's other claims
        not yet sent (the deliverer's renewal hook); whether ``key``'s is still ours."""
        d = self.deliverer
        many = getattr(d.store, "mark_many", None)
        if many is None:
            return bool(d.store.renew_claim(*key, claimed_by=d.claimant))
        keys = list(dict.fromkeys([key, *self._at]))
        renewed: set[Key] = many("renew", [(k, None) for k in keys], d.claimant)
        now = time.monotonic()
        for k in keys:  # a claim lost keeps its old time: its own turn asks again and finds it taken
            if k in renewed and k in self._at:
                self._at[k] = now
        if key in renewed:
            d._claimed_at[key] = now
        return key in renewed
