"""The built search index kept beside the catalog, so that a cold start does not build it again.

Building :class:`~bot.domain.search.Matcher` over the real catalog takes about 0.1 s (the glossary,
1,200 questions, the typo index): most of a cold ``vllm-path search``. :func:`matcher_for` keeps
the built index in ``<catalog>/__pycache__/vllm-path-index.pickle``, keyed by the catalog's files
and the code that loads and checks them (:func:`catalog_key`), the search vocabulary files, the
search package's own code and word list, and the versions of numpy, bm25s and rapidfuzz: any
change builds it again. A missing, stale or unreadable file is ignored; an unwritable folder
keeps none. The catalog is kept with it, so that a cold search (:func:`kept_matcher`) reads no
YAML at all.

Speed layer needed by ``benchmarks/cli_cold.py`` (``vllm-path search nixl`` <= 2.5x ``import
slack_bolt``): without it the search took 2.74-3.09x (docs/benchmarks.md, "Speed layers and the
benchmarks that need them"). The kept catalog: ``search nixl`` 2.9x ``import slack_bolt``'s
CPU without it (issue 43, target <= 2x).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.domain.search.vocabulary import ANSWERS_FILE, GLOSSARY_FILE, VOCABULARY_FILE, Vocabulary

if TYPE_CHECKING:  # pragma: no cover
    from bot.domain.catalog import Catalog
    from bot.domain.search.matcher import Matcher

CACHE_DIR = "__pycache__"
"""Where, under the catalog folder, the index is kept."""
INDEX_FILE = "vllm-path-index.pickle"
"""The kept index, under :data:`CACHE_DIR`."""


def _hash_files(digest: Any, files: list[Path]) -> None:
    for path in files:
        with contextlib.suppress(OSError):
            digest.update(f"{path.name} {path.stat().st_size}\n".encode() + path.read_bytes())


def catalog_key(root: Path) -> bytes:
    """SHA-256 over the catalog's files (every ``*.yaml`` of the folder, of ``posts/`` and of
    ``tracks/``, and ``CHANGELOG.md``), the code that checks them (the catalog package, budget.py,
    graphs.py, paths.py) and pydantic's version."""
    import pydantic  # already imported by the models whenever a catalog is loaded

    digest = hashlib.sha256(f"{pydantic.VERSION}\n".encode())
    catalog_code = Path(__file__).parent.parent / "catalog"
    code = [
        *sorted(catalog_code.glob("*.py")),
        *(catalog_code.parent / f"{m}.py" for m in ("budget", "graphs", "paths")),
    ]
    # every YAML file of the folder: a cold search serves the catalog kept with the index as it is
    files = [root / "CHANGELOG.md", *sorted(root.glob("*.yaml")), *sorted(root.glob("posts/*.yaml"))]
    _hash_files(digest, [*code, *files, *sorted(root.glob("tracks/*.yaml"))])
    return digest.digest()


def index_key(root: Path) -> bytes:
    """What a kept index was built from (SHA-256): see the module docstring."""
    digest = hashlib.sha256(catalog_key(root))
    here = Path(__file__).parent
    files = [*sorted(here.glob("*.py")), here / "data" / "english-words.txt"]
    _hash_files(digest, files + [root / name for name in (VOCABULARY_FILE, GLOSSARY_FILE, ANSWERS_FILE)])
    for package in ("numpy", "bm25s", "rapidfuzz"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            digest.update(f"{package} {metadata.version(package)}\n".encode())
    return digest.digest()


def _write_pickle(path: Path, value: Any) -> None:
    """Pickle ``value`` to ``path`` atomically; never raises (a read-only folder keeps no index)."""
    with contextlib.suppress(OSError, pickle.PicklingError):
        path.parent.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cache-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _kept(root: Path, key: bytes) -> tuple[Catalog, Vocabulary, dict[str, Any]] | None:
    """The catalog, vocabulary and index state kept in ``root`` when built from what ``key`` names."""
    with contextlib.suppress(Exception):  # none kept, or not one we wrote: build it
        kept_key, *kept = pickle.loads((root / CACHE_DIR / INDEX_FILE).read_bytes())
        if kept_key == key:
            catalog, vocabulary, state = kept
            return catalog, vocabulary, state
    return None


def _build(catalog: Catalog, vocabulary: Vocabulary, root: Path, key: bytes) -> Matcher:
    from bot.domain.search.matcher import Matcher

    matcher = Matcher(catalog, vocabulary)
    _write_pickle(root / CACHE_DIR / INDEX_FILE, (key, catalog, vocabulary, matcher.__getstate__()))
    return matcher


def matcher_for(catalog: Catalog, vocabulary: Vocabulary, root: Path | None) -> Matcher:
    """The :class:`~bot.domain.search.Matcher` of ``catalog`` with ``vocabulary``, both read from
    the catalog folder ``root``: the kept one when it was built from the same files, else built
    now and kept. ``root`` ``None`` (a catalog not read from a folder): built, never kept."""
    from bot.domain.search.matcher import Matcher

    if root is None:
        return Matcher(catalog, vocabulary)
    key = index_key(root)
    kept = _kept(root, key)
    return Matcher.restore(kept[2], catalog, vocabulary) if kept else _build(catalog, vocabulary, root, key)


def kept_matcher(root: Path) -> tuple[Catalog, Matcher]:
    """The catalog in the folder ``root`` (with its own vocabulary) and its :func:`matcher_for`,
    catalog and vocabulary kept too: when the kept index was built from the same files, those
    (no YAML read); else both loaded (raising :class:`~bot.domain.catalog.CatalogError` or
    :class:`~bot.domain.search.VocabularyError`), indexed and kept."""
    from bot.domain.search.matcher import Matcher

    key = index_key(root)
    kept = _kept(root, key)
    if kept is not None:
        return kept[0], Matcher.restore(kept[2], kept[0], kept[1])
    from bot.domain.catalog import load_catalog
    from bot.domain.search.vocabulary import load_vocabulary

    catalog = load_catalog(root)
    return catalog, _build(catalog, load_vocabulary(root), root, key)
