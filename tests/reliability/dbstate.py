"""Snapshots of everything the app stored, to prove a refused request stored nothing."""

from __future__ import annotations

from sqlalchemy import MetaData, select


def snapshot(store) -> dict[str, list[tuple]]:
    """Every row of every table (sorted), keyed by table name."""
    meta = MetaData()
    meta.reflect(bind=store.engine)
    out: dict[str, list[tuple]] = {}
    with store.engine.connect() as conn:
        for name, table in sorted(meta.tables.items()):
            rows = conn.execute(select(table)).all()
            out[name] = sorted(tuple(map(repr, r)) for r in rows)
    return out


def row_counts(store) -> dict[str, int]:
    """Rows per table."""
    return {name: len(rows) for name, rows in snapshot(store).items()}
