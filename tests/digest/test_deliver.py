"""Delivery against a real HTTP stand-in for Slack and a real database (SQLite and PostgreSQL):
the ledger claim, the cursor, Slack's errors, pacing under 429s, DMs and crash recovery."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from itertools import pairwise

from slack_sdk import WebClient

from bot.digest.clock import DigestClock
from bot.digest.deliver import METADATA_EVENT, Clients, Deliverer, Outcome, Pacer
from bot.domain.schedule import WeeklySchedule, period_of
from bot.doors.console.answers import dm_id
from bot.slack.views import messages as views
from bot.slack.views.home import HomeState, home_view
from bot.store import Store
from tests.dbutil import set_cursor
from tests.digest.conftest import TEAM

FIRE = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)  # Monday 09:00 in Berlin


def _deliverer(runtime, **kw) -> Deliverer:
    kw.setdefault("pacer", Pacer(channel_interval_s=1.0, team_rate_per_s=50))
    return Deliverer(runtime, **kw)


def _posts(standin, channel=None, ok=True):
    return [
        c for c in standin.calls("chat.postMessage") if (channel is None or c.channel == channel) and (not ok or c.ok)
    ]


def test_a_digest_is_posted_once_and_moves_the_cursor(runtime, standin, catalog) -> None:
    store = runtime.store
    sub = store.subscribe(TEAM, "C1", "spec", WeeklySchedule.of(0, "09:00", "Europe/Berlin"), steps_per_week=2)
    d = _deliverer(runtime)
    first = d.deliver_subscription(sub.id, FIRE)
    assert first.outcome is Outcome.SENT and first.period == "2026-W50"
    posts = _posts(standin)
    assert len(posts) == 1 and posts[0].channel == "C1" and posts[0].authorized
    body = posts[0].args
    assert body["metadata"] == {"event_type": METADATA_EVENT, "event_payload": {"key": f"{TEAM}/C1/spec/2026-W50"}}
    assert body["unfurl_links"] is False and body["blocks"][0]["type"] == "header"
    row = store.delivery(TEAM, "C1", "spec", "2026-W50")
    assert row.status == "sent" and row.message_ts == first.ts
    after = store.get_subscription(sub.id)
    assert after.cursor == 2 and after.last_catalog_version == catalog.version
    # The same week again (a retry, a second clock, a restart): nothing is posted.
    again = _deliverer(runtime).deliver_subscription(sub.id, FIRE + timedelta(minutes=3))
    assert again.outcome is Outcome.TAKEN and len(_posts(standin)) == 1
    # Next week: the next two steps.
    nxt = d.deliver_subscription(sub.id, FIRE + timedelta(days=7))
    assert nxt.outcome is Outcome.SENT
    order = catalog.order("spec")
    assert (
        next(b["accessory"]["value"] for b in _posts(standin)[1].args["blocks"] if b.get("accessory")).find(order[2])
        > 0
    )
    assert store.get_subscription(sub.id).cursor == 4


def test_permanent_errors_pause_the_subscription_with_a_visible_reason(runtime, standin, catalog) -> None:
    store = runtime.store
    gone = store.subscribe(TEAM, "CGONE", "pd", WeeklySchedule.of(0, "09:00", "UTC"))
    archived = store.subscribe(TEAM, "CARCH", "pd", WeeklySchedule.of(0, "09:00", "UTC"))
    fine = store.subscribe(TEAM, "CFINE", "pd", WeeklySchedule.of(0, "09:00", "UTC"))
    standin.configure(channel_errors={"CGONE": "channel_not_found", "CARCH": "is_archived"})
    d = _deliverer(runtime)
    outcomes = [d.deliver_subscription(s.id, FIRE).outcome for s in (gone, archived, fine)]
    assert outcomes == [Outcome.PAUSED, Outcome.PAUSED, Outcome.SENT]
    paused = store.get_subscription(gone.id)
    assert paused.status == "paused" and "channel_not_found" in paused.pause_reason
    assert "is_archived" in store.get_subscription(archived.id).pause_reason
    assert store.get_subscription(fine.id).active
    # Visible where people look: /vllm-path subscriptions in that channel, and App Home.
    reply = views.subscriptions_reply(catalog, store.subscriptions(TEAM, "CGONE"), "en")
    assert "paused: Slack error channel_not_found" in reply.text
    home = home_view(catalog, HomeState(following=[], read=set(), dm=None, channel_subs=store.subscriptions(TEAM)))
    assert "channel_not_found" in str(home)
    # A paused subscription is not tried again; the ledger keeps the failure.
    assert d.deliver_subscription(gone.id, FIRE + timedelta(days=7)).outcome is Outcome.INACTIVE
    assert store.delivery(TEAM, "CGONE", "pd", "2026-W50").status == "failed"


def test_429s_everything_delivered_pacing_holds_and_a_missing_channel_is_paused(
    sqlite_runtime, standin, catalog
) -> None:
    from bot.slack.handlers import Caller, Handlers

    runtime = sqlite_runtime
    store = runtime.store
    plan = [
        ("C1", "spec"),
        ("C1", "pd"),
        ("C1", "quant"),
        ("C1", "rl"),
        ("C2", "spec"),
        ("C2", "pd"),
        ("C3", "ops"),
        ("C4", "agentic"),
        ("CGONE", "pd"),
    ]
    for channel, track in plan:
        store.subscribe(TEAM, channel, track, WeeklySchedule.of(0, "09:00", "UTC"))
    # The pacer spaces each attempt from the previous one's answer, so the arrival times the
    # stand-in records are at least the interval apart however a loaded machine delays a request.
    clock = DigestClock(runtime, workers=4, reconcile_every_s=None, channel_interval_s=1.25, team_rate_per_s=20)
    try:
        # Week 1: Slack's per-channel limit (1 message a second) only. Pacing keeps every post
        # under it: not a single 429.
        standin.configure(channel_rate_per_s=1.0, channel_errors={"CGONE": "channel_not_found"})
        assert clock.run_now(at=FIRE) == {"sent": 8, "paused": 1}
        assert not [c for c in standin.calls() if c.status == 429]
        # Week 2: on top, every 4th chat.postMessage is answered 429 Retry-After: 1.
        standin.configure(
            rate_limit_every=4, retry_after_s=1, channel_rate_per_s=1.0, fault_methods={"chat.postMessage"}
        )
        assert clock.run_now(at=FIRE + timedelta(days=7)) == {"sent": 8}
    finally:
        clock.shutdown()
    limited = [c for c in standin.calls("chat.postMessage") if c.status == 429]
    assert len(limited) >= 2, "the stand-in should have answered a share of calls 429"
    delivered = defaultdict(list)
    attempts = defaultdict(list)
    for call in standin.calls("chat.postMessage"):
        attempts[call.channel].append(call.at)
        if call.ok:
            delivered[call.channel].append(call.at)
    assert {ch: len(v) for ch, v in delivered.items()} == {"C1": 8, "C2": 4, "C3": 2, "C4": 2}
    # Pacing holds for every attempt, retries included: about a second apart per channel.
    for channel, ats in attempts.items():
        ats.sort()
        assert all(b - a >= 0.95 for a, b in pairwise(ats)), (channel, ats)
    assert all(r.status == "sent" for r in store.deliveries() if r.destination != "CGONE")
    # The missing channel's subscription is paused with its reason, visible in the channel.
    gone = store.subscriptions(TEAM, "CGONE")[0]
    assert gone.status == "paused" and "channel_not_found" in gone.pause_reason
    reply = Handlers(runtime).command(Caller(TEAM, "U1", "CGONE"), "subscriptions")
    assert "paused: Slack error channel_not_found" in reply.text


def test_a_take_over_finds_the_message_a_dead_sender_posted_and_does_not_repost(runtime, standin, db_url) -> None:
    store = runtime.store
    sub = store.subscribe(TEAM, "C1", "rl", WeeklySchedule.of(0, "09:00", "UTC"))
    period = period_of(FIRE, "UTC")
    key = (TEAM, "C1", "rl", period)
    # A sender claimed 10 minutes ago, posted, and died before recording it.
    past = Store.from_url(db_url, migrate=False, clock=lambda: datetime.now(UTC) - timedelta(minutes=10))
    assert past.claim_delivery(*key, claimed_by="dead:1")
    past.close()
    client = WebClient(token="xoxb-test", base_url=standin.api_url)
    client.chat_postMessage(
        channel="C1", text="digest", metadata={"event_type": METADATA_EVENT, "event_payload": {"key": "/".join(key)}}
    )
    d = _deliverer(runtime, stale_after_s=60)
    attempt = d.deliver_subscription(sub.id, FIRE)
    assert attempt.outcome is Outcome.RECOVERED
    assert len(_posts(standin)) == 1  # not posted again
    assert store.delivery(*key).status == "sent" and store.get_subscription(sub.id).cursor == 1
    assert standin.calls("conversations.history")[0].args["include_all_metadata"] in (True, "true", "1")


def test_a_dm_take_over_opens_the_im_only_to_find_the_post_by_user_id(runtime, standin, db_url) -> None:
    store = runtime.store
    store.set_dm(TEAM, "U7", True, schedule=WeeklySchedule.of(0, "09:00", "UTC"))
    store.follow(TEAM, "U7", "pd")
    key = (TEAM, "U7", "*", period_of(FIRE, "UTC"))
    past = Store.from_url(db_url, migrate=False, clock=lambda: datetime.now(UTC) - timedelta(minutes=10))
    assert past.claim_delivery(*key, claimed_by="dead:1")
    past.close()
    WebClient(token="xoxb-test", base_url=standin.api_url).chat_postMessage(
        channel="U7", text="digest", metadata={"event_type": METADATA_EVENT, "event_payload": {"key": "/".join(key)}}
    )
    attempt = _deliverer(runtime, stale_after_s=60).deliver_dm(TEAM, "U7", FIRE)
    assert attempt.outcome is Outcome.RECOVERED and len(_posts(standin)) == 1
    (opened,) = standin.calls("conversations.open")
    assert standin.calls("conversations.history")[0].args["channel"] == dm_id("U7") == opened.response["channel"]["id"]
    assert store.delivery(*key).status == "sent"


def test_a_take_over_sends_when_the_dead_sender_posted_nothing(runtime, standin, db_url) -> None:
    store = runtime.store
    sub = store.subscribe(TEAM, "C1", "rl", WeeklySchedule.of(0, "09:00", "UTC"))
    key = (TEAM, "C1", "rl", period_of(FIRE, "UTC"))
    past = Store.from_url(db_url, migrate=False, clock=lambda: datetime.now(UTC) - timedelta(minutes=10))
    assert past.claim_delivery(*key, claimed_by="dead:1")
    past.close()
    d = _deliverer(runtime, stale_after_s=60)
    # A fresh claim by a live sender is left alone ...
    assert _deliverer(runtime, stale_after_s=3600).deliver_subscription(sub.id, FIRE).outcome is Outcome.TAKEN
    # ... a stale one is taken over and sent once.
    assert d.deliver_subscription(sub.id, FIRE).outcome is Outcome.SENT
    assert len(_posts(standin)) == 1 and store.delivery(*key).attempts == 2


def test_retryable_failures_are_recorded_and_a_later_attempt_sends(runtime, standin) -> None:
    store = runtime.store
    sub = store.subscribe(TEAM, "C1", "ops", WeeklySchedule.of(0, "09:00", "UTC"))
    standin.configure(server_error_every=1)  # every call 500: slack-sdk retries, then gives up
    d = _deliverer(runtime)
    failed = d.deliver_subscription(sub.id, FIRE)
    assert failed.outcome is Outcome.FAILED
    row = store.delivery(TEAM, "C1", "ops", failed.period)
    assert row.status == "failed" and row.attempts == 1
    assert store.get_subscription(sub.id).active and store.get_subscription(sub.id).cursor == 0
    standin.configure(server_error_every=0)
    assert d.deliver_subscription(sub.id, FIRE).outcome is Outcome.SENT
    assert store.delivery(TEAM, "C1", "ops", failed.period).attempts == 2
    assert len(_posts(standin)) == 1


def test_a_track_gone_from_the_catalog_pauses_its_subscriptions(runtime, standin) -> None:
    sub = runtime.store.subscribe(TEAM, "C1", "retired-track", WeeklySchedule.of(0, "09:00", "UTC"))
    attempt = _deliverer(runtime).deliver_subscription(sub.id, FIRE)
    assert attempt.outcome is Outcome.PAUSED and not _posts(standin)
    assert "no longer in the catalog" in runtime.store.get_subscription(sub.id).pause_reason


def test_a_finished_path_posts_nothing_and_settles_the_week(runtime, standin, catalog) -> None:
    store = runtime.store
    sub = store.subscribe(TEAM, "C1", "rl", WeeklySchedule.of(0, "09:00", "UTC"))
    set_cursor(store, sub.id, len(catalog.order("rl")), catalog.version)
    assert _deliverer(runtime).deliver_subscription(sub.id, FIRE).outcome is Outcome.NOTHING
    row = store.delivery(TEAM, "C1", "rl", period_of(FIRE, "UTC"))
    assert row.status == "sent" and row.message_ts is None and row.error.startswith("skipped:")
    assert not _posts(standin)


# --- DM digests ------------------------------------------------------------------------------------


def test_a_dm_posts_to_the_person_and_lists_unread_next_steps(runtime, standin, catalog) -> None:
    store = runtime.store
    store.set_dm(TEAM, "U1", True, schedule=WeeklySchedule.of(0, "09:00", "Europe/Berlin"))
    store.follow(TEAM, "U1", "spec")
    store.follow(TEAM, "U1", "rl")
    store.mark_read(TEAM, "U1", [*list(catalog.order("rl")), catalog.order("spec")[0]])
    attempt = _deliverer(runtime).deliver_dm(TEAM, "U1", FIRE)
    assert attempt.outcome is Outcome.SENT
    assert not standin.calls("conversations.open")  # one call: the user id as the channel
    post = _posts(standin)[0]
    assert post.args["channel"] == "U1" and post.channel == dm_id("U1")
    text = str(post.args["blocks"])
    assert catalog.order("spec")[1] in text and catalog.order("spec")[0] not in text
    assert "'rl'" not in text  # finished track skipped
    assert store.delivery(TEAM, "U1", "*", "2026-W50").status == "sent"
    assert _deliverer(runtime).deliver_dm(TEAM, "U1", FIRE).outcome is Outcome.TAKEN
    assert len(_posts(standin)) == 1


def test_a_dm_with_nothing_to_suggest_or_snoozed_posts_nothing(runtime, standin, catalog) -> None:
    store = runtime.store
    store.set_dm(TEAM, "U2", True, schedule=WeeklySchedule.of(0, "09:00", "UTC"))
    d = _deliverer(runtime)
    assert d.deliver_dm(TEAM, "U2", FIRE).outcome is Outcome.NOTHING  # follows nothing
    store.follow(TEAM, "U2", "pd")
    store.snooze_dm(TEAM, "U2", FIRE + timedelta(days=7, hours=1))
    assert d.deliver_dm(TEAM, "U2", FIRE + timedelta(days=7)).outcome is Outcome.SNOOZED
    assert d.deliver_dm(TEAM, "U2", FIRE + timedelta(days=14)).outcome is Outcome.SENT
    assert not standin.calls("chat.postMessage")[:-1]
    assert len(_posts(standin)) == 1


def test_a_dm_to_a_deactivated_person_pauses_their_dm(runtime, standin) -> None:
    store = runtime.store
    store.set_dm(TEAM, "U3", True)
    store.follow(TEAM, "U3", "pd")
    standin.configure(method_errors={"chat.postMessage": "user_disabled"})
    assert _deliverer(runtime).deliver_dm(TEAM, "U3", FIRE).outcome is Outcome.PAUSED
    dm = store.get_dm(TEAM, "U3")
    assert dm.status == "paused" and "user_disabled" in dm.pause_reason


class _VirtualClock:
    """A monotonic clock that moves only when the pacer sleeps: pacing is checked in the pacer's
    own time, whatever the machine's load."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class _StampingClients(Clients):
    """The real clients, with each ``chat.postMessage`` stamped with the virtual clock's time."""

    def __init__(self, runtime, clock: _VirtualClock) -> None:
        super().__init__(runtime)
        self.clock = clock
        self.stamps: list[float] = []

    def for_team(self, team):
        client = super().for_team(team)
        post = client.chat_postMessage
        clients = self

        class Stamped:
            def __getattr__(self, name):
                return getattr(client, name)

            def chat_postMessage(self, **kw):
                clients.stamps.append(clients.clock())
                return post(**kw)

        return Stamped()


