"""The digest's buttons: Snooze a week and Stop (channel and DM), Mark read and Follow on a digest,
through the handlers and end to end through the real HTTP door with signed Slack requests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.digest.deliver import Deliverer, Outcome, Pacer
from bot.domain.schedule import WeeklySchedule, next_fire, period_of
from bot.slack.handlers import Caller, Handlers
from tests.digest.conftest import TEAM, make_runtime
from tests.waits import PATIENCE_S


def _deliverer(runtime) -> Deliverer:
    return Deliverer(runtime, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=None))


def test_snoozing_a_channel_digest_skips_its_next_one_only(runtime, standin) -> None:
    store = runtime.store
    sub = store.subscribe(TEAM, "C1", "spec", WeeklySchedule.of(0, "09:00", "Europe/Berlin"))
    reply = Handlers(runtime).action(Caller(TEAM, "U1", "C1"), "snooze", {"v": f"digest:{sub.id}"})
    assert "skips its next one" in reply.text and reply.response_type == "ephemeral"
    fire = next_fire(0, "09:00", "Europe/Berlin", datetime.now(UTC))
    local = fire.astimezone(ZoneInfo("Europe/Berlin"))  # the day as every reply shows it (QA)
    assert f"({local:%A} {local.day} {local:%b %Y} 09:00 Europe/Berlin)" in reply.text, reply.text
    row = store.delivery(TEAM, "C1", "spec", period_of(fire, "Europe/Berlin"))
    assert row.status == "sent" and row.message_ts is None and row.error == "skipped: snoozed by U1"
    d = _deliverer(runtime)
    assert d.deliver_subscription(sub.id, fire).outcome is Outcome.TAKEN
    assert d.deliver_subscription(sub.id, fire + timedelta(days=7)).outcome is Outcome.SENT
    assert len(standin.calls("chat.postMessage")) == 1
    assert store.get_subscription(sub.id).cursor == 1  # the path resumes where it was


def test_stopping_a_channel_digest_pauses_it_with_who_stopped_it(runtime, catalog) -> None:
    store = runtime.store
    sub = store.subscribe(TEAM, "C1", "pd", WeeklySchedule.of(0, "09:00", "UTC"))
    handlers = Handlers(runtime)
    reply = handlers.action(Caller(TEAM, "U9", "C1"), "stop", {"v": f"digest:{sub.id}"})
    assert "stopped in this channel" in reply.text and "/vllm-path subscribe pd" in reply.text
    stopped = store.get_subscription(sub.id)
    assert stopped.status == "paused" and stopped.pause_reason == "stopped by U9"
    assert "paused: stopped by U9" in handlers.command(Caller(TEAM, "U1", "C1"), "subscriptions").text
    assert _deliverer(runtime).deliver_subscription(sub.id, datetime.now(UTC)).outcome is Outcome.INACTIVE
    # Subscribing again resumes where it left off.
    handlers.command(Caller(TEAM, "U9", "C1"), "subscribe pd monday 09:00 UTC")
    assert store.get_subscription(sub.id).active


@pytest.mark.parametrize("caller", [Caller("TOTHER", "U1", "C1"), Caller(TEAM, "U1", "CELSE")])
def test_a_digest_of_another_workspace_or_channel_is_left_alone(runtime, caller) -> None:
    sub = runtime.store.subscribe(TEAM, "C1", "pd", WeeklySchedule.of(0, "09:00", "UTC"))
    for kind in ("snooze", "stop"):
        reply = Handlers(runtime).action(caller, kind, {"v": f"digest:{sub.id}"})
        assert "no longer exists" in reply.text
    assert runtime.store.get_subscription(sub.id).active and not runtime.store.deliveries()
    assert (
        "no longer exists"
        in Handlers(runtime).action(Caller(TEAM, "U1", "C1"), "stop", {"v": "digest:not-a-number"}).text
    )


def test_dm_snooze_skips_a_week_and_stop_turns_the_dm_off(runtime, standin) -> None:
    store = runtime.store
    store.set_dm(TEAM, "U1", True, schedule=WeeklySchedule.of(0, "09:00", "UTC"))
    store.follow(TEAM, "U1", "pd")
    handlers = Handlers(runtime)
    me = Caller(TEAM, "U1", "D1")
    reply = handlers.action(me, "snooze", {"v": "digest-dm"})
    assert reply.text.startswith("Paused: your weekly DM of Monday "), reply.text
    dm = store.get_dm(TEAM, "U1")
    assert dm.snoozed_until - datetime.now(UTC) > timedelta(days=6, hours=23)
    fire = next_fire(0, "09:00", "UTC", datetime.now(UTC))
    d = _deliverer(runtime)
    if fire < dm.snoozed_until:
        assert d.deliver_dm(TEAM, "U1", fire).outcome is Outcome.SNOOZED
    assert d.deliver_dm(TEAM, "U1", fire + timedelta(days=7)).outcome is Outcome.SENT
    assert "Weekly DM off" in handlers.action(me, "stop", {"v": "digest-dm"}).text
    assert not store.get_dm(TEAM, "U1").enabled
    assert d.deliver_dm(TEAM, "U1", fire + timedelta(days=14)).outcome is Outcome.INACTIVE


def test_clicks_on_a_posted_digest_through_the_http_door(tmp_path, standin, holder, catalog) -> None:
    """The digest as posted to the stand-in, clicked with signed block_actions requests: every
    answer goes privately to the clicker and the channel's digest is left as it is."""
    from bot.doors.serve import serve_http
    from tests.e2e.helpers import BOT_TOKEN, CHANNEL, SIGNING_SECRET, USER, FakeSlack
    from tests.e2e.helpers import TEAM as E2E_TEAM

    runtime = make_runtime(
        f"sqlite:///{tmp_path}/door.db", standin, holder, slack_bot_token=BOT_TOKEN, slack_signing_secret=SIGNING_SECRET
    )
    door = serve_http(runtime, "127.0.0.1", 0, threads=4, background=True)
    try:
        sub = runtime.store.subscribe(E2E_TEAM, CHANNEL, "spec", WeeklySchedule.of(0, "09:00", "UTC"))
        assert _deliverer(runtime).deliver_subscription(sub.id, datetime.now(UTC)).outcome is Outcome.SENT
        posted = standin.calls("chat.postMessage")[0].response["message"]
        slack = FakeSlack(door.url, standin, runtime)
        answers = {}
        for prefix in ("mark_read", "follow", "snooze", "stop"):
            result, url = slack.click(posted, prefix, ephemeral=False)
            assert result.status == 200
            answers[prefix] = standin.wait_for_response(url, timeout=PATIENCE_S).body
        for body in answers.values():
            assert body.get("replace_original") is False and body["response_type"] == "ephemeral"
        first = catalog.order("spec")[0]
        assert runtime.store.read_posts(E2E_TEAM, USER) == {first}
        assert runtime.store.follows(E2E_TEAM, USER) == ["spec"]
        assert "skips its next one" in answers["snooze"]["text"]
        assert runtime.store.get_subscription(sub.id).pause_reason == f"stopped by {USER}"
        assert not standin.calls("chat.update")  # the channel's message is untouched
    finally:
        door.close()
        runtime.store.close()


