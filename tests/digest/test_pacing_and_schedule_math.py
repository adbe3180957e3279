"""The pacer (real threads, real clock) and the schedule arithmetic (APScheduler's CronTrigger)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.digest.deliver import Pacer
from bot.domain.schedule import in_window, latest_fire, next_fire, signature, trigger_for


class _SeenClock:
    """``time.monotonic`` that remembers, per thread, its last reading: inside a slot that is the
    time at which the pacer let the send go (GCRA claims a turn when it sends, on the clock), so
    the checks below hold however late a loaded machine wakes the thread."""

    def __init__(self) -> None:
        self._local = threading.local()

    def __call__(self) -> float:
        self._local.last = time.monotonic()
        return self._local.last

    def last(self) -> float:
        return self._local.last


def _run(pacer_args: dict, items: list[tuple[str, str]], threads: int, hold: float = 0.0):
    """Send ``items`` ((team, key) pairs) through a ``Pacer(**pacer_args)`` on a :class:`_SeenClock`
    from ``threads`` threads; returns (team, key, start, end) per send: start when the pacer let it
    go, end just after the body, monotonic seconds."""
    clock = _SeenClock()
    pacer = Pacer(**pacer_args, clock=clock)
    out: list[tuple[str, str, float, float]] = []
    lock = threading.Lock()
    queue = list(items)

    def worker() -> None:
        while True:
            with lock:
                if not queue:
                    return
                team, key = queue.pop(0)
            with pacer.slot(team, key):
                start = clock.last()
                if hold:
                    time.sleep(hold)
                end = clock()
            with lock:
                out.append((team, key, start, end))

    ts = [threading.Thread(target=worker) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    return out


def test_posts_to_one_channel_are_spaced_and_never_overlap() -> None:
    sends = _run(dict(channel_interval_s=0.2, team_rate_per_s=None), [("T", "C1")] * 6, threads=4, hold=0.05)
    starts = sorted(s for *_, s, _e in sends)
    gaps = [b - a for a, b in pairwise(starts)]
    assert min(gaps) >= 0.2, gaps
    spans = sorted((s, e) for *_, s, e in sends)
    assert all(e1 <= s2 for (_, e1), (s2, _) in pairwise(spans))  # one at a time


def test_a_slow_send_pushes_the_next_one_a_full_interval_past_its_end() -> None:
    sends = sorted(
        _run(dict(channel_interval_s=0.1, team_rate_per_s=None), [("T", "C1")] * 2, threads=2, hold=0.25),
        key=lambda s: s[2],
    )
    assert sends[1][2] - sends[0][3] >= 0.1  # e.g. a retry after a 429 took long


class _ManualClock:
    """A monotonic clock that moves only when slept on (or :meth:`advance`d); logs the sleeps."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def test_each_attempt_waits_a_full_interval_after_the_previous_answer_a_429_retry_included() -> None:
    # Spacing is measured from the previous attempt's answer, so it holds at Slack's end however
    # long a busy machine takes between a slot and the request (a CI run once saw 0.3 s).
    clock = _ManualClock()
    pacer = Pacer(channel_interval_s=1.25, team_rate_per_s=None, clock=clock, sleep=clock.advance)
    attempts: list[tuple[float, float]] = []  # (start, answer)
    with pacer.slot("T", "C1"):
        start = clock()
        clock.advance(0.3)  # slow to go out, then refused with 429 Retry-After: 1
        attempts.append((start, clock()))
        pacer.attempt_ended("T", "C1")  # as PacedRateLimitRetryHandler does on the 429
        clock.advance(1.1)  # slack-sdk's handler sleeps Retry-After plus its jitter
        pacer.retry_slot("T", "C1")
        start = clock()
        clock.advance(0.05)
        attempts.append((start, clock()))
    with pacer.slot("T", "C1"):
        attempts.append((clock(), clock()))
    # every attempt starts 1.25 s after the previous one's answer
    assert [round(b[0] - a[1], 6) for a, b in pairwise(attempts)] == [1.25, 1.25]


