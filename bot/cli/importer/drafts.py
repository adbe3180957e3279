"""Writing an import plan into the catalog (``catalog import --write``): new posts appended to
``posts/drafts.yaml`` as drafts, fills edited into their own lines of the posts files (every other
byte stays). Every new text is computed and read back before the first file is replaced, each
through a temporary file, so a bad plan writes nothing.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from bot.cli.importer.plan import Fill, ImportPlan, NewPost

DRAFTS_FILE = "posts/drafts.yaml"
"""Where ``--write`` puts new posts, relative to the catalog folder."""

DRAFTS_HEADER = (
    "# Draft posts written by `vllm-path catalog import`: the facts (title, URL, date, authors,\n"
    "# tags) are the blog's. `vllm-path catalog check` refuses a draft: write its summary in our\n"
    "# own words, make it a step of a track, remove `status: draft`, then move the entry to\n"
    "# vllm-blog.yaml.\n"
)


def _scalar(value: str) -> str:
    """One YAML scalar as our files write it (quoted only when needed)."""
    text = yaml.safe_dump(value, allow_unicode=True, width=10_000)
    return text.removesuffix("...\n").strip()


def draft_yaml(post: NewPost) -> str:
    """The text of one draft entry of ``posts/drafts.yaml`` (a YAML list item)."""
    lines = []
    if post.tracks:
        lines.append("# likely tracks: " + ", ".join(f"{g.track_id} ({g.score:.0f})" for g in post.tracks))
    lines.append(f"- id: {post.id}")
    lines.append(f"  title: {_scalar(post.title)}")
    lines.append(f"  url: {_scalar(post.url)}")
    lines.append(f"  published: '{post.published.isoformat()}'")
    lines.append("  authors:" + ("" if post.authors else " []"))
    lines.extend(f"  - {_scalar(a)}" for a in post.authors)
    lines.append("  source:\n    kind: vllm-blog")
    if post.minutes is not None:  # counted from the post's body (bot.domain.catalog.reading_time)
        lines.append(f"  minutes: {post.minutes}")
        lines.append("  minutes_source: counted")
    for key in ("tags", "blog_tags"):  # blog_tags: the blog's own tags, kept verbatim (issue 11 data)
        lines.append(f"  {key}:" + ("" if post.tags else " []"))
        lines.extend(f"  - {_scalar(t)}" for t in post.tags)
    lines.append("  status: draft")
    lines.append("  # summary: to write in our own words (en, and zh on a bilingual track)")
    return "\n".join(lines) + "\n"


FIELD_ORDER = ("id", "title", "url", "published", "authors", "source")
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


def _fill_lines(fill: Fill) -> list[str]:
    if fill.field == "authors":
        return ["authors:", *(f"- {_scalar(a)}" for a in fill.new)]
    if fill.field == "published":
        return [f"published: '{fill.new}'"]
    if fill.field == "minutes":
        return [f"minutes: {int(fill.new)}", "minutes_source: counted"]
    return [f"{fill.field}: {_scalar(fill.new)}"]


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def apply_import(plan: ImportPlan, catalog_dir: str | Path) -> list[str]:
    """Write ``plan`` into the catalog (new posts appended to :data:`DRAFTS_FILE`, fills edited in),
    every text computed before the first file is replaced; the files written, relative to it."""
    root = Path(catalog_dir)
    texts: dict[str, str] = {}
    by_file: dict[str, list[tuple[str, str, list[str]]]] = {}
    for fill in plan.fills:
        by_file.setdefault(fill.file, []).append((fill.post_id, fill.field, _fill_lines(fill)))
    for rel, edits in by_file.items():
        texts[rel] = edit_fields((root / rel).read_text(encoding="utf-8"), edits)
    if plan.new_posts:
        path = root / DRAFTS_FILE
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        text = text if text.strip() else DRAFTS_HEADER
        if not text.endswith("\n"):
            text += "\n"
        texts[DRAFTS_FILE] = text + "".join(draft_yaml(p) for p in plan.new_posts)
    for text in texts.values():
        yaml.safe_load(text)  # never write a file we cannot read back
    for rel, text in texts.items():
        _write_atomic(root / rel, text)
    return sorted(texts)
