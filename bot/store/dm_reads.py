"""A DM send's reads about its person (:class:`DmReads`), batched across a worker's sending
threads by :class:`DmReadBatcher`; :class:`PrefetchedDmReads` is the store side.

A speed layer needed by ``benchmarks/fanout_queue.py`` (500 DMs a second allowed, target rate
ratio >= 0.90): 0.86 with each send reading its person on its own (docs/benchmarks.md, "Speed
layers and the benchmarks that need them"). The catalog version of the person's last DM came with
them for issue 43 (worker CPU per DM): on its own, an ORM query a DM, a third of a worker's CPU
in a profile of the fan-out."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from typing import Any, cast

from sqlalchemy import ColumnElement, Table, and_, func, select
from sqlalchemy.dialects import postgresql

from bot.domain.catalog.versions import newest_version
from bot.store import Store
from bot.store.batching import Batching, DriverConnection, json_rows, rows_json
from bot.store.db import as_utc
from bot.store.models import (
    DM_TRACK,
    CatalogVersion,
    DigestDelivery,
    DmPreference,
    ReaderBudget,
    ReadingProgress,
    TrackFollow,
    UserSettings,
)
from bot.store.snapshots import DmSettings


@dataclass(frozen=True)
class DmReads:
    """What a DM send reads about one person: DM settings, language, followed track ids (oldest
    first), read post ids, weekly budget in minutes and the catalog version of their last posted DM
    (:meth:`Store.version_of_last_dm`); None where never set."""

    dm: DmSettings | None
    lang: str | None
    follows: tuple[str, ...]
    read: frozenset[str]
    budget: int | None = None
    last_version: str | None = None


@dataclass
class _Read:
    who: tuple[str, str]
    done: threading.Event | None = None  # its batch's (:meth:`Batching._enqueue`)
    answered: bool = False
    result: Any = None
    error: BaseException | None = None


class DmReadBatcher(Batching):
    """Reads :class:`DmReads` for many threads in batches: one statement per batch on PostgreSQL
    (:func:`_pg_read_statement`), the store's own reads on SQLite. Thread-safe."""

    name = "dm-read-batcher"

    def __init__(self, store: Store):
        self.store = store
        driver = DriverConnection(store.engine) if store.engine.dialect.name == "postgresql" else None
        if driver is not None:
            self._statement = driver.prepare(_pg_read_statement())
        super().__init__(driver)

    def get(self, team: str, user: str) -> DmReads:
        """``user``'s :class:`DmReads` in ``team`` (blocks until its batch was read)."""
        result: DmReads = self._submit(_Read((team, user)))
        return result

    def _flush(self, batch: list[_Read]) -> None:
        found = self.read_many([c.who for c in batch], self.driver)
        for call in batch:
            call.result = found[call.who]

    def read_many(
        self, people: list[tuple[str, str]], driver: DriverConnection | None
    ) -> dict[tuple[str, str], DmReads]:
        """``people``'s :class:`DmReads` by (team, user), read in the calling thread: one statement
        on ``driver`` (PostgreSQL: a connection only this thread uses meanwhile, see
        :class:`bot.store.ledger_batch.DriverPool`), or the store's own reads person by person
        (``driver`` None: SQLite). Raises the database's errors."""
        people = list(dict.fromkeys(people))
        if driver is None:
            return {who: self._one(_Read(who)) for who in people}
        params = {"rows": rows_json({"team_id": t, "user_id": u} for t, u in people)}
        found: dict[tuple[str, str], DmReads] = {}
        for r in driver.rows(self._statement, params):
            dm = None if r.dm_team_id is None else _dm_settings(r)
            last = newest_version(r.last_versions or ())
            reads = DmReads(dm, r.lang, tuple(r.follows or ()), frozenset(r.reads or ()), r.budget, last)
            found[(r.who_team, r.who_user)] = reads
        return {who: found.get(who) or DmReads(None, None, (), frozenset()) for who in people}

    def _one(self, call: _Read) -> DmReads:
        return read_one(self.store, *call.who)


def read_one(store: Store, team: str, user: str) -> DmReads:
    """``user``'s :class:`DmReads` in ``team`` through the store's own reads (several statements)."""
    state = store.reader_state(team, user)
    last = store.version_of_last_dm(team, user)
    return DmReads(store.get_dm(team, user), state.lang, state.follows, state.read, state.budget, last)


_DM_FIELDS = tuple(f.name for f in dataclass_fields(DmSettings))


def _dm_settings(row: Any) -> DmSettings:
    """The :class:`DmSettings` in a row of :func:`_pg_read_statement` (its times as aware UTC, as
    :class:`bot.store.db.UTCDateTime` gives them)."""
    values = {name: getattr(row, f"dm_{name}") for name in _DM_FIELDS}
    for name in ("snoozed_until", "updated_at"):
        values[name] = as_utc(values[name])
    return DmSettings(**values)


