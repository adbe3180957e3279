"""The lazy listeners' pool (the work after an ack), Bolt's public ``App(listener_executor=...)``: with
``process_before_response=True`` Bolt submits only lazy listeners to it (``slack_bolt.listener.thread_runner``),
and the click listener submits its follow-ups itself (:mod:`bot.slack.listeners.actions`, no request copy).
Bounded; past the bound the person is answered "busy, try again" at once through the request's ``response_url``.
Commands and clicks come first: App Home publishes run only on spare threads (:meth:`BoundedLazyPool.run_spare`)."""

from __future__ import annotations

import json
import logging
import threading
import urllib.request
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor, wait
from contextvars import ContextVar
from typing import Any

from bot import metrics
from bot.slack.i18n import t

log = logging.getLogger(__name__)

THREADS = 64
"""Lazy listeners running at once: they mostly wait on Slack (a slow Slack answers in seconds)."""
QUEUE_BOUND = 1024
"""Lazy listeners that may wait for a thread; one more gets the busy answer. ``benchmarks/slow_slack.py
--mix`` (200 people back to back, Slack at 1 s) told some "busy" with 256: in its first seconds every
request of a person not yet known waits on their ``users.info``."""
ROOM_WAIT_S = 1.0
"""Seconds :meth:`BoundedLazyPool.submit` (in the request thread, before the ack) waits while half of
:data:`QUEUE_BOUND` wait: acks slow down before anyone is told "busy" (``slow_slack.py --mix`` on
PostgreSQL: acks outran the follow-ups and 5-14 % of clicks were told "busy")."""
KEPT_FOR_REPLIES = 16
"""Threads that :meth:`BoundedLazyPool.run_spare` jobs (App Home publishes) always leave to commands and clicks."""
BUSY_TIMEOUT_S = 3.0
"""Seconds a busy answer may take to reach Slack's ``response_url``."""
REQUEST_BODY: ContextVar[dict[str, Any]] = ContextVar("REQUEST_BODY")
"""The body of the request this thread dispatches (:meth:`bot.slack.app.BotApp.dispatch`; Bolt submits its
lazy listeners from that thread): where :meth:`BoundedLazyPool.submit` sends a busy answer."""


class BoundedLazyPool(Executor):
    """An executor on :data:`THREADS` threads, :data:`QUEUE_BOUND` waiting; ``on_room`` (when set) is
    called after each job, for :meth:`run_spare` jobs waiting elsewhere. Thread-safe."""

    on_room: Callable[[], None] | None = None
    before_job: Callable[[], None] | None = None
    """Called on the job's thread before each :meth:`submit` job (the Socket Mode door waits there for its acks)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="bolt-lazy")
        self._busy_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bolt-busy")
        self._lock = threading.Condition()  # notified as a job leaves the queue
        self._waiting = 0
        self._active = 0  # jobs submitted and not finished
        self._busy_waiting = 0
        self._futures: set[Future[Any]] = set()
        self._closed = False

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run ``fn(*args, **kwargs)`` on the pool; when full or draining, answer busy and return a
        cancelled future. Waits up to :data:`ROOM_WAIT_S` while half of :data:`QUEUE_BOUND` wait."""
        with self._lock:
            room = max(1, QUEUE_BOUND // 2)
            self._lock.wait_for(lambda: self._closed or self._waiting < room, ROOM_WAIT_S)
            full = self._closed or self._waiting >= QUEUE_BOUND
            if not full:
                self._waiting += 1
                self._active += 1
        if full:
            self._shed(REQUEST_BODY.get({}))
            future: Future[Any] = Future()
            future.cancel()
            return future

        def run() -> Any:
            with self._lock:
                self._waiting -= 1
                self._lock.notify()
            if self.before_job is not None:
                self.before_job()
            return fn(*args, **kwargs)

        return self._track(self._pool.submit(run))

    def run_spare(self, fn: Callable[[], Any]) -> bool:
        """Run ``fn()`` at once on a thread that commands and clicks do not need (none waiting, and
        :data:`KEPT_FOR_REPLIES` threads left free); False, not run, when there is none."""
        with self._lock:
            if self._closed or self._waiting or self._active >= THREADS - KEPT_FOR_REPLIES:
                return False
            self._active += 1

        def run() -> Any:
            if self.before_job is not None:
                self.before_job()
            return fn()

        self._track(self._pool.submit(run))
        return True

    def _track(self, future: Future[Any]) -> Future[Any]:
        with self._lock:
            self._futures.add(future)
        future.add_done_callback(self._forget)
        return future

    def _forget(self, future: Future[Any]) -> None:
        with self._lock:
            self._futures.discard(future)
            self._active -= 1
        if self.on_room is not None and not self._closed:
            self.on_room()

    def _shed(self, body: dict[str, Any]) -> None:
        """Tell the person to try again (when the request has a ``response_url``), counted."""
        metrics.LAZY_SHED.inc()
        url = _response_url(body)
        with self._lock:
            if not url or self._busy_waiting >= QUEUE_BOUND:
                return  # nowhere to answer, or even the busy answers are backed up: dropped, counted above
            self._busy_waiting += 1
        self._busy_pool.submit(self._post_busy, url)

    def _post_busy(self, url: str) -> None:
        with self._lock:
            self._busy_waiting -= 1
        body = json.dumps({"response_type": "ephemeral", "replace_original": False, "text": str(t("busy"))}).encode()
        req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=BUSY_TIMEOUT_S) as answer:
                answer.read()
        except OSError as exc:
            log.warning("busy answer not delivered: %s", type(exc).__name__)

    def drain(self, grace_s: float) -> int:
        """Stop taking jobs, wait up to ``grace_s`` seconds for those taken (running, or waiting for a
        thread: acknowledged work, issue 42), then cancel those not started; how many were dropped
        (not finished within the grace period)."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()  # no submit waits for room any more
            pending = list(self._futures)
        unfinished = wait(pending, timeout=grace_s).not_done
        for future in unfinished:
            future.cancel()  # one still waiting for a thread never starts
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._busy_pool.shutdown(wait=False, cancel_futures=True)
        return len(unfinished)


def _response_url(body: dict[str, Any]) -> str | None:
    """The ``response_url`` of a slash command or a block action body, if any."""
    url = body.get("response_url")
    return url if isinstance(url, str) and url.startswith(("https://", "http://")) else None
