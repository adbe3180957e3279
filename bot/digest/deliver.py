"""Digest delivery: the ledger claim, pacing under Slack's limits, sending, and Slack's errors.

(About 500 lines, one concern: the steps of one send share the ledger key and the error
classification, and read best in order.)

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
3. **compose** (pure, :mod:`bot.slack.views.digest`); nothing to say -> the key is settled as skipped.
4. **pace**: wait for a slot of :class:`Pacer` (per channel at least ``channel_interval_s`` apart,
   per workspace at most ``team_rate_per_s``), then renew the claim (so a claim that waited is not
   taken over while it is sent) and **send** ``chat.postMessage`` (a DM first opens the IM with
   ``conversations.open``). 429s, 5xx and connection errors are retried inside slack-sdk by the
   retry handlers of :func:`bot.slack.app.make_client`, honouring ``Retry-After``; its 429
   handler is swapped for :class:`PacedRateLimitRetryHandler`, which also tells the pacer (the
   workspace's sends spread out a little) and queues the retry for a workspace turn.
5. **record**: ``mark_sent`` (a channel digest's cursor and catalog version move in the same
   transaction); a permanent Slack error (:data:`PERMANENT_ERRORS`) pauses the subscription or DM
   with a visible reason; anything else is ``mark_failed`` and retried by the scheduler's catch-up
   while attempts remain.

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
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot.domain.schedule import period_of
from bot.logging_setup import slack_error
from bot.slack.retry import CountingRateLimitRetryHandler
from bot.slack.views.digest import compose_channel_digest
from bot.slack.views.digest_cache import dm_composer  # issue 16: parts cached by next step + count
from bot.slack.views.plan_dm import budget_dm
from bot.store import DM_TRACK, Subscription
from bot.web.urls import path_page_url

log = logging.getLogger(__name__)

METADATA_EVENT = "vllm_path_digest"
"""``metadata.event_type`` of every digest message; ``event_payload.key`` is its ledger key."""

PERMANENT_ERRORS: dict[str, str] = {
    "channel_not_found": ("the channel no longer exists, or it is private and the app is not in it: "
                          "invite the app with /invite @vllm-path"),
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


# --- pacing --------------------------------------------------------------------------------------


class Pacer:
    """Spaces sends under Slack's limits; thread-safe, for one process.

    * per destination (``key``): an attempt starts at least ``channel_interval_s`` after the
      previous attempt to that destination *ended* (its answer came back), and attempts never
      overlap (Slack: about 1 ``chat.postMessage`` per second per channel). Measured from the
      end, the spacing holds where Slack measures it, at arrival, however long a loaded machine
      takes between granting a slot and the request going out (an earlier arrival is always
      before the earlier answer). A retry after a 429 waits for the destination like a new send
      (:meth:`retry_slot`; the 429 answer is the end of that attempt);
    * per workspace (``team``): consecutive send starts at least ``1 / team_rate_per_s``
      seconds apart (None: no cap), measured from when each send really started, so a thread
      that woke up late never makes the next one early. A send first waits for its
      destination, then queues for the workspace, so a busy channel never holds up the others.

    Use ``with pacer.slot(team, key): send()``. ``clock`` is a monotonic clock in seconds,
    ``sleep`` its sleep (tests may pass fakes).
    """

    def __init__(self, channel_interval_s: float = 1.05, team_rate_per_s: float | None = 10.0,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        if channel_interval_s < 0 or (team_rate_per_s is not None and team_rate_per_s <= 0):
            raise ValueError("channel_interval_s must be >= 0 and team_rate_per_s > 0 or None")
        self.channel_interval_s = channel_interval_s
        self.team_rate_per_s = team_rate_per_s
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._key_locks: dict[tuple[str, str], threading.Lock] = {}
        self._key_next: dict[tuple[str, str], float] = {}
        self._team_locks: dict[str, threading.Lock] = {}
        self._team_next: dict[str, float] = {}
        self._team_gap: dict[str, float] = {}

    def _team_turn(self, team: str) -> float:
        """Wait for the workspace's next start; returns the start time."""
        if self.team_rate_per_s is None:
            return self._clock()
        with self._lock:
            team_lock = self._team_locks.setdefault(team, threading.Lock())
        with team_lock:
            wait = self._team_next.get(team, 0.0) - self._clock()
            if wait > 0:
                self._sleep(wait)
            start = self._clock()
            base = 1.0 / self.team_rate_per_s
            gap = self._team_gap.get(team, base)
            self._team_next[team] = start + gap
            if gap > base:  # ease back towards the configured rate after a 429
                self._team_gap[team] = max(base, gap * (1 - self.RECOVER))
            return start

    RECOVER = 0.01
    """Per send, how much a widened workspace gap shrinks back (1 %)."""
    WIDEN = 0.1
    """Per 429, how much the workspace gap widens (10 %), up to twice the configured gap."""

    def rate_limited(self, team: str) -> None:
        """Slack answered 429 for a send in ``team``: space the workspace's sends a little
        wider (see :data:`WIDEN`; they ease back by :data:`RECOVER` per send), so a limit a bit
        below ``team_rate_per_s`` or jittery arrivals stop costing 429s."""
        if self.team_rate_per_s is None:
            return
        base = 1.0 / self.team_rate_per_s
        with self._lock:
            self._team_gap[team] = min(2 * base, self._team_gap.get(team, base) * (1 + self.WIDEN))

    @contextmanager
    def slot(self, team: str, key: str) -> Iterator[None]:
        """Wait for a turn to send to ``key`` (channel or user id) in ``team``; the body is the
        send. Blocks the calling thread while waiting. A retry inside the body (slack-sdk's
        :class:`PacedRateLimitRetryHandler`) queues for the workspace again
        (:meth:`retry_slot`)."""
        k = (team, key)
        with self._lock:
            key_lock = self._key_locks.setdefault(k, threading.Lock())
        with key_lock:
            self._wait_for_key(k)
            self._team_turn(team)
            _current.slot = (self, team, key)
            try:
                yield
            finally:
                _current.slot = None
                self.attempt_ended(team, key)

    def _wait_for_key(self, k: tuple[str, str]) -> None:
        wait = self._key_next.get(k, 0.0) - self._clock()
        if wait > 0:
            self._sleep(wait)

    def attempt_ended(self, team: str, key: str) -> None:
        """An attempt to ``key`` has its answer (sent, refused, or a 429 about to be retried):
        the next may start ``channel_interval_s`` from now."""
        self._key_next[(team, key)] = self._clock() + self.channel_interval_s

    def retry_slot(self, team: str, key: str) -> None:
        """Before a retry of the send in progress to ``key`` (calling thread holds its slot, and
        :meth:`attempt_ended` was called when the 429 came back): wait for the destination's next
        turn, then queue for the workspace again, so that a retry after a 429 counts against both
        limits like a new send."""
        self._wait_for_key((team, key))
        self._team_turn(team)


