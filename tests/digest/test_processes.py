"""Real ``vllm-path scheduler`` processes against a real database and the HTTP stand-in for Slack.

* Two clock processes on one PostgreSQL database, 200 channel subscriptions and 20 DM digests
  all due at the same minute: every digest delivered exactly once, counted at the stand-in.
* A clock killed with SIGKILL in the middle of a 200-channel fan-out (the stand-in enforcing the
  manifest's scopes), then restarted: every remaining digest delivered, none twice.
* SIGTERM in the middle of a 400-channel fan-out: the clock exits within 10 s having recorded
  every post Slack accepted; the restarted clock sends the rest, none twice.

Each process runs ``vllm-path`` with its wall clock started a few seconds before the digests'
time (``tests/digest/fake_clock_entry.py``, time_machine ticking at real speed), so the real
cron jobs fire within seconds.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.domain.schedule import WeeklySchedule
from bot.store import Store
from tests.digest.conftest import TEAM

REPO = Path(__file__).resolve().parents[2]
FIRE = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
ZONES = [
    "UTC",
    "Europe/Berlin",
    "America/Los_Angeles",
    "Asia/Tokyo",
    "Asia/Kolkata",
    "America/Sao_Paulo",
    "Australia/Sydney",
    "Asia/Shanghai",
]
TRACKS = ["spec", "pd", "quant", "rl", "agentic", "ops", "models", "internals"]


def _local(zone: str) -> tuple[int, str]:
    local = FIRE.astimezone(ZoneInfo(zone))
    return local.weekday(), f"{local:%H:%M}"


def _seed(db_url: str, subs: int, dms: int) -> None:
    """``subs`` channel subscriptions and ``dms`` DM digests, all due at FIRE (each in its own
    zone's local time), created a day before."""
    store = Store.from_url(db_url, clock=lambda: FIRE - timedelta(days=1))
    try:
        for i in range(subs):
            zone = ZONES[i % len(ZONES)]
            weekday, at = _local(zone)
            store.subscribe(
                TEAM,
                f"C{i:04d}",
                TRACKS[i % len(TRACKS)],
                WeeklySchedule.of(weekday, at, zone),
                steps_per_week=1 + i % 3,
            )
        for i in range(dms):
            zone = ZONES[i % len(ZONES)]
            weekday, at = _local(zone)
            store.set_dm(TEAM, f"U{i:04d}", True, schedule=WeeklySchedule.of(weekday, at, zone))
            store.follow(TEAM, f"U{i:04d}", TRACKS[i % len(TRACKS)])
    finally:
        store.close()


def _start(
    db_url: str, standin, start: datetime, log: Path, *args: str, anchor: float | None = None
) -> subprocess.Popen:
    """A ``vllm-path scheduler`` process whose wall clock reads ``start`` at real epoch time
    ``anchor`` (default: when it starts), ticking at real speed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL"))}
    env.update(
        DATABASE_URL=db_url,
        SLACK_BOT_TOKEN="xoxb-test",
        SLACK_API_URL=standin.api_url,
        LOG_LEVEL="INFO",
        PYTHONUNBUFFERED="1",
        PYTHONPATH=str(REPO),
    )
    when = start.isoformat() + (f"@{anchor!r}" if anchor is not None else "")
    cmd = [
        sys.executable,
        "-m",
        "tests.digest.fake_clock_entry",
        when,
        "scheduler",
        "--reconcile-every",
        "1",
        "--workers",
        "8",
        "--team-rate",
        "200",
        *args,
    ]
    # run in the test's own folder: a killed scheduler leaves its pid file there, not in the repo
    return subprocess.Popen(cmd, cwd=log.parent, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=5)


def _wait_for_posts(standin, count: int, logs: list[Path], timeout: float = 180) -> None:
    """Wait until the stand-in accepted ``count`` posts; on time-out, fail with how many came
    and the tail of each process's log."""
    try:
        standin.wait_for(lambda: sum(_ok_posts(standin).values()) >= count, timeout=timeout)
    except TimeoutError:
        noteworthy = []
        for path in logs:
            lines = path.read_text(errors="replace").splitlines()
            noteworthy += [
                f"{path.name}: {line}"
                for line in lines
                if ("WARNING" in line or "ERROR" in line or "Traceback" in line)
                and "maximum number of running instances" not in line
            ]
        pytest.fail(
            f"{sum(_ok_posts(standin).values())} of {count} posts after {timeout} s\n" + "\n".join(noteworthy[-60:])
        )


def _ok_posts(standin) -> Counter:
    return Counter(c.channel for c in standin.calls("chat.postMessage") if c.ok)


def _dm_channels(standin) -> set[str]:
    return {c.channel for c in standin.calls("chat.postMessage") if c.ok and c.channel.startswith("D")}


@pytest.mark.postgres
@pytest.mark.slow
def test_two_clock_processes_on_postgres_deliver_every_digest_exactly_once(pg_url, standin, tmp_path) -> None:
    _seed(pg_url, subs=200, dms=20)
    # Both processes agree on the time however late a loaded machine starts either (the anchor),
    # and Slack answers in 0.2 s, so one process alone needs several seconds for the fan-out: the
    # second one has that long to join in.
    standin.configure(latency_s=0.2)
    anchor = time.time()
    # --stale-after 20: a send whose process lost its database connection mid-way (the shared
    # server refusing clients on a loaded machine) leaves its claim; the other clock takes it over
    # after 20 s, finds the post in the channel's history if it was made, and sends it if not.
    procs = [
        _start(
            pg_url,
            standin,
            FIRE - timedelta(seconds=8),
            tmp_path / f"clock{i}.log",
            "--stale-after",
            "20",
            anchor=anchor,
        )
        for i in range(2)
    ]
    try:
        _wait_for_posts(standin, 220, [tmp_path / f"clock{i}.log" for i in range(2)])
        time.sleep(3)  # would a straggler post a second time?
    finally:
        _stop(procs)
    logs = "\n".join((tmp_path / f"clock{i}.log").read_text(errors="replace") for i in range(2))
    posts = _ok_posts(standin)
    channels = {f"C{i:04d}" for i in range(200)}
    assert {ch: posts[ch] for ch in channels} == {ch: 1 for ch in channels}, logs[-3000:]
    dm_channels = _dm_channels(standin)
    assert len(dm_channels) == 20 and all(posts[d] == 1 for d in dm_channels)
    assert sum(posts.values()) == 220
    store = Store.from_url(pg_url, migrate=False)
    try:
        rows = store.deliveries()
    finally:
        store.close()
    assert len(rows) == 220 and all(r.status == "sent" for r in rows)
    claimants = Counter(r.claimed_by.split(":")[1] for r in rows)
    assert len(claimants) == 2, f"both processes should have sent some: {claimants}"
    assert all(p.returncode == 0 for p in procs), logs[-3000:]


def _manifest_bot_scopes() -> frozenset[str]:
    import yaml

    manifest = yaml.safe_load((REPO / "manifest.yaml").read_text(encoding="utf-8"))
    return frozenset(manifest["oauth_config"]["scopes"]["bot"])


def _exactly_once(db_url: str, standin, channels: int, log: str) -> None:
    posts = _ok_posts(standin)
    wanted = {f"C{i:04d}" for i in range(channels)}
    assert {ch: posts[ch] for ch in wanted} == {ch: 1 for ch in wanted}, log[-4000:]
    assert sum(posts.values()) == channels
    store = Store.from_url(db_url, migrate=False)
    try:
        rows = store.deliveries()
        subs = store.active_subscriptions()
    finally:
        store.close()
    assert len(rows) == channels and all(r.status == "sent" for r in rows), log[-4000:]
    assert all(s.cursor == s.steps_per_week for s in subs)  # each advanced once


@pytest.mark.slow
def test_a_clock_killed_mid_fan_out_resumes_on_restart_and_sends_none_twice(sqlite_url, standin, tmp_path) -> None:
    """kill -9 during a 200-channel fan-out, with the stand-in enforcing the manifest's scopes:
    posts that landed at Slack but were never recorded are found in the channel's history by
    the restarted clock (0 duplicates), and the rest are sent (0 lost)."""
    assert standin.scopes == _manifest_bot_scopes()  # what a real install of the manifest grants
    _seed(sqlite_url, subs=200, dms=0)
    standin.configure(latency_s=0.2)  # a slow Slack: many posts in flight when the kill lands
    anchor = time.time()
    args = ("--workers", "8", "--stale-after", "2")
    first = _start(sqlite_url, standin, FIRE - timedelta(seconds=4), tmp_path / "first.log", *args, anchor=anchor)
    try:
        _wait_for_posts(standin, 40, [tmp_path / "first.log"])
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    at_kill = sum(_ok_posts(standin).values())
    time.sleep(0.5)  # requests in flight at the kill still land at Slack, unrecorded
    assert 0 < at_kill < 200, "the kill should land in the middle of the fan-out"
    second = _start(sqlite_url, standin, FIRE - timedelta(seconds=4), tmp_path / "second.log", *args, anchor=anchor)
    try:
        _wait_for_posts(standin, 200, [tmp_path / "first.log", tmp_path / "second.log"])
        time.sleep(3)  # would a straggler post a second time?
    finally:
        _stop([second])
    log = (tmp_path / "first.log").read_text(errors="replace") + (tmp_path / "second.log").read_text(errors="replace")
    _exactly_once(sqlite_url, standin, 200, log)
    history = standin.calls("conversations.history")
    assert all(c.ok for c in history), [c.response for c in history if not c.ok][:3]
    assert second.returncode == 0


@pytest.mark.slow
def test_sigterm_mid_fan_out_stops_within_10_s_and_the_restart_sends_the_rest_once(
    sqlite_url, standin, tmp_path
) -> None:
    """SIGTERM during a 400-channel fan-out: the clock claims nothing more, lets the sends in
    flight finish and records them, and exits well within the 10 s a platform allows; the
    restarted clock sends the rest, none twice."""
    _seed(sqlite_url, subs=400, dms=0)
    standin.configure(latency_s=0.1)
    anchor = time.time()
    first = _start(
        sqlite_url, standin, FIRE - timedelta(seconds=4), tmp_path / "first.log", "--team-rate", "40", anchor=anchor
    )
    try:
        _wait_for_posts(standin, 40, [tmp_path / "first.log"])
    finally:
        first.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        try:
            first.wait(timeout=60)
        except subprocess.TimeoutExpired:
            first.kill()
            first.wait(timeout=5)
        exited_in = time.monotonic() - signalled
    log = (tmp_path / "first.log").read_text(errors="replace")
    stopped = re.search(r"digest clock stopped in ([0-9.]+) s", log)
    assert stopped, log[-3000:]
    assert "bot.digest.clock: signal SIGTERM: stopping" in log and "bot.doors.serve" not in log, log[-3000:]
    # The clock's own measure of its shutdown, and the platform's view (signal to exit, with
    # the interpreter's teardown): both within 10 s.
    assert float(stopped.group(1)) < 10 and exited_in < 10, (stopped.group(1), exited_in)
    assert first.returncode == 0, log[-3000:]
    sent_before = sum(_ok_posts(standin).values())
    assert sent_before < 400, "SIGTERM should land in the middle of the fan-out"
    store = Store.from_url(sqlite_url, migrate=False)
    try:
        rows = store.deliveries()
    finally:
        store.close()
    # Every post Slack accepted is recorded; nothing is left claimed for a take-over.
    assert len(rows) == sent_before and all(r.status == "sent" for r in rows), log[-3000:]
    second = _start(
        sqlite_url, standin, FIRE - timedelta(seconds=4), tmp_path / "second.log", "--team-rate", "40", anchor=anchor
    )
    try:
        _wait_for_posts(standin, 400, [tmp_path / "first.log", tmp_path / "second.log"])
        time.sleep(3)
    finally:
        _stop([second])
    _exactly_once(sqlite_url, standin, 400, log + (tmp_path / "second.log").read_text(errors="replace"))
    assert second.returncode == 0
