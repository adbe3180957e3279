"""Issue 44, reading clubs through the real HTTP door (SQLite and PostgreSQL): a club digest posts
its discussion prompt in a thread of the digest message (the stand-in records ``chat.postMessage``
with ``thread_ts``); a signed ``reaction_added`` ✅ on it marks its steps read for that person once;
other emoji, other messages and the bot change nothing; another app's bot user (``users.info``
``is_bot`` / ``is_app_user``, asked once after the ack) has what it marked taken back; an org-wide
body works; the next digest opens with how many read the last one (hidden under 4)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.digest.deliver import Deliverer, Outcome
from bot.domain.schedule import WeeklySchedule
from tests.e2e.slack_requests import signed_post
from tests.reliability.conftest import SIGNING_SECRET
from tests.reliability.org_wide import org_wide_body, save_org_wide_install
from tests.standin import event_body
from tests.waits import wait_until

TEAM, CHANNEL = "T0REL1", "C0REL1"
FIRE = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)  # a Monday
MONDAY = WeeklySchedule.of(0, "09:00", "UTC")


def _reaction(user: str, ts: str, reaction: str = "white_check_mark", channel: str = CHANNEL) -> dict[str, Any]:
    return {
        "type": "reaction_added",
        "user": user,
        "reaction": reaction,
        "item_user": "U0BOT",
        "item": {"type": "message", "channel": channel, "ts": ts},
        "event_ts": f"{time.time():.6f}",
    }


def _send(door, event: dict[str, Any], team: str = TEAM) -> int:
    body = event_body(event, team_id=team)
    return signed_post(door.url + "/slack/events", body, SIGNING_SECRET, json_body=True).status


def _digest_and_thread(standin, ts: str) -> tuple[dict[str, Any], dict[str, Any]]:
    posts = standin.calls("chat.postMessage")
    digest = next(c.args for c in posts if c.response.get("ts") == ts)
    threads = [c.args for c in posts if c.args.get("thread_ts") == ts]
    assert len(threads) == 1, threads
    return digest, threads[0]


def test_a_club_digest_opens_a_thread_and_a_check_mark_marks_its_steps_read_once(
    door, door_runtime, standin, caplog
) -> None:
    store, catalog = door_runtime.store, door_runtime.holder.catalog
    sub = store.subscribe(TEAM, CHANNEL, "spec", MONDAY, club=True)
    sent = Deliverer(door_runtime).deliver_subscription(sub.id, FIRE)
    assert sent.outcome is Outcome.SENT and sent.ts
    digest, thread = _digest_and_thread(standin, sent.ts)
    assert thread["channel"] == CHANNEL
    steps = [p for p in catalog.order("spec") if p in str(digest["blocks"])][:1] or ["spec-decode"]
    prompt = catalog.prompt(steps[0])
    assert prompt is not None and prompt.en.split(".")[0][:40] in str(thread["blocks"])

    # ✅ by a person: the digest's steps are read for them (the 200 comes after the write)
    assert _send(door, _reaction("U0READ1", sent.ts)) == 200
    read = store.habit_facts(TEAM, "U0READ1").reads
    assert set(steps) <= set(read)
    first_at = dict(read)
    # the same person again (a new event): nothing changes, counted once
    assert _send(door, _reaction("U0READ1", sent.ts)) == 200
    assert store.habit_facts(TEAM, "U0READ1").reads == first_at
    assert store.club_readers_last(sub.id) == 1

    # another emoji, another message, the thread's reply, the bot itself: nothing
    assert _send(door, _reaction("U0READ2", sent.ts, reaction="thumbsup")) == 200
    assert _send(door, _reaction("U0READ3", "1111111111.000100")) == 200
    assert _send(door, _reaction("U0BOT", sent.ts)) == 200
    for user in ("U0READ2", "U0READ3", "U0BOT"):
        assert store.habit_facts(TEAM, user).reads == {}, user
    assert store.club_readers_last(sub.id) == 1
    assert "Traceback" not in caplog.text


def test_the_next_club_digest_opens_with_the_readers_of_the_last_hidden_under_four(door, door_runtime, standin) -> None:
    store = door_runtime.store
    sub = store.subscribe(TEAM, CHANNEL, "pd", MONDAY, club=True)
    deliverer = Deliverer(door_runtime)
    first = deliverer.deliver_subscription(sub.id, FIRE)
    for n in range(4):
        assert _send(door, _reaction(f"U0CLUB{n}", first.ts)) == 200
    second = deliverer.deliver_subscription(sub.id, FIRE + timedelta(days=7))
    digest, _ = _digest_and_thread(standin, second.ts)
    assert "Readers who marked last week's digest read: 4." in str(digest["blocks"])
    for n in range(3):
        assert _send(door, _reaction(f"U0CLUB{n}", second.ts)) == 200
    third = deliverer.deliver_subscription(sub.id, FIRE + timedelta(days=14))
    digest, _ = _digest_and_thread(standin, third.ts)
    assert "Readers who marked" not in str(digest["blocks"])


def test_a_channel_that_is_no_club_gets_no_thread_and_its_digest_takes_no_marks(door, door_runtime, standin) -> None:
    store = door_runtime.store
    sub = store.subscribe(TEAM, CHANNEL, "quant", MONDAY)
    sent = Deliverer(door_runtime).deliver_subscription(sub.id, FIRE)
    assert sent.outcome is Outcome.SENT
    assert not [c for c in standin.calls("chat.postMessage") if c.args.get("thread_ts")]
    assert _send(door, _reaction("U0READ1", sent.ts)) == 200
    assert store.habit_facts(TEAM, "U0READ1").reads == {}


def test_an_org_wide_check_mark_is_keyed_by_the_enterprise(door, door_runtime) -> None:
    store, org, user = door_runtime.store, "E0ORG44", "W0ORG44"
    save_org_wide_install(store, org)
    sub = store.subscribe(org, "C0ORG", "spec", MONDAY, club=True)
    assert store.record_club_digest(org, "C0ORG", "1765100000.000100", sub.id, ("spec-decode",))
    body = org_wide_body(_reaction(user, "1765100000.000100", channel="C0ORG"), org)
    assert signed_post(door.url + "/slack/events", body, SIGNING_SECRET, json_body=True).status == 200
    assert set(store.habit_facts(org, user).reads) == {"spec-decode"}


def _users_info_of(standin, user: str) -> list[Any]:
    return [c for c in standin.calls("users.info") if c.args.get("user") == user]


def test_another_apps_bot_user_marks_nothing_a_person_keeps_the_mark_and_the_answer_is_kept(
    door, door_runtime, standin, caplog
) -> None:
    # Slack sends another app's bot user in event.user, without bot_id: only users.info tells
    standin.users = {"U0PERSON": {}, "U0OTHERBOT": {"is_bot": True}, "U0WORKFLOW": {"is_app_user": True}}
    store = door_runtime.store
    sub = store.subscribe(TEAM, CHANNEL, "spec", MONDAY, club=True)
    deliverer = Deliverer(door_runtime)
    first = deliverer.deliver_subscription(sub.id, FIRE)
    before = door_runtime.holder.catalog.order("spec")[0]  # a step of the first digest
    store.mark_read(TEAM, "U0OTHERBOT", [before])  # read before: a take-back leaves it read

    for user in ("U0PERSON", "U0OTHERBOT", "U0WORKFLOW"):
        assert _send(door, _reaction(user, first.ts)) == 200
    wait_until(lambda: store.habit_facts(TEAM, "U0OTHERBOT").reads.keys() == {before}, what="bot take-back")
    wait_until(lambda: store.habit_facts(TEAM, "U0WORKFLOW").reads == {}, what="app user take-back")
    wait_until(lambda: store.club_readers_last(sub.id) == 1, what="the bots' club marks forgotten")
    assert _users_info_of(standin, "U0PERSON")
    assert before in store.habit_facts(TEAM, "U0PERSON").reads  # a person's mark stays
    # the answers are kept: no second users.info, and the bot's ✅ on the next digest marks nothing
    second = deliverer.deliver_subscription(sub.id, FIRE + timedelta(days=7))
    for user in ("U0PERSON", "U0OTHERBOT"):
        assert _send(door, _reaction(user, second.ts)) == 200
    assert store.club_readers_last(sub.id) == 1
    assert store.habit_facts(TEAM, "U0OTHERBOT").reads.keys() == {before}
    assert len(_users_info_of(standin, "U0PERSON")) == 1 and len(_users_info_of(standin, "U0OTHERBOT")) == 1
    assert "Traceback" not in caplog.text


def test_an_org_wide_bot_users_check_mark_is_taken_back(door, door_runtime, standin) -> None:
    standin.users = {"W0ORGPERSON": {}, "W0ORGOTHERBOT": {"is_bot": True}}
    store, org = door_runtime.store, "E0ORG45"
    save_org_wide_install(store, org)
    sub = store.subscribe(org, "C0ORG", "spec", MONDAY, club=True)
    assert store.record_club_digest(org, "C0ORG", "1765100000.000200", sub.id, ("spec-decode",))
    for user in ("W0ORGPERSON", "W0ORGOTHERBOT"):
        body = org_wide_body(_reaction(user, "1765100000.000200", channel="C0ORG"), org)
        assert signed_post(door.url + "/slack/events", body, SIGNING_SECRET, json_body=True).status == 200
    wait_until(lambda: store.habit_facts(org, "W0ORGOTHERBOT").reads == {}, what="org-wide bot take-back")
    wait_until(lambda: _users_info_of(standin, "W0ORGPERSON"), what="the person looked up")
    assert set(store.habit_facts(org, "W0ORGPERSON").reads) == {"spec-decode"}
    assert store.club_readers_last(sub.id) == 1
