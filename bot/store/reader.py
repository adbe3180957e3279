"""One person's reading state (language, reads, follows, budget) in one ``SELECT … UNION ALL …``."""

from __future__ import annotations

import functools
import json
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from typing import Any, Protocol

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    String,
    Table,
    bindparam,
    cast,
    event,
    func,
    literal,
    null,
    select,
    union_all,
)
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.expression import CompoundSelect

from bot.store import db
from bot.store.base import Carry, StoreCore
from bot.store.models import ReaderBudget, ReadingProgress, TrackFollow, UserSettings


@dataclass(frozen=True, slots=True)
class ReaderState:
    """What :meth:`~bot.store.Store.get_lang` (``'en'`` | ``'zh'`` | None),
    :meth:`~bot.store.Store.read_posts` and :meth:`~bot.store.Store.follows` (oldest first) return."""

    lang: str | None
    read: frozenset[str]
    follows: tuple[str, ...]
    budget: int | None = None
    """The weekly reading budget in minutes (:meth:`~bot.store.Store.get_budget`)."""


@functools.cache
def _reader_statement(dialect: str) -> CompoundSelect[Any]:
    """The combined read for ``dialect``, with ``:team`` and ``:user`` bound at each execution; the
    posts read come as one row, a JSON array of ids (fewer rows for the driver to step through).
    Built once per dialect (building it was half of the read's CPU, ``benchmarks/home_open.py``)."""
    team, user = bindparam("team", type_=String), bindparam("user", type_=String)

    def theirs(model: Table) -> tuple[ColumnElement[bool], ColumnElement[bool]]:
        return model.c.team_id == team, model.c.user_id == user

    no_time = cast(null(), TrackFollow.c.followed_at.type)
    lang = select(literal("lang").label("kind"), UserSettings.c.lang.label("value"), no_time.label("at"))
    lang = lang.where(*theirs(UserSettings))
    posts = (
        func.json_group_array(ReadingProgress.c.post_id)
        if dialect == "sqlite"
        else cast(func.json_agg(ReadingProgress.c.post_id), String)
    )
    read = select(literal("read"), posts, no_time).where(*theirs(ReadingProgress))
    follows = select(literal("follow"), TrackFollow.c.track_id, TrackFollow.c.followed_at).where(*theirs(TrackFollow))
    minutes = cast(ReaderBudget.c.minutes_per_week, String)
    budget = select(literal("budget"), minutes, no_time).where(*theirs(ReaderBudget))
    return union_all(lang, read, follows, budget)


