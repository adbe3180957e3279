"""Waiting in tests for what they expect (an event, a row, a log line, a process's exit): poll until
it is there, with a generous ceiling, so a loaded 2-core machine passes and an idle one does not
wait longer than the thing takes. Not for tests that measure a timeout or a speed (those state their
bound; speed targets are benchmarks)."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

PATIENCE_S = 120.0
"""The ceiling, in seconds, of a wait for something expected: reached only when it never comes."""


def wait_until(
    predicate: Callable[[], T], timeout: float = PATIENCE_S, what: str = "condition", every: float = 0.05
) -> T:
    """Call ``predicate()`` every ``every`` seconds until it returns something truthy, and return
    that. AssertionError naming ``what`` when ``timeout`` seconds pass first."""
    deadline = time.monotonic() + timeout
    while not (result := predicate()):
        assert time.monotonic() < deadline, f"{what}: not met within {timeout:g} s"
        time.sleep(every)
    return result


def wait_exit(proc: subprocess.Popen[bytes], timeout: float = PATIENCE_S) -> int:
    """Wait for ``proc`` to exit and return its code; kill it (and raise
    :class:`subprocess.TimeoutExpired`) when it has not within ``timeout`` seconds."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise


def gate_flushes(batcher: Any) -> tuple[threading.Event, threading.Event]:
    """Hold ``batcher``'s group commits (a :class:`bot.store.held_batch.HeldBatcher`, its ``_flush``
    replaced for the test) until the first returned event is set; the second is set as soon as a
    batch is being written. ``(gate, flushing)``."""
    gate, flushing = threading.Event(), threading.Event()
    flush = batcher._flush

    def gated(batch: list[Any]) -> None:
        flushing.set()
        assert gate.wait(PATIENCE_S)
        flush(batch)

    batcher._flush = gated
    return gate, flushing
