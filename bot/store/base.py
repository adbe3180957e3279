"""The shared core of the repository: :class:`StoreCore`, to which each aggregate module adds its methods."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Self, TypeVar, TypeVarTuple, cast

from sqlalchemy import Connection, CursorResult, Engine, Executable, Row, Select, Table, select, update

from bot.store import db
from bot.store.crypto import TokenCipher, ephemeral_cipher
from bot.store.snapshots import snapshot
from bot.store.validate import check_aware, check_timezone

if TYPE_CHECKING:
    from _typeshed import DataclassInstance
    from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
    from slack_sdk.oauth.token_rotation import TokenRotator

_T = TypeVar("_T")
_Ts = TypeVarTuple("_Ts")
_Snap = TypeVar("_Snap", bound="DataclassInstance")

_CIPHER_LOCK = threading.Lock()

Carry = tuple[tuple[str, str], Callable[[Any], Any]]
"""``((team, user), change)``: a write's change of that person's reader state, ``change(state)`` the
state after it (:class:`bot.store.reader.ReaderState` in, out)."""


class StoreCore:
    """What every aggregate of :class:`~bot.store.Store` shares: the engine, the clock and short
    transactions. Build with :meth:`from_url` or from an engine. ``client_id``: the Slack app's;
    ``default_timezone`` (IANA): for new DM settings; ``clock``: aware UTC now; ``token_cipher``:
    seals Slack tokens (default :func:`bot.store.crypto.ephemeral_cipher`); ``token_rotator``:
    refreshes rotating bot tokens in :meth:`~bot.store.installations.InstallationsRepo.bot_token_for`.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        client_id: str | None = None,
        default_timezone: str = "UTC",
        clock: Callable[[], datetime] = db.utcnow,
        owns_engine: bool = False,
        token_cipher: TokenCipher | None = None,
        token_rotator: TokenRotator | None = None,
    ) -> None:
        dialect = engine.dialect.name
        if dialect not in ("sqlite", "postgresql"):
            raise ValueError(f"unsupported database dialect {dialect!r}")
        self._engine = engine
        self._dialect = dialect
        self._client_id = client_id
        self._default_timezone = check_timezone(default_timezone)
        self._clock = clock
        self._owns_engine = owns_engine
        self._token_cipher = token_cipher
        self._token_rotator = token_rotator
        self._installation_stores: dict[str, SQLAlchemyInstallationStore] = {}

    @classmethod
    def from_url(cls, url: str, *, migrate: bool = True, **kwargs: Any) -> Self:
        """A store on a new engine for ``url`` (a ``DATABASE_URL``), migrated to head unless
        ``migrate=False``; :meth:`close` disposes the engine."""
        engine = db.make_engine(url)
        try:
            if migrate:
                db.migrate(engine)
        except BaseException:
            engine.dispose()
            raise
        return cls(engine, owns_engine=True, **kwargs)

    @property
    def engine(self) -> Engine:
        return self._engine

    @property
    def _cipher(self) -> TokenCipher:
        """The cipher given, else :func:`~bot.store.crypto.ephemeral_cipher` (made on first use, once:
        two threads' first uses must not seal with two different keys)."""
        if self._token_cipher is None:
            with _CIPHER_LOCK:
                if self._token_cipher is None:
                    self._token_cipher = ephemeral_cipher()
        return self._token_cipher

    def close(self) -> None:
        """Dispose of the engine's pool if this store created the engine."""
        if self._owns_engine:
            self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _now(self) -> datetime:
        return check_aware(self._clock(), "clock()")

    def _insert(self, model: Table) -> Any:
        # the engine's dialect only ("sqlite" or "postgresql"): the other one costs ~30 ms to import
        return importlib.import_module(f"sqlalchemy.dialects.{self._dialect}").insert(model)

    def _insert_new(self, model: Table, **values: Any) -> bool:
        """Insert one row of ``model`` unless its key is taken: True when the row is new."""
        with self._write() as s:
            return self._inserted(s, model, values)

    def _inserted(self, s: Connection, model: Table, values: dict[str, Any]) -> bool:
        """:meth:`_insert_new` in ``s``."""
        stmt = self._insert(model).values(**values).on_conflict_do_nothing()
        return s.execute(stmt.returning(*model.primary_key.columns)).first() is not None

    def _row_for_update(self, s: Connection, model: Table, key: dict[str, Any], **new: Any) -> tuple[Row[Any], bool]:
        """In ``s``: the row of ``model`` at ``key`` (locked for the transaction), inserted first with
        ``new`` when missing (race-safe); and whether it was inserted."""
        inserted = self._inserted(s, model, {**key, **new})
        return s.execute(select(model).filter_by(**key).with_for_update()).one(), inserted

    def _scalar(self, stmt: Select[_T]) -> _T | None:
        """The first column of ``stmt``'s first row (None without one), in a read transaction."""
        with self._read() as s:
            return s.scalar(stmt)

    def _scalars(self, stmt: Select[_T]) -> list[_T]:
        """The first column of each of ``stmt``'s rows, in a read transaction."""
        with self._read() as s:
            return list(s.scalars(stmt))

    def _rows(self, stmt: Select[*_Ts]) -> Sequence[Row[*_Ts]]:
        """Every row of ``stmt``, in a read transaction."""
        with self._read() as s:
            return s.execute(stmt).all()

    def _snapshots(self, cls: type[_Snap], stmt: Select[Any]) -> list[_Snap]:
        """Each row of ``stmt`` (a whole table's) as a :func:`~bot.store.snapshots.snapshot` of ``cls``."""
        with self._read() as s:
            return [snapshot(cls, row) for row in s.execute(stmt)]

    def _snapshot(self, cls: type[_Snap], stmt: Select[Any]) -> _Snap | None:
        """The first row of ``stmt`` as a snapshot of ``cls``, or None."""
        found = self._snapshots(cls, stmt.limit(1))
        return found[0] if found else None

    def _change(self, stmt: Executable) -> int:
        """:func:`changed` in a write transaction of its own."""
        with self._write() as s:
            return changed(s, stmt)

    @contextmanager
    def _write(self, carry: Carry | None = None) -> Iterator[Connection]:
        """:func:`bot.store.db.write_connection`, then :meth:`_after_write` (committed or not).
        ``carry``: how the transaction changes one person's reader state, for a cache of them to
        carry a kept state over (:meth:`bot.store.reader.ReaderRepo._write`; ignored here)."""
        try:
            with db.write_connection(self._engine) as conn:
                yield conn
        finally:
            self._after_write()

    def _write_elsewhere(self) -> AbstractContextManager[Connection]:
        """A write transaction to tables no reader state reads (held requests): :meth:`_write`
        here; a cache of reader states keeps them over it (:meth:`bot.store.reader.ReaderRepo._write_elsewhere`)."""
        return self._write()

    def _after_write(self) -> None:
        """Called after each write transaction of :meth:`_write` ends (a cache's hook)."""

    def _read(self) -> AbstractContextManager[Connection]:
        return db.read_connection(self._engine)


def changed(s: Connection, stmt: Executable) -> int:
    """Execute an ``UPDATE`` or ``DELETE`` (no ``RETURNING``) in ``s``: rows matched."""
    return cast(CursorResult[Any], s.execute(stmt)).rowcount


def update_row(
    s: Connection, table: Table, key: dict[str, Any], row: Any, changes: dict[str, Any], now: datetime
) -> tuple[Any, bool]:
    """In ``s``: set on ``table``'s row at ``key`` (read as ``row``, any object with the columns as
    attributes) the ``changes`` that differ from ``row``, and then ``updated_at`` = ``now``; none:
    nothing. Returns ``(the row as it now is, whether something changed)``: ``row`` itself when
    nothing changed, else a :class:`types.SimpleNamespace` of its columns."""
    changes = {k: v for k, v in changes.items() if getattr(row, k) != v}
    if not changes:
        return row, False
    changes["updated_at"] = now
    s.execute(update(table).filter_by(**key).values(**changes))
    return SimpleNamespace(**{**row._asdict(), **changes}), True