def _pg_read_statement() -> Any:
    """One row per (team, user) of the JSON ``rows`` (:func:`~bot.store.batching.json_rows`): ``dm_<column>``,
    ``lang``, ``budget`` (minutes), ``follows`` (track ids in follow order) and ``reads`` (post
    ids) as arrays, ``last_versions`` (the catalog versions first seen last by the time of their
    last posted DM, as :meth:`Store.version_of_last_dm` reads them); NULL where there is none."""
    who = json_rows("who", ("team_id", "user_id"))
    models = (DmPreference, UserSettings, TrackFollow, ReadingProgress, ReaderBudget, DigestDelivery, CatalogVersion)
    dm, us, tf, rp, rb, dd, cv = models

    def theirs(t: Table) -> ColumnElement[bool]:
        return and_(t.c.team_id == who.c.team_id, t.c.user_id == who.c.user_id)

    in_order = postgresql.aggregate_order_by(tf.c.track_id, tf.c.followed_at, tf.c.track_id)
    follows = select(func.array_agg(in_order)).where(theirs(tf)).scalar_subquery()
    reads = select(func.array_agg(rp.c.post_id)).where(theirs(rp)).scalar_subquery()
    mine = (dd.c.team_id == who.c.team_id, dd.c.destination == who.c.user_id, dd.c.track_id == DM_TRACK)
    posted = (dd.c.status == "sent", dd.c.message_ts.is_not(None))
    sent = select(func.max(dd.c.sent_at)).where(*mine, *posted).correlate(who).scalar_subquery()
    seen = cv.alias("seen")
    then = select(func.max(seen.c.first_seen_at)).where(seen.c.first_seen_at <= sent).scalar_subquery()
    last = select(func.array_agg(cv.c.version)).where(cv.c.first_seen_at == then).scalar_subquery()
    return select(
        who.c.team_id.label("who_team"),
        who.c.user_id.label("who_user"),
        *(dm.c[name].label(f"dm_{name}") for name in _DM_FIELDS),
        us.c.lang,
        rb.c.minutes_per_week.label("budget"),
        follows.label("follows"),
        reads.label("reads"),
        last.label("last_versions"),
    ).select_from(who.outerjoin(dm, theirs(dm)).outerjoin(us, theirs(us)).outerjoin(rb, theirs(rb)))


_MISSING: Any = object()


class PrefetchedDmReads:
    """A store wrapper's mixin (it sets ``_store``, ``reads`` and ``_local``): after ``get_dm``,
    the thread's next ``get_lang``, ``get_budget``, ``follows``, ``read_posts`` and
    ``version_of_last_dm`` are answered
    once each from its batch (within :data:`PREFETCH_TTL_S`), else by the store."""

    _store: Store
    reads: DmReadBatcher
    _local: threading.local

    PREFETCH_TTL_S = 30.0
    """Seconds what :meth:`get_dm` read ahead answers the same thread's next calls."""

    def get_dm(self, team: str, user: str) -> DmSettings | None:
        """See :meth:`Store.get_dm` (batched; the person's other reads come with it)."""
        got = self.reads.get(team, user)
        self._local.prefetched = {
            ("get_lang", team, user): got.lang,
            ("get_budget", team, user): got.budget,
            ("follows", team, user): list(got.follows),
            ("read_posts", team, user): set(got.read),
            ("version_of_last_dm", team, user): got.last_version,
        }
        self._local.prefetched_at = time.monotonic()
        return got.dm

    def _prefetched(self, method: str, team: str, user: str) -> Any:
        """What :meth:`get_dm` read ahead for the store's ``method`` (taken once), else its answer."""
        cache = getattr(self._local, "prefetched", None)
        if cache is not None and time.monotonic() - self._local.prefetched_at <= self.PREFETCH_TTL_S:
            got = cache.pop((method, team, user), _MISSING)
            if got is not _MISSING:
                return got
        return getattr(self._store, method)(team, user)

    def get_lang(self, team: str, user: str) -> str | None:
        """See :meth:`Store.get_lang` (from :meth:`get_dm`'s batch when just read)."""
        return cast(str | None, self._prefetched("get_lang", team, user))

    def get_budget(self, team: str, user: str) -> int | None:
        """See :meth:`Store.get_budget` (from :meth:`get_dm`'s batch when just read)."""
        return cast(int | None, self._prefetched("get_budget", team, user))

    def follows(self, team: str, user: str) -> list[str]:
        """See :meth:`Store.follows` (from :meth:`get_dm`'s batch when just read)."""
        return cast(list[str], self._prefetched("follows", team, user))

    def read_posts(self, team: str, user: str) -> set[str]:
        """See :meth:`Store.read_posts` (from :meth:`get_dm`'s batch when just read)."""
        return cast(set[str], self._prefetched("read_posts", team, user))

    def version_of_last_dm(self, team: str, user: str) -> str | None:
        """See :meth:`Store.version_of_last_dm` (from :meth:`get_dm`'s batch when just read)."""
        return cast(str | None, self._prefetched("version_of_last_dm", team, user))