def test_pacing_keeps_posts_to_one_channel_a_second_apart_in_one_process(runtime, standin) -> None:
    store = runtime.store
    subs = [store.subscribe(TEAM, "CSAME", t, WeeklySchedule.of(0, "09:00", "UTC")) for t in ("spec", "pd", "quant")]
    clock = _VirtualClock()
    clients = _StampingClients(runtime, clock)
    d = _deliverer(
        runtime,
        clients=clients,
        pacer=Pacer(channel_interval_s=1.0, team_rate_per_s=50, clock=clock, sleep=clock.sleep),
    )
    for s in subs:
        assert d.deliver_subscription(s.id, FIRE).outcome is Outcome.SENT
    assert len(_posts(standin, "CSAME")) == 3
    # In the pacer's time: exactly a second apart, and no longer (no wait beyond the interval).
    assert clients.stamps == [0.0, 1.0, 2.0], clients.stamps
    assert sum(clock.slept) == 2.0


def test_a_channel_digest_speaks_the_subscribers_language(runtime, standin) -> None:
    store = runtime.store
    store.set_lang(TEAM, "UZH", "zh")
    sub = store.subscribe(TEAM, "C1", "spec", WeeklySchedule.of(0, "09:00", "Asia/Shanghai"), created_by="UZH")
    assert _deliverer(runtime).deliver_subscription(sub.id, FIRE).outcome is Outcome.SENT
    header = _posts(standin)[0].args["blocks"][0]["text"]["text"]
    assert header == "推测解码：本周阅读"
