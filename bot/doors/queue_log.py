"""One summary for a burst of queued requests instead of waitress's WARNING per request.

Waitress logs ``Task queue depth is N`` (logger ``waitress.queue``) each time a request waits for a
free worker thread: a burst of 500 requests is 500 lines. :class:`QueueDepthSummary` lets the first
through, counts the others, and logs at most one summary line per :data:`QUEUE_SUMMARY_S` seconds
with their count and the deepest queue seen; a quiet window ends the burst."""

from __future__ import annotations

import logging
import re
import threading

QUEUE_LOGGER = "waitress.queue"
"""The logger waitress warns on when a request has to wait for a worker thread."""
QUEUE_SUMMARY_S = 10.0
"""Seconds between two summary lines of one burst (read when a window opens)."""
SUMMARY = "vllm_path_queue_summary"
"""Attribute set on the summary records (the filter lets them through)."""

_DEPTH = re.compile(r"depth is (\d+)")


class QueueDepthSummary(logging.Filter):
    """The filter on :data:`QUEUE_LOGGER` (see the module doc). Thread-safe; its summaries come
    from a daemon timer thread at each window's end."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._open = False  # a window is open: records in it are counted, not logged
        self._count = 0
        self._deepest = 0
        self._window_s = QUEUE_SUMMARY_S

    def filter(self, record: logging.LogRecord) -> bool:
        """True for a burst's first record (noted as such) and for the summaries; False for the others."""
        if getattr(record, SUMMARY, False):
            return True
        depth = _depth(record)
        with self._lock:
            if self._open:
                self._count += 1
                self._deepest = max(self._deepest, depth)
                return False
            self._open_window()
            window = self._window_s
        record.msg = (
            f"{record.getMessage()} (requests are waiting for a worker thread; further such warnings "
            f"are summed up every {window:.0f} s)"
        )
        record.args = None
        return True

    def _open_window(self) -> None:
        """Start counting for :data:`QUEUE_SUMMARY_S` seconds (the caller holds the lock)."""
        self._open, self._count, self._deepest = True, 0, 0
        self._window_s = QUEUE_SUMMARY_S
        timer = threading.Timer(self._window_s, self._close_window)
        timer.daemon = True
        timer.start()

    def _close_window(self) -> None:
        """Log the summary of the window that ends; keep counting while the burst goes on."""
        with self._lock:
            count, deepest, window = self._count, self._deepest, self._window_s
            if count:
                self._open_window()
            else:
                self._open = False
        if count:
            logging.getLogger(QUEUE_LOGGER).warning(
                "%d more requests waited for a worker thread in the last %.0f s (deepest queue %d)",
                count,
                window,
                deepest,
                extra={SUMMARY: True},
            )


def _depth(record: logging.LogRecord) -> int:
    """The queue depth a waitress record reports (0 when it says none)."""
    try:
        found = _DEPTH.search(record.getMessage())
    except Exception:  # a record whose message cannot be formatted
        return 0
    return int(found.group(1)) if found else 0


_install_lock = threading.Lock()


def summarise_queue_warnings() -> QueueDepthSummary:
    """Put one :class:`QueueDepthSummary` on waitress's queue logger (once per process); returns it."""
    logger = logging.getLogger(QUEUE_LOGGER)
    with _install_lock:
        for existing in logger.filters:
            if isinstance(existing, QueueDepthSummary):
                return existing
        summary = QueueDepthSummary()
        logger.addFilter(summary)
        return summary
