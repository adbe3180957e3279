"""Snapshots of everything the app stored, to prove a refused request stored nothing."""

from __future__ import annotations

from sqlalchemy import MetaData, select

TRANSIENT = frozenset({"held_requests"})
"""Tables of work in progress, not of what the app stored: a request held while it is answered
(``bot/slack/held.py``) is released a moment after its answer goes out."""


def snapshot(store) -> dict[str, list[tuple]]:
    """Every row of every table but the :data:`TRANSIENT` ones (sorted), keyed by table name."""
    meta = MetaData()
    meta.reflect(bind=store.engine)
    out: dict[str, list[tuple]] = {}
    with store.engine.connect() as conn:
        for name, table in sorted(meta.tables.items()):
            if name in TRANSIENT:
                continue
            rows = conn.execute(select(table)).all()
            out[name] = sorted(tuple(map(repr, r)) for r in rows)
    return out


def row_counts(store) -> dict[str, int]:
    """Rows per table."""
    return {name: len(rows) for name, rows in snapshot(store).items()}
