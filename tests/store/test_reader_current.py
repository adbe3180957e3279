"""The per-person read (:meth:`bot.store.Store.reader_state`) is current: a commit by any other
connection, in this process or another, shows at once, in every thread. (Kept as the guard for
any cache of it: a per-thread SQLite cache was tried and measured, see docs/benchmarks.md.)"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from bot.store import Store
from bot.store.reader import ReaderState


def test_a_write_by_another_store_on_the_same_database_shows_at_once(store: Store, store_url: str) -> None:
    store.mark_read("T1", "U1", ["a"])
    assert store.reader_state("T1", "U1").read == {"a"}
    assert store.reader_state("T1", "U1").read == {"a"}  # read again, nothing changed
    with Store.from_url(store_url, migrate=False) as other:  # its own engine: as another process
        other.mark_read("T1", "U1", ["b"])
        other.follow("T1", "U1", "spec")
        other.set_budget("T1", "U1", 30)
    state = store.reader_state("T1", "U1")
    assert (state.read, state.follows, state.budget) == ({"a", "b"}, ("spec",), 30)


def test_a_plain_sqlite_commit_from_outside_shows_at_once(tmp_path: Path) -> None:
    path = tmp_path / "reads.db"
    with Store.from_url(f"sqlite:///{path}") as store:
        store.set_lang("T1", "U1", "en")
        assert store.reader_state("T1", "U1").lang == "en"
        outside = sqlite3.connect(path)  # not SQLAlchemy's: as another program would
        with outside:
            outside.execute("UPDATE user_settings SET lang = 'zh' WHERE team_id = 'T1' AND user_id = 'U1'")
        outside.close()
        assert store.reader_state("T1", "U1").lang == "zh"


def test_every_thread_sees_the_latest_write(store: Store) -> None:
    seen: dict[int, list[ReaderState]] = {}

    def reader(i: int, ready: threading.Barrier, wrote: threading.Event) -> None:
        seen[i] = [store.reader_state("T1", "U1")]
        ready.wait()
        wrote.wait()
        seen[i].append(store.reader_state("T1", "U1"))

    ready, wrote = threading.Barrier(9), threading.Event()
    threads = [threading.Thread(target=reader, args=(i, ready, wrote)) for i in range(8)]
    for t in threads:
        t.start()
    ready.wait()
    store.mark_read("T1", "U1", ["x"])
    wrote.set()
    for t in threads:
        t.join(10)
    assert all(before.read == frozenset() and after.read == {"x"} for before, after in seen.values())


def test_a_closed_store_reads_afresh_on_a_new_connection(store: Store, store_url: str) -> None:
    store.mark_read("T1", "U1", ["a"])
    assert store.reader_state("T1", "U1").read == {"a"}
    store.close()
    with Store.from_url(store_url, migrate=False) as other:
        other.mark_read("T1", "U1", ["b"])
    assert store.reader_state("T1", "U1").read == {"a", "b"}  # read afresh after close