class ReaderCache:
    """Reader states of one SQLite file database, shared by the process's stores on it (see
    :func:`reader_cache`) and kept until something that may change them is committed to it:

    * a store's write (:meth:`ReaderRepo._write`) starts a new generation as it commits, inside
      :meth:`bracket`; a write to tables no reader state reads (held requests,
      :meth:`ReaderRepo._write_elsewhere`) does not, and neither does a person's own *Mark read* or
      *Mark unread*, whose kept state is carried over with the change (``carry``) — both only when
      :meth:`bracket` proves that no other connection committed meanwhile;
    * any other commit of this process (a migration's, a test's, an engine outside a store) starts
      a new generation before it lands (the ``Engine`` ``commit`` event);
    * a commit by any other connection or process is seen by ``PRAGMA data_version`` on a
      connection of the cache's own, asked at most every :data:`CHECK_EVERY_S` seconds by whichever
      thread comes first (one look per lookup, on 32 threads, cost more than it saved), and at each
      :meth:`bracket`.

    States of an older generation are not used. Thread-safe; at most :data:`MAX_STATES` states.

    Speed layer needed by ``benchmarks/command_latency.py`` (50 people, ``/vllm-path speculative``):
    without it the server's CPU per request rose from 1.26-1.29x the no-op's to 1.62-1.86x (target
    <= 1.3x; docs/benchmarks.md, "Speed layers and the benchmarks that need them"). Its keeping over
    held requests' commits and carried writes (:meth:`bracket`) is needed by ``benchmarks/home_open.py``
    (target <= 2x): without it a changed open was 2.08-2.43x the no-op's, with it 1.60-1.79x
    (2026-12-06, interleaved pairs, load 2-5)."""

    MAX_STATES = 50_000
    CHECK_EVERY_S = 0.05
    """Seconds: how old another process's commit can be and not yet seen."""

    def __init__(self, engine: Engine) -> None:
        cargs, cparams = engine.dialect.create_connect_args(engine.url)
        self._watch = engine.dialect.loaded_dbapi.connect(*cargs, **{**cparams, "check_same_thread": False})
        self._watch.isolation_level = None
        self._watch_lock = threading.Lock()
        self._seen = self._version()
        self._checked = time.monotonic()
        self._lock = threading.Lock()
        self._generation = 0
        self._writes = 0
        self._states: dict[tuple[str, str], tuple[int, ReaderState]] = {}

    def _version(self) -> Any:
        return self._watch.execute("PRAGMA data_version").fetchone()[0]

    def _look(self) -> None:
        """Under ``_watch_lock``: a new generation when someone committed since the last look."""
        version = self._version()
        self._checked = time.monotonic()
        if version != self._seen:
            self._seen = version
            self.changed()

    def generation(self) -> int:
        """The current generation, after a look at ``data_version`` when one is due."""
        if time.monotonic() - self._checked >= self.CHECK_EVERY_S and self._watch_lock.acquire(blocking=False):
            try:
                self._look()
            finally:
                self._watch_lock.release()
        return self._generation

    def changed(self) -> None:
        """Start a new generation: call after a commit (or a rollback) of this process."""
        with self._lock:
            self._generation += 1
            self._states = {}

    @contextmanager
    def bracket(
        self, conn: Connection, *, elsewhere: bool = False, carry: Carry | None = None, carries: Sequence[Carry] = ()
    ) -> Iterator[None]:
        """Around the commit of ``conn``'s write transaction, begun with ``BEGIN IMMEDIATE`` (it holds
        SQLite's write lock: no one else commits until it has). Before: ``conn``'s own
        ``data_version``, then a look of the watch (what it sees new is someone else's commit). After:
        the watch, then ``conn``'s ``data_version`` again, which moves only for other connections'
        commits: unmoved (and no other commit of this process begun meanwhile), the watch's new value
        is this commit alone, and

        * ``elsewhere`` (the transaction wrote no table a reader state reads): every state is kept;
        * ``carry`` ``((team, user), change)`` (it changed that person's reader state alone, as
          ``change(state)`` says): the others are kept, theirs replaced by ``change(kept)`` (dropped
          before the commit lands; not kept when it was not kept before);
        * ``carries``: as ``carry``, for each person of a transaction that changed several people's
          states (a batch of held clicks' *Mark read*, :mod:`bot.store.held_batch`; one person's
          changes applied in their order);
        * else (or moved, a failed commit, anything unexplained): a new generation."""
        with self.bracket_dbapi(
            conn.connection.dbapi_connection, conn.info, elsewhere=elsewhere, carry=carry, carries=carries
        ):
            yield

    @contextmanager
    def bracket_dbapi(
        self,
        dbapi: Any,
        info: dict[Any, Any] | None = None,
        *,
        elsewhere: bool = False,
        carry: Carry | None = None,
        carries: Sequence[Carry] = (),
    ) -> Iterator[None]:
        """:meth:`bracket` around the commit of a write transaction (``BEGIN IMMEDIATE``) on the sqlite3
        connection ``dbapi``; ``info``: its SQLAlchemy connection's ``info`` (None: a connection kept
        outside SQLAlchemy, whose commit no ``Engine`` event sees, :mod:`bot.store.held_batch`)."""
        before = _data_version(dbapi)
        changes: dict[tuple[str, str], list[Callable[[Any], Any]]] = {}
        for key, change in ([carry] if carry is not None else []) + list(carries):
            changes.setdefault(key, []).append(change)
        alone = elsewhere or bool(changes)
        with self._watch_lock:
            try:
                self._look()
            except Exception:  # the watch could not look: nothing is taken as ours
                before = None
                self.changed()
            start = self._generation
            kept = {key: self.get(key, start) for key in changes}
            if changes:
                with self._lock:  # readers that began before this do not keep what they read
                    self._writes += 1
                    for key in changes:
                        self._states.pop(key, None)
            if alone and info is not None:
                info[_ALONE] = True  # _committing leaves the generation to this
            try:
                yield
            except BaseException:
                self.changed()
                raise
            finally:
                if info is not None:
                    info.pop(_ALONE, None)
            seen = _data_version(self._watch)
            after = _data_version(dbapi)
            self._checked = time.monotonic()
            ours = before is not None and seen is not None and after == before
            with self._lock:
                if seen is not None:
                    self._seen = seen
                if not (alone and ours and self._generation == start):
                    self._generation += 1
                    self._states = {}
                elif changes:
                    self._writes += 1
                    for key, made in changes.items():
                        state = kept[key]
                        if state is None:
                            self._states.pop(key, None)
                            continue
                        for change in made:
                            state = change(state)
                        self._states[key] = (start, state)

    def writes(self) -> int:
        """A count of the carried writes (:meth:`bracket`) begun and ended: take it before a read."""
        return self._writes

    def get(self, key: tuple[str, str], generation: int) -> ReaderState | None:
        """The state kept for ``key`` (``(team, user)``) in ``generation``, else None."""
        kept = self._states.get(key)
        return kept[1] if kept is not None and kept[0] == generation else None

    def put(self, key: tuple[str, str], generation: int, state: ReaderState, writes: int) -> None:
        """Keep ``state``, read after :meth:`generation` gave ``generation`` and :meth:`writes`
        ``writes`` (not kept when a carried write began or ended since)."""
        with self._lock:
            if writes != self._writes:
                return
            states = self._states
            if len(states) >= self.MAX_STATES:
                states.clear()
            states[key] = (generation, state)


