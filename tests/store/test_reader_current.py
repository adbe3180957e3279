"""The per-person read (:meth:`bot.store.Store.reader_state`) is current although it is cached on
SQLite (:class:`bot.store.reader.ReaderCache`): a commit through any store or engine of this
process shows at once, in every thread; a commit by another program within
:data:`~bot.store.reader.ReaderCache.CHECK_EVERY_S` seconds. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from sqlalchemy import text

from bot.store import Store, make_engine
from bot.store.reader import ReaderCache, ReaderState


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


def test_a_plain_sqlite_commit_from_another_program_shows_within_the_check_interval(tmp_path: Path) -> None:
    path = tmp_path / "reads.db"
    with Store.from_url(f"sqlite:///{path}") as store:
        store.set_lang("T1", "U1", "en")
        assert store.reader_state("T1", "U1").lang == "en"
        outside = sqlite3.connect(path)  # not SQLAlchemy's: as another program would
        with outside:
            outside.execute("UPDATE user_settings SET lang = 'zh' WHERE team_id = 'T1' AND user_id = 'U1'")
        outside.close()
        time.sleep(ReaderCache.CHECK_EVERY_S * 1.5)
        assert store.reader_state("T1", "U1").lang == "zh"


def test_an_unchanged_state_comes_from_the_cache_until_a_commit(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cached.db'}"
    with Store.from_url(url) as store:
        store.mark_read("T1", "U1", ["a"])
        first = store.reader_state("T1", "U1")
        assert store.reader_state("T1", "U1") is first  # kept: the same object, not read again
        assert store.reader_state("T1", "U2") is not first
        engine = make_engine(url)  # an engine of this process outside any store: a test's clean-up
        try:
            with engine.begin() as conn:
                conn.execute(text("DELETE FROM reading_progress"))
        finally:
            engine.dispose()
        assert store.reader_state("T1", "U1").read == frozenset()  # seen at once, no wait


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
