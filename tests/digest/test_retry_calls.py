"""Issue 42 through the real Deliverer, the HTTP stand-in and a real database (SQLite and PostgreSQL):
retries that cost no extra Web API calls, stale queue messages dropped without one, a deactivated
person's DM paused for good with the reason, and a database error in a digest worker named as such.
"""

from __future__ import annotations

import io
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy.exc
from slack_sdk import WebClient

from bot.config import Settings
from bot.digest import queue as digest_queue
from bot.digest.deliver import METADATA_EVENT, NOT_POSTED, Clients, Deliverer, Outcome, Pacer
from bot.domain.schedule import WeeklySchedule, period_of
from bot.doors.console.answers import dm_id
from bot.logging_setup import OUTAGES, RedactSecrets, setup_logging
from bot.runtime import Runtime
from bot.slack.handlers import Caller, Handlers
from bot.store import Store
from bot.store.ledger_batch import BatchedLedgerStore
from tests.digest.conftest import TEAM
from tests.reliability.test_db_states_logging import full_sqlite_error

FIRE = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)


def _deliverer(runtime: Runtime, **kw: Any) -> Deliverer:
    kw.setdefault("pacer", Pacer(channel_interval_s=0.0, team_rate_per_s=1000))
    return Deliverer(runtime, **kw)


def _dm(store: Store, user: str) -> None:
    store.set_dm(TEAM, user, True, schedule=WeeklySchedule.of(0, "09:00", "UTC"))
    store.follow(TEAM, user, "pd")


def _ok_posts(standin) -> list:
    return [c for c in standin.calls("chat.postMessage") if c.ok]


def _stale_claim(db_url: str, key: tuple[str, str, str, str]) -> None:
    """A sender claimed ``key`` ten minutes ago and died."""
    past = Store.from_url(db_url, migrate=False, clock=lambda: datetime.now(UTC) - timedelta(minutes=10))
    assert past.claim_delivery(*key, claimed_by="dead:1")
    past.close()


# --- retries that do not multiply calls ------------------------------------------------------------


def test_a_retry_after_slack_answered_reads_no_history(runtime, standin) -> None:
    """Before: every retry opened the IM and read its history (3 calls per post)."""
    store = runtime.store
    _dm(store, "U1")
    standin.configure(server_error_every=1)  # every method 500, slack-sdk's own retries included
    failed = _deliverer(runtime).deliver_dm(TEAM, "U1", FIRE)
    assert failed.outcome is Outcome.FAILED
    row = store.delivery(TEAM, "U1", "*", failed.period)
    assert row.error.endswith(NOT_POSTED.format(n=1)), row.error  # in the ledger: every worker knows
    standin.configure(server_error_every=0)
    before = len(standin.calls())
    assert _deliverer(runtime).deliver_dm(TEAM, "U1", FIRE).outcome is Outcome.SENT  # another worker
    assert [c.method for c in standin.calls()[before:]] == ["chat.postMessage"]
    assert not standin.calls("conversations.open") and not standin.calls("conversations.history")
    assert len(_ok_posts(standin)) == 1


def test_the_im_a_post_landed_in_is_kept_for_a_later_take_over(runtime, standin, db_url) -> None:
    """Before: the IM id was kept only from ``conversations.open``, so a take-over opened it again."""
    store = runtime.store
    _dm(store, "U7")
    d = _deliverer(runtime, stale_after_s=60)
    assert d.deliver_dm(TEAM, "U7", FIRE).outcome is Outcome.SENT  # answered with the IM's id
    week2 = FIRE + timedelta(days=7)
    key = (TEAM, "U7", "*", period_of(week2, "UTC"))
    _stale_claim(db_url, key)
    WebClient(token="xoxb-test", base_url=standin.api_url).chat_postMessage(
        channel="U7", text="digest", metadata={"event_type": METADATA_EVENT, "event_payload": {"key": "/".join(key)}}
    )
    assert d.deliver_dm(TEAM, "U7", week2).outcome is Outcome.RECOVERED  # found, not posted again
    assert len(_ok_posts(standin)) == 2
    assert not standin.calls("conversations.open")
    assert standin.calls("conversations.history")[0].args["channel"] == dm_id("U7")