def test_the_workspace_rate_holds_across_channels_and_busy_channels_do_not_block_others() -> None:
    items = [("T", f"C{i}") for i in range(30)] + [("T", "C0")] * 2
    sends = _run(dict(channel_interval_s=1.0, team_rate_per_s=20.0), items, threads=8)
    starts = sorted(s for *_, s, _e in sends)
    # 32 sends at <= 20/s: every gap at least 50 ms, in the pacer's own readings.
    gaps = [b - a for a, b in pairwise(starts)]
    assert min(gaps) >= 0.05 - 1e-9, gaps
    window = [s for s in starts if s - starts[0] < 1.0]
    assert len(window) <= 20
    c0 = sorted(s for _t, k, s, _e in sends if k == "C0")
    assert all(b - a >= 1.0 for a, b in pairwise(c0))
    # C0's extra posts wait their second without holding up the workspace: the other channels'
    # sends keep coming 50 ms apart (a send waiting for its channel while holding the workspace's
    # turn would leave a gap of about a second; 0.5 s leaves room for a loaded machine).
    others = sorted(s for _t, k, s, _e in sends if k != "C0")
    assert len(others) == 29
    assert max(b - a for a, b in pairwise(others)) < 0.5, others


def test_workspaces_are_paced_independently() -> None:
    items = [("T1", f"C{i}") for i in range(5)] + [("T2", f"C{i}") for i in range(5)]
    sends = _run(dict(channel_interval_s=0.0, team_rate_per_s=5.0), items, threads=10)
    by_team = {team: sorted(s for t, _k, s, _e in sends if t == team) for team in ("T1", "T2")}
    for starts in by_team.values():  # each workspace at its own 5/s ...
        assert all(b - a >= 0.2 - 1e-9 for a, b in pairwise(starts))
    # ... and side by side, not one after the other: T2's first send does not wait for T1's
    # turns (it would start 0.2 s after T1's last one if they shared one rate).
    first, second = sorted(by_team.values(), key=lambda s: s[0])
    assert second[0] < first[-1]


def test_pacer_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        Pacer(channel_interval_s=-1)
    with pytest.raises(ValueError):
        Pacer(team_rate_per_s=0)


# --- schedule arithmetic ---------------------------------------------------------------------------


def test_weekday_is_given_to_apscheduler_by_name() -> None:
    trigger = trigger_for(0, "09:00", "Europe/Berlin")
    assert "day_of_week='mon'" in str(trigger)
    assert signature(6, "18:30", "Asia/Tokyo") == "sun 18:30 Asia/Tokyo"


@pytest.mark.parametrize("tz", ["America/Los_Angeles", "Europe/Berlin", "Asia/Shanghai"])
def test_latest_and_next_fire_keep_the_local_time_across_dst(tz: str) -> None:
    now = datetime(2026, 2, 20, tzinfo=UTC)
    seen = []
    for _ in range(10):
        fire = next_fire(0, "09:00", tz, now)
        local = fire.astimezone(ZoneInfo(tz))
        assert (local.weekday(), local.hour, local.minute) == (0, 9, 0)
        assert latest_fire(0, "09:00", tz, fire) == fire
        assert latest_fire(0, "09:00", tz, fire + timedelta(days=6)) == fire
        assert (
            latest_fire(0, "09:00", tz, fire - timedelta(seconds=1)) == fire - timedelta(days=7)
            or latest_fire(0, "09:00", tz, fire - timedelta(seconds=1)) < fire
        )
        seen.append(fire)
        now = fire
    offsets = {f.astimezone(ZoneInfo(tz)).utcoffset() for f in seen}
    assert len(offsets) == (1 if tz == "Asia/Shanghai" else 2)  # the DST change is crossed


def test_a_repeated_wall_time_fires_twice_and_a_skipped_one_an_hour_later() -> None:
    # 2026-11-01 01:30 happens twice in Los Angeles; 2026-03-29 02:30 never happens in Berlin.
    la = [next_fire(6, "01:30", "America/Los_Angeles", datetime(2026, 10, 31, tzinfo=UTC))]
    la.append(next_fire(6, "01:30", "America/Los_Angeles", la[0]))
    assert [f.astimezone(UTC).hour for f in la] == [8, 9]
    assert la[1].astimezone(UTC) - la[0].astimezone(UTC) == timedelta(hours=1)
    # latest_fire sees both instants (the ledger's ISO-week key then sends once)
    assert latest_fire(6, "01:30", "America/Los_Angeles", la[1].astimezone(UTC) + timedelta(minutes=1)).astimezone(
        UTC
    ) == la[1].astimezone(UTC)
    assert latest_fire(6, "01:30", "America/Los_Angeles", la[0].astimezone(UTC) + timedelta(minutes=1)).astimezone(
        UTC
    ) == la[0].astimezone(UTC)
    berlin = next_fire(6, "02:30", "Europe/Berlin", datetime(2026, 3, 28, tzinfo=UTC))
    assert berlin.astimezone(UTC) == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)  # 03:30 CEST