def _data_version(dbapi: Any) -> Any:
    """``PRAGMA data_version`` of an sqlite3 connection (None when it cannot be asked: never equal)."""
    try:
        return dbapi.execute("PRAGMA data_version").fetchone()[0]
    except Exception:  # a closed or broken connection: treated as changed
        return None


_ALONE = "reader_cache_alone"
"""A connection ``info`` key: the generation after its commit under way is :meth:`ReaderCache.bracket`'s."""

_CACHES: weakref.WeakValueDictionary[str, ReaderCache] = weakref.WeakValueDictionary()
_CACHES_LOCK = threading.Lock()
_KEYS: weakref.WeakKeyDictionary[Engine, str] = weakref.WeakKeyDictionary()
"""Each engine's :func:`_database_key`."""


def _database_key(engine: Engine) -> str:
    """One key per database file however its URL names it (a relative path, ``file:`` URIs as given)."""
    database = engine.url.database or ""
    return database if database.startswith("file:") else os.path.realpath(database)


class RawCommitWatcher(Protocol):
    """What watches an engine's commits beyond the :class:`ReaderCache` (App Home's facts,
    :class:`bot.slack.home_facts.HomeFacts`), told of a commit made outside SQLAlchemy's events."""

    def around_raw_commit(self, dbapi: Any) -> AbstractContextManager[None]:
        """Entered just before the commit of the sqlite3 connection ``dbapi``'s write transaction
        (``BEGIN IMMEDIATE``: it holds the write lock), left once it has landed (or failed: raised)."""
        ...


_RAW_WATCHERS: weakref.WeakKeyDictionary[Engine, weakref.WeakSet[RawCommitWatcher]] = weakref.WeakKeyDictionary()


def raw_commit_watchers(engine: Engine) -> weakref.WeakSet[RawCommitWatcher]:
    """The :class:`RawCommitWatcher` objects of ``engine`` (add to it to be told; held weakly): a
    writer that commits on a connection of its own, past SQLAlchemy (the held-request batcher,
    :mod:`bot.store.held_batch`), enters each one's :meth:`~RawCommitWatcher.around_raw_commit`."""
    with _CACHES_LOCK:
        found = _RAW_WATCHERS.get(engine)
        if found is None:
            found = _RAW_WATCHERS[engine] = weakref.WeakSet()
        return found


