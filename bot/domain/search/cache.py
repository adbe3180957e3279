"""The loaded catalog and the built search index kept beside the catalog, so that a cold start
neither reads the YAML nor builds the index again.

:func:`kept_catalog` keeps the checked catalog with its search vocabulary in
``<catalog>/__pycache__/vllm-path-catalog.pickle``, keyed (:func:`vocabulary_key`) by the catalog's
files and the code that loads and checks them (:func:`catalog_key`), the search vocabulary files
and the search package's own code and word list. Building :class:`~bot.domain.search.Matcher`
over the real catalog takes about 0.1 s (the glossary, 1,200 questions, the typo index): most of a
cold ``vllm-path search``. :func:`matcher_for` keeps the built index's state in
``<catalog>/__pycache__/vllm-path-index.pickle``, keyed (:func:`index_key`) by the same and the
versions of numpy, bm25s and rapidfuzz. Any change loads or builds them again. A missing, stale or
unreadable file is ignored; an unwritable folder keeps none. A cold search (:func:`kept_matcher`)
and every process's catalog (:class:`bot.runtime.CatalogHolder`) read no YAML when nothing changed.

Speed layer needed by ``benchmarks/cli_cold.py`` (``vllm-path search nixl`` <= 2.5x ``import
slack_bolt``): without it the search took 2.74-3.09x (docs/benchmarks.md, "Speed layers and the
benchmarks that need them"). The kept catalog: ``search nixl`` 2.9x ``import slack_bolt``'s
CPU without it (issue 43, target <= 2x); read by every runtime too, it spares a cold ``vllm-path
ask`` the YAML, the catalog's checks and the vocabulary's parse (see docs/benchmarks.md).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from bot.domain.search.vocabulary import ANSWERS_FILE, GLOSSARY_FILE, VOCABULARY_FILE, Vocabulary

if TYPE_CHECKING:  # pragma: no cover
    from bot.domain.catalog import Catalog
    from bot.domain.search.matcher import Matcher

CACHE_DIR = "__pycache__"
"""Where, under the catalog folder, the index is kept."""
INDEX_FILE = "vllm-path-index.pickle"
"""The kept index, under :data:`CACHE_DIR`: ``(index_key, Matcher state)``."""
CATALOG_FILE = "vllm-path-catalog.pickle"
"""The kept catalog and vocabulary, under :data:`CACHE_DIR`: ``(vocabulary_key, Catalog, Vocabulary)``."""


def _hash_files(digest: Any, files: list[Path]) -> None:
    for path in files:
        with contextlib.suppress(OSError):
            digest.update(f"{path.name} {path.stat().st_size}\n".encode() + path.read_bytes())


@functools.cache
def _code_digest(kind: str) -> bytes:
    """SHA-256 of the code that reads a catalog (``kind`` ``"catalog"``: the catalog package,
    budget.py, graphs.py, paths.py) or builds its search (``"search"``: this package's modules, its
    word list and ``bot/domain/text.py``), as this process first read it: computed once per process,
    so that a process running older code (a deploy beside a running server) never keeps its pickles
    under newer files' key, where the new code would restore objects of the old shape."""
    here = Path(__file__).parent
    if kind == "catalog":
        catalog_code = here.parent / "catalog"
        files = [*sorted(catalog_code.glob("*.py")), *(here.parent / f"{m}.py" for m in ("budget", "graphs", "paths"))]
    else:
        # and the text folding it reads with (bot/domain/text.py: a Traditional character's fold)
        files = [*sorted(here.glob("*.py")), here / "data" / "english-words.txt", here.parent / "text.py"]
    digest = hashlib.sha256(kind.encode())
    _hash_files(digest, files)
    return digest.digest()


def catalog_key(root: Path) -> bytes:
    """SHA-256 over the catalog's files (every ``*.yaml`` of the folder, of ``posts/`` and of
    ``tracks/``, and ``CHANGELOG.md``), the code that checks them (the catalog package, budget.py,
    graphs.py, paths.py) and pydantic's version."""
    import pydantic  # already imported by the models whenever a catalog is loaded

    digest = hashlib.sha256(f"{pydantic.VERSION}\n".encode() + _code_digest("catalog"))
    # every YAML file of the folder: a cold search serves the catalog kept with the index as it is
    files = [root / "CHANGELOG.md", *sorted(root.glob("*.yaml")), *sorted(root.glob("posts/*.yaml"))]
    _hash_files(digest, [*files, *sorted(root.glob("tracks/*.yaml"))])
    return digest.digest()


def vocabulary_key(root: Path) -> bytes:
    """SHA-256 over :func:`catalog_key`, the search vocabulary files of ``root`` and the search
    package's code and word list: what a kept catalog and vocabulary were read with."""
    digest = hashlib.sha256(catalog_key(root) + _code_digest("search"))
    _hash_files(digest, [root / name for name in (VOCABULARY_FILE, GLOSSARY_FILE, ANSWERS_FILE)])
    return digest.digest()


def index_key(root: Path, read_with: bytes | None = None) -> bytes:
    """What a kept index was built from (SHA-256): ``read_with`` (the :func:`vocabulary_key` its
    catalog was read under; None: the files' now), the versions of numpy and rapidfuzz and bm25s's
    own scoring code (:func:`_bm25s_code`)."""
    import numpy  # imported by the index anyway: their own versions, not the installed metadata's
    import rapidfuzz  # (reading that parsed three METADATA files, ~4 ms of a cold search)

    digest = hashlib.sha256(vocabulary_key(root) if read_with is None else read_with)
    for package in (numpy, rapidfuzz):
        digest.update(f"{package.__name__} {getattr(package, '__version__', '?')}\n".encode())
    digest.update(_bm25s_code())
    return digest.digest()


