"""Send the reminders that are due: a DM to each reader at 09:00 their time, once; and the one
gentle nudge to a reader two weeks behind their own plan (issue 44), at most once a fortnight.

The clock calls :func:`send_due_reminders` from an interval job (and at start). Each send is first
claimed in the delivery ledger (:func:`ledger_key`), so it is never sent twice; a nudge is claimed
in the reader's habit row (:meth:`bot.store.Store.claim_nudge`).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING

from slack_sdk.errors import SlackApiError

from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.plan import reader_week
from bot.domain.schedule import period_of
from bot.domain.streaks import NUDGE_BEHIND, NUDGE_EVERY, behind_since, lower_budget, streak
from bot.runtime import Runtime
from bot.store.snapshots import Reminder
from bot.store.subscriptions import dm_lang

if TYPE_CHECKING:
    from bot.digest.deliver import Deliverer

log = logging.getLogger(__name__)


def ledger_key(reminder: Reminder) -> tuple[str, str, str, str]:
    """The reminder's ledger key: (team, user, ``reminder-<id>``, ISO week of its due day)."""
    return (
        reminder.team_id,
        reminder.user_id,
        f"reminder-{reminder.id}",
        period_of(reminder.due_at, reminder.timezone),
    )


def send_due_reminders(runtime: Runtime, deliverer: Deliverer, now: datetime) -> int:
    """Send every pending reminder due at ``now`` (aware) with ``deliverer``'s clients, pacer and
    claimant; returns how many DMs were sent. Slack errors are logged and the claim marked failed
    (retried on a later run), not raised."""
    store = runtime.store
    catalog = runtime.holder.catalog
    sent = 0
    for reminder in store.due_reminders(now):
        key = ledger_key(reminder)
        if not store.claim_delivery(*key, claimed_by=deliverer.claimant):
            done = store.delivery(*key)
            if done is not None and done.status == "sent":
                store.mark_reminder_sent(reminder.id)  # sent before a crash: settle the row
            continue
        post_id = catalog.resolve_post_id(reminder.post_id)
        if post_id is None:
            store.mark_skipped(*key, reason="post no longer in the catalog", claimed_by=deliverer.claimant)
            store.mark_reminder_sent(reminder.id)
            continue
        client = deliverer.clients.for_team(reminder.team_id)
        if client is None:
            store.mark_failed(*key, error="no_token", claimed_by=deliverer.claimant)
            continue
        # the person's chosen language, else the one their `remind` was in (QA), else English
        lang = store.get_lang(reminder.team_id, reminder.user_id) or reminder.lang or "en"
        reply = runtime.renderer.reminder(catalog, post_id, lang)
        try:
            opened = client.conversations_open(users=reminder.user_id)
            channel = (opened.get("channel") or {}).get("id")
            if not channel:
                raise RuntimeError("conversations.open returned no channel id")
            with deliverer.pacer.slot(reminder.team_id, reminder.user_id):
                resp = client.chat_postMessage(
                    channel=channel, text=reply.text, blocks=reply.blocks, unfurl_links=False, unfurl_media=False
                )
        except SlackApiError as exc:
            log.warning("reminder %s: Slack error %s", reminder.id, exc.response.get("error"))
            store.mark_failed(*key, error=str(exc.response.get("error"))[:1000], claimed_by=deliverer.claimant)
            continue
        except Exception as exc:
            log.exception("reminder %s failed", reminder.id)
            store.mark_failed(*key, error=type(exc).__name__, claimed_by=deliverer.claimant)
            continue
        store.mark_sent(*key, message_ts=resp.get("ts"), claimed_by=deliverer.claimant)
        store.mark_reminder_sent(reminder.id)
        sent += 1
    return sent


def send_nudges(runtime: Runtime, deliverer: Deliverer, now: datetime) -> int:
    """DM each reader with a plan (:meth:`bot.store.Store.planners`: following, a weekly DM on or a
    budget of their own, never after ``dm off``) who missed :data:`~bot.domain.streaks.NUDGE_BEHIND`
    weeks in a row before ``now`` (aware) one gentle nudge offering a lighter budget or a pause: one
    per fall behind (none again until they have kept a week), at most once in
    :data:`~bot.domain.streaks.NUDGE_EVERY`. Returns how many were sent. Claimed before
    it is posted; a post Slack refuses is logged and not retried (the next one comes a fortnight later)."""
    store, catalog = runtime.store, runtime.holder.catalog
    plan, sent = reader_week(catalog), 0
    for team, user in store.planners():
        facts = store.habit_facts(team, user)
        if facts.dm_off or (facts.nudged_at is not None and now - facts.nudged_at < NUDGE_EVERY):
            continue
        budget = facts.budget or DEFAULT_MINUTES
        zone = facts.timezone  # their weeks start on Monday in their own time zone
        behind = streak(catalog, facts.reads, facts.follows, budget, facts.pauses, now, plan=plan, zone=zone).behind
        since = behind_since(now, behind, zone)
        if behind < NUDGE_BEHIND or (facts.nudged_at is not None and facts.nudged_at >= since):
            continue  # keeping up, or nudged already since they fell behind: one nudge per fall
        client = deliverer.clients.for_team(team)
        if client is None or not store.claim_nudge(team, user, now, NUDGE_EVERY):
            continue
        dm = store.get_dm(team, user)  # the language of their weekly DM's set-up, as the DM itself (QA)
        lang = dm_lang(store.get_lang(team, user), dm.lang if dm is not None else None)
        reply = runtime.renderer.nudge(budget, lower_budget(budget), lang)
        try:
            with deliverer.pacer.slot(team, user):
                client.chat_postMessage(
                    channel=user, text=reply.text, blocks=reply.blocks, unfurl_links=False, unfurl_media=False
                )
        except Exception as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else type(exc).__name__
            log.warning("a nudge to a reader of team %s was not sent: %s", team, error)
            continue
        sent += 1
    return sent
