"""Digest delivery: the ledger claim, pacing under Slack's limits, sending, and Slack's errors.

A send (:meth:`Deliverer.deliver_subscription`, :meth:`Deliverer.deliver_dm`) **claims** the
ledger key (team, destination, track or ``'*'``, ISO week; one claimant wins, a crashed sender's
claim is taken over once ``stale_after_s`` old); on a take-over **looks for the message** an
earlier attempt posted (digests carry metadata naming their key); **composes** (the runtime's
renderer; nothing to say: skipped); **paces** (:mod:`bot.digest.pacing`), renews the claim (unless
this sender made it less than ``renew_after_s`` ago) and **posts**; and **records**: sent, or a
permanent Slack error (:data:`PERMANENT_ERRORS`) pauses the subscription or DM with a visible
reason, or a failure retried until its ISO week is over.

Retries cost no extra calls (issue 42): a failure Slack answered (an error code, a 429, a 5xx) is
recorded as not posted (:data:`NOT_POSTED`), so the next attempt reads no history; the history is
read only after a take-over from a sender that died or whose request got no answer (a timeout).
A DM is posted to the user id; the IM id Slack answers is kept, so ``conversations.open`` runs at
most once per person and process, and only to read a history. A queue message for a digest whose
week is over is dropped without a Web API call (``drop_expired``, :attr:`Outcome.EXPIRED`).

Times are aware UTC datetimes; durations are seconds.
"""

from __future__ import annotations

import enum
import logging
import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.digest.clients import Clients
from bot.digest.pacing import Pacer, SendPacer
from bot.digest.render import Message
from bot.domain.catchup import catch_up
from bot.domain.plan import new_behind, plan_channel_digest
from bot.domain.schedule import period_of
from bot.logging_setup import outage_kind, slack_error
from bot.runtime import Runtime
from bot.store import DM_TRACK, Delivery, Subscription
from bot.store.dm_reads import DmReads
from bot.store.ledger import NO_ATTEMPT_LIMIT
from bot.store.subscriptions import dm_lang
from bot.web.urls import path_page_url

log = logging.getLogger(__name__)

Key = tuple[str, str, str, str]
"""A ledger key: (team, destination: channel or user id, track id or ``'*'``, ISO week)."""

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

DM_REASONS: dict[str, str] = {
    "account_inactive": "Slack says the account is deactivated (the person's, or the app's bot user)",
    "channel_not_found": "Slack found no DM with the person (deactivated, or no longer in the workspace)",
    "is_archived": "the DM with the person is archived (their account is deactivated)",
}
"""Pause reasons of a DM digest where :data:`PERMANENT_ERRORS`' speak of a channel or of the app."""

NOT_POSTED = " [attempt {n}: answered by Slack, not posted]"
"""Appended to a ledger error when Slack answered the attempt's post with an error (a refusal, a
429, a 5xx): the next attempt need not look for the digest in the channel's history."""
_NOT_POSTED_RE = re.compile(r" \[attempt (\d+): answered by Slack, not posted\]$")


def period_over(period: str, timezone: str | None, now: datetime | None = None) -> bool:
    """Whether ``now`` (aware; default: now) is past the ISO week ``period`` in ``timezone`` (None: never)."""
    if not timezone:
        return False
    return period_of(now or datetime.now(UTC), timezone) > period


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
    EXPIRED = "expired"  # its week is over (a stale queue message): dropped, nothing claimed or called
    STOPPED = "stopped"  # not started: the process is shutting down; the next run sends it


@dataclass(frozen=True)
class Attempt:
    """One delivery's result: ledger ``period``, Slack's ``ts`` when sent, the ``error`` code when
    failed, and the exception that made it fail (``cause``: what a retry is labelled by in the log)."""

    outcome: Outcome
    period: str | None = None
    ts: str | None = None
    error: str | None = None
    cause: BaseException | None = field(default=None, compare=False, repr=False)