@functools.cache
def _bm25s_code() -> bytes:
    """SHA-256 of the installed bm25s's ``__init__.py`` and ``scoring.py`` (what builds a kept
    index's score matrix), found without importing bm25s: a kept index is scored without it, and
    its version module reads the installed metadata (~20 ms of a cold search); b"" when absent."""
    import importlib.util

    digest = hashlib.sha256()
    spec = importlib.util.find_spec("bm25s")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        _hash_files(digest, [Path(folder) / "__init__.py", Path(folder) / "scoring.py"])
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


_LAST_READ: OrderedDict[Path, tuple[tuple[int, int, int], bytes, tuple[Any, ...]]] = OrderedDict()
"""Per kept file, the values this process last read from it: ``(file stamp, key, values)``; the
:data:`LAST_READ_FILES` files read most recently (a process reading many catalog folders, a test
worker's copies, keeps a few, not all)."""

_LAST_READ_LOCK = threading.Lock()

LAST_READ_FILES = 4
"""Kept files whose last-read values a process keeps (:func:`_unpickled`): a catalog and an index
each for the folder served and one other."""


def _unpickled(path: Path, key: bytes) -> tuple[Any, ...] | None:
    """The values kept in ``path`` after ``key``, when it was written under ``key``; else None.

    A process reading the same file again under the same key (a second runtime, a reload with
    nothing changed) shares the values it read last (:data:`_LAST_READ`, one entry per file, the
    file's modification time, size and inode checked) instead of unpickling them again: the
    catalog's models are frozen and the index is read-only. Each test's runtime unpickled the
    catalog and index (~60 ms of CPU, a sixth of the suite's; issue 43's ``make test``)."""
    with contextlib.suppress(Exception):  # none kept, or not one we wrote: load or build it
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        with _LAST_READ_LOCK:
            last = _LAST_READ.get(path)
            if last is not None and last[0] == stamp and last[1] == key:
                _LAST_READ.move_to_end(path)
                return last[2]
        kept_key, *kept = pickle.loads(path.read_bytes())
        if kept_key == key:
            with _LAST_READ_LOCK:
                _LAST_READ[path] = (stamp, key, tuple(kept))
                _LAST_READ.move_to_end(path)
                while len(_LAST_READ) > LAST_READ_FILES:
                    _LAST_READ.popitem(last=False)
            return tuple(kept)
    return None


class KeptCatalog(NamedTuple):
    """A catalog folder's checked :class:`~bot.domain.catalog.Catalog`, its search
    :class:`~bot.domain.search.vocabulary.Vocabulary` and the :func:`vocabulary_key` read with."""

    catalog: Catalog
    vocabulary: Vocabulary
    key: bytes


def kept_catalog(root: Path) -> KeptCatalog:
    """The catalog and search vocabulary in the folder ``root``: the kept ones when kept from the
    same files and code (no YAML read, neither the catalog's loader nor its checks imported), else
    loaded (raising :class:`~bot.domain.catalog.CatalogError` or
    :class:`~bot.domain.search.VocabularyError`) and kept, unless a file changed while they were read."""
    key = vocabulary_key(root)
    kept = _unpickled(root / CACHE_DIR / CATALOG_FILE, key)
    if kept is not None:
        return KeptCatalog(kept[0], kept[1], key)
    from bot.domain.catalog import load_catalog
    from bot.domain.search.vocabulary import load_vocabulary

    catalog, vocabulary = load_catalog(root), load_vocabulary(root)
    if vocabulary_key(root) == key:
        _write_pickle(root / CACHE_DIR / CATALOG_FILE, (key, catalog, vocabulary))
    return KeptCatalog(catalog, vocabulary, key)


def matcher_for(catalog: Catalog, vocabulary: Vocabulary, root: Path | None, read_with: bytes | None = None) -> Matcher:
    """The :class:`~bot.domain.search.Matcher` of ``catalog`` with ``vocabulary``, both read from
    the catalog folder ``root`` (under the :func:`vocabulary_key` ``read_with``; None: the files'
    now): the kept index when built from the same, else built now and kept. ``root`` ``None`` (a
    catalog not read from a folder): built, never kept."""
    from bot.domain.search.matcher import Matcher

    if root is None:
        return Matcher(catalog, vocabulary)
    key = index_key(root, read_with)
    kept = _unpickled(root / CACHE_DIR / INDEX_FILE, key)
    if kept is not None:
        return Matcher.restore(kept[0], catalog, vocabulary)
    matcher = Matcher(catalog, vocabulary)
    _write_pickle(root / CACHE_DIR / INDEX_FILE, (key, matcher.__getstate__()))
    return matcher


def kept_matcher(root: Path) -> tuple[Catalog, Matcher]:
    """The catalog in the folder ``root`` (with its own vocabulary, :func:`kept_catalog`) and its
    :func:`matcher_for`: when nothing changed, no YAML read and no index built. Raises as
    :func:`kept_catalog` does."""
    catalog, vocabulary, key = kept_catalog(root)
    return catalog, matcher_for(catalog, vocabulary, root, key)
