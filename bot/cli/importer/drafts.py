"""Writing an import plan (``catalog import --write``): fills edited into their own lines of the
posts files (every other byte stays), then each new post's draft beside the catalog
(:func:`bot.domain.catalog.drafts.write_draft`, as the feed watch writes it). Every posts file's new
text is computed and read back before the first file is replaced, each through a temporary file,
so a bad plan writes nothing.
"""

from __future__ import annotations

from pathlib import Path

from bot.cli.importer.plan import Fill, ImportPlan
from bot.domain.catalog.drafts import write_draft
from bot.domain.catalog.edit import edit_fields, scalar, write_atomic
from bot.domain.catalog.loader import parse_yaml_text


def _fill_lines(fill: Fill) -> list[str]:
    if fill.field == "authors":
        return ["authors:", *(f"- {scalar(a)}" for a in fill.new)]
    if fill.field == "minutes":
        return [f"minutes: {int(fill.new)}", "minutes_source: counted"]
    return [f"published: '{fill.new}'"]


def apply_import(plan: ImportPlan, catalog_dir: str | Path) -> list[str]:
    """Write ``plan`` into the catalog in ``catalog_dir``: the fills edited in, then a
    ``drafts/<id>.yaml`` per draft; the files written, relative to it, sorted."""
    root = Path(catalog_dir)
    texts: dict[str, str] = {}
    by_file: dict[str, list[tuple[str, str, list[str]]]] = {}
    for fill in plan.fills:
        by_file.setdefault(fill.file, []).append((fill.post_id, fill.field, _fill_lines(fill)))
    for rel, edits in by_file.items():
        texts[rel] = edit_fields((root / rel).read_text(encoding="utf-8"), edits)
    for text in texts.values():
        parse_yaml_text(text)  # never write a file we cannot read back
    for rel, text in texts.items():
        write_atomic(root / rel, text)
    drafts = [write_draft(root, draft).relative_to(root).as_posix() for draft in plan.drafts]
    return sorted([*texts, *drafts])
