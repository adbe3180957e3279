"""One person's reading state (language, reads, follows, budget) in one ``SELECT … UNION ALL …``."""

from __future__ import annotations

import json
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, String, bindparam, cast, func, literal, null, select, union_all
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.expression import CompoundSelect

from bot.store.base import StoreCore
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


class ReaderRepo(StoreCore):
    """The combined per-person read."""

    def reader_state(self, team: str, user: str) -> ReaderState:
        """``user``'s :class:`ReaderState` in ``team`` (empty for someone never seen): one statement
        compiled once per dialect and run on a pooled DBAPI connection, since SQLAlchemy's
        execution layer cost more than the query (``benchmarks/command_latency.py``)."""
        dialect = self._engine.dialect
        raw = _RAW_BY_DIALECT.get(dialect.name)
        if raw is None:
            raw = _RAW_BY_DIALECT[dialect.name] = _RawStatement(_reader_statement(dialect.name), dialect)
        # closing the connection returns it to the pool, which rolls the read transaction back
        with closing(self._engine.raw_connection()) as dbapi_conn, closing(dbapi_conn.cursor()) as cursor:
            cursor.execute(raw.sql, raw.params(team=team, user=user))
            rows = cursor.fetchall()
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
