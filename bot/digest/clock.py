"""The clock: APScheduler 3 jobs that deliver digests on time, in each subscriber's time zone.

``vllm-path scheduler`` runs a :class:`DigestClock`: cron jobs in the app's database
(:mod:`bot.digest.jobs`; their functions stay here, the job store keeps their import paths), and a
reconcile job that syncs them, reloads a newer catalog and **catches up** (:mod:`bot.digest.due`).
Every send goes through :class:`bot.digest.deliver.Deliverer`, exactly once by its ledger claim.
The job functions find the running clock (one per process) through a module global.

Times are aware datetimes (UTC unless said otherwise); durations seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from apscheduler.executors.pool import ThreadPoolExecutor as APSThreadPool
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.digest.deliver import Attempt, Deliverer, Key
from bot.digest.due import due_now, eligible, unsettled
from bot.digest.jobs import JOBSTORE, create_jobstore_table, desired_jobs, sync_jobs
from bot.digest.pacing import Pacer
from bot.digest.reload_log import log_reload
from bot.digest.reminders import send_due_reminders, send_nudges
from bot.digest.sources import post_draft_cards, watch_sources
from bot.runtime import Runtime
from bot.store import DM_TRACK

if TYPE_CHECKING:  # Dramatiq is loaded only in queue mode
    from bot.digest.queue import EnqueueingDeliverer, Queued

log = logging.getLogger(__name__)

SUB_FUNC = "bot.digest.clock:run_subscription"
DM_FUNC = "bot.digest.clock:run_dm"
RECONCILE_ID = "digest:reconcile"
SOURCES_ID = "catalog:sources"
SOURCES_DAILY_S = 24 * 3600
"""Seconds between feed runs when only the old ``CATALOG_FEED_URL`` is set."""
REMINDERS_ID = "reminders:due"
REMINDERS_EVERY_S = 60
"""Seconds between runs of the job that sends due reminders (:mod:`bot.digest.reminders`)."""
NUDGES_ID = "readers:nudges"
NUDGES_AT_UTC = 10
"""Hour (UTC) of the daily job that sends the gentle nudges (:func:`bot.digest.reminders.send_nudges`)."""
PRUNE_ID = "events:prune"
PRUNE_EVERY_S = 3600
"""Seconds between runs of the job that forgets old Slack event ids (:meth:`DigestClock.prune_events`)."""
EVENT_RETENTION_H = 24
"""Hours a Slack event id is kept for de-duplication: Slack retries an event at most 3 times, within
minutes (at once, after 1 and after 5 minutes), so an older id can never match a retry again."""
LOCAL_JOBSTORE = "local"
WEEK_S = 7 * 24 * 3600
LATE_LOG_LIMIT = 500
"""At most this many channels named in one catch-up WARNING line (the rest are counted)."""

_clock: DigestClock | None = None
_R = TypeVar("_R")
_clock_lock = threading.Lock()


def _running() -> DigestClock | None:
    clock = _clock
    if clock is None:
        log.error("a digest job ran but no DigestClock is running in this process")
    return clock


def run_subscription(sub_id: int) -> None:
    """Cron job of a channel subscription: deliver the digest of its latest scheduled time."""
    if (clock := _running()) is not None:
        clock.run_subscription(sub_id)


def run_dm(team: str, user: str) -> None:
    """Cron job of a DM digest: deliver the person's digest of its latest scheduled time."""
    if (clock := _running()) is not None:
        clock.run_dm(team, user)