def test_snooze_after_an_early_digest_skips_the_following_week(tmp_path):
    """This week's digest already went out (run-now before its time): Snooze skips next week's."""
    from datetime import UTC, datetime, timedelta

    from bot.config import Settings
    from bot.domain.schedule import next_fire, period_of
    from bot.runtime import Runtime
    from bot.slack.commands.digest_actions import handle_digest_action
    from bot.slack.handlers import Caller

    rt = Runtime.create(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}", _env_file=None))
    sub = rt.store.subscribe("T9", "C9", "spec", WeeklySchedule.of(0, "09:00", "Europe/Berlin"))
    fire = next_fire(sub.weekday, sub.at_time, sub.timezone, datetime.now(UTC))
    this_week = period_of(fire, sub.timezone)
    assert rt.store.claim_delivery("T9", "C9", "spec", this_week, "early")
    rt.store.mark_sent("T9", "C9", "spec", this_week, "1.0", claimed_by="early")

    handle_digest_action(rt, Caller("T9", "U9", "C9"), "snooze", {"v": f"digest:{sub.id}"})
    following = period_of(next_fire(0, "09:00", "Europe/Berlin", fire + timedelta(minutes=1)), "Europe/Berlin")
    row = rt.store.delivery("T9", "C9", "spec", following)
    assert row is not None and (row.error or "").startswith(rt.store.SKIPPED_PREFIX + "snoozed")
    # A second snooze changes nothing more.
    handle_digest_action(rt, Caller("T9", "U8", "C9"), "snooze", {"v": f"digest:{sub.id}"})
    after = period_of(next_fire(0, "09:00", "Europe/Berlin", fire + timedelta(days=8)), "Europe/Berlin")
    assert rt.store.delivery("T9", "C9", "spec", after) is None
    rt.store.close()
