"""One person's reading state (language, reads, follows, budget) in one ``SELECT … UNION ALL …``;
on SQLite, while the database is unchanged, in one ``PRAGMA`` (:class:`_LocalReads`)."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, String, bindparam, cast, func, literal, null, select, union_all
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.expression import CompoundSelect

from bot.store.base import StoreCore
from bot.store.db import SQLITE_BUSY_TIMEOUT_MS
from bot.store.models import PerUser, ReaderBudget, ReadingProgress, TrackFollow, UserSettings


@dataclass(frozen=True, slots=True)
class ReaderState:
    """What :meth:`~bot.store.Store.get_lang` (``'en'`` | ``'zh'`` | None),
    :meth:`~bot.store.Store.read_posts` and :meth:`~bot.store.Store.follows` (oldest first) return."""

    lang: str | None
    read: frozenset[str]
    follows: tuple[str, ...]
    budget: int | None = None
    """The weekly reading budget in minutes (:meth:`~bot.store.Store.get_budget`)."""


def _reader_statement(dialect: str) -> CompoundSelect[Any]:
    """The combined read for ``dialect``, with ``:team`` and ``:user`` bound at each execution; the
    posts read come as one row, a JSON array of ids (fewer rows for the driver to step through)."""
    team, user = bindparam("team", type_=String), bindparam("user", type_=String)

    def theirs(model: type[PerUser]) -> tuple[ColumnElement[bool], ColumnElement[bool]]:
        return model.team_id == team, model.user_id == user

    no_time = cast(null(), TrackFollow.followed_at.type)
    lang = select(literal("lang").label("kind"), UserSettings.lang.label("value"), no_time.label("at"))
    lang = lang.where(*theirs(UserSettings))
    posts = (
        func.json_group_array(ReadingProgress.post_id)
        if dialect == "sqlite"
        else cast(func.json_agg(ReadingProgress.post_id), String)
    )
    read = select(literal("read"), posts, no_time).where(*theirs(ReadingProgress))
    follows = select(literal("follow"), TrackFollow.track_id, TrackFollow.followed_at).where(*theirs(TrackFollow))
    minutes = cast(ReaderBudget.minutes_per_week, String)
    budget = select(literal("budget"), minutes, no_time).where(*theirs(ReaderBudget))
    return union_all(lang, read, follows, budget)


class _RawStatement:
    """``statement`` compiled once for ``dialect``, to run on a DBAPI connection: its SQL text and
    its parameters in the driver's style (a list for SQLite's ``qmark``, a dict for psycopg)."""

    def __init__(self, statement: CompoundSelect[Any], dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql = compiled.string
        self._defaults = {name: param.value for name, param in compiled.binds.items()}
        self._positions = compiled.positiontup

    def params(self, **values: Any) -> list[Any] | dict[str, Any]:
        merged = {**self._defaults, **values}
        if self._positions is None:
            return merged
        return [merged[name] for name in self._positions]


_RAW_BY_DIALECT: dict[str, _RawStatement] = {}


LOCAL_STATES_MAX = 4096
"""Reader states one thread keeps (:class:`_LocalReads`) before it starts afresh."""


class _LocalReads(threading.local):
    """One thread's own read-only SQLite connection to the store's file and the reader states it
    read while the database stayed unchanged. ``PRAGMA data_version`` changes whenever any other
    connection (of this process or another) commits to the file, so an unchanged version means
    every state kept is still what the database holds (SQLite's documentation of the pragma)."""

    def __init__(self, path: str, opened: list[sqlite3.Connection], lock: threading.Lock) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        self.conn.execute("PRAGMA query_only = ON")
        self.version = -1
        self.states: dict[tuple[str, str], ReaderState] = {}
        with lock:
            opened.append(self.conn)


def _state_of(rows: Sequence[Any]) -> ReaderState:
    """The :class:`ReaderState` in the rows of :func:`_reader_statement` (``(kind, value, at)``)."""
    chosen: str | None = None
    minutes: int | None = None
    posts: set[str] = set()
    followed: list[tuple[Any, str]] = []
    for kind, value, at in rows:
        if kind == "lang":
            chosen = value
        elif kind == "read":
            posts.update(json.loads(value) if value else ())  # NULL: none (json_agg of no rows)
        elif kind == "budget":
            minutes = int(value)
        else:
            followed.append((at, value))
    # As follows(): by followed_at, then track id. ``at`` is the driver's value (a datetime on
    # PostgreSQL, SQLite's fixed-width UTC text), which sorts in time order either way.
    followed.sort()
    return ReaderState(chosen, frozenset(posts), tuple(track for _, track in followed), minutes)


class ReaderRepo(StoreCore):
    """The combined per-person read."""

    _local_reads: Any = None
    _local_conns: list[sqlite3.Connection]
    _local_lock: threading.Lock

    def reader_state(self, team: str, user: str) -> ReaderState:
        """``user``'s :class:`ReaderState` in ``team`` (empty for someone never seen). One
        statement, built and compiled by SQLAlchemy once per dialect: this read comes with every
        command, and SQLAlchemy's execution layer cost more than the query itself
        (``benchmarks/command_latency.py``). On a SQLite file each thread reads on a connection of
        its own and keeps the states it read until the database changes (:class:`_LocalReads`),
        so a command in an unchanged database costs one ``PRAGMA``; elsewhere it runs on a pooled
        DBAPI connection (no ``BEGIN``: one statement is one snapshot)."""
        dialect = self._engine.dialect
        raw = _RAW_BY_DIALECT.get(dialect.name)
        if raw is None:
            raw = _RAW_BY_DIALECT[dialect.name] = _RawStatement(_reader_statement(dialect.name), dialect)
        local = self._local()
        if local is None:
            # closing the connection returns it to the pool, which rolls the read transaction back
            with closing(self._engine.raw_connection()) as dbapi_conn, closing(dbapi_conn.cursor()) as cursor:
                cursor.execute(raw.sql, raw.params(team=team, user=user))
                return _state_of(cursor.fetchall())
        version = local.conn.execute("PRAGMA data_version").fetchone()[0]  # before the read: a later
        if version != local.version:  # commit shows as a new version next time
            local.states.clear()
            local.version = version
        state = local.states.get((team, user))
        if state is None:
            state = _state_of(local.conn.execute(raw.sql, raw.params(team=team, user=user)).fetchall())
            if len(local.states) >= LOCAL_STATES_MAX:
                local.states.clear()
            local.states[(team, user)] = state
        return state

    def _local(self) -> _LocalReads | None:
        """This thread's :class:`_LocalReads` on a SQLite file store; None elsewhere."""
        if self._local_reads is None:
            path = self._engine.url.database
            if self._dialect != "sqlite" or not path or path == ":memory:" or path.startswith("file:"):
                self._local_reads = False
                return None
            self._local_conns, self._local_lock = [], threading.Lock()
            self._local_reads = _LocalReads(path, self._local_conns, self._local_lock)
        return self._local_reads or None

    def close(self) -> None:
        """Close the threads' own SQLite read connections, then as :meth:`StoreCore.close`."""
        if self._local_reads:
            with self._local_lock:
                for conn in self._local_conns:
                    conn.close()
                self._local_conns.clear()
            self._local_reads = False
        super().close()