_current = threading.local()
"""The pacer slot the current thread is sending in (``(pacer, team, key)``), for the retry
handler."""


class PacedRateLimitRetryHandler(CountingRateLimitRetryHandler):
    """slack-sdk's 429 handler (counts the 429, sleeps ``Retry-After``, then retries) that also
    tells the :class:`Pacer` the send runs in, if any: the attempt ended, the workspace's sends
    are spaced a little wider (:meth:`Pacer.rate_limited`), and the retry waits for the
    destination and the workspace like any send (:meth:`Pacer.retry_slot`)."""

    def prepare_for_next_attempt(self, **kwargs: Any) -> None:
        current = getattr(_current, "slot", None)
        if current is not None:
            current[0].attempt_ended(current[1], current[2])
            current[0].rate_limited(current[1])
        super().prepare_for_next_attempt(**kwargs)
        if current is not None:
            current[0].retry_slot(current[1], current[2])


def paced(client: WebClient) -> WebClient:
    """``client`` with its 429 handler (slack-sdk's ``RateLimitErrorRetryHandler`` or a subclass,
    such as the app's counting one) swapped for a :class:`PacedRateLimitRetryHandler` of the same
    retry count (other handlers kept)."""
    handlers = []
    for handler in client.retry_handlers:
        if isinstance(handler, RateLimitErrorRetryHandler):
            handler = PacedRateLimitRetryHandler(max_retry_count=handler.max_retry_count,
                                                 interval_calculator=handler.interval_calculator)
        handlers.append(handler)
    client.retry_handlers = handlers
    return client


