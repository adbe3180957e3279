"""Group commit for many threads: a flusher thread runs the calls they submit in batches."""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from typing import Any

from sqlalchemy import String, bindparam, func
from sqlalchemy.dialects import postgresql

log = logging.getLogger(__name__)


def unnest_rows(name: str, columns: tuple[str, ...]) -> Any:
    """``unnest(:<col>s, …) AS name(col, …)``: a FROM item of the string arrays ``<col>s`` (PostgreSQL)."""
    arrays = [bindparam(f"{c}s", type_=postgresql.ARRAY(String)) for c in columns]
    return func.unnest(*arrays).table_valued(*columns).render_derived(name=name)


class Batching(ABC):
    """A flusher thread that runs the calls of many threads in batches, through the subclass's
    :meth:`_flush`, falling back to :meth:`_one` per call when a batch fails (a call whose
    ``done`` the flush already set, its answer committed, is not run again)."""

    name = "batcher"

    def __init__(self, max_batch: int):
        self.max_batch = max_batch
        self._cond = threading.Condition()
        self._pending: list[Any] = []
        self._closed = False
        self.batches = 0  # transactions committed (a gauge for operators and benchmarks)
        self.calls = 0
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Flush what is pending and stop the flusher thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=30)

    def _submit(self, call: Any) -> Any:
        with self._cond:
            if self._closed:
                raise RuntimeError(f"the {self.name} is closed")
            self._pending.append(call)
            self._cond.notify()
        call.done.wait()
        if call.error is not None:
            raise call.error
        return call.result

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._cond.wait()
                if not self._pending and self._closed:
                    return
                batch = self._pending[: self.max_batch]
                del self._pending[: self.max_batch]
            try:
                self._flush(batch)
                self.batches += 1
                self.calls += len(batch)
            except Exception:
                log.warning(
                    "a batch of %d (%s) failed; running its calls one by one", len(batch), self.name, exc_info=True
                )
                for call in batch:
                    if call.done.is_set():
                        continue
                    try:
                        call.result = self._one(call)
                    except BaseException as exc:
                        call.error = exc
            finally:
                for call in batch:
                    call.done.set()

    @abstractmethod
    def _flush(self, batch: list[Any]) -> None:
        """Run ``batch`` (pending calls), setting each call's answer (and, once it is committed,
        its ``done``, or leave that to the flusher)."""

    @abstractmethod
    def _one(self, call: Any) -> Any:
        """Run one call on its own (the fallback when its batch failed) and return its answer."""
