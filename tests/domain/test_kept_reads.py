"""What a process reads again is not parsed again (issue 43's make test): the kept catalog and
index (``bot.domain.search.cache._unpickled``) and the catalog's YAML texts
(``bot.domain.catalog.loader.parse_yaml_text``) — and a change is always read."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain.catalog.loader import parse_yaml_text
from bot.domain.search import cache


def _copy(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    shutil.copytree(DEFAULT_CATALOG_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_a_kept_catalog_read_again_is_shared_until_its_file_changes(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "a")
    first = cache.kept_catalog(folder)  # loaded from the YAML and kept
    again = cache.kept_catalog(folder)  # read from the kept file
    assert cache.kept_catalog(folder).catalog is again.catalog  # the same values, not unpickled again
    assert again.catalog.version == first.catalog.version
    kept = folder / cache.CACHE_DIR / cache.CATALOG_FILE
    kept.write_bytes(kept.read_bytes())  # written again: a new file stamp
    os.utime(kept, ns=(kept.stat().st_atime_ns, kept.stat().st_mtime_ns + 1_000_000))
    assert cache.kept_catalog(folder).catalog is not again.catalog  # read anew


def test_only_the_files_read_last_are_kept_in_memory(tmp_path: Path) -> None:
    folders = [_copy(tmp_path, f"c{i}") for i in range(cache.LAST_READ_FILES + 1)]
    for folder in folders:
        cache.kept_catalog(folder)
        cache.kept_catalog(folder)
    assert len(cache._LAST_READ) <= cache.LAST_READ_FILES
    assert folders[0] / cache.CACHE_DIR / cache.CATALOG_FILE not in cache._LAST_READ


def test_a_yaml_text_parsed_again_gives_fresh_values() -> None:
    text = "posts:\n  - id: a\n    tags: [x, y]\n"
    first = parse_yaml_text(text)
    first["posts"][0]["tags"].append("changed by a caller")
    again = parse_yaml_text(text)
    assert again == {"posts": [{"id": "a", "tags": ["x", "y"]}]}  # the caller's change is not kept
    assert parse_yaml_text(text + "  - id: b\n")["posts"][1] == {"id": "b"}  # another text: parsed