def test_catch_up_window_is_the_rest_of_the_iso_week_at_least_some_hours() -> None:
    monday = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)  # Monday 09:00 Berlin
    tz = "Europe/Berlin"
    assert in_window(monday, monday, tz)
    assert in_window(monday, monday + timedelta(days=6, hours=14), tz)  # Sunday 23:00 Berlin
    assert not in_window(monday, monday + timedelta(days=6, hours=16), tz)  # next Monday 01:00
    assert not in_window(monday, monday - timedelta(seconds=1), tz)
    sunday_night = datetime(2026, 12, 13, 22, 30, tzinfo=UTC)  # Sunday 23:30 Berlin
    assert in_window(sunday_night, sunday_night + timedelta(hours=2), tz)  # past the week's end
    assert not in_window(sunday_night, sunday_night + timedelta(hours=7), tz)


def test_the_workspace_is_evenly_spaced_even_after_a_pause() -> None:
    # GCRA: a send goes when the workspace's turn has come, the next one 1 / rate later; a pause
    # earns no burst (a whole second's allowance at once would meet a 429 wherever Slack's window
    # edges fall).
    clock = _ManualClock()
    pacer = Pacer(channel_interval_s=1.0, team_rate_per_s=10.0, clock=clock, sleep=clock.advance)
    starts = []
    for i in range(25):
        if i == 12:
            clock.advance(5.0)
        with pacer.slot("T", f"C{i}"):
            starts.append(clock())
    assert [round(b - a, 6) for a, b in pairwise(starts)] == [0.1] * 11 + [5.0] + [0.1] * 12
    assert all(len([s for s in starts if t <= s < t + 1.0 - 1e-9]) <= 10 for t in starts)  # 10 a second


def test_a_429_blocks_the_workspace_for_every_sender_for_retry_after() -> None:
    clock = _ManualClock()
    pacer = Pacer(channel_interval_s=0.0, team_rate_per_s=100.0, clock=clock, sleep=clock.advance)
    pacer.rate_limited("T", 2.0)
    pacer.rate_limited("T", 0.5)  # a shorter block never shortens a longer one
    assert (pacer.blocked_for("T"), pacer.blocked_for("T2")) == (2.0, 0.0)
    with pacer.slot("T", "C1"):  # another destination waits the block out
        assert clock() == 102.0
    with pacer.slot("T2", "C1"):  # another workspace does not wait at all
        assert clock() == 102.0
    with pacer.slot("T", "C2"):  # then the workspace's spacing, 10 ms
        assert clock() == pytest.approx(102.01)
    Pacer(team_rate_per_s=None).rate_limited("T")  # no cap: the block still holds


def test_a_429_while_a_send_waits_for_its_turn_holds_it() -> None:
    clock = _ManualClock()

    def sleep(seconds: float) -> None:
        clock.advance(seconds)
        if not pacer.blocked_for("T") and clock() < 100.1:
            pacer.rate_limited("T", 1.0)  # another thread's send was answered 429 meanwhile

    pacer = Pacer(channel_interval_s=1.0, team_rate_per_s=100.0, clock=clock, sleep=sleep)
    with pacer.slot("T", "C1"):
        assert clock() == 100.0
    with pacer.slot("T", "C2"):  # its turn, 100.01, comes blocked (to 101.01): it waits the block out
        assert clock() == pytest.approx(101.01)
    with pacer.slot("T", "C3"):  # then the workspace's spacing from C2's send
        assert clock() == pytest.approx(101.02)


