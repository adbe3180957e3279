"""A lock shared by every process on one database, for work that must not run twice at once
(refreshing a rotating Slack token: a refresh token works once). PostgreSQL: a session-level
advisory lock keyed by a hash of the name; SQLite: an exclusive ``flock`` on a file beside the
database (``<db>.locks/<hash>``), or a process-wide lock for an in-memory one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Engine, text

_memory_locks: dict[str, threading.Lock] = {}
_memory_guard = threading.Lock()


def _key(name: str) -> int:
    """A signed 64-bit key for ``pg_advisory_lock`` from ``name``."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


@contextlib.contextmanager
def shared_lock(engine: Engine, name: str) -> Iterator[None]:
    """Hold the lock ``name`` across every process on ``engine``'s database while the block runs (no time-out)."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _key(name)})
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _key(name)})
                conn.commit()
        return
    database = engine.url.database
    if not database or database == ":memory:":
        with _memory_guard:
            lock = _memory_locks.setdefault(name, threading.Lock())
        with lock:
            yield
        return
    import fcntl  # POSIX; SQLite shared between processes lives on one machine

    folder = Path(database + ".locks")
    folder.mkdir(exist_ok=True)
    fd = os.open(folder / hashlib.sha256(name.encode()).hexdigest()[:16], os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
