"""The clock with a controlled wall clock: a real BackgroundScheduler, its SQLAlchemy job store on
the app's database, the real job functions, the real stand-in for Slack.

* 8 weeks across the DST changes of America/Los_Angeles (2026-03-08) and Europe/Berlin
  (2026-03-29): exactly 8 digests per subscription and DM, each at the chosen local time.
* Downtime: a restart later in the same week sends that week's digest once; after days of
  downtime nothing stale is sent, and no burst.
* Subscriptions changed through the app while the clock runs are followed.
* Old Slack event ids are pruned hourly; a failing prune is logged and stops nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections import Counter
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, JobExecutionEvent
from sqlalchemy import select

from bot.digest.clock import JOBSTORE, LOCAL_JOBSTORE, PRUNE_ID, DigestClock
from bot.domain.plan import plan_channel_digest
from bot.domain.schedule import WeeklySchedule, period_of
from bot.doors.console.answers import dm_id
from bot.store.models import ProcessedEvent
from tests.digest.clockdriver import ClockDriver
from tests.digest.conftest import TEAM
from tests.waits import PATIENCE_S

START = datetime(2026, 3, 1, 0, 0, tzinfo=UTC)  # a Sunday
END = START + timedelta(weeks=8)

# (channel, track, weekday 0=Mon, HH:MM, zone)
SCHEDULES = [
    ("CLAMON", "spec", 0, "09:00", "America/Los_Angeles"),
    ("CLASUN", "pd", 6, "03:00", "America/Los_Angeles"),  # the US change is Sunday 02:00 -> 03:00
    ("CBEFRI", "quant", 4, "18:30", "Europe/Berlin"),
    # the EU change is on a Sunday too; a 7-step track (apis), walked to its end within the 8 weeks
    ("CBESUN", "apis", 6, "10:00", "Europe/Berlin"),
    ("CSHWED", "agentic", 2, "20:00", "Asia/Shanghai"),
]


def _clock(runtime, **kw) -> DigestClock:
    kw.setdefault("reconcile_every_s", 3600)
    kw.setdefault("workers", 4)
    kw.setdefault("team_rate_per_s", 100)
    # Pacing runs on the real monotonic clock while the wall clock jumps weeks in milliseconds:
    # keep the per-channel gap short here (pacing has its own tests).
    kw.setdefault("channel_interval_s", 0.01)
    return DigestClock(runtime, **kw)


def _weeks(catalog, sub, most: int) -> int:
    """Digests a new subscription gets in ``most`` weeks of the catalog as it is."""
    sub, n = dataclasses.replace(sub, cursor=0, last_catalog_version=None), 0
    while n < most and not (plan := plan_channel_digest(catalog, sub)).empty:
        sub, n = dataclasses.replace(sub, cursor=plan.cursor, last_catalog_version=plan.version), n + 1
    return n


def _posts_by_channel(standin) -> Counter:
    return Counter(c.channel for c in standin.calls("chat.postMessage") if c.ok)


def test_eight_weeks_across_dst_exactly_eight_digests_each_at_local_time(sqlite_runtime, standin, catalog) -> None:
    store = sqlite_runtime.store
    with time_machine.travel(START - timedelta(days=1), tick=False) as traveller:
        subs = {
            ch: store.subscribe(TEAM, ch, track, WeeklySchedule.of(wd, at, tz)) for ch, track, wd, at, tz in SCHEDULES
        }
        store.set_dm(TEAM, "UDM", True, schedule=WeeklySchedule.of(0, "08:00", "Europe/Berlin"))
        store.follow(TEAM, "UDM", "spec")
        store.follow(TEAM, "UDM", "ops")
        clock = _clock(sqlite_runtime)
        clock.start()
        try:
            driver = ClockDriver(clock, traveller)
            stepped = driver.run_until(END)
        finally:
            clock.shutdown(wait=True)
    assert not driver.errors
    posts = _posts_by_channel(standin)
    # A channel whose path is done posts again only when the catalog adds to its track.
    club = len(catalog.order("apis"))
    assert club < 8
    # QA round 8: agentic's path waits for links after its readable steps (no digest of nothing to read)
    agentic = _weeks(catalog, store.get_subscription(subs["CSHWED"].id), 8)
    assert agentic < 8
    expected = {ch: (club if ch == "CBESUN" else agentic if ch == "CSHWED" else 8) for ch in subs}
    assert {ch: posts[ch] for ch in subs} == expected
    dm_channel = dm_id("UDM")  # posted by user id: the app's DM with them
    # issue 44: UDM reads nothing, so besides 8 digests one gentle nudge comes (one per fall behind)
    nudges = [c for c in standin.calls("chat.postMessage") if c.ok and "pause_plan" in str(c.args.get("blocks"))]
    assert [c.channel for c in nudges] == [dm_channel]
    assert posts[dm_channel] == 8 + 1 and sum(posts.values()) == sum(expected.values()) + 8 + 1
    # Each at the chosen local time (ledger claim time = the scheduler's time of the send).
    for ch, _track, wd, at, tz in SCHEDULES:
        rows = [r for r in store.deliveries() if r.destination == ch]
        assert len(rows) == 8 and len({r.period for r in rows}) == 8  # a week with nothing new is recorded too
        for r in rows:
            local = r.claimed_at.astimezone(ZoneInfo(tz))
            assert (local.weekday(), f"{local:%H:%M}") == (wd, at), (ch, local)
            assert r.status == "sent"
    for r in (r for r in store.deliveries() if r.destination == "UDM"):
        local = r.claimed_at.astimezone(ZoneInfo("Europe/Berlin"))
        assert (local.weekday(), f"{local:%H:%M}") == (0, "08:00")
    # The UTC times did move with DST (the test really crossed both changes).
    la = sorted(r.claimed_at for r in store.deliveries() if r.destination == "CLAMON")
    assert {t.hour for t in la} == {17, 16}
    be = sorted(r.claimed_at for r in store.deliveries() if r.destination == "CBESUN")
    assert {t.hour for t in be} == {9, 8}
    # Reading club: the track has 7 steps at 1 a week, so the channel walked it all and got the close.
    assert store.get_subscription(subs["CBESUN"].id).cursor == club
    rl_posts = [c for c in standin.calls("chat.postMessage") if c.channel == "CBESUN"]
    assert "That was the last step" in str(rl_posts[-1].args["blocks"])
    assert len(stepped) >= 8 * 6 // 2


def test_restart_later_in_the_week_sends_that_weeks_digest_once_and_no_burst(sqlite_runtime, standin) -> None:
    store = sqlite_runtime.store
    monday_9_la = datetime(2026, 3, 2, 17, 0, tzinfo=UTC)
    with time_machine.travel(START, tick=False) as traveller:
        sub = store.subscribe(TEAM, "C1", "spec", WeeklySchedule.of(0, "09:00", "America/Los_Angeles"))
        clock = _clock(sqlite_runtime)
        clock.start()
        ClockDriver(clock, traveller).step()  # week 10's digest
        clock.shutdown(wait=True)
        assert _posts_by_channel(standin)["C1"] == 1
        # Down for 2.5 weeks: back on the Wednesday of the third week after.
        traveller.move_to(monday_9_la + timedelta(weeks=3, days=2))
        clock = _clock(sqlite_runtime)
        clock.start()
        driver = ClockDriver(clock, traveller)
        clock.scheduler.wakeup()
        standin.wait_for(lambda: _posts_by_channel(standin)["C1"] >= 2, timeout=PATIENCE_S)
        clock.reconcile()  # catch-up runs again: nothing more
        clock.shutdown(wait=True)
        periods = sorted(r.period for r in store.deliveries() if r.status == "sent")
        assert periods == ["2026-W10", "2026-W13"]  # that week's, once; not W11/W12
        assert _posts_by_channel(standin)["C1"] == 2
        assert store.get_subscription(sub.id).cursor == 2
        # Down again until the next-but-one Monday 08:00 (before its 09:00): last week's digest
        # is stale (a new week began), so nothing goes out until 09:00.
        traveller.move_to(datetime(2026, 4, 6, 8, 0, tzinfo=ZoneInfo("America/Los_Angeles")))
        clock = _clock(sqlite_runtime)
        clock.start()
        driver = ClockDriver(clock, traveller)
        clock.reconcile()
        assert _posts_by_channel(standin)["C1"] == 2
        driver.step()
        clock.shutdown(wait=True)
    assert not driver.errors
    assert sorted(r.period for r in store.deliveries()) == ["2026-W10", "2026-W13", "2026-W15"]
    assert _posts_by_channel(standin)["C1"] == 3


def test_changes_made_through_the_app_while_the_clock_runs_are_followed(sqlite_runtime, standin, holder) -> None:
    from bot.slack.handlers import Caller, Handlers

    store = sqlite_runtime.store
    handlers = Handlers(sqlite_runtime)
    sunday = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
    with time_machine.travel(sunday, tick=False) as traveller:
        moved = store.subscribe(TEAM, "CMOVE", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
        stopped = store.subscribe(TEAM, "CSTOP", "pd", WeeklySchedule.of(0, "09:00", "UTC"))
        paused = store.subscribe(TEAM, "CPAUSE", "quant", WeeklySchedule.of(0, "09:00", "UTC"))
        clock = _clock(sqlite_runtime, reconcile_every_s=60)
        clock.start()
        try:
            driver = ClockDriver(clock, traveller)
            assert {j.id for j in clock.scheduler.get_jobs(jobstore=JOBSTORE)} == {
                f"sub:{s.id}" for s in (moved, stopped, paused)
            }
            # Through the app: reschedule, unsubscribe, subscribe a new channel, turn a DM on.
            in_channel = lambda ch: Caller(TEAM, "UADMIN", ch)  # noqa: E731
            assert "Tuesday" in handlers.command(in_channel("CMOVE"), "subscribe spec tuesday 10:00 UTC").text
            handlers.command(in_channel("CSTOP"), "unsubscribe pd")
            handlers.command(in_channel("CNEW"), "subscribe rl monday 12:00 UTC")
            handlers.command(in_channel("D0ADMIN"), "follow ops")
            handlers.command(in_channel("D0ADMIN"), "dm on monday 11:00 UTC")
            store.pause_subscription(paused.id, "paused for a test")

            # The reconcile job (every 60 s) notices on its next run. (Under load a run that started
            # before the last command, e.g. the catch-up's, may miss it: the next minute's run sees it.)
            def followed() -> bool:  # exactly the jobs wanted: a reconcile is not seen half done
                new_ids = {f"sub:{s.id}" for s in store.subscriptions(TEAM) if s.channel_id == "CNEW"}
                wanted = {f"sub:{moved.id}", f"dm:{TEAM}:UADMIN", *new_ids}
                return {j.id for j in clock.scheduler.get_jobs(jobstore=JOBSTORE)} == wanted

            for _ in range(5):
                traveller.shift(61)
                clock.scheduler.wakeup()
                with contextlib.suppress(TimeoutError):
                    standin.wait_for(followed, timeout=10)  # else the next minute's run
                    break
            new = next(s for s in store.subscriptions(TEAM) if s.channel_id == "CNEW")
            jobs = {j.id: j for j in clock.scheduler.get_jobs(jobstore=JOBSTORE)}
            assert set(jobs) == {f"sub:{moved.id}", f"sub:{new.id}", f"dm:{TEAM}:UADMIN"}
            assert jobs[f"sub:{moved.id}"].name == "tue 10:00 UTC"
            # Jobs are import paths and plain ids: nothing of this process is pickled with them.
            assert {(j.func_ref, type(j.args[0])) for j in jobs.values()} == {
                ("bot.digest.clock:run_subscription", int),
                ("bot.digest.clock:run_dm", str),
            }
            assert "day_of_week='tue'" in str(jobs[f"sub:{moved.id}"].trigger)
            driver.run_until(sunday + timedelta(days=7))
        finally:
            clock.shutdown(wait=True)
    assert not driver.errors
    sent = {(r.destination, r.claimed_at.strftime("%a %H:%M")) for r in store.deliveries()}
    assert sent == {("CMOVE", "Tue 10:00"), ("CNEW", "Mon 12:00"), ("UADMIN", "Mon 11:00")}
    assert not [c for c in standin.calls("chat.postMessage") if c.channel in ("CSTOP", "CPAUSE")]


@pytest.mark.parametrize("kind", ["postgres"])
def test_a_repeated_local_hour_sends_once_on_postgres(kind, pg_url, standin, holder) -> None:
    """01:30 on 2026-11-01 happens twice in Los Angeles: APScheduler fires twice, the ledger's
    ISO-week key lets one digest through."""
    from tests.digest.conftest import make_runtime

    runtime = make_runtime(pg_url, standin, holder)
    try:
        with time_machine.travel(datetime(2026, 10, 31, 12, tzinfo=UTC), tick=False) as traveller:
            runtime.store.subscribe(TEAM, "CFOLD", "spec", WeeklySchedule.of(6, "01:30", "America/Los_Angeles"))
            clock = _clock(runtime)
            clock.start()
            driver = ClockDriver(clock, traveller)
            fired = [driver.step(), driver.step()]
            clock.shutdown(wait=True)
        assert [f.astimezone(UTC).hour for f in fired] == [8, 9]
        assert _posts_by_channel(standin)["CFOLD"] == 1
        assert [r.period for r in runtime.store.deliveries()] == [period_of(fired[0], "America/Los_Angeles")]
    finally:
        runtime.store.close()


def test_old_event_ids_are_pruned_hourly_and_a_failure_stops_nothing(sqlite_runtime, monkeypatch, caplog) -> None:
    store = sqlite_runtime.store
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    runs: list[JobExecutionEvent] = []
    ran = threading.Condition()

    def on_run(event: JobExecutionEvent) -> None:
        if event.job_id == PRUNE_ID:
            with ran:
                runs.append(event)
                ran.notify_all()

    def run_at(when: datetime) -> JobExecutionEvent:
        seen = len(runs)
        traveller.move_to(when)
        clock.scheduler.wakeup()
        with ran:
            assert ran.wait_for(lambda: len(runs) > seen, timeout=PATIENCE_S), f"the prune job did not run at {when}"
            return runs[-1]

    def ids() -> set[str]:
        with store.engine.connect() as conn:
            return set(conn.execute(select(ProcessedEvent.c.event_id)).scalars())

    with time_machine.travel(start - timedelta(days=2), tick=False) as traveller:
        store.record_event("EvOld", TEAM)
        traveller.move_to(start - timedelta(hours=1))
        store.record_event("EvRecent", TEAM)
        traveller.move_to(start)
        clock = _clock(sqlite_runtime, reconcile_every_s=None)
        clock.start()
        try:
            clock.scheduler.add_listener(on_run, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
            job = clock.scheduler.get_job(PRUNE_ID, jobstore=LOCAL_JOBSTORE)
            assert job is not None and job.next_run_time == start + timedelta(hours=1)
            assert ids() == {"EvOld", "EvRecent"}  # not at start: the first run is an hour later
            assert run_at(start + timedelta(hours=1)).code == EVENT_JOB_EXECUTED
            assert ids() == {"EvRecent"}  # 2 days old: gone; 2 hours old: kept
            assert store.record_event("EvRecent", TEAM) is False  # still de-duplicated

            def broken(before: datetime) -> int:
                raise RuntimeError("could not connect to postgresql://app:hunter2@db")

            monkeypatch.setattr(store, "prune_events", broken)
            with caplog.at_level(logging.INFO, logger="bot.digest.clock"):
                assert run_at(start + timedelta(hours=2)).code == EVENT_JOB_EXECUTED  # handled, not raised
            (warning,) = [r for r in caplog.records if r.name == "bot.digest.clock" and r.levelno >= logging.WARNING]
            assert "RuntimeError" in warning.getMessage() and warning.exc_info is None
            assert "hunter2" not in caplog.text and "Traceback" not in caplog.text
            monkeypatch.undo()
            assert clock.scheduler.running
            # A day later (the clock kept going): the recent id has aged past the retention too.
            assert run_at(start + timedelta(days=1, hours=2)).code == EVENT_JOB_EXECUTED
            assert ids() == set()
        finally:
            clock.shutdown(wait=True)