def test_a_send_takes_its_turn_only_when_it_goes_so_late_wakers_do_not_go_together() -> None:
    # Classic GCRA: a send told to wait reserves nothing. Two told to wait for 100.1 that wake late
    # together go 0.1 s apart; had they reserved 100.1 and 100.2 ahead, both would go at 100.3 at
    # once (a 429 at a limiter that counts arrivals).
    clock = _ManualClock()
    pacer = Pacer(channel_interval_s=0.0, team_rate_per_s=10.0, clock=clock, sleep=clock.advance)
    with pacer.slot("T", "C1"):
        assert clock() == 100.0
    assert [pacer.store.turn("T", key, 0.0, 0.1) for key in ("C2", "C3")] == [pytest.approx(0.1)] * 2
    clock.advance(0.3)
    assert pacer.store.turn("T", "C2", 0.0, 0.1) == 0.0  # goes at 100.3
    assert pacer.store.turn("T", "C3", 0.0, 0.1) == pytest.approx(0.1)  # the next turn is 100.4


def test_waiting_senders_sleep_until_their_turn_one_at_a_time_and_do_not_spin() -> None:
    pacer = Pacer(channel_interval_s=0.0, team_rate_per_s=20.0)
    calls: Counter[int] = Counter()  # per thread
    turn = pacer.store.turn

    def counted(*args: Any) -> float:
        calls[threading.get_ident()] += 1
        return turn(*args)

    pacer.store.turn = counted  # type: ignore[method-assign]
    starts: list[float] = []

    def worker(n: int) -> None:
        for i in range(3):
            with pacer.slot("T", f"C{n}-{i}"):
                starts.append(time.monotonic())

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(starts) == 24 and time.monotonic() - t0 >= 23 / 20 - 0.01
    # One thread at a time waits for the workspace's turn and asks when it has come: about two
    # questions a send (8 threads all waking at every turn would ask some 8 a send; a loop that
    # polls, hundreds).
    assert sum(calls.values()) <= 2 * 24 + 8, calls
    assert len(calls) == 8  # every thread had its turns


def test_a_wait_for_the_destination_alone_is_told_apart_and_holds_up_no_other_send() -> None:
    clock = _ManualClock()
    pacer = Pacer(channel_interval_s=1.0, team_rate_per_s=10.0, clock=clock, sleep=clock.advance)
    store = pacer.store
    assert store.turn("T", "C1", 1.0, 0.1) == 0.0  # C1 goes at 100.0
    assert store.turn("T", "C1", 1.0, 0.1) == pytest.approx(-1.0)  # C1's own turn, a second on
    assert store.turn("T", "C2", 1.0, 0.1) == pytest.approx(0.1)  # the workspace's turn
    pacer.rate_limited("T", 2.0)
    assert store.turn("T", "C1", 1.0, 0.1) == pytest.approx(2.0)  # a block is the workspace's


def test_clients_retry_429s_through_the_pacer(standin) -> None:
    from slack_sdk import WebClient
    from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

    from bot.digest.pacing import PacedRateLimitRetryHandler, paced

    client = paced(
        WebClient(
            token="xoxb-test", base_url=standin.api_url, retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=2)]
        )
    )
    assert [type(h) for h in client.retry_handlers] == [PacedRateLimitRetryHandler]
    # The app's clients carry a subclass (it counts 429s): swapped too, the count kept.
    from bot.slack.retry import app_retry_handlers as retry_handlers

    app_client = paced(WebClient(token="xoxb-test", retry_handlers=retry_handlers()))
    assert type(app_client.retry_handlers[0]) is PacedRateLimitRetryHandler
    assert len(app_client.retry_handlers) == len(retry_handlers())
    standin.configure(rate_limit_every=2, retry_after_s=1)
    pacer = Pacer(channel_interval_s=0.0, team_rate_per_s=50.0)
    blocks: list[tuple[str, float]] = []
    block = pacer.rate_limited

    def rate_limited(team: str, retry_after_s: float = 1.0) -> None:
        blocks.append((team, retry_after_s))
        block(team, retry_after_s)

    pacer.rate_limited = rate_limited  # type: ignore[method-assign]
    from bot import metrics

    counted = metrics.SLACK_RATELIMITED._value.get()
    with pacer.slot("T", "C1"):
        client.chat_postMessage(channel="C1", text="a")
    with pacer.slot("T", "C2"):
        client.chat_postMessage(channel="C2", text="b")  # 429, then retried
    statuses = [c.status for c in standin.calls("chat.postMessage")]
    assert statuses == [200, 429, 200]
    assert blocks == [("T", 1.0)]  # the 429 blocked the workspace for its Retry-After
    assert metrics.SLACK_RATELIMITED._value.get() == counted + 1  # and was counted
