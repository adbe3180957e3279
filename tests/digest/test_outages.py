"""A Slack outage in the middle of a fan-out (issue 27): transient failures never end a digest.

The real clock (its catch-up, on a controlled wall clock: ``time_machine``; pacing and slack-sdk's
own retry waits run in real time), the real ledger (SQLite and PostgreSQL) and the HTTP stand-in
answering HTTP 500 to every ``chat.postMessage`` from the 50th digest on, for three rounds of
attempts: with the ledger's old limit of 3 attempts the digests caught by the outage stayed
``failed`` for good. (slack-sdk's own retry waits are scaled down: :data:`RETRY_WAIT_SCALE`.)
A lasting refusal (``channel_not_found``) ends its digest at once, stored in the ledger and
counted in ``/metrics``.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from prometheus_client import generate_latest
from slack_sdk.http_retry.builtin_handlers import ServerErrorRetryHandler
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator
from slack_sdk.http_retry.jitter import Jitter

from bot import metrics
from bot.digest.clock import DigestClock
from bot.digest.due import retry_wait_s
from bot.digest.queue import period_over
from bot.domain.schedule import WeeklySchedule, period_of
from tests.digest.conftest import TEAM

MONDAY_9 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
# 100 in the suite (50 posted before the outage, 50 caught by it: 200 cost twice the CPU and proved no
# more; issue 43's make test); 2000 for the figures in docs/reliability.md
DIGESTS = int(os.environ.get("OUTAGE_DIGESTS", "100"))
REFUSED = "C0007"  # Slack answers channel_not_found for this one: a lasting refusal
OUTAGE_AFTER_POSTS = 50
OUTAGE_ROUNDS = 3  # rounds of attempts the outage lasts (the old ledger gave up after 3 attempts)
# A round's sends wait on slack-sdk's own 0.5 s retry of each 500, in real time: allow for the size.
ROUND_S = max(180, DIGESTS * 0.3)


RETRY_WAIT_SCALE = 0.1
"""slack-sdk's waits between its own retries of a 500 (0.5 s and 1 s, each plus up to 1 s of jitter)
are scaled by this in these tests: the same two retries per call, the same handler classes and
counts, but 0.05-0.25 s of real time each instead of 0.5-2 s (their length decides no outcome
checked here: the ledger's back-off is simulated time, moved by ``time_machine``)."""


class _ScaledJitter(Jitter):
    """slack-sdk's :class:`~slack_sdk.http_retry.jitter.RandomJitter` scaled by :data:`RETRY_WAIT_SCALE`."""

    def recalculate(self, duration: float) -> float:
        return duration + random.random() * RETRY_WAIT_SCALE


@pytest.fixture(autouse=True)
def _shorter_sdk_retry_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's retry handlers (``bot.slack.app.make_client``'s), their 5xx waits scaled down."""
    from bot.slack import app

    made = app.app_retry_handlers

    def handlers():
        out = made()
        for handler in out:
            if isinstance(handler, ServerErrorRetryHandler):
                handler.interval_calculator = BackoffRetryIntervalCalculator(
                    backoff_factor=0.5 * RETRY_WAIT_SCALE, jitter=_ScaledJitter()
                )
        return out

    monkeypatch.setattr(app, "app_retry_handlers", handlers)


def _channels() -> list[str]:
    return [f"C{i:04d}" for i in range(DIGESTS)]


def _start_outage_mid_fan_out(
    standin, refused: str = REFUSED, fault_methods: frozenset[str] | None = frozenset({"chat.postMessage"})
) -> threading.Event:
    """Turn every ``chat.postMessage`` into HTTP 500 once ``OUTAGE_AFTER_POSTS`` went out and the
    refused channel had its answer, decided where the stand-in decides each call (its ``_decide``
    hook), so no post slips through between the condition and the outage however the threads are
    scheduled (a watcher thread polling the records let 133 more posts out on a loaded CI machine).
    With 32 sending threads the refused channel can come after the 50th post: an outage first would
    make its first answer a 500."""
    started = threading.Event()
    decide = standin._decide
    lock = threading.Lock()
    seen = {"ok": 0, "refused": 0}

    refused_answered = threading.Event()

    def deciding(method: str, args: dict, faults):
        if method == "chat.postMessage" and args.get("channel") != refused and not started.is_set():
            with lock:
                enough = seen["ok"] >= OUTAGE_AFTER_POSTS
            if enough:  # the refusal answers before the outage, however a loaded machine schedules threads
                refused_answered.wait(120)
        with lock:
            if started.is_set():
                faults = standin.faults  # the outage, also for a call that read the faults before it
            answer = decide(method, args, faults)
            if method == "chat.postMessage" and not started.is_set():
                seen["refused" if args.get("channel") == refused else "ok"] += answer[0] == 200
                if seen["refused"]:
                    refused_answered.set()
                if seen["ok"] >= OUTAGE_AFTER_POSTS and seen["refused"]:
                    standin.configure(server_error_every=1, fault_methods=fault_methods)
                    started.set()
            return answer

    standin._decide = deciding
    return started


@pytest.mark.slow
def test_a_slack_outage_mid_fan_out_ends_with_every_digest_posted_once(db_url, standin, holder) -> None:
    from tests.digest.conftest import make_runtime

    runtime = make_runtime(db_url, standin, holder)
    store = runtime.store
    standin.configure(channel_errors={REFUSED: "channel_not_found"})
    with time_machine.travel(MONDAY_9 - timedelta(days=1), tick=False) as traveller:
        subs = {
            channel: store.subscribe(TEAM, channel, "spec", WeeklySchedule.of(0, "09:00", "UTC"))
            for channel in _channels()
        }
        clock = DigestClock(
            runtime,
            reconcile_every_s=None,
            workers=32,
            channel_interval_s=0.01,
            team_rate_per_s=5000,
            retry_failed_after_s=60,
        )
        try:
            started = _start_outage_mid_fan_out(standin)
            began = time.monotonic()
            traveller.move_to(MONDAY_9 + timedelta(seconds=5))
            rounds = 0
            while True:
                clock.reconcile()  # the catch-up: due digests, and failed ones past their back-off
                assert clock.idle(ROUND_S), "catch-up still running"
                rounds += 1
                if rounds == OUTAGE_ROUNDS:
                    assert started.is_set(), "the outage never started"
                    standin.configure(server_error_every=0)  # Slack is back
                rows = store.deliveries(period=period_of(MONDAY_9, "UTC"))
                if (
                    len(rows) == DIGESTS
                    and rounds > OUTAGE_ROUNDS
                    and all(r.status == "sent" or r.destination == REFUSED for r in rows)
                ):
                    break
                assert rounds < 20, Counter(r.status for r in rows)
                traveller.shift(timedelta(seconds=retry_wait_s(rounds + 1, 60) + 1))
            took = time.monotonic() - began
            clock.reconcile()  # and once more: nothing left to send
            assert clock.idle(60)
        finally:
            clock.shutdown(wait=True)
        registry = metrics.runtime_registry(runtime)
        exposed = generate_latest(registry).decode()
    posts = Counter(c.channel for c in standin.calls("chat.postMessage") if c.ok)
    assert posts == Counter({ch: 1 for ch in _channels() if ch != REFUSED})
    failed_500 = [c for c in standin.calls("chat.postMessage") if c.status == 500]
    assert len(failed_500) >= (DIGESTS - OUTAGE_AFTER_POSTS) * OUTAGE_ROUNDS  # the outage was real
    rows = {r.destination: r for r in store.deliveries()}
    assert max(r.attempts for r in rows.values()) > OUTAGE_ROUNDS  # more than the old limit
    for channel, row in rows.items():
        if channel != REFUSED:
            assert row.status == "sent" and row.message_ts, (channel, row)
    # The lasting refusal: one attempt, the reason stored, the subscription paused, counted.
    refused = rows[REFUSED]
    assert refused.status == "failed" and refused.attempts == 1
    assert refused.error.startswith("refused: channel_not_found")
    assert store.refusals() == {"channel_not_found": 1}
    assert not store.get_subscription(subs[REFUSED].id).active
    assert all(store.get_subscription(s.id).active for ch, s in subs.items() if ch != REFUSED)
    assert 'vllm_path_digest_refusals_total{reason="channel_not_found"} 1.0' in exposed
    # Issue 42: a retry after an attempt Slack answered reads no history (it cannot have posted).
    calls = _calls_by_method(standin)
    ratio = sum(calls.values()) / len(standin.calls("chat.postMessage"))
    print(
        f"{DIGESTS} digests, {rounds} catch-up rounds, {len(failed_500)} answers 500, "
        f"attempts up to {max(r.attempts for r in rows.values())}, {took:.0f} s real time, "
        f"calls {dict(calls)}, {ratio:.2f} calls per post attempt"
    )
    assert ratio <= MAX_CALLS_PER_POST, calls
    store.close()


def _calls_by_method(standin) -> Counter[str]:
    return Counter(c.method for c in standin.calls())


def _run_rounds(clock, store, traveller, standin, started, done) -> int:
    """Catch-up rounds until ``done(rows)``, Slack back after ``OUTAGE_ROUNDS``; returns the rounds."""
    rounds = 0
    while True:
        clock.reconcile()  # the catch-up: due digests, and failed ones past their back-off
        assert clock.idle(ROUND_S), "catch-up still running"
        rounds += 1
        if rounds == OUTAGE_ROUNDS:
            assert started.is_set(), "the outage never started"
            standin.configure(server_error_every=0)  # Slack is back
        rows = store.deliveries(period=period_of(MONDAY_9, "UTC"))
        if rounds > OUTAGE_ROUNDS and done(rows):
            return rounds
        assert rounds < 20, Counter(r.status for r in rows)
        traveller.shift(timedelta(seconds=retry_wait_s(rounds + 1, 60) + 1))


GONE = "U0007"  # Slack answers user_not_found for this person: deactivated
MAX_CALLS_PER_POST = 1.2


@pytest.mark.slow
def test_a_slack_outage_mid_dm_fan_out_costs_one_call_per_post_and_every_dm_goes_out_once(
    db_url, standin, holder
) -> None:
    """Issue 42: every Web API method answers 500 (a real outage, not only ``chat.postMessage``).
    Before, every retry of a DM opened the IM again to read its history (17,328
    ``conversations.open`` for 6,111 posts in production): a retry whose earlier attempt Slack
    answered is known not to have posted, and an IM id once known is kept."""
    from tests.digest.conftest import make_runtime

    runtime = make_runtime(db_url, standin, holder)
    store = runtime.store
    users = [f"U{i:04d}" for i in range(DIGESTS)]
    standin.configure(channel_errors={GONE: "user_not_found"})
    with time_machine.travel(MONDAY_9 - timedelta(days=1), tick=False) as traveller:
        for user in users:
            store.set_dm(TEAM, user, True, schedule=WeeklySchedule.of(0, "09:00", "UTC"))
            store.follow(TEAM, user, "pd")
        clock = DigestClock(
            runtime,
            reconcile_every_s=None,
            workers=32,
            channel_interval_s=0.01,
            team_rate_per_s=5000,
            retry_failed_after_s=60,
        )
        try:
            started = _start_outage_mid_fan_out(standin, refused=GONE, fault_methods=None)
            traveller.move_to(MONDAY_9 + timedelta(seconds=5))

            def done(rows) -> bool:
                return len(rows) == DIGESTS and all(r.status == "sent" or r.destination == GONE for r in rows)

            rounds = _run_rounds(clock, store, traveller, standin, started, done)
            clock.reconcile()  # and once more: nothing left to send
            assert clock.idle(60)
        finally:
            clock.shutdown(wait=True)
    posts = Counter(c.args["channel"] for c in standin.calls("chat.postMessage") if c.ok)
    assert posts == Counter({user: 1 for user in users if user != GONE})
    attempts = standin.calls("chat.postMessage")
    assert sum(c.status == 500 for c in attempts) >= (DIGESTS - OUTAGE_AFTER_POSTS) * (OUTAGE_ROUNDS - 1)
    rows = {r.destination: r for r in store.deliveries()}
    assert max(r.attempts for r in rows.values()) >= OUTAGE_ROUNDS
    # The deactivated person: one attempt, their DM paused with the reason, never retried.
    gone = store.get_dm(TEAM, GONE)
    assert gone.status == "paused" and "user_not_found" in gone.pause_reason
    assert rows[GONE].attempts == 1 and [c.args["channel"] for c in attempts].count(GONE) == 1
    # The calls at Slack: an IM opened at most once per person, about one call per post attempt.
    calls = _calls_by_method(standin)
    ratio = sum(calls.values()) / len(attempts)
    print(f"{DIGESTS} DMs, {rounds} rounds, calls {dict(calls)}, {ratio:.2f} calls per post attempt")
    assert calls["conversations.open"] <= len(users) + 3, calls
    assert ratio <= MAX_CALLS_PER_POST, calls
    store.close()


def test_the_back_off_doubles_up_to_its_ceiling() -> None:
    assert [retry_wait_s(n, 60) for n in (1, 2, 3, 4)] == [60, 120, 240, 480]
    assert retry_wait_s(50, 60) == 15 * 60


def test_a_digest_is_retried_only_until_its_week_is_over() -> None:
    sunday_late = datetime(2026, 3, 8, 23, 30, tzinfo=UTC)
    assert not period_over("2026-W10", "UTC", sunday_late)
    assert period_over("2026-W10", "UTC", sunday_late + timedelta(hours=1))
    assert not period_over("2026-W10", "America/Los_Angeles", sunday_late + timedelta(hours=1))
    assert period_over("2026-W53", "UTC", datetime(2027, 1, 5, tzinfo=UTC))  # across the year