# --- Slack clients -------------------------------------------------------------------------------


class Clients:
    """``WebClient`` per workspace: the bot token from the OAuth installation store when OAuth is
    configured, else ``SLACK_BOT_TOKEN``; base URL and retry handlers from
    :func:`bot.slack.app.make_client`. Clients are cached per token."""

    def __init__(self, runtime: Any):
        self.runtime = runtime
        self._lock = threading.Lock()
        self._clients: dict[str, WebClient] = {}

    def token_for(self, team: str) -> str | None:
        """The bot token for tenant ``team`` (a team id, or an enterprise id for an org-wide
        install): :meth:`bot.store.Store.bot_token_for` with OAuth (Grid-aware, decrypted,
        refreshed when rotation is on), else ``SLACK_BOT_TOKEN``."""
        settings = self.runtime.settings
        if settings.oauth_enabled:
            token: str | None = self.runtime.store.bot_token_for(team)
            return token
        if settings.slack_bot_token is not None:
            return settings.slack_bot_token.get_secret_value() or None
        return None

    def for_team(self, team: str) -> WebClient | None:
        """The client for ``team``, or None when the app has no token there."""
        token = self.token_for(team)
        if token is None:
            return None
        with self._lock:
            client = self._clients.get(token)
            if client is None:
                # deferred: bot.slack.app imports the digest package (an import circle otherwise)
                from bot.slack.app import make_client

                client = self.wrap(make_client(self.runtime, token=token))
                self._clients[token] = client
            return client

    def wrap(self, client: WebClient) -> WebClient:
        """The client as this process sends with it: paced by :func:`paced` (in-process limits)."""
        return paced(client)


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

    def __init__(self, runtime: Any, *, clients: Clients | None = None, pacer: Pacer | None = None,
                 claimant: str | None = None, stale_after_s: float = 300.0, max_attempts: int = 3,
                 verify: bool = True, renew_after_s: float = 0.0):
        if renew_after_s < 0 or (renew_after_s > 0 and renew_after_s >= stale_after_s):
            raise ValueError("renew_after_s must be 0 (always renew) or below stale_after_s")
        self.runtime = runtime
        self.clients = clients or Clients(runtime)
        self.pacer = pacer or Pacer()
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
            self.store.mark_failed(*key, error=f"{type(exc).__name__}: {exc}"[:1000],
                                   claimed_by=self.claimant)
            return Attempt(Outcome.FAILED, period, error=type(exc).__name__)
        finally:
            self._claimed_at.pop(key, None)

    def _deliver_claimed_subscription(self, sub: Subscription, fire: datetime,
                                      key: tuple[str, str, str, str]) -> Attempt:
        period = key[3]
        catalog = self.runtime.holder.catalog
        fresh = self.store.get_subscription(sub.id)  # the cursor as of the claim
        if fresh is None or not fresh.active:  # removed or paused meanwhile: release the claim
            self.store.mark_failed(*key, error="subscription no longer active",
                                   claimed_by=self.claimant)
            return Attempt(Outcome.INACTIVE, period)
        sub = fresh
        if not catalog.has_track(sub.track_id):
            return self._permanent(key, "track_removed", sub=sub,
                                   reason=f"the track {sub.track_id!r} is no longer in the catalog")
        client = self.clients.for_team(sub.team_id)
        if client is None:
            return self._permanent(key, "no_token", sub=sub)
        found = self._find_earlier(client, sub.channel_id, key, fire)
        if found is not None:
            return self._finish_recovered(key, found, sub, catalog)
        snapshot = (self.store.catalog_snapshot(sub.last_catalog_version)
                    if sub.last_catalog_version and sub.last_catalog_version != catalog.version
                    else None)
        # A channel has no language of its own: the digest speaks the subscriber's.
        lang = (self.store.get_lang(sub.team_id, sub.created_by) if sub.created_by else None) or "en"
        digest = compose_channel_digest(catalog, sub, snapshot, lang=lang,
                                        page_url=path_page_url(self.runtime.settings, sub.track_id, lang))
        if digest.reply is None:
            self.store.mark_skipped(*key, reason="nothing new in the track",
                                    claimed_by=self.claimant)
            return Attempt(Outcome.NOTHING, period)
        try:
            with self.pacer.slot(sub.team_id, sub.channel_id):
                if not self._still_ours(key):
                    return Attempt(Outcome.TAKEN, period)
                resp = client.chat_postMessage(
                    channel=sub.channel_id, text=digest.reply.text, blocks=digest.reply.blocks,
                    unfurl_links=False, unfurl_media=False, metadata=_metadata(key))
        except SlackApiError as exc:
            return self._slack_error(key, exc, sub=sub)
        except Exception as exc:  # connection errors after retries, timeouts
            return self._failed(key, f"{type(exc).__name__}: {exc}")
        ts = resp.get("ts")
        self.store.mark_sent_at_cursor(*key, message_ts=ts, subscription_id=sub.id,
                                       cursor=digest.cursor, catalog_version=digest.version,
                                       claimed_by=self.claimant)
        return Attempt(Outcome.SENT, period, ts=ts)

    def _finish_recovered(self, key: tuple[str, str, str, str], ts: str, sub: Subscription,
                          catalog: Any) -> Attempt:
        """An earlier attempt posted the digest: record it, moving the cursor as that digest did
        (composition is deterministic for the same cursor and catalog)."""
        snapshot = (self.store.catalog_snapshot(sub.last_catalog_version)
                    if sub.last_catalog_version and sub.last_catalog_version != catalog.version
                    else None)
        digest = compose_channel_digest(catalog, sub, snapshot, lang="en")
        self.store.mark_sent_at_cursor(*key, message_ts=ts, subscription_id=sub.id,
                                       cursor=digest.cursor, catalog_version=digest.version,
                                       claimed_by=self.claimant)
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
            self.store.mark_failed(*key, error=f"{type(exc).__name__}: {exc}"[:1000],
                                   claimed_by=self.claimant)
            return Attempt(Outcome.FAILED, period, error=type(exc).__name__)
        finally:
            self._claimed_at.pop(key, None)

    def _deliver_claimed_dm(self, team: str, user: str, fire: datetime,
                            key: tuple[str, str, str, str]) -> Attempt:
        period = key[3]
        client = self.clients.for_team(team)
        if client is None:
            return self._permanent(key, "no_token", dm=(team, user))
        catalog = self.runtime.holder.catalog
        lang = self.store.get_lang(team, user) or "en"
        budget = self.store.get_budget(team, user)  # issue 24: the steps that fit their minutes
        reply = (dm_composer(catalog, lang).compose(self.store.follows(team, user),
                                                    self.store.read_posts(team, user)) if budget is None
                 else budget_dm(catalog, self.store.follows(team, user), self.store.read_posts(team, user),
                                budget, lang))
        if reply is None:
            self.store.mark_skipped(*key, reason="nothing to suggest", claimed_by=self.claimant)
            return Attempt(Outcome.NOTHING, period)
        try:
            channel = self._dm_channel(client, team, user)
            found = self._find_earlier(client, channel, key, fire)
            if found is not None:
                self.store.mark_sent(*key, message_ts=found, claimed_by=self.claimant)
                return Attempt(Outcome.RECOVERED, period, ts=found)
            with self.pacer.slot(team, user):
                if not self._still_ours(key):
                    return Attempt(Outcome.TAKEN, period)
                resp = client.chat_postMessage(
                    channel=channel, text=reply.text, blocks=reply.blocks, unfurl_links=False,
                    unfurl_media=False, metadata=_metadata(key))
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
        claimed: bool = self.store.claim_delivery(*key, claimed_by=self.claimant,
                                                  stale_after_s=self.stale_after_s,
                                                  max_attempts=self.max_attempts)
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

    def _find_earlier(self, client: WebClient, channel: str, key: tuple[str, str, str, str],
                      fire: datetime) -> str | None:
        """The ts of a digest message for ``key`` an earlier attempt posted, if this claim is a
        take-over and Slack shows one; None otherwise (or when history cannot be read)."""
        if not self.verify:
            return None
        row = self.store.delivery(*key)
        if row is None or row.attempts <= 1:
            return None
        oldest = min(fire, row.claimed_at) - timedelta(minutes=5)
        try:
            resp = client.conversations_history(channel=channel, oldest=f"{oldest.timestamp():.6f}",
                                                limit=200, include_all_metadata=True)
        except SlackApiError as exc:
            if not self._warned_history:
                self._warned_history = True
                log.warning("cannot read conversation history to check for an earlier post (%s); "
                            "a digest whose sender died mid-request may be posted twice (reinstall "
                            "the app with the manifest's history scopes)", slack_error(exc.response))
            return None
        except Exception:  # network: fall back to sending
            return None
        wanted = "/".join(key)
        for message in resp.get("messages") or []:
            meta = message.get("metadata") or {}
            if (meta.get("event_type") == METADATA_EVENT
                    and (meta.get("event_payload") or {}).get("key") == wanted):
                return message.get("ts")
        return None

    def _slack_error(self, key: tuple[str, str, str, str], exc: SlackApiError, *,
                     sub: Subscription | None = None, dm: tuple[str, str] | None = None) -> Attempt:
        code = str(exc.response.get("error") or f"http_{exc.response.status_code}")
        if code in PERMANENT_ERRORS:
            return self._permanent(key, code, sub=sub, dm=dm, detail=slack_error(exc.response))
        return self._failed(key, slack_error(exc.response))

    def _permanent(self, key: tuple[str, str, str, str], code: str, *,
                   sub: Subscription | None = None, dm: tuple[str, str] | None = None,
                   reason: str | None = None, detail: str | None = None) -> Attempt:
        """Pause with a visible reason; ``detail`` (Slack's error with its ``messages``) goes to
        the ledger and the log, the reason people see stays short."""
        text = f"Slack error {code}: {PERMANENT_ERRORS[code]}" if reason is None else reason
        self.store.mark_failed(*key, error=detail or text, claimed_by=self.claimant)
        if sub is not None:
            self.store.pause_subscription(sub.id, text)
            log.warning("subscription %s (channel %s) paused: %s", sub.id, key[1], detail or text)
        if dm is not None:
            self.store.pause_dm(dm[0], dm[1], text)
            log.warning("a DM digest of team %s paused: %s", dm[0], detail or text)
        return Attempt(Outcome.PAUSED, key[3], error=code)

    def _failed(self, key: tuple[str, str, str, str], error: str) -> Attempt:
        self.store.mark_failed(*key, error=error, claimed_by=self.claimant)
        log.warning("digest %s failed (will retry while attempts remain): %s", "/".join(key), error)
        return Attempt(Outcome.FAILED, key[3], error=error.split(":")[0].split(" (")[0])


def _metadata(key: Iterable[str]) -> dict[str, Any]:
    return {"event_type": METADATA_EVENT, "event_payload": {"key": "/".join(key)}}
