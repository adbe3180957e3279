"""App Home's per-person facts (issue 43): what an App Home open reads from the store besides the
reader's state (:meth:`bot.store.Store.reader_state`), kept per person and per team between opens.

Kept: a person's :class:`~bot.store.together.HabitFacts` (reads with their times, follows, budget,
plan pauses), DM settings and finished paths; a team's channel subscriptions. An entry is used only
while all of these hold:

* nothing that may change it was committed outside a request of :class:`~bot.slack.handlers.Handlers`
  in this process (:meth:`HomeFacts.request`): a write to one of :data:`HOME_TABLES` anywhere else
  in this process (the CLI's or a test's store calls, a reaction's ✅, a clock run here) drops every entry;
* no other process or connection committed to the SQLite file: ``PRAGMA data_version`` on a connection
  of our own, looked at each open and around each commit of ours, and the committing connection's own
  (which moves only for others' commits) told apart from ours; when two commits of ours overlap, or
  one cannot be told apart, every entry is dropped;
* the reads, follows and budget agree with the reader's state read at the open, else they are re-read
  (or, after a read or a follow made in a request here, patched: the new reads and follows dated when
  that request ended, the store's clock);
* a request's writes to DM settings, plan pauses, finished paths or channel subscriptions dropped the
  person's (or the team's) entry.

On PostgreSQL or an in-memory SQLite database nothing is kept (every open reads the store).

Speed layer needed by ``benchmarks/home_open.py`` (a changed App Home, CPU ratio to a no-op Bolt app,
target <= 2x): without it 3.73x and 3.96x (6.1-6.3 ms an open), interleaved with 2.12x and 2.33x with it
(2026-12-06, docs/benchmarks.md; the target is still missed)."""

from __future__ import annotations

import re
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, event
from sqlalchemy.pool import StaticPool

from bot.store.reader import raw_commit_watchers

if TYPE_CHECKING:
    from bot.store import Store
    from bot.store.snapshots import DmSettings, Subscription
    from bot.store.together import HabitFacts

HOME_TABLES = frozenset(
    {
        "reading_progress",
        "track_follows",
        "dm_preferences",
        "reader_habits",
        "reader_budgets",
        "finished_paths",
        "channel_subscriptions",
    }
)
"""The tables whose rows an App Home shows (besides the reader's language, part of the reader's state)."""
_PATCHED = frozenset({"reading_progress", "track_follows", "reader_budgets"})
"""Tables whose changes by a request here are patched in from the reader's state at the next open."""
_WRITE = re.compile(r'\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|UPDATE|DELETE\s+FROM|REPLACE\s+INTO)\s+"?(\w+)', re.I)
_BUSY_MAX_S = 10.0
"""Seconds after which a commit of ours never seen returned to the pool is forgotten."""


@dataclass(frozen=True, slots=True)
class PersonFacts:
    """One person's App Home facts: ``habit`` (:meth:`bot.store.Store.habit_facts`), ``dm``
    (:meth:`~bot.store.Store.get_dm`, None: never set), ``finished`` ``{track id: finished_at}``
    (:meth:`~bot.store.Store.finished_paths`)."""

    habit: HabitFacts
    dm: DmSettings | None
    finished: dict[str, datetime]


@dataclass(slots=True)
class _Person:
    facts: PersonFacts
    epoch: int
    at: float  # time.monotonic() when read
    touched: datetime | None = None  # the end of this process's last request that read or followed


@dataclass
class _Scope:
    tables: set[str] = field(default_factory=set)