class _LostAnswers(Clients):
    """The real clients, whose next ``chat.postMessage`` posts and then loses Slack's answer."""

    def __init__(self, runtime: Runtime) -> None:
        super().__init__(runtime)
        self.lose = 1

    def for_team(self, team: str) -> Any:
        client = super().for_team(team)
        outer = self

        class Losing:
            def __getattr__(self, name: str) -> Any:
                return getattr(client, name)

            def chat_postMessage(self, **kw: Any) -> Any:
                resp = client.chat_postMessage(**kw)
                if outer.lose:
                    outer.lose -= 1
                    raise TimeoutError("The read operation timed out")
                return resp

        return Losing()


def test_a_post_whose_answer_was_lost_is_looked_for_once_and_not_posted_twice(runtime, standin) -> None:
    store = runtime.store
    _dm(store, "U2")
    d = _deliverer(runtime, clients=_LostAnswers(runtime))
    first = d.deliver_dm(TEAM, "U2", FIRE)
    assert first.outcome is Outcome.FAILED and first.error == "TimeoutError"
    assert "not posted" not in store.delivery(TEAM, "U2", "*", first.period).error  # it may have posted
    assert d.deliver_dm(TEAM, "U2", FIRE).outcome is Outcome.RECOVERED
    assert len(_ok_posts(standin)) == 1
    assert len(standin.calls("conversations.open")) == 1 and len(standin.calls("conversations.history")) == 1


def test_an_im_that_cannot_be_opened_does_not_stop_the_post(runtime, standin, db_url) -> None:
    """Before: a 500 from ``conversations.open`` on a take-over failed the attempt without posting."""
    store = runtime.store
    _dm(store, "U3")
    key = (TEAM, "U3", "*", period_of(FIRE, "UTC"))
    _stale_claim(db_url, key)
    standin.configure(server_error_every=1, fault_methods={"conversations.open"})
    assert _deliverer(runtime, stale_after_s=60).deliver_dm(TEAM, "U3", FIRE).outcome is Outcome.SENT
    assert len(_ok_posts(standin)) == 1 and store.delivery(*key).status == "sent"


# --- stale queue messages --------------------------------------------------------------------------


@pytest.fixture
def runner(runtime, monkeypatch) -> Deliverer:
    """This process as a worker: the queue's actor bodies send with a Deliverer on ``runtime``."""
    deliverer = _deliverer(runtime)
    monkeypatch.setattr(digest_queue, "_runner", None)
    digest_queue.install_runner(deliverer, runtime.store)
    return deliverer


def test_a_queue_message_for_a_week_that_is_over_is_dropped_without_a_call(runtime, standin, runner) -> None:
    store = runtime.store
    _dm(store, "U4")
    sub = store.subscribe(TEAM, "C4", "pd", WeeklySchedule.of(0, "09:00", "UTC"))
    old = datetime.now(UTC) - timedelta(days=14)
    digest_queue.send_dm(TEAM, "U4", old.isoformat())  # acknowledged: no raise, no retry
    digest_queue.send_subscription(sub.id, old.isoformat())
    assert not standin.calls()
    assert not store.deliveries()
    assert runner.deliver_dm(TEAM, "U4", old, drop_expired=True).outcome is Outcome.EXPIRED


def test_a_queue_message_for_a_digest_already_sent_makes_no_call(runtime, standin, runner) -> None:
    store = runtime.store
    _dm(store, "U5")
    now = datetime.now(UTC)
    digest_queue.send_dm(TEAM, "U5", now.isoformat())
    assert len(standin.calls()) == 1
    digest_queue.send_dm(TEAM, "U5", now.isoformat())  # redelivered: the ledger says sent
    assert len(standin.calls()) == 1