def reader_cache(engine: Engine) -> ReaderCache | None:
    """The process's :class:`ReaderCache` for ``engine``'s database when it is an SQLite file (one
    per file, alive while a store holds it; its connection closes with it), else None."""
    if engine.dialect.name != "sqlite" or isinstance(engine.pool, StaticPool):
        return None
    key = _database_key(engine)
    with _CACHES_LOCK:
        cache = _CACHES.get(key)
        if cache is None:
            cache = _CACHES[key] = ReaderCache(engine)
    return cache


@event.listens_for(Engine, "commit")
def _committing(conn: Connection) -> None:
    """Any SQLAlchemy commit in this process (a store's, a migration's, a test's clean-up) starts a new
    generation of its database's cache before it lands (a store's again after:
    :meth:`ReaderCache.bracket`), but for one that :meth:`ReaderCache.bracket` sees to."""
    if not _CACHES or conn.info.get(_ALONE) or conn.engine.dialect.name != "sqlite":
        return
    engine = conn.engine
    key = _KEYS.get(engine)
    if key is None:  # realpath is ~0.15 ms: once per engine (clicks.py)
        key = _KEYS[engine] = _database_key(engine)
    cache = _CACHES.get(key)
    if cache is not None:
        cache.changed()


class ReaderRepo(StoreCore):
    """The combined per-person read."""

    _reader_cache: ReaderCache | None = None
    _reader_cache_made = False

    def _after_write(self) -> None:
        if self._reader_cache is not None:
            self._reader_cache.changed()

    def _cache(self) -> ReaderCache | None:
        if not self._reader_cache_made:
            self._reader_cache, self._reader_cache_made = reader_cache(self._engine), True
        return self._reader_cache

    @contextmanager
    def _write(self, carry: Carry | None = None) -> Iterator[Connection]:
        """:meth:`StoreCore._write`; on an SQLite file its commit inside :meth:`ReaderCache.bracket`
        (``carry``: the writer's reader state carried over, see there)."""
        cache = self._cache()
        if cache is None:
            with super()._write() as conn:
                yield conn
            return
        with db.write_connection(self._engine, functools.partial(cache.bracket, carry=carry)) as conn:
            yield conn

    def _write_elsewhere(self) -> AbstractContextManager[Connection]:
        """:meth:`StoreCore._write_elsewhere`: on an SQLite file its commit keeps the reader states
        (:meth:`ReaderCache.bracket` with ``elsewhere``): a click's hold and release dropped every
        kept state (``benchmarks/home_open.py``, see :class:`ReaderCache`)."""
        cache = self._cache()
        if cache is None:
            return super()._write_elsewhere()
        return db.write_connection(self._engine, functools.partial(cache.bracket, elsewhere=True))

    def _write_carrying(self, carries: Sequence[Carry]) -> AbstractContextManager[Connection]:
        """A write transaction changing the reader states of several people, each as its ``carries``
        entry says (a batch of held clicks' *Mark read*, :mod:`bot.store.held_batch`): on an SQLite
        file their kept states are carried over and the others kept (:meth:`ReaderCache.bracket`)."""
        cache = self._cache()
        if cache is None:
            return super()._write()
        return db.write_connection(self._engine, functools.partial(cache.bracket, carries=carries))

    @contextmanager
    def written_before(
        self, team: str, user: str, marked: frozenset[str], cancels: dict[str, int] | None = None
    ) -> Iterator[None]:
        """Around a click's use case run in this thread whose *Mark read* of ``marked`` (the post ids
        its write found unread) was committed before it ran, with the click's hold
        (:mod:`bot.store.held_batch`): until the use case's own :meth:`~bot.store.reading.ReadingRepo.mark_read`
        of them, :meth:`reader_state` of ``user`` in ``team`` shows them unread; that call then writes
        nothing and returns them (:func:`take_written`): the use case answers as if it had written
        them itself. ``cancels``: how many pending reminders of each post that write cancelled
        (:meth:`~bot.store.held_batch.HeldTicket.cancelled`; None: not counted), for
        :meth:`cancelled_with_hold`."""
        _WRITTEN.entry = (team, user, marked) if marked else None
        _WRITTEN.cancels = (team, user, cancels) if marked and cancels is not None else None
        try:
            yield
        finally:
            _WRITTEN.entry = _WRITTEN.cancels = None

    def cancelled_with_hold(self, team: str, user: str, post_id: str) -> int | None:
        """Inside :meth:`written_before` of ``user`` in ``team``, before or after the use case's
        ``mark_read``: how many pending reminders of ``post_id`` the click's hold cancelled when it
        marked the post read (0: none were pending; no reminder to name, none to look up); None
        when not known (no held click's write of that post here, or not counted: the caller reads
        the reminders)."""
        cancels: tuple[str, str, dict[str, int]] | None = getattr(_WRITTEN, "cancels", None)
        if cancels is None or cancels[0] != team or cancels[1] != user:
            return None
        return cancels[2].get(post_id)

    def reader_state(self, team: str, user: str) -> ReaderState:
        """``user``'s :class:`ReaderState` in ``team`` (empty for someone never seen), in one
        statement; on an SQLite file, from its :class:`ReaderCache` while nothing was committed
        since it was read. Inside :meth:`written_before` of this person, without the posts written before."""
        cache = self._cache()
        generation = cache.generation() if cache is not None else 0
        writes = cache.writes() if cache is not None else 0
        state = cache.get((team, user), generation) if cache is not None else None
        if state is None:
            with self._engine.connect() as conn:
                state = _state(
                    conn.execute(_reader_statement(self._engine.dialect.name), {"team": team, "user": user}).all()
                )
            if cache is not None:
                cache.put((team, user), generation, state, writes)
        written = getattr(_WRITTEN, "entry", None)
        if written is not None and written[0] == team and written[1] == user:
            return replace(state, read=state.read - written[2])
        return state

    def kept_reader_state(self, team: str, user: str) -> ReaderState | None:
        """:meth:`reader_state` when its :class:`ReaderCache` keeps it (an SQLite file, nothing committed
        since it was read), without reading the database; else None. The same object until the
        state may have changed (a kept state is replaced, never changed): two looks returning the
        same object saw one state all along (:mod:`bot.slack.kept_answers`)."""
        cache = self._cache()
        if cache is None or getattr(_WRITTEN, "entry", None) is not None:
            return None
        return cache.get((team, user), cache.generation())

    def close(self) -> None:
        """:meth:`StoreCore.close`; the :class:`ReaderCache` is let go (closed with its last store)."""
        self._reader_cache = None
        super().close()


_WRITTEN = threading.local()
"""``entry``: this thread's :meth:`ReaderRepo.written_before` ``(team, user, marked)``, else None
(taken by the use case's ``mark_read``); ``cancels``: ``(team, user, {post: reminders cancelled})``
for the whole scope, else None."""


def take_written(team: str, user: str, post_ids: Sequence[str]) -> set[str] | None:
    """Inside :meth:`ReaderRepo.written_before` of ``user`` in ``team`` whose posts include every one
    of ``post_ids``: those already marked (committed with the click's hold), and the scope is over
    (later reads show them read); else None (the caller writes them)."""
    written = getattr(_WRITTEN, "entry", None)
    if written is None or written[0] != team or written[1] != user or not set(post_ids) <= written[2]:
        return None
    _WRITTEN.entry = None
    return set(post_ids)


def _state(rows: Sequence[Any]) -> ReaderState:
    """The :class:`ReaderState` of the combined read's rows ``(kind, value, at)``."""
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
    # As follows(): by followed_at (a datetime, or SQLite's fixed-width UTC text), then track id.
    followed.sort()
    return ReaderState(chosen, frozenset(posts), tuple(track for _, track in followed), minutes)