class Deliverer:
    """Sends digests for a :class:`bot.runtime.Runtime` as ``claimant`` (``host:pid:random``).
    ``pacer``: shared by the process's sends; ``stale_after_s``: age at which another sender's claim
    is taken over (a claim is renewed just before its send, unless this sender made it less than
    ``renew_after_s`` ago: default a tenth of ``stale_after_s``; 0 renews always). Not renewing a
    fresh claim saves one of a DM's three ledger writes; needed by ``benchmarks/fanout_queue.py``
    (issue 43, worker and PostgreSQL CPU per DM)."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        clients: Clients | None = None,
        pacer: SendPacer | None = None,
        stale_after_s: float = 300.0,
        renew_after_s: float | None = None,
    ):
        self.runtime = runtime
        self.clients = clients or Clients(runtime)
        self.pacer: SendPacer = pacer or Pacer()
        self.claimant = f"{socket.gethostname()[:80]}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.stale_after_s = stale_after_s
        self.renew_after_s = stale_after_s / 10 if renew_after_s is None else renew_after_s
        self._claimed_at: dict[Key, float] = {}  # monotonic time of this sender's claims in progress
        self.max_attempts = NO_ATTEMPT_LIMIT
        self._dm_channels: dict[tuple[str, str], str] = {}
        self._snapshots: dict[str, dict[str, list[str]] | None] = {}  # a version's never changes
        self._warned_history = False
        self._stopping = threading.Event()
        self._local = threading.local()  # .renew: the current batch's renewal (bot.digest.dm_batch)

    def stop_claiming(self) -> None:
        """Claim nothing more (graceful shutdown): later calls return :attr:`Outcome.STOPPED`
        without touching the ledger; sends already claimed finish and are recorded."""
        self._stopping.set()

    @property
    def store(self) -> Any:
        return self.runtime.store

    def deliver_subscription(self, sub: Subscription | int, fire: datetime, *, drop_expired: bool = False) -> Attempt:
        """Deliver ``sub``'s (or its id's) digest for the week of ``fire`` (aware); never raises for Slack.
        ``drop_expired``: when that week is over, do nothing (:attr:`Outcome.EXPIRED`; a stale queue message)."""
        found: Subscription | None = self.store.get_subscription(sub) if isinstance(sub, int) else sub
        if found is None or not found.active:
            return Attempt(Outcome.INACTIVE)
        key = (found.team_id, found.channel_id, found.track_id, period_of(fire, found.timezone))
        if drop_expired and period_over(key[3], found.timezone):
            return Attempt(Outcome.EXPIRED, key[3])
        sub_id = found.id
        return self._claimed(
            key, f"digest for subscription {sub_id}", lambda: self._deliver_claimed_subscription(sub_id, fire, key)
        )

    def _deliver_claimed_subscription(self, sub_id: int, fire: datetime, key: Key) -> Attempt:
        period = key[3]
        catalog = self.runtime.holder.catalog
        sub = self.store.get_subscription(sub_id)  # the cursor as of the claim
        if sub is None or not sub.active:  # removed or paused meanwhile: release the claim
            self.store.mark_failed(*key, error="subscription no longer active", claimed_by=self.claimant)
            return Attempt(Outcome.INACTIVE, period)
        if not catalog.has_track(sub.track_id):
            reason = f"the track {sub.track_id!r} is no longer in the catalog"
            return self._permanent(key, "track_removed", sub, reason)
        client = self.clients.for_team(sub.team_id)
        if client is None:
            return self._permanent(key, "no_token", sub)
        found = self._find_earlier(client, sub.channel_id, key, fire)
        snapshot = (
            self.store.catalog_snapshot(sub.last_catalog_version)
            if sub.last_catalog_version and sub.last_catalog_version != catalog.version
            else None
        )
        # The digest keeps the language it was created in (rows from before: its creator's current one).
        lang = self.store.digest_lang(sub)
        if found is not None:  # move the cursor as that digest did (the plan is deterministic)
            plan = plan_channel_digest(catalog, sub, snapshot)
            ts, cursor, version, steps = found, plan.cursor, plan.version, plan.steps
        else:
            readers = self.store.club_readers_last(sub.id) if sub.club else None
            digest = self.runtime.renderer.channel_digest(
                catalog,
                sub,
                snapshot,
                lang,
                page_url=path_page_url(self.runtime.settings, sub.track_id, lang),
                readers=readers,
            )
            if digest.reply is None:
                self.store.mark_skipped(*key, reason="nothing new in the track", claimed_by=self.claimant)
                return Attempt(Outcome.NOTHING, period)
            try:
                resp = self._post(client, key, digest.reply)
            except Exception as exc:  # Slack's errors; connection errors after retries, timeouts
                return self._refused(key, exc, sub)
            if resp is None:
                return Attempt(Outcome.TAKEN, period)
            ts, cursor, version, steps = resp.get("ts"), digest.cursor, digest.version, digest.steps
        self.store.mark_sent_at_cursor(
            *key,
            message_ts=ts,
            subscription_id=sub.id,
            cursor=cursor,
            catalog_version=version,
            claimed_by=self.claimant,
        )
        if sub.club and ts:
            self._open_club_thread(client, sub, ts, steps, lang)
        if found is None:
            return Attempt(Outcome.SENT, period, ts=ts)
        log.info("digest %s was already posted (ts %s) by an earlier attempt", "/".join(key), ts)
        return Attempt(Outcome.RECOVERED, period, ts=ts)

    def _open_club_thread(
        self, client: WebClient, sub: Subscription, ts: str, steps: tuple[str, ...], lang: str
    ) -> None:
        """Issue 44: remember a reading club's digest ``ts`` with its ``steps`` (so a ✅ on it marks
        them read) and, the first time, post its discussion prompts in the digest's thread. A thread
        Slack refuses is logged, not retried (the digest itself was sent)."""
        if not steps or not self.store.record_club_digest(sub.team_id, sub.channel_id, ts, sub.id, steps):
            return
        message = self.runtime.renderer.club_thread(self.runtime.holder.catalog, steps, lang)
        try:
            with self.pacer.slot(sub.team_id, sub.channel_id):
                client.chat_postMessage(
                    channel=sub.channel_id,
                    thread_ts=ts,
                    text=message.text,
                    blocks=message.blocks,
                    unfurl_links=False,
                    unfurl_media=False,
                )
        except Exception as exc:
            error = slack_error(exc.response) if isinstance(exc, SlackApiError) else type(exc).__name__
            log.warning("the reading club thread of subscription %s was not opened: %s", sub.id, error)

    def deliver_dm(self, team: str, user: str, fire: datetime, *, drop_expired: bool = False) -> Attempt:
        """Deliver ``user``'s DM for the week of ``fire`` (aware); never raises for Slack errors.
        ``drop_expired``: when that week is over, do nothing (:attr:`Outcome.EXPIRED`; a stale queue message).
        It speaks the person's chosen language, else the one its ``dm on`` was in (``dm.lang``), else English."""
        dm = self.store.get_dm(team, user)
        if dm is None or not dm.enabled or dm.status != "active":
            return Attempt(Outcome.INACTIVE)
        period = period_of(fire, dm.timezone)
        if drop_expired and period_over(period, dm.timezone):
            return Attempt(Outcome.EXPIRED, period)
        key = (team, user, DM_TRACK, period)
        if dm.snoozed_until is not None and dm.snoozed_until > fire:
            self.store.skip_delivery(*key, reason="snoozed", claimed_by=self.claimant)
            return Attempt(Outcome.SNOOZED, period)
        what = f"DM digest for a user of team {team}"
        return self._claimed(key, what, lambda: self._deliver_claimed_dm(team, user, fire, key, dm.catchup, dm.lang))

    def _deliver_claimed_dm(
        self, team: str, user: str, fire: datetime, key: Key, catchup: bool = False, set_up_in: str | None = None
    ) -> Attempt:
        period = key[3]
        client = self.clients.for_team(team)
        if client is None:
            return self._permanent(key, "no_token", None)
        reply = self.compose_dm(team, user, catchup, set_up_in)
        if reply is None:
            self.store.mark_skipped(*key, reason="nothing to suggest", claimed_by=self.claimant)
            return Attempt(Outcome.NOTHING, period)
        try:
            found = self._find_earlier(client, user, key, fire)
            if found is not None:
                self.store.mark_sent(*key, message_ts=found, claimed_by=self.claimant)
                return Attempt(Outcome.RECOVERED, period, ts=found)
            resp = self._post(client, key, reply)
        except Exception as exc:
            return self._refused(key, exc, None)
        if resp is None:
            return Attempt(Outcome.TAKEN, period)
        ts = resp.get("ts")
        self.store.mark_sent(*key, message_ts=ts, claimed_by=self.claimant)
        return Attempt(Outcome.SENT, period, ts=ts)

    def compose_dm(
        self, team: str, user: str, catchup: bool, set_up_in: str | None, facts: DmReads | None = None
    ) -> Message | None:
        """``user``'s DM digest as of now (None: nothing to suggest), from ``facts`` (their reads,
        :mod:`bot.digest.dm_batch`) or the store's reads; ``set_up_in``: the language of their ``dm on``."""
        catalog = self.runtime.holder.catalog
        s = self.store  # the person's chosen language, else the one their `dm on` was in (QA), else English
        lang = dm_lang(facts.lang if facts else s.get_lang(team, user), set_up_in)
        budget = facts.budget if facts else s.get_budget(team, user)  # issue 24: the steps that fit their minutes
        follows = list(facts.follows) if facts else s.follows(team, user)
        read = set(facts.read) if facts else s.read_posts(team, user)
        # issue 41: posts added behind what they read since their last DM, named once
        last = facts.last_version if facts else s.version_of_last_dm(team, user)
        if last is not None and last != catalog.version and last not in self._snapshots:
            self._snapshots[last] = self.store.catalog_snapshot(last)
        new = new_behind(catalog, follows, read, self._snapshots.get(last or ""))  # None: nothing new
        # issue 44: `dm catchup on` adds what "catch me up" lists (read only for those who asked)
        missed = catch_up(catalog, follows, read, self.store.reading_since(team, user)) if catchup else None
        reply: Message | None = self.runtime.renderer.dm_digest(catalog, follows, read, lang, budget, new, missed)
        return reply

    def _claimed(self, key: Key, what: str, send: Callable[[], Attempt]) -> Attempt:
        """``send()`` once ``key`` is claimed (else STOPPED or TAKEN); an exception is a failure."""
        if self._stopping.is_set():
            return Attempt(Outcome.STOPPED, key[3])
        if not self.store.claim_delivery(
            *key, claimed_by=self.claimant, stale_after_s=self.stale_after_s, max_attempts=self.max_attempts
        ):
            return Attempt(Outcome.TAKEN, key[3])
        return self._send_claimed(key, what, send, time.monotonic())

    def _send_claimed(self, key: Key, what: str, send: Callable[[], Attempt], claimed_at: float) -> Attempt:
        """``send()`` for ``key``, claimed at ``claimed_at`` (monotonic); an exception is a failure."""
        self._claimed_at[key] = claimed_at
        try:
            return send()
        except Exception as exc:  # record and go on with the fan-out
            log.exception("%s (%s) failed", what, key[3])
            self.store.mark_failed(*key, error=f"{type(exc).__name__}: {exc}"[:1000], claimed_by=self.claimant)
            return Attempt(Outcome.FAILED, key[3], error=type(exc).__name__, cause=exc)
        finally:
            self._claimed_at.pop(key, None)

    def _post(self, client: WebClient, key: Key, message: Message) -> Any:
        """Post ``message`` to ``key[1]`` (a channel, or a user id: their DM with the app) in the
        pacer's turn, with metadata naming ``key``; None when the claim was lost meanwhile."""
        with self.pacer.slot(key[0], key[1]):
            return self.post_now(client, key, message)

    def post_now(self, client: WebClient, key: Key, message: Message) -> Any:
        """:meth:`_post` in the caller's pacer turn (:meth:`SendPacer.each_in_turn`); raises what slack-sdk raises."""
        if not self._still_ours(key):
            return None
        resp = client.chat_postMessage(
            channel=key[1],
            text=message.text,
            blocks=message.blocks,
            unfurl_links=False,
            unfurl_media=False,
            metadata={"event_type": METADATA_EVENT, "event_payload": {"key": "/".join(key)}},
        )
        landed = resp.get("channel")
        if _is_user(key[1]) and isinstance(landed, str) and landed:
            self._dm_channels[(key[0], key[1])] = landed  # the IM: no conversations.open to read it
        return resp

    def _still_ours(self, key: Key) -> bool:
        """True while the claim on ``key`` is ours: made by this sender less than ``renew_after_s``
        ago (nobody can take it over before ``stale_after_s``), else renewed now."""
        claimed = self._claimed_at.get(key)
        if claimed is not None and time.monotonic() - claimed < self.renew_after_s:
            return True
        group = getattr(self._local, "renew", None)  # a batch renews its claims not yet sent together
        if group is not None:
            return bool(group(key))
        renewed: bool = self.store.renew_claim(*key, claimed_by=self.claimant)
        return renewed

    def _dm_channel(self, client: WebClient, team: str, user: str) -> str:
        """The IM id of ``user``: the one a post or an earlier ``conversations.open`` answered, else
        opened now. Raises what ``conversations.open`` raises."""
        cached = self._dm_channels.get((team, user))
        if cached:
            return cached
        resp = client.conversations_open(users=user)
        channel: str | None = (resp.get("channel") or {}).get("id")
        if not channel:
            raise RuntimeError("conversations.open returned no channel id")
        self._dm_channels[(team, user)] = channel
        return channel

    def _find_earlier(
        self, client: WebClient, channel: str, key: Key, fire: datetime, row: Delivery | None = None
    ) -> str | None:
        """The ts of ``key``'s digest posted by an earlier attempt, when this claim is a take-over
        from an attempt that may have posted and the history of ``channel`` (a channel or user id)
        shows one; else None (``row``: the claimed row, when known). Raises a
        :data:`PERMANENT_ERRORS` refusal of ``conversations.open``."""
        row = row or self.store.delivery(*key)
        if row is None or row.attempts <= 1:
            return None
        if row.error is None:  # a batched claim's row carries no error: the database's does
            row = self.store.delivery(*key) or row
        if _answered(row.error, row.attempts - 1):
            return None  # Slack answered the previous attempt: it posted nothing
        if _is_user(channel):  # a DM: its history is the IM's
            try:
                channel = self._dm_channel(client, key[0], channel)
            except SlackApiError as exc:
                if str(exc.response.get("error")) in PERMANENT_ERRORS:
                    raise
                return None  # cannot look: send, as when the history cannot be read
            except Exception:
                return None
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
                ts: str | None = message.get("ts")
                return ts
        return None

    def _refused(self, key: Key, exc: Exception, sub: Subscription | None) -> Attempt:
        """Record a raised send: a permanent error pauses ``sub`` (None: the DM), else retried (a
        Slack answer recorded as :data:`NOT_POSTED`; anything else, a timeout say, may have posted)."""
        if not isinstance(exc, SlackApiError):
            return self._failed(key, f"{type(exc).__name__}: {exc}", cause=exc)
        code = str(exc.response.get("error") or f"http_{exc.response.status_code}")
        if code in PERMANENT_ERRORS:
            return self._permanent(key, code, sub, detail=slack_error(exc.response))
        return self._failed(key, slack_error(exc.response), cause=exc, answered=True)

    def _permanent(self, key: Key, code: str, sub: Subscription | None, reason: str = "", detail: str = "") -> Attempt:
        """Pause ``sub`` (None: the DM of ``key``) with a visible ``reason`` (default:
        :data:`PERMANENT_ERRORS`' for ``code``); ``detail`` goes to the ledger and the log."""
        explained = (DM_REASONS.get(code) if sub is None else None) or PERMANENT_ERRORS.get(code, "")
        text = reason or f"Slack error {code}: {explained}"
        self.store.mark_refused(*key, code=code, detail=detail or text, claimed_by=self.claimant)
        if sub is None:
            self.store.pause_dm(key[0], key[1], text)
            log.warning("a DM digest of team %s paused: %s", key[0], detail or text)
        else:
            self.store.pause_subscription(sub.id, text)
            log.warning("subscription %s (channel %s) paused: %s", sub.id, key[1], detail or text)
        return Attempt(Outcome.PAUSED, key[3], error=code)

    def _failed(self, key: Key, error: str, cause: BaseException | None = None, answered: bool = False) -> Attempt:
        """Record a retryable failure; ``answered``: Slack answered, so nothing was posted."""
        recorded = error[:900]
        if answered:
            row = self.store.delivery(*key)
            if row is not None:
                recorded += NOT_POSTED.format(n=row.attempts)
        self.store.mark_failed(*key, error=recorded, claimed_by=self.claimant)
        # a database or network outage: one warning for all of it (bot.logging_setup.OutageLog)
        outage = cause if cause is not None and not answered and outage_kind(cause) else None
        log.warning(
            "digest %s failed (retried with back-off until its week is over): %s", "/".join(key), error, exc_info=outage
        )
        return Attempt(Outcome.FAILED, key[3], error=error.split(":")[0].split(" (")[0], cause=cause)


def _is_user(destination: str) -> bool:
    """Whether a destination is a user id (their DM with the app), not a channel."""
    return destination[:1] in ("U", "W")


def _answered(error: str | None, attempt: int) -> bool:
    """Whether the ledger ``error`` says Slack answered attempt number ``attempt`` (nothing posted)."""
    found = _NOT_POSTED_RE.search(error or "")
    return found is not None and int(found.group(1)) == attempt