class HomeFacts:
    """:class:`PersonFacts` per ``(team, user)`` and subscriptions per team, for at most
    :attr:`MAX_PEOPLE` people (least recently used dropped) and :attr:`TTL_S` seconds, checked as the
    module says. ``store``: the app's; its engine is watched (listeners added for the object's life).
    Thread-safe."""

    MAX_PEOPLE = 5_000
    TTL_S = 60.0

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._people: OrderedDict[tuple[str, str], _Person] = OrderedDict()
        self._teams: dict[str, tuple[int, float, list[Subscription]]] = {}
        self._epoch = 0
        self._writes = 0  # counts wrote(): an entry read across one is not kept
        self._local = threading.local()
        self._started = 0  # commits of ours begun
        # our commits in flight: id(connection info) -> (_started then, its data_version, time.monotonic())
        self._busy: dict[int, tuple[int, Any, float]] = {}
        self._flag = f"home_facts_{id(self)}"
        engine = store.engine
        self._watch: Any = None
        if engine.dialect.name == "sqlite" and not isinstance(engine.pool, StaticPool):
            database = engine.url.database or ""
            if database and database != ":memory:" and "mode=memory" not in database:
                cargs, cparams = engine.dialect.create_connect_args(engine.url)
                self._watch = engine.dialect.loaded_dbapi.connect(*cargs, **{**cparams, "check_same_thread": False})
                self._watch.isolation_level = None
                self._seen = self._version()
                _watched(engine).add(self)
                raw_commit_watchers(engine).add(self)

    @property
    def keeping(self) -> bool:
        """Whether facts are kept (an SQLite file database), else every call reads the store."""
        return self._watch is not None

    # --- what an open reads ------------------------------------------------------------------

    def person(
        self, team: str, user: str, read: AbstractSet[str], follows: Sequence[str], budget: int | None
    ) -> PersonFacts:
        """``user``'s :class:`PersonFacts` in ``team``, kept or read; ``read`` (post ids), ``follows``
        (track ids, oldest first), ``budget`` (minutes, None: the default): their reader state read for
        this open (:meth:`bot.store.Store.reader_state`). Raises what the store raises."""
        if self._watch is None:
            return self._read(team, user)
        key = (team, user)
        with self._lock:
            epoch = self._check()
            kept = self._people.get(key)
            if kept is not None and (kept.epoch != epoch or time.monotonic() - kept.at > self.TTL_S):
                kept = None
            if kept is not None:
                self._people.move_to_end(key)
                facts = _agreeing(kept, read, tuple(follows), budget)
                if facts is not None:
                    kept.facts = facts
                    return facts
            writes = self._writes
        facts = self._read(team, user)
        with self._lock:
            if epoch == self._epoch and writes == self._writes:  # nothing changed while reading
                self._people[key] = _Person(facts, epoch, time.monotonic())
                self._people.move_to_end(key)
                while len(self._people) > self.MAX_PEOPLE:
                    self._people.popitem(last=False)
        return facts

    def subscriptions(self, team: str) -> list[Subscription]:
        """The team's channel subscriptions (:meth:`bot.store.Store.subscriptions`), kept or read."""
        if self._watch is None:
            return self._store.subscriptions(team)
        with self._lock:
            epoch = self._check()
            kept = self._teams.get(team)
            if kept is not None and kept[0] == epoch and time.monotonic() - kept[1] <= self.TTL_S:
                return kept[2]
            writes = self._writes
        subs = self._store.subscriptions(team)
        with self._lock:
            if epoch == self._epoch and writes == self._writes:
                if team not in self._teams and len(self._teams) >= self.MAX_PEOPLE:
                    self._teams.clear()
                self._teams[team] = (epoch, time.monotonic(), subs)
        return subs

    def _read(self, team: str, user: str) -> PersonFacts:
        store = self._store
        return PersonFacts(store.habit_facts(team, user), store.get_dm(team, user), store.finished_paths(team, user))

    # --- what changes them -------------------------------------------------------------------

    @contextmanager
    def request(self, team: str, user: str) -> Iterator[None]:
        """Around a command or a click of ``user`` in ``team`` run in this thread: its writes to
        :data:`HOME_TABLES` change the kept facts when it ends (see the module), not all of them."""
        if self._watch is None or getattr(self._local, "scope", None) is not None:
            yield
            return
        scope = self._local.scope = _Scope()
        try:
            yield
        finally:
            self._local.scope = None
            if scope.tables:
                self.wrote(team, user, scope.tables)

    def wrote(self, team: str, user: str | None, tables: set[str] | frozenset[str]) -> None:
        """``tables`` were written (committed) for ``user`` in ``team`` (None: anyone in the team) by
        this process: drop or mark what they change."""
        now = self._store.now()
        with self._lock:
            self._writes += 1
            if "channel_subscriptions" in tables:
                self._teams.pop(team, None)
            if user is None:
                for key in [k for k in self._people if k[0] == team]:
                    del self._people[key]
                return
            kept = self._people.get((team, user))
            if kept is None:
                return
            if tables & HOME_TABLES - _PATCHED - {"channel_subscriptions"}:
                del self._people[(team, user)]
            elif tables & _PATCHED:
                kept.touched = now

    def drop(self) -> None:
        """Forget everything kept (the next open of anyone reads the store)."""
        with self._lock:
            self._epoch += 1

    # --- the watch ---------------------------------------------------------------------------

    def _version(self) -> int:
        version: int = self._watch.execute("PRAGMA data_version").fetchone()[0]
        return version

    def _check(self) -> int:
        """The epoch now (under the lock): a new one when another connection committed meanwhile."""
        if self._busy:
            now = time.monotonic()
            stale = [k for k, (_, _, at) in self._busy.items() if now - at > _BUSY_MAX_S]
            for key in stale:  # a commit of ours never seen back in the pool: assume the worst
                del self._busy[key]
            self._epoch += bool(stale)
        version = self._version()
        if version != self._seen and not self._busy:  # with ours in flight: see _checked_in
            self._seen, self._epoch = version, self._epoch + 1
        return self._epoch

    def _executing(self, conn: Connection, statement: str) -> None:
        if (found := _WRITE.match(statement)) is None:
            return
        table = found.group(1).lower()
        if table not in HOME_TABLES:
            return
        scope = getattr(self._local, "scope", None)
        if scope is not None:
            scope.tables.add(table)
        else:
            conn.info[self._flag + "_unknown"] = True

    def _committing(self, conn: Connection) -> None:
        """Before a commit of ours lands (its transaction holding SQLite's write lock, so no other
        connection commits until it has): what the watch sees now is someone else's, and the
        committing connection's own ``data_version`` is noted (see :meth:`_checked_in`)."""
        mine = _data_version(conn.connection.dbapi_connection)
        with self._lock:
            self._check()
            self._started += 1
            self._busy[id(conn.info)] = (self._started, mine, time.monotonic())
        conn.info[self._flag] = True

    @contextmanager
    def around_raw_commit(self, dbapi: Any) -> Iterator[None]:
        """Around the commit of a write transaction on the sqlite3 connection ``dbapi`` kept outside
        SQLAlchemy's pool and events (:class:`bot.store.reader.RawCommitWatcher`, the held-request
        batcher's): as :meth:`_committing` before it and :meth:`_checked_in` once it has landed. Its
        writes are told by the writer (:meth:`wrote`); a failed commit drops every entry."""
        mine = _data_version(dbapi)
        with self._lock:
            self._check()
            self._started += 1
            started = self._started
            token = object()
            self._busy[id(token)] = (started, mine, time.monotonic())
        try:
            yield
        except BaseException:
            with self._lock:
                self._busy.pop(id(token), None)
                self._epoch += 1
            raise
        with self._lock:
            self._busy.pop(id(token), None)
            seen = self._version()
            after = _data_version(dbapi)
            if started != self._started or mine is None or after != mine:
                self._epoch += 1
            if not self._busy:
                self._seen = seen

    def _checked_in(self, dbapi: Any, record: Any) -> None:
        """A connection came back to the pool: after a commit of ours, whether anyone else committed
        between it and now. The watch looks first, then the connection: its ``data_version`` moves only
        for other connections' commits, so unmoved, the watch's look saw ours alone (besides what was
        seen before it); moved, or another commit of ours begun meanwhile, every entry is dropped."""
        info = record.info
        if not info.pop(self._flag, False):
            info.pop(self._flag + "_unknown", None)
            return
        unknown = info.pop(self._flag + "_unknown", False)
        with self._lock:
            started, before, _ = self._busy.pop(id(info), (-1, None, 0.0))
            seen = self._version()
            after = _data_version(dbapi)
            if unknown or started != self._started or before is None or after != before:
                self._epoch += 1
            if not self._busy:
                self._seen = seen


