"""The lazy listeners' runner (the work after an ack): a bounded pool off the ack pool; past the
bound the person is answered "busy, try again" at once through the request's ``response_url``."""

from __future__ import annotations

import json
import logging
import threading
import urllib.request
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from slack_bolt.lazy_listener.internals import build_runnable_function
from slack_bolt.lazy_listener.runner import LazyListenerRunner
from slack_bolt.request import BoltRequest

from bot import metrics
from bot.slack.i18n import t

log = logging.getLogger(__name__)

THREADS = 64
"""Lazy listeners running at once: they mostly wait on Slack (a slow Slack answers in seconds)."""
QUEUE_BOUND = 256
"""Lazy listeners that may wait for a thread; one more gets the busy answer."""
BUSY_TIMEOUT_S = 3.0
"""Seconds a busy answer may take to reach Slack's ``response_url``."""


class BoundedLazyRunner(LazyListenerRunner):
    """A ``LazyListenerRunner`` on :data:`THREADS` threads, :data:`QUEUE_BOUND` waiting. Thread-safe."""

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger
        self._pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="bolt-lazy")
        self._busy_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bolt-busy")
        self._lock = threading.Lock()
        self._waiting = 0
        self._busy_waiting = 0
        self._futures: set[Future[None]] = set()
        self._closed = False

    def start(self, function: Callable[..., None], request: BoltRequest) -> None:
        """Run ``function`` for ``request`` on the pool, or answer busy when full or draining."""
        job = build_runnable_function(func=function, logger=self.logger, request=request)
        with self._lock:
            full = self._closed or self._waiting >= QUEUE_BOUND
            if not full:
                self._waiting += 1
        if full:
            self._shed(request)
            return

        def run() -> None:
            with self._lock:
                self._waiting -= 1
            job()

        future = self._pool.submit(run)
        with self._lock:
            self._futures.add(future)
        future.add_done_callback(self._forget)

    def _forget(self, future: Future[None]) -> None:
        with self._lock:
            self._futures.discard(future)

    def _shed(self, request: BoltRequest) -> None:
        """Tell the person to try again (when the request has a ``response_url``), counted."""
        metrics.LAZY_SHED.inc()
        url = _response_url(request.body)
        if not url:
            return
        with self._lock:
            if self._busy_waiting >= QUEUE_BOUND:
                return  # even the busy answers are backed up: drop, counted above
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
        """Stop taking jobs, wait up to ``grace_s`` seconds for the running ones; how many were dropped
        (waiting, or still running after the grace period)."""
        with self._lock:
            self._closed = True
            pending = list(self._futures)
        dropped = sum(1 for f in pending if f.cancel())
        running = [f for f in pending if not f.cancelled()]
        unfinished = len(wait(running, timeout=grace_s).not_done)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._busy_pool.shutdown(wait=False, cancel_futures=True)
        return dropped + unfinished


def _response_url(body: dict[str, Any]) -> str | None:
    """The ``response_url`` of a slash command or a block action body, if any."""
    url = body.get("response_url")
    return url if isinstance(url, str) and url.startswith(("https://", "http://")) else None
