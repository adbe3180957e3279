"""Digest delivery: the ledger claim, pacing under Slack's limits, sending, and Slack's errors.

One send (:meth:`Deliverer.deliver_subscription`, :meth:`Deliverer.deliver_dm`) goes:

1. **claim** the ledger key (team, destination, track or ``'*'``, ISO week) with
   :meth:`~bot.store.Store.claim_delivery`: exactly one caller in any number of processes wins;
   a ``'sent'`` key is never claimed again, a claim left by a crashed sender is taken over once it
   is ``stale_after_s`` old, a ``'failed'`` one while attempts remain.
2. if the claim is a take-over (attempt > 1), **look for the message** the earlier attempt may have
   posted before it died: digests carry Slack message metadata naming their ledger key, and
   ``conversations.history`` (``include_all_metadata``) finds it; if found, the key is marked sent
   without posting again. This needs the history scopes the manifest ships (``channels:history``,
   ``groups:history``, ``im:history``); an install without them skips the check with a warning,
   and a sender killed mid-request may then post that digest twice.
3. **compose** (the runtime's renderer, :class:`bot.digest.render.DigestRenderer`); nothing to
   say -> the key is settled as skipped.
4. **pace**: wait for a slot of the pacer (:mod:`bot.digest.pacing`: per destination and per
   workspace), then renew the claim (so a claim that waited is not taken over while it is sent)
   and **send** ``chat.postMessage`` (a DM with the person's user id as ``channel``: Slack posts
   it in the app's DM with them). 429s, 5xx and connection errors are retried inside slack-sdk by
   the retry handlers of :func:`bot.slack.app.make_client`, honouring ``Retry-After``; its 429
   handler is swapped for :class:`bot.digest.pacing.PacedRateLimitRetryHandler`, which also
   tells the pacer and queues the retry for a turn.
5. **record**: ``mark_sent`` (a channel digest's cursor and catalog version move in the same
   transaction); a permanent Slack error (:data:`PERMANENT_ERRORS`) pauses the subscription or DM
   with a visible reason and ends that digest (``mark_refused``: the code is stored and counted in
   ``/metrics`` as ``vllm_path_digest_refusals_total``); anything else (5xx, 429 after slack-sdk's
   retries, timeouts, connection and database errors) passes: ``mark_failed``, and the
   scheduler's catch-up (or Dramatiq) retries it with back-off, however many attempts it takes,
   until the digest's period (its ISO week) is over (``max_attempts`` defaults to
   :data:`bot.store.ledger.NO_ATTEMPT_LIMIT`).

Times are aware UTC datetimes; durations are seconds.
"""

from __future__ import annotations

import enum
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.digest.clients import Clients
from bot.digest.pacing import PacedRateLimitRetryHandler, Pacer, SendPacer, paced
from bot.domain.catalog import Catalog
from bot.domain.plan import plan_channel_digest
from bot.domain.schedule import period_of
from bot.logging_setup import slack_error
from bot.runtime import Runtime
from bot.store import DM_TRACK, Subscription
from bot.store.ledger import NO_ATTEMPT_LIMIT
from bot.web.urls import path_page_url

log = logging.getLogger(__name__)

METADATA_EVENT = "vllm_path_digest"
"""``metadata.event_type`` of every digest message; ``event_payload.key`` is its ledger key."""

PERMANENT_ERRORS: dict[str, str] = {
    "channel_not_found": (
        "the channel no longer exists, or it is private and the app is not in it: "
        "invite the app with /invite @vllm-path"
    ),
    "not_in_channel": "the app is not a member of the channel: invite it with /invite @vllm-path",
    "is_archived": "the channel is archived",
    "account_inactive": "the app's bot user is deactivated",
    "invalid_auth": "the app's token is not valid for this workspace",
    "token_revoked": "the app's token was revoked",
    "not_authed": "no token was accepted for this workspace",
    "missing_scope": "the app lacks a permission it needs (reinstall it)",
    "restricted_action": "the workspace does not allow the app to post there",
    "user_not_found": "the person is no longer in the workspace",
    "user_disabled": "the person's account is deactivated",
    "cannot_dm_bot": "that user is a bot",
    "user_not_visible": "the app cannot see this person (another organisation, or restricted)",
    "no_token": "the app has no token for this workspace (not installed)",
}
"""Slack error codes that no retry will fix, with the explanation shown as the pause reason."""


