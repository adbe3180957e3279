"""Drive a real, running APScheduler ``BackgroundScheduler`` through weeks of a controlled clock.

``time_machine`` moves the process's wall clock (``datetime.now``, ``time.time``; not
``time.monotonic``, so pacing and timeouts still run in real time). :class:`ClockDriver` jumps
from one scheduled job time to the next, wakes the scheduler, and waits until APScheduler reports
every job due at that time as executed: the scheduler, its SQLAlchemy job store, its thread pool
and the job functions are the real ones.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, JobExecutionEvent

from bot.digest.clock import JOBSTORE, DigestClock
from tests.waits import PATIENCE_S

_FAR = datetime(9999, 1, 1, tzinfo=UTC)


class ClockDriver:
    """Steps ``clock`` (started) through time with ``traveller`` (a ``time_machine`` traveller
    with ``tick=False``)."""

    def __init__(self, clock: DigestClock, traveller) -> None:
        self.clock = clock
        self.traveller = traveller
        self.executed: list[tuple[str, datetime]] = []
        self.errors: list[JobExecutionEvent] = []
        self._cond = threading.Condition()
        clock.scheduler.add_listener(self._on_event, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)

    def _on_event(self, event: JobExecutionEvent) -> None:
        with self._cond:
            if event.code == EVENT_JOB_ERROR:
                self.errors.append(event)
            self.executed.append((event.job_id, event.scheduled_run_time.astimezone(UTC)))
            self._cond.notify_all()

    def next_time(self) -> datetime | None:
        """The earliest next run time among the digest jobs (``sub:…``, ``dm:…``)."""
        times = [
            job.next_run_time.astimezone(UTC)
            for job in self.clock.scheduler.get_jobs(jobstore=JOBSTORE)
            if job.next_run_time is not None
        ]
        return min(times) if times else None  # in UTC: local times in a repeated hour differ by fold only

    def step(self, timeout: float = PATIENCE_S) -> datetime | None:
        """Jump to the next job time, run what is due, wait for it. Returns the time, or None.

        A run missed while the clock was down (a next run time before now, as a restarted clock
        finds in its job store) is first left to the scheduler to handle at the current time, as
        in production: time never moves back to it (on a busy machine the scheduler may not have
        reached it yet when the test steps)."""
        now = datetime.now(UTC)
        self.clock.scheduler.wakeup()
        deadline = time.monotonic() + timeout
        while (self.next_time() or _FAR) < now:
            assert time.monotonic() < deadline, f"runs missed before {now} not handled within {timeout} s"
            time.sleep(0.01)
        target = self.next_time()
        if target is None:
            return None
        # Every job due by then, in every job store (the reconcile job too, whose coalesced run
        # time is its latest missed one): wait until each has run once after the wake-up.
        due = {
            job.id
            for job in self.clock.scheduler.get_jobs()
            if job.next_run_time is not None and job.next_run_time.astimezone(UTC) <= target
        }
        with self._cond:
            mark = len(self.executed)
        self.traveller.move_to(target)
        self.clock.scheduler.wakeup()
        with self._cond:
            ok = self._cond.wait_for(lambda: due <= {j for j, _at in self.executed[mark:]}, timeout)
        assert ok, f"jobs {sorted(due)} due at {target} did not run within {timeout} s"
        # ... and until the catch-up work they started is done, before time moves on.
        assert self.clock.idle(timeout), "catch-up work still running"
        # APScheduler stores each job's next run time before running it; wait until it has.
        deadline = time.monotonic() + timeout
        while (self.next_time() or _FAR) <= target:
            assert time.monotonic() < deadline, f"next run times not advanced past {target}"
            time.sleep(0.01)
        return target

    def run_until(self, end: datetime, timeout: float = PATIENCE_S) -> list[datetime]:
        """Step until the next job time is after ``end``; returns the times stepped to."""
        stepped = []
        while True:
            target = self.next_time()
            if target is None or target > end:
                return stepped
            stepped.append(self.step(timeout))