def _data_version(dbapi: Any) -> Any:
    """``PRAGMA data_version`` of an sqlite3 connection (None when it cannot be asked: never equal)."""
    try:
        return dbapi.execute("PRAGMA data_version").fetchone()[0]
    except Exception:  # a closed or broken connection: treated as changed
        return None


_WATCHED: weakref.WeakKeyDictionary[Engine, weakref.WeakSet[HomeFacts]] = weakref.WeakKeyDictionary()
"""The :class:`HomeFacts` watching each engine (its listeners added once; a collected one is let go)."""
_WATCHED_LOCK = threading.Lock()


def _watched(engine: Engine) -> weakref.WeakSet[HomeFacts]:
    """The :class:`HomeFacts` watching ``engine``, its listeners added on the first."""
    with _WATCHED_LOCK:
        found = _WATCHED.get(engine)
        if found is not None:
            return found
        watching: weakref.WeakSet[HomeFacts] = weakref.WeakSet()
        _WATCHED[engine] = watching

    def executing(conn: Connection, _cursor: Any, statement: str, *_: Any) -> None:
        if statement[:1] in "IUDRiudr":  # a write (the statement's first word)
            for facts in list(watching):
                facts._executing(conn, statement)

    def committing(conn: Connection) -> None:
        for facts in list(watching):
            facts._committing(conn)

    def checked_in(dbapi: Any, record: Any) -> None:
        for facts in list(watching):
            facts._checked_in(dbapi, record)

    event.listen(engine, "before_cursor_execute", executing)
    event.listen(engine, "commit", committing)
    event.listen(engine.pool, "checkin", checked_in)
    return watching


def _agreeing(
    kept: _Person, read: AbstractSet[str], follows: tuple[str, ...], budget: int | None
) -> PersonFacts | None:
    """``kept``'s facts agreeing with the reader's state (patched after a request here read or followed), else None."""
    facts = kept.facts
    habit = facts.habit
    if habit.reads.keys() == read and tuple(habit.follows) == follows and habit.budget == budget:
        return facts
    at = kept.touched
    if at is None:
        return None
    reads = {post: habit.reads.get(post, at) for post in read}
    followed = {track: habit.follows.get(track, at) for track in follows}
    return replace(facts, habit=replace(habit, reads=reads, follows=followed, budget=budget))