class Outcome(enum.Enum):
    """What one delivery attempt did."""

    SENT = "sent"
    RECOVERED = "recovered"  # an earlier attempt had posted it; recorded without posting again
    NOTHING = "nothing"  # nothing to say this week; the period is settled as skipped
    SNOOZED = "snoozed"  # the person snoozed their DM; settled as skipped
    TAKEN = "taken"  # another sender holds or finished this key
    PAUSED = "paused"  # a permanent Slack error paused it
    FAILED = "failed"  # retryable failure; recorded, retried later while attempts remain
    INACTIVE = "inactive"  # the subscription or DM no longer exists or is not active
    STOPPED = "stopped"  # not started: the process is shutting down; the next run sends it


def claimant_id() -> str:
    """A claimant name for the ledger: ``host:pid:random``."""
    return f"{socket.gethostname()[:80]}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


# --- delivery ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    """The result of one delivery: ``outcome``, the ledger ``period``, Slack's ``ts`` when sent,
    the Slack ``error`` code or exception name when it failed."""

    outcome: Outcome
    period: str | None = None
    ts: str | None = None
    error: str | None = None


class Deliverer:
    """Sends digests for a :class:`bot.runtime.Runtime` (its store and current catalog).

    ``clients``: a :class:`Clients` (default: from the runtime's settings); ``pacer``: shared by
    every send of the process; ``claimant``: this process's name in the ledger;
    ``stale_after_s``: age after which another sender's unfinished claim is taken over (longer
    than any one send with its retries); ``verify``: look for an earlier attempt's message before
    sending again after a take-over; ``renew_after_s``: the claim is renewed just before the
    send (so that a claim that waited for its turn is not taken over while it is sent) only
    when this process made it at least that many seconds earlier (monotonic clock); a younger
    claim is at least ``stale_after_s - renew_after_s`` from being stale, so skipping its renewal
    saves a ledger write per send without opening that window (0, the default: always renew).
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        clients: Clients | None = None,
        pacer: SendPacer | None = None,
        claimant: str | None = None,
        stale_after_s: float = 300.0,
        max_attempts: int = NO_ATTEMPT_LIMIT,
        verify: bool = True,
        renew_after_s: float = 0.0,
    ):
        if renew_after_s < 0 or (renew_after_s > 0 and renew_after_s >= stale_after_s):
            raise ValueError("renew_after_s must be 0 (always renew) or below stale_after_s")
        self.runtime = runtime
        self.clients = clients or Clients(runtime)
        self.pacer: SendPacer = pacer or Pacer()
        self.claimant = claimant or claimant_id()
        self.stale_after_s = stale_after_s
        self.max_attempts = max_attempts
        self.verify = verify
        self.renew_after_s = renew_after_s
        self._claimed_at: dict[tuple[str, str, str, str], float] = {}
        self._dm_channels: dict[tuple[str, str], str] = {}
        self._warned_history = False
        self._stopping = threading.Event()

    def stop_claiming(self) -> None:
        """Claim nothing more (graceful shutdown): sends already claimed go on to the end and are
        recorded; every later call returns :attr:`Outcome.STOPPED` without touching the ledger,
        so the next run's catch-up sends those digests."""
        self._stopping.set()

    @property
    def stopping(self) -> bool:
        """True once :meth:`stop_claiming` was called."""
        return self._stopping.is_set()

    @property
    def store(self) -> Any:
        return self.runtime.store

    # -- channel digests --

    def deliver_subscription(self, sub: Subscription | int, fire: datetime) -> Attempt:
        """Deliver the digest of subscription ``sub`` (or its id) for the week of ``fire`` (the
        scheduled time, aware). Never raises for Slack or network errors (they are recorded)."""
        if isinstance(sub, int):
            found: Subscription | None = self.store.get_subscription(sub)
            if found is None:
                return Attempt(Outcome.INACTIVE)
            sub = found
        if not sub.active:
            return Attempt(Outcome.INACTIVE)
        period = period_of(fire, sub.timezone)
        key = (sub.team_id, sub.channel_id, sub.track_id, period)
        if self.stopping:
            return Attempt(Outcome.STOPPED, period)
        if not self._claim(key):
            return Attempt(Outcome.TAKEN, period)
        try:
            return self._deliver_claimed_subscription(sub, fire, key)
        except Exception as exc:  # record and go on with the fan-out
            log.exception("digest for subscription %s (%s) failed", sub.id, period)
            self.store.mark_failed(*key, error=f"{type(exc).__name__}: {exc}"[:1000], claimed_by=self.claimant)
            return Attempt(Outcome.FAILED, period, error=type(exc).__name__)
        finally:
            self._claimed_at.pop(key, None)

    def _deliver_claimed_subscription(
        self, sub: Subscription, fire: datetime, key: tuple[str, str, str, str]
    ) -> Attempt:
        period = key[3]
        catalog = self.runtime.holder.catalog
        fresh = self.store.get_subscription(sub.id)  # the cursor as of the claim
        if fresh is None or not fresh.active:  # removed or paused meanwhile: release the claim
            self.store.mark_failed(*key, error="subscription no longer active", claimed_by=self.claimant)
            return Attempt(Outcome.INACTIVE, period)
        sub = fresh
        if not catalog.has_track(sub.track_id):
            return self._permanent(
                key, "track_removed", sub=sub, reason=f"the track {sub.track_id!r} is no longer in the catalog"
            )
        client = self.clients.for_team(sub.team_id)
        if client is None:
            return self._permanent(key, "no_token", sub=sub)
        found = self._find_earlier(client, sub.channel_id, key, fire)
        if found is not None:
            return self._finish_recovered(key, found, sub, catalog)
        snapshot = (
            self.store.catalog_snapshot(sub.last_catalog_version)
            if sub.last_catalog_version and sub.last_catalog_version != catalog.version
            else None
        )
        # A channel has no language of its own: the digest speaks the subscriber's.
        lang = (self.store.get_lang(sub.team_id, sub.created_by) if sub.created_by else None) or "en"
        digest = self.runtime.renderer.channel_digest(
            catalog, sub, snapshot, lang, page_url=path_page_url(self.runtime.settings, sub.track_id, lang)
        )
        if digest.reply is None:
            self.store.mark_skipped(*key, reason="nothing new in the track", claimed_by=self.claimant)
            return Attempt(Outcome.NOTHING, period)
        try:
            with self.pacer.slot(sub.team_id, sub.channel_id):
                if not self._still_ours(key):
                    return Attempt(Outcome.TAKEN, period)
                resp = client.chat_postMessage(
                    channel=sub.channel_id,
                    text=digest.reply.text,
                    blocks=digest.reply.blocks,
                    unfurl_links=False,
                    unfurl_media=False,
                    metadata=_metadata(key),
                )
        except SlackApiError as exc:
            return self._slack_error(key, exc, sub=sub)
        except Exception as exc:  # connection errors after retries, timeouts
            return self._failed(key, f"{type(exc).__name__}: {exc}")
        ts = resp.get("ts")
        self.store.mark_sent_at_cursor(
            *key,
            message_ts=ts,
            subscription_id=sub.id,
            cursor=digest.cursor,
            catalog_version=digest.version,
            claimed_by=self.claimant,
        )
        return Attempt(Outcome.SENT, period, ts=ts)

    def _finish_recovered(
        self, key: tuple[str, str, str, str], ts: str, sub: Subscription, catalog: Catalog
    ) -> Attempt:
        """An earlier attempt posted the digest: record it, moving the cursor as that digest did
        (the plan, :func:`bot.domain.plan.plan_channel_digest`, is deterministic for the same
        cursor and catalog)."""
        snapshot = (
            self.store.catalog_snapshot(sub.last_catalog_version)
            if sub.last_catalog_version and sub.last_catalog_version != catalog.version
            else None
        )
        plan = plan_channel_digest(catalog, sub, snapshot)
        self.store.mark_sent_at_cursor(
            *key,
            message_ts=ts,
            subscription_id=sub.id,
            cursor=plan.cursor,
            catalog_version=plan.version,
            claimed_by=self.claimant,
        )
        log.info("digest %s was already posted (ts %s) by an earlier attempt", "/".join(key), ts)
        return Attempt(Outcome.RECOVERED, key[3], ts=ts)

    # -- DM digests --

    def deliver_dm(self, team: str, user: str, fire: datetime) -> Attempt:
        """Deliver ``user``'s weekly DM for the week of ``fire`` (aware). Never raises for Slack
        or network errors."""
        dm = self.store.get_dm(team, user)
        if dm is None or not dm.enabled or dm.status != "active":
            return Attempt(Outcome.INACTIVE)
        period = period_of(fire, dm.timezone)
        key = (team, user, DM_TRACK, period)
        if dm.snoozed_until is not None and dm.snoozed_until > fire:
            self.store.skip_delivery(*key, reason="snoozed", claimed_by=self.claimant)
            return Attempt(Outcome.SNOOZED, period)
        if self.stopping:
            return Attempt(Outcome.STOPPED, period)
        if not self._claim(key):
            return Attempt(Outcome.TAKEN, period)
        try:
            return self._deliver_claimed_dm(team, user, fire, key)
        except Exception as exc:
            log.exception("DM digest for a user of team %s (%s) failed", team, period)
            self.store.mark_failed(*key, error=f"{type(exc).__name__}: {exc}"[:1000], claimed_by=self.claimant)
            return Attempt(Outcome.FAILED, period, error=type(exc).__name__)
        finally:
            self._claimed_at.pop(key, None)

    def _deliver_claimed_dm(self, team: str, user: str, fire: datetime, key: tuple[str, str, str, str]) -> Attempt:
        period = key[3]
        client = self.clients.for_team(team)
        if client is None:
            return self._permanent(key, "no_token", dm=(team, user))
        catalog = self.runtime.holder.catalog
        lang = self.store.get_lang(team, user) or "en"
        budget = self.store.get_budget(team, user)  # issue 24: the steps that fit their minutes
        reply = self.runtime.renderer.dm_digest(
            catalog, self.store.follows(team, user), self.store.read_posts(team, user), lang, minutes_per_week=budget
        )
        if reply is None:
            self.store.mark_skipped(*key, reason="nothing to suggest", claimed_by=self.claimant)
            return Attempt(Outcome.NOTHING, period)
        try:
            found = self._find_earlier(client, user, key, fire)
            if found is not None:
                self.store.mark_sent(*key, message_ts=found, claimed_by=self.claimant)
                return Attempt(Outcome.RECOVERED, period, ts=found)
            with self.pacer.slot(team, user):
                if not self._still_ours(key):
                    return Attempt(Outcome.TAKEN, period)
                # A user id as the channel posts to the app's DM with that person (one call
                # instead of conversations.open + chat.postMessage).
                resp = client.chat_postMessage(
                    channel=user,
                    text=reply.text,
                    blocks=reply.blocks,
                    unfurl_links=False,
                    unfurl_media=False,
                    metadata=_metadata(key),
                )
        except SlackApiError as exc:
            return self._slack_error(key, exc, dm=(team, user))
        except Exception as exc:
            return self._failed(key, f"{type(exc).__name__}: {exc}")
        ts = resp.get("ts")
        self.store.mark_sent(*key, message_ts=ts, claimed_by=self.claimant)
        return Attempt(Outcome.SENT, period, ts=ts)

    def _dm_channel(self, client: WebClient, team: str, user: str) -> str:
        cached = self._dm_channels.get((team, user))
        if cached:
            return cached
        resp = client.conversations_open(users=user)
        channel = (resp.get("channel") or {}).get("id")
        if not channel:
            raise RuntimeError("conversations.open returned no channel id")
        self._dm_channels[(team, user)] = channel
        return channel

    # -- helpers --

    def _claim(self, key: tuple[str, str, str, str]) -> bool:
        at = time.monotonic()
        claimed: bool = self.store.claim_delivery(
            *key, claimed_by=self.claimant, stale_after_s=self.stale_after_s, max_attempts=self.max_attempts
        )
        if claimed and self.renew_after_s > 0:
            self._claimed_at[key] = at
        return claimed

    def _still_ours(self, key: tuple[str, str, str, str]) -> bool:
        """Right before the send: True while this process holds the claim on ``key``, renewing
        it unless it is younger than ``renew_after_s`` (see the class docstring)."""
        at = self._claimed_at.pop(key, None)
        if at is not None and time.monotonic() - at < self.renew_after_s:
            return True
        renewed: bool = self.store.renew_claim(*key, claimed_by=self.claimant)
        return renewed

    def _find_earlier(
        self, client: WebClient, channel: str, key: tuple[str, str, str, str], fire: datetime
    ) -> str | None:
        """The ts of a digest message for ``key`` an earlier attempt posted, if this claim is a
        take-over and Slack shows one; None otherwise (or when history cannot be read).
        ``channel``: a channel id, or a user id for a DM (the IM is opened to read it)."""
        if not self.verify:
            return None
        row = self.store.delivery(*key)
        if row is None or row.attempts <= 1:
            return None
        if channel[:1] in ("U", "W"):  # a DM: its history is the IM's, opened only here
            channel = self._dm_channel(client, key[0], channel)
        oldest = min(fire, row.claimed_at) - timedelta(minutes=5)
        try:
            resp = client.conversations_history(
                channel=channel, oldest=f"{oldest.timestamp():.6f}", limit=200, include_all_metadata=True
            )
        except SlackApiError as exc:
            if not self._warned_history:
                self._warned_history = True
                log.warning(
                    "cannot read conversation history to check for an earlier post (%s); "
                    "a digest whose sender died mid-request may be posted twice (reinstall "
                    "the app with the manifest's history scopes)",
                    slack_error(exc.response),
                )
            return None
        except Exception:  # network: fall back to sending
            return None
        wanted = "/".join(key)
        for message in resp.get("messages") or []:
            meta = message.get("metadata") or {}
            if meta.get("event_type") == METADATA_EVENT and (meta.get("event_payload") or {}).get("key") == wanted:
                return message.get("ts")
        return None

    def _slack_error(
        self,
        key: tuple[str, str, str, str],
        exc: SlackApiError,
        *,
        sub: Subscription | None = None,
        dm: tuple[str, str] | None = None,
    ) -> Attempt:
        code = str(exc.response.get("error") or f"http_{exc.response.status_code}")
        if code in PERMANENT_ERRORS:
            return self._permanent(key, code, sub=sub, dm=dm, detail=slack_error(exc.response))
        return self._failed(key, slack_error(exc.response))

    def _permanent(
        self,
        key: tuple[str, str, str, str],
        code: str,
        *,
        sub: Subscription | None = None,
        dm: tuple[str, str] | None = None,
        reason: str | None = None,
        detail: str | None = None,
    ) -> Attempt:
        """Pause with a visible reason; ``detail`` (Slack's error with its ``messages``) goes to
        the ledger and the log, the reason people see stays short."""
        text = f"Slack error {code}: {PERMANENT_ERRORS[code]}" if reason is None else reason
        self.store.mark_refused(*key, code=code, detail=detail or text, claimed_by=self.claimant)
        if sub is not None:
            self.store.pause_subscription(sub.id, text)
            log.warning("subscription %s (channel %s) paused: %s", sub.id, key[1], detail or text)
        if dm is not None:
            self.store.pause_dm(dm[0], dm[1], text)
            log.warning("a DM digest of team %s paused: %s", dm[0], detail or text)
        return Attempt(Outcome.PAUSED, key[3], error=code)

    def _failed(self, key: tuple[str, str, str, str], error: str) -> Attempt:
        self.store.mark_failed(*key, error=error, claimed_by=self.claimant)
        log.warning("digest %s failed (retried with back-off until its week is over): %s", "/".join(key), error)
        return Attempt(Outcome.FAILED, key[3], error=error.split(":")[0].split(" (")[0])


def _metadata(key: Iterable[str]) -> dict[str, Any]:
    return {"event_type": METADATA_EVENT, "event_payload": {"key": "/".join(key)}}


__all__ = [
    "METADATA_EVENT",
    "PERMANENT_ERRORS",
    "Attempt",
    "Clients",
    "Deliverer",
    "Outcome",
    "PacedRateLimitRetryHandler",
    "Pacer",
    "claimant_id",
    "paced",
]