# --- a deactivated person ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "code", "shown"),
    [
        ("chat.postMessage", "user_not_found", "no longer in the workspace"),
        ("chat.postMessage", "account_inactive", "deactivated"),
        ("chat.postMessage", "cannot_dm_bot", "bot"),
        ("conversations.open", "user_disabled", "deactivated"),
    ],
)
def test_a_deactivated_person_gets_no_more_dms_and_sees_why(runtime, standin, db_url, method, code, shown) -> None:
    store = runtime.store
    _dm(store, "U6")
    if method == "conversations.open":  # a take-over: the IM is opened to read its history
        _stale_claim(db_url, (TEAM, "U6", "*", period_of(FIRE, "UTC")))
    standin.configure(method_errors={method: code})
    d = _deliverer(runtime, stale_after_s=60)
    attempt = d.deliver_dm(TEAM, "U6", FIRE)
    assert attempt.outcome is Outcome.PAUSED and attempt.error == code
    dm = store.get_dm(TEAM, "U6")
    assert dm.status == "paused" and code in dm.pause_reason and shown in dm.pause_reason
    assert "app's bot user is deactivated" not in dm.pause_reason  # the person, not the app
    # Next week: nothing claimed, no call (before: a refusal a week, or a retry an hour).
    calls = len(standin.calls())
    assert d.deliver_dm(TEAM, "U6", FIRE + timedelta(days=7)).outcome is Outcome.INACTIVE
    assert len(standin.calls()) == calls and len(store.deliveries()) == 1
    # Visible to them if they come back: /vllm-path dm.
    reply = Handlers(runtime).command(Caller(TEAM, "U6", "C1"), "dm")
    assert code in reply.text, reply.text


def test_a_deactivated_person_is_paused_by_a_worker_too(runtime, standin, monkeypatch) -> None:
    """The worker's path: the queue's actor body, a Deliverer on the batched ledger."""
    store = runtime.store
    _dm(store, "U9")
    standin.configure(channel_errors={"U9": "user_not_found"})
    batched = BatchedLedgerStore(store)
    worker = Runtime(runtime.settings, batched, runtime.holder, runtime.renderer)
    monkeypatch.setattr(digest_queue, "_runner", None)
    digest_queue.install_runner(_deliverer(worker), store)
    try:
        now = datetime.now(UTC)
        digest_queue.send_dm(TEAM, "U9", now.isoformat())  # acknowledged: not retried
        digest_queue.send_dm(TEAM, "U9", (now + timedelta(days=7)).isoformat())  # next week: nothing
    finally:
        batched.close()
    assert len(standin.calls("chat.postMessage")) == 1
    dm = store.get_dm(TEAM, "U9")
    assert dm.status == "paused" and "no longer in the workspace" in dm.pause_reason


# --- a database error in a digest worker ------------------------------------------------------------


class _FullDiskStore:
    """The store, whose ``get_budget`` (a DM send's read) raises ``error``: a database fault inside
    the send, after the claim, whose failure the ledger still records."""

    def __init__(self, store: Store, error: Exception) -> None:
        self._store, self._error = store, error

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def get_budget(self, *args: Any) -> Any:
        raise self._error


def test_a_database_error_in_a_digest_worker_is_not_called_a_slack_outage(
    runtime, standin, monkeypatch, tmp_path
) -> None:
    """Before: the retry's ``DeliveryFailed`` carried no cause, so the worker's log said "Slack
    (digest sends) is unreachable" for a full disk."""
    setup_logging(Settings(_env_file=None, slack_bot_token="xoxb-test"))  # type: ignore[call-arg]
    monkeypatch.setattr(OUTAGES, "_last", {})
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactSecrets())
    loggers = [logging.getLogger("bot.digest"), logging.getLogger("dramatiq.worker.WorkerThread")]
    for logger in loggers:
        logger.addHandler(handler)
    _dm(runtime.store, "U8")
    error = full_sqlite_error(tmp_path / "full.db")
    broken = Runtime(runtime.settings, _FullDiskStore(runtime.store, error), runtime.holder, runtime.renderer)
    monkeypatch.setattr(digest_queue, "_runner", None)
    digest_queue.install_runner(_deliverer(broken), broken.store)
    try:
        with pytest.raises(digest_queue.DeliveryFailed) as failed:
            digest_queue.send_dm(TEAM, "U8", datetime.now(UTC).isoformat())
        assert isinstance(failed.value.__cause__, sqlalchemy.exc.OperationalError)
        try:  # as Dramatiq's worker thread logs a message that raised
            raise failed.value
        except digest_queue.DeliveryFailed:
            logging.getLogger("dramatiq.worker.WorkerThread").exception("Failed to process message")
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
    out = stream.getvalue()
    assert "the database disk is full" in out and "Slack (digest sends)" not in out, out
    assert out.count("the database disk is full") == 1 and "Traceback" not in out, out  # one warning
    assert not standin.calls()
