"""Editing catalog files line by line: a field of a post replaced or inserted with every other byte
kept (ruamel.yaml gives the lines), and files replaced atomically. Used by ``catalog import`` and by
accepting a draft (:mod:`bot.domain.catalog.drafts`)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml


def scalar(value: str) -> str:
    """One YAML scalar as our files write it (quoted only when needed)."""
    text = yaml.safe_dump(value, allow_unicode=True, width=10_000)
    return text.removesuffix("...\n").strip()


FIELD_ORDER = ("id", "title", "url", "published", "added", "authors", "source")
"""The order our posts files write a post's first fields in; a missing field is inserted there."""


def _end_of(data: Any, n: int, keys: list[Any], index: int, total: int) -> int:
    """The line (0-based) where key ``keys[index]`` of item ``n`` of ``data`` ends: the next
    key's line, the next item's line, or ``total`` (the end of the file)."""
    if index + 1 < len(keys):
        return int(data[n].lc.key(keys[index + 1])[0])
    return int(data.lc.item(n + 1)[0]) if n + 1 < len(data) else total


def edit_fields(text: str, edits: list[tuple[str, str, list[str]]]) -> str:
    """Apply ``(post_id, field, new_lines)`` edits to a posts file's text: each replaces that
    field's lines (or is inserted at its place in :data:`FIELD_ORDER`), indented like the post's
    keys; every other byte stays (ruamel.yaml gives the lines). Raises ``KeyError`` for an unknown post id."""
    from ruamel.yaml import YAML

    data = YAML(typ="rt").load(text)
    lines = text.splitlines(keepends=True)
    items = {item.get("id"): (n, item) for n, item in enumerate(data)}
    spans: list[tuple[int, int, int, list[str]]] = []
    for post_id, field_name, new_lines in edits:
        n, item = items[post_id]
        keys = list(item.keys())
        col = item.lc.key(keys[0])[1]
        if field_name in item:
            i = keys.index(field_name)
            start, stop = int(item.lc.key(field_name)[0]), _end_of(data, n, keys, i, len(lines))
        else:
            wanted = FIELD_ORDER.index(field_name) if field_name in FIELD_ORDER else len(FIELD_ORDER)
            before = [k for k in keys if k in FIELD_ORDER and FIELD_ORDER.index(k) < wanted]
            i = keys.index(before[-1]) if before else len(keys) - 1
            start = stop = _end_of(data, n, keys, i, len(lines))
            first = int(item.lc.key(keys[i])[0]) + 1
            while start > first and not lines[start - 1].strip():
                start -= 1  # insert before the blank lines that end the previous field
            stop = start
        while stop > start + 1 and not lines[stop - 1].strip():
            stop -= 1  # blank lines before the next key stay where they are
        spans.append((start, stop, col, new_lines))
    # Bottom up; at one line, a replacement before an insertion so that both survive.
    for start, stop, col, new_lines in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        lines[start:stop] = [f"{' ' * col}{new}\n" for new in new_lines]
    return "".join(lines)


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` through a temporary file in its folder (all or nothing)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