class DigestClock:
    """The scheduler process for ``runtime``. ``deliverer``: sends, or in queue mode enqueues (default:
    a :class:`Deliverer` with a :class:`Pacer` of ``channel_interval_s`` / ``team_rate_per_s``);
    ``workers``: threads sending at once; ``reconcile_every_s``: seconds between reconciles (None: at
    start and on demand); ``retry_failed_after_s``: the back-off's base (:func:`~bot.digest.due.retry_wait_s`)."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        deliverer: Deliverer | EnqueueingDeliverer | None = None,
        workers: int = 8,
        reconcile_every_s: float | None = 30.0,
        stale_after_s: float = 300.0,
        channel_interval_s: float = 1.05,
        team_rate_per_s: float | None = 10.0,
        retry_failed_after_s: float = 60.0,
        min_window_s: float = 6 * 3600,
    ):
        self.runtime = runtime
        self.deliverer: Deliverer | EnqueueingDeliverer = deliverer or Deliverer(
            runtime, pacer=Pacer(channel_interval_s, team_rate_per_s), stale_after_s=stale_after_s
        )
        self.workers = workers
        self.reconcile_every_s = reconcile_every_s
        self.retry_failed_after_s = retry_failed_after_s
        self.min_window_s = min_window_s
        self.scheduler: BackgroundScheduler | None = None
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="digest-catchup")
        self._inflight: set[Key] = set()  # ledger keys being sent
        self._queued: set[Key] = set()  # ledger keys queued for catch-up
        self._idle = threading.Condition(threading.Lock())  # guards the sets and the count
        self._pending = 0
        self._reconcile_lock = threading.Lock()
        self._stopping = threading.Event()
        self._reload_tried: str | None = None

    @property
    def store(self) -> Any:
        return self.runtime.store

    @staticmethod
    def now() -> datetime:
        """The current time, aware UTC."""
        return datetime.now(UTC)

    def start(self) -> None:
        """Sync the jobs, catch up and run in background threads; RuntimeError if a clock runs already."""
        global _clock
        with _clock_lock:
            if _clock is not None and _clock is not self:
                raise RuntimeError("a DigestClock is already running in this process")
            _clock = self
        try:
            self._start()
        except BaseException:
            with _clock_lock:  # a clock that failed to start does not block the next one
                if _clock is self:
                    _clock = None
            if self.scheduler is not None and self.scheduler.running:
                self.scheduler.shutdown(wait=False)
            raise

    def _start(self) -> None:
        jobstore = SQLAlchemyJobStore(engine=self.store.engine)
        create_jobstore_table(jobstore)
        self.scheduler = BackgroundScheduler(
            jobstores={JOBSTORE: jobstore, LOCAL_JOBSTORE: MemoryJobStore()},
            executors={"default": APSThreadPool(max_workers=self.workers)},
            job_defaults={"coalesce": True, "misfire_grace_time": WEEK_S, "max_instances": 1},
            timezone=UTC,
        )
        self.scheduler.start(paused=True)
        self.sync_jobs()
        local = partial(self.scheduler.add_job, jobstore=LOCAL_JOBSTORE, replace_existing=True)
        every = partial(local, misfire_grace_time=None)
        if self.reconcile_every_s:
            every(self.reconcile, IntervalTrigger(seconds=self.reconcile_every_s), id=RECONCILE_ID)
        settings = getattr(self.runtime, "settings", None)
        feeds_every = settings and (settings.catalog_sources_every_s or (settings.catalog_feed_url and SOURCES_DAILY_S))
        if feeds_every:  # the feeds of sources.yaml (and CATALOG_FEED_URL) -> drafts
            every(self.watch_sources, IntervalTrigger(seconds=feeds_every), id=SOURCES_ID, next_run_time=self.now())
        reminders = lambda: send_due_reminders(self.runtime, self.own_sender(), self.now())  # noqa: E731
        every(reminders, IntervalTrigger(seconds=REMINDERS_EVERY_S), id=REMINDERS_ID, next_run_time=self.now())
        every(self.prune_events, IntervalTrigger(seconds=PRUNE_EVERY_S), id=PRUNE_ID)
        nudges = lambda: send_nudges(self.runtime, self.own_sender(), self.now())  # noqa: E731
        local(nudges, CronTrigger(hour=NUDGES_AT_UTC, timezone=UTC), id=NUDGES_ID)
        self.scheduler.resume()
        self.catch_up()
        log.info(
            "digest clock started: %d jobs, reconcile every %s s, %d workers",
            len(self.scheduler.get_jobs(jobstore=JOBSTORE)),
            self.reconcile_every_s,
            self.workers,
        )

    def watch_sources(self) -> None:
        """Interval job (``CATALOG_SOURCES_EVERY_S`` or ``CATALOG_FEED_URL``): the feeds to drafts
        (:func:`bot.digest.sources.watch_sources`), a card per new draft to the curators. A failure
        is one WARNING line; the next run tries again."""
        runtime, settings = self.runtime, self.runtime.settings
        try:
            report = watch_sources(settings.catalog_dir, runtime.holder.catalog, feed_url=settings.catalog_feed_url)
            post_draft_cards(runtime, self.own_sender().clients, report.drafts)
        except Exception as exc:  # an invalid sources file, a full disk: never the clock's end
            log.warning("catalog sources: run failed: %s", exc)

    def prune_events(self) -> int:
        """Interval job: forget Slack event ids older than :data:`EVENT_RETENTION_H` (the store deletes
        in short batches). A failure is logged (its type only) and retried on the next run."""
        try:
            deleted: int = self.store.prune_events(self.now() - timedelta(hours=EVENT_RETENTION_H))
        except Exception as exc:
            log.warning("pruning old Slack event ids failed (%s); next try in %d s", type(exc).__name__, PRUNE_EVERY_S)
            return 0
        if deleted:
            log.info("pruned %d Slack event id(s) older than %d h", deleted, EVENT_RETENTION_H)
        return deleted

    def own_sender(self) -> Deliverer:
        """The :class:`Deliverer` for the clock's own sends: the clock's, or in queue mode one made once."""
        if isinstance(self.deliverer, Deliverer):
            return self.deliverer
        sender = getattr(self, "_own_sender", None)
        if sender is None:
            sender = self._own_sender = Deliverer(self.runtime)
        return sender

    def shutdown(self, wait: bool = True) -> float:
        """Stop (SIGTERM): claim nothing new, drop queued catch-up work, with ``wait`` let claimed sends
        finish and be recorded (the rest is for the next run). Returns the seconds it took."""
        global _clock
        started = time.monotonic()
        self._stopping.set()
        self.deliverer.stop_claiming()
        with self._reconcile_lock:  # let a running reconcile finish: APScheduler's shutdown holds
            pass  # the job store lock that reconcile's job sync needs
        self._pool.shutdown(wait=False, cancel_futures=True)  # queued catch-up: not started
        was_running = self.scheduler is not None and self.scheduler.running
        if self.scheduler is not None and self.scheduler.running:
            self.scheduler.shutdown(wait=wait)
        self._pool.shutdown(wait=wait)
        with _clock_lock:
            if _clock is self:
                _clock = None
        took = time.monotonic() - started
        # `digest run-now` never started the schedule: "the next run" is the clock's words (QA round 8)
        log.log(
            logging.INFO if was_running else logging.DEBUG,
            "digest clock stopped in %.2f s: sends in flight finished and recorded; "
            "digests not yet sent go out on the next run",
            took,
        )
        return took

    def run_subscription(self, sub_id: int) -> Attempt | Queued | None:
        """Deliver subscription ``sub_id``'s digest for its latest scheduled time, if still due."""
        sub = self.store.get_subscription(sub_id)
        if sub is None or not sub.active:
            return None
        dest = (sub.team_id, sub.channel_id, sub.track_id)
        return self._if_due(sub, dest, partial(self.deliverer.deliver_subscription, sub), f"subscription {sub_id}")

    def run_dm(self, team: str, user: str) -> Attempt | Queued | None:
        """Deliver ``user``'s DM digest for its latest scheduled time, if still due."""
        dm = self.store.get_dm(team, user)
        if dm is None or not dm.enabled or dm.status != "active":
            return None
        return self._if_due(dm, (team, user, DM_TRACK), partial(self.deliverer.deliver_dm, team, user))

    def _if_due(
        self, row: Any, dest: tuple[str, str, str], send: Callable[[datetime], Attempt | Queued], name: str = ""
    ) -> Attempt | Queued | None:
        """``send(fire)`` for ``row``'s latest scheduled time if :func:`~bot.digest.due.eligible` and its
        key is not being sent here already; ``name``: logged when nothing is due."""
        now = self.now()
        fire = row.schedule.latest_fire(now)
        if not eligible(fire, row.updated_at, now, row.schedule.timezone, self.min_window_s):
            if name:
                log.info("%s: nothing due at %s", name, now.isoformat())
            return None
        key = (*dest, row.schedule.period_of(fire))
        with self._idle:
            if key in self._inflight:
                return None
            self._inflight.add(key)
        try:
            attempt = send(fire)
            log.info("digest %s: %s", "/".join(key), attempt.outcome.value)
            return attempt
        finally:
            with self._idle:
                self._inflight.discard(key)
                self._idle.notify_all()

    def _submit(self, func: Callable[..., _R], *args: object, queued: Key | None = None) -> Future[_R]:
        """Run ``func(*args)`` on the catch-up workers; ``queued``: its key, unqueued when done."""
        with self._idle:
            self._pending += 1
        try:
            future = self._pool.submit(func, *args)
        except BaseException:
            self._done(queued)
            raise
        future.add_done_callback(lambda _future: self._done(queued))
        return future

    def _done(self, queued: Key | None) -> None:
        with self._idle:
            self._pending -= 1
            self._queued.discard(queued)
            self._idle.notify_all()

    def idle(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` s (None: for ever) until this process sends nothing; True if idle."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0 and not self._inflight, timeout)

    def reconcile(self) -> None:
        """Sync jobs, reload a newer catalog, catch up; concurrent calls run one after the other."""
        if self._stopping.is_set():
            return
        with self._reconcile_lock:
            if not self._stopping.is_set():
                self._maybe_reload_catalog()
                self.sync_jobs()
                self.catch_up()

    def _maybe_reload_catalog(self) -> None:
        latest = self.store.latest_catalog_version()
        current = self.runtime.holder.catalog.version
        if latest and latest != current and latest != self._reload_tried:
            self._reload_tried = latest
            ok, errors = self.runtime.reload_catalog()
            serving, folder = self.runtime.holder.catalog.version, self.runtime.settings.catalog_dir
            log_reload(log, latest, ok, len(errors), serving, folder)

    def sync_jobs(self) -> None:
        """Make the cron jobs match the database (:func:`bot.digest.jobs.sync_jobs`)."""
        if self.scheduler is not None:
            sync_jobs(self.scheduler, desired_jobs(self.store, SUB_FUNC, DM_FUNC))

    def catch_up(self) -> list[Future[Attempt | Queued | None]]:
        """Submit every due, unsettled delivery (:func:`~bot.digest.due.due_now`); returns the futures."""
        futures: list[Future[Attempt | Queued | None]] = []
        late: list[str] = []  # missed slots, stale claims, retries: worth an operator's look
        is_unsettled = partial(
            unsettled,
            stale_after_s=self.deliverer.stale_after_s,
            max_attempts=self.deliverer.max_attempts,
            retry_failed_after_s=self.retry_failed_after_s,
        )
        for due in due_now(self.store, self.now(), self.min_window_s, is_unsettled):
            with self._idle:  # already queued or being sent by this process
                if due.key in self._queued or due.key in self._inflight:
                    continue
                self._queued.add(due.key)
            futures.append(
                self._submit(self.run_subscription, due.sub_id, queued=due.key)
                if due.sub_id is not None
                else self._submit(self.run_dm, due.key[0], due.key[1], queued=due.key)
            )
            if due.why:
                late.append(f"{due.key[1]} ({'/'.join((due.key[0], *due.key[2:]))}: {due.why})")
        if late:
            shown = late[:LATE_LOG_LIMIT]
            more = f" and {len(late) - len(shown)} more" if len(late) > len(shown) else ""
            log.warning(
                "catch-up: %d digest(s) not delivered on time, sending now: %s%s", len(late), ", ".join(shown), more
            )
        if len(futures) > len(late):
            log.info("catch-up: %d digest(s) due now and not yet claimed", len(futures) - len(late))
        return futures

    def run_now(self, track: str | None = None, dms: bool = False, at: datetime | None = None) -> Counter[str]:
        """Deliver now, unless sent, the week of ``at`` (aware, default now) of every active subscription
        (of ``track``, when given) and with ``dms`` every DM digest. Returns counts (``{'sent': 3, …}``)."""
        now = at or self.now()
        futures: list[Future[Attempt | Queued | None]] = []
        for sub in self.store.active_subscriptions():
            if track is None or sub.track_id == track:
                futures.append(self._submit(self.deliverer.deliver_subscription, sub, now))
        if dms:
            for dm in self.store.dm_recipients(at=now):
                futures.append(self._submit(self.deliverer.deliver_dm, dm.team_id, dm.user_id, now))
        return tally(f.result() for f in futures)


def tally(attempts: Iterable[Attempt | Queued | None]) -> Counter[str]:
    """Outcome counts (``{'sent': 3, 'taken': 1, …}``) of some attempts (None ones skipped)."""
    return Counter(a.outcome.value for a in attempts if a is not None)
