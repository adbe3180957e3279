"""Remind me later: set in the reader's zone, sent once as a DM at 09:00 local by the real clock
(APScheduler with a controlled wall clock), through the ledger; survives a restart; cancellable."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta

import pytest
import time_machine
from apscheduler.events import EVENT_JOB_EXECUTED, JobExecutionEvent
from slack_sdk import WebClient

from bot.digest.clock import REMINDERS_ID, DigestClock
from bot.digest.reminders import ledger_key
from bot.domain.reminder_day import choose_day, due_at
from bot.runtime import Runtime
from bot.slack.app import build_app
from bot.slack.handlers import Caller
from bot.store import Store
from tests.digest.conftest import TEAM, settings_for
from tests.standin import SlackStandIn

USER = "UKOLKATA"
SET_AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # Monday 17:30 in Kolkata
DUE = datetime(2026, 12, 3, 3, 30, tzinfo=UTC)  # Thursday 09:00 in Kolkata (UTC+05:30)


@pytest.fixture
def standin():
    # the people of the workspace (the stand-in answers user_not_found for anyone else)
    with SlackStandIn(team_id=TEAM, users={USER: {"tz": "Asia/Kolkata"}, "UBERLIN": {}}) as s:
        yield s


def _runtime(db_url: str, standin: SlackStandIn, holder) -> Runtime:
    runtime = Runtime(settings_for(db_url, standin), Store.from_url(db_url), holder)
    runtime.record_catalog_version()
    return runtime


def _ask(runtime: Runtime, standin: SlackStandIn, text: str) -> str:
    client = WebClient(token="xoxb-test", base_url=standin.api_url)
    app = build_app(runtime, client=client)
    return app.handlers.command(Caller(TEAM, USER, "C1"), text).text


class _Runs:
    """Waits for runs of the reminders job on a started clock."""

    def __init__(self, clock: DigestClock) -> None:
        self.clock = clock
        self.times: list[datetime] = []
        self._cond = threading.Condition()
        clock.scheduler.add_listener(self._on, EVENT_JOB_EXECUTED)

    def _on(self, event: JobExecutionEvent) -> None:
        if event.job_id == REMINDERS_ID:
            with self._cond:
                self.times.append(event.scheduled_run_time.astimezone(UTC))
                self._cond.notify_all()

    def at(self, traveller, when: datetime, tries: int = 30) -> None:
        """Move the wall clock to ``when`` and wait until the job has run for it.

        On a loaded machine the run the clock makes at its start can still be going when the
        clock is moved; APScheduler then skips the due run (``max_instances=1``) and plans the
        next one a minute later, which a frozen clock never reaches. So each wait of 2 s that
        sees no run re-arms the job for ``when`` (a second run for the same minute must not
        send twice either: the test counts the DMs)."""
        traveller.move_to(when)

        def seen() -> bool:
            return any(t >= when - timedelta(seconds=60) for t in self.times)

        with self._cond:
            for _ in range(tries):
                self.clock.scheduler.wakeup()
                if self._cond.wait_for(seen, 2.0):
                    return
                self.clock.scheduler.modify_job(REMINDERS_ID, next_run_time=when)
        raise AssertionError(f"reminders job did not run at {when}")


def _dms(standin: SlackStandIn) -> list:
    return [c for c in standin.calls("chat.postMessage") if c.ok and str(c.args.get("channel", "")).startswith("D")]


def test_in_3_days_in_kolkata_is_sent_once_at_nine_local_after_a_restart_and_can_be_cancelled(
    db_url, standin, holder
) -> None:
    with time_machine.travel(SET_AT, tick=False) as traveller:
        runtime = _runtime(db_url, standin, holder)
        reply = _ask(runtime, standin, "remind spec-decode in 3 days")
        assert "Thursday 3 Dec 2026, 09:00 Asia/Kolkata." in reply and "))" not in reply
        other = _ask(runtime, standin, "remind p-eagle in 3 days")
        assert "Asia/Kolkata" in other
        (first, _second) = runtime.store.reminders(TEAM, USER)
        assert first.due_at == DUE and first.post_id == "spec-decode"
        # The list numbers them as `reminders cancel <n>` counts them.
        numbered = _ask(runtime, standin, "reminders")
        assert "1. Thursday 3 Dec 2026, 09:00" in numbered and "\n2. Thursday 3 Dec 2026, 09:00" in numbered
        assert numbered.index("2. ") > numbered.index("1. ")
        assert "There is no reminder 3" in _ask(runtime, standin, "reminders cancel 3")
        assert "reminders cancel 1" in _ask(runtime, standin, "reminders cancel abc")  # the form
        assert len(runtime.store.reminders(TEAM, USER)) == 2  # neither cancelled anything
        listed = _ask(runtime, standin, "reminders cancel 2")
        assert "Cancelled the reminder of P-EAGLE" in listed  # names what it cancelled
        again = _ask(runtime, standin, "remind spec-decode in 4 days")  # moves the pending one
        assert "on Friday 4 Dec 2026, 09:00 Asia/Kolkata instead of Thursday 3 Dec 2026, 09:00 Asia/Kolkata" in again
        _ask(runtime, standin, "remind spec-decode in 3 days")
        assert [r.post_id for r in runtime.store.reminders(TEAM, USER)] == ["spec-decode"]
        runtime.store.close()

        # a restart: a new process, the same database
        runtime = _runtime(db_url, standin, holder)
        clock = DigestClock(runtime, reconcile_every_s=None, channel_interval_s=0.01, team_rate_per_s=100)
        clock.start()
        try:
            runs = _Runs(clock)
            runs.at(traveller, DUE - timedelta(minutes=2))
            assert _dms(standin) == []
            runs.at(traveller, DUE)
            runs.at(traveller, DUE + timedelta(minutes=5))
            runs.at(traveller, DUE + timedelta(days=1))
        finally:
            clock.shutdown(wait=True)
        dms = _dms(standin)
        assert len(dms) == 1
        assert "How Speculative Decoding Boosts vLLM Performance" in dms[0].args["text"]
        assert runtime.store.reminders(TEAM, USER) == []
        assert runtime.store.delivery(*ledger_key(first)).status == "sent"
        runtime.store.close()


def test_reading_the_post_cancels_its_reminder_and_a_later_reminder_of_it_stands(runtime, standin) -> None:
    """(QA) A reminder of a post marked read since was still listed and sent: reading it is what the
    reminder asked for. One set after the read (to read it again) is kept."""
    with time_machine.travel(SET_AT, tick=False):
        assert "Thursday 3 Dec 2026" in _ask(runtime, standin, "remind spec-decode in 3 days")
        _ask(runtime, standin, "remind p-eagle in 3 days")
        _ask(runtime, standin, "read spec-decode")
        assert [r.post_id for r in runtime.store.reminders(TEAM, USER)] == ["p-eagle"]
        assert "Speculative Decoding Boosts" not in _ask(runtime, standin, "reminders")
        _ask(runtime, standin, "remind spec-decode in 4 days")
        assert sorted(r.post_id for r in runtime.store.reminders(TEAM, USER)) == ["p-eagle", "spec-decode"]


def test_a_click_on_remind_me_next_week_and_the_list(runtime, standin) -> None:
    with time_machine.travel(SET_AT, tick=False):
        client = WebClient(token="xoxb-test", base_url=standin.api_url)
        app = build_app(runtime, client=client)
        caller = Caller(TEAM, "UBERLIN", "C1")
        answer = app.handlers.action(caller, "remind", {"p": "spec-decode", "v": "unfurl", "d": "next week"})
        assert answer is not None and "Monday 7 Dec 2026, 09:00 Europe/Berlin." in answer.text
        listed = app.handlers.command(caller, "reminders")
        assert "spec-decode" in str(listed.blocks) or "Speculative" in listed.text
        (reminder,) = runtime.store.reminders(TEAM, "UBERLIN")
        app.handlers.action(caller, "cancel_reminder", {"d": str(reminder.id), "v": "reminders"})
        assert runtime.store.reminders(TEAM, "UBERLIN") == []


# The day each phrase names when typed on Monday 2026-11-30, grouped by the day.
DAY_PHRASES = [
    (date(2026, 12, 1), ["tomorrow"]),
    (date(2026, 12, 2), ["后天", "day after tomorrow"]),
    (date(2026, 12, 3), ["in 3 days", "3天后", "in three days"]),
    (date(2026, 12, 2), ["wednesday", "本周三"]),
    (date(2026, 12, 4), ["this friday", "本周五", "这周五"]),
    (date(2026, 12, 9), ["下周三", "下星期三", "下礼拜三"]),  # QA round 16: next week's, not this week's
    (date(2026, 12, 7), ["next monday", "monday", "dec 7", "dec 7th", "2026/12/07", "in a week"]),
    (date(2026, 12, 7), ["下周一", "一周后", "12月7日"]),
    (date(2026, 12, 14), ["两周后"]),
    (date(2026, 12, 24), ["2026-12-24"]),
    (date(2027, 1, 5), ["jan 5", "1月5号"]),
]


@pytest.mark.parametrize(
    "typed, expected", [(f"p {phrase}", day) for day, phrases in DAY_PHRASES for phrase in phrases]
)
def test_day_phrases_relative_to_the_local_today(typed, expected) -> None:
    choice = choose_day(typed.split(), date(2026, 11, 30))
    assert (choice.rest, choice.day, choice.error) == (["p"], expected, None)


@pytest.mark.parametrize(
    "typed",
    [
        "p 2026-11-30",
        "p 2020-01-01",
        "p in 0 days",
        "p in 500 days",
        "p 2026-02-30",
        "p yesterday",
        "p today",
        "p 昨天",
        "p 13月40日",
        "p 2026/02/30",
        "p nov 30",
        "p 11月30日",
        "p 30th nov",
    ],
)
def test_days_not_after_today_or_too_far_are_refused(typed) -> None:
    choice = choose_day(typed.split(), date(2026, 11, 30))
    assert choice.day is None and choice.error


def test_nine_local_across_zones() -> None:
    assert due_at(date(2026, 12, 3), "Asia/Kolkata") == DUE
    assert due_at(date(2026, 7, 1), "Europe/Berlin") == datetime(2026, 7, 1, 7, 0, tzinfo=UTC)


def test_remind_with_a_query_that_matches_several_posts_lets_the_reader_pick(runtime, standin) -> None:
    with time_machine.travel(SET_AT, tick=False):
        reply = _ask(runtime, standin, "remind eagle tomorrow")
        assert "not sure which post “eagle” means" in reply and "tomorrow`" in reply
        assert runtime.store.reminders(TEAM, USER) == []
        refused = _ask(runtime, standin, "remind spec-decode yesterday")
        assert "“yesterday”" in refused and runtime.store.reminders(TEAM, USER) == []


def test_a_day_that_is_not_understood_after_a_named_post_is_blamed_on_the_day(runtime, standin) -> None:
    """``remind p-eagle next monday soonish``: the post is an id, so the words after it are the day
    that was not understood; nothing is set."""
    app = build_app(runtime, client=WebClient(token="xoxb-test", base_url=standin.api_url))
    caller = Caller(TEAM, "UBERLIN", "C1")
    for typed, blamed in (
        ("remind p-eagle next monday soonish", "next monday soonish"),  # (at 3pm: the 09:00 refusal)
        ("remind p-eagle soonish", "soonish"),
    ):
        answer = app.handlers.command(caller, typed)
        assert f"I could not use “{blamed}” as a day" in answer.text, answer.text
    assert runtime.store.reminders(TEAM, "UBERLIN") == []
