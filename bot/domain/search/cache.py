"""The built search index kept beside the catalog, so that a cold start does not build it again.

Building :class:`~bot.domain.search.Matcher` over the real catalog takes about 0.1 s (the glossary,
1,200 questions, the typo index): most of a cold ``vllm-path search``. :func:`matcher_for` keeps
the built index in ``<catalog>/__pycache__/vllm-path-index.pickle`` (beside the parsed catalog of
:mod:`bot.domain.catalog.yaml_cache`), keyed by the catalog's files and checking code
(:func:`~bot.domain.catalog.yaml_cache.catalog_key`), the search vocabulary files, the search
package's own code and word list, and the versions of numpy, bm25s and rapidfuzz: any change builds
it again. A missing, stale or unreadable file is ignored; an unwritable folder keeps none.
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from bot.domain.catalog import yaml_cache
from bot.domain.search.vocabulary import ANSWERS_FILE, GLOSSARY_FILE, VOCABULARY_FILE, Vocabulary

if TYPE_CHECKING:  # pragma: no cover
    from bot.domain.catalog import Catalog
    from bot.domain.search.matcher import Matcher

INDEX_FILE = "vllm-path-index.pickle"
"""The kept index, under the catalog folder's ``__pycache__``."""


def index_key(root: Path) -> bytes:
    """What a kept index was built from (SHA-256): see the module docstring."""
    digest = hashlib.sha256(yaml_cache.catalog_key(root, "search index"))
    here = Path(__file__).parent
    files = [*sorted(here.glob("*.py")), here / "data" / "english-words.txt"]
    files += [root / name for name in (VOCABULARY_FILE, GLOSSARY_FILE, ANSWERS_FILE)]
    for path in files:
        with contextlib.suppress(OSError):
            digest.update(f"{path.name} {path.stat().st_size}\n".encode() + path.read_bytes())
    for package in ("numpy", "bm25s", "rapidfuzz"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            digest.update(f"{package} {metadata.version(package)}\n".encode())
    return digest.digest()


def matcher_for(catalog: Catalog, vocabulary: Vocabulary, root: Path | None) -> Matcher:
    """The :class:`~bot.domain.search.Matcher` of ``catalog`` with ``vocabulary``, both read from
    the catalog folder ``root``: the kept one when it was built from the same files, else built
    now and kept. ``root`` ``None`` (a catalog not read from a folder): built, never kept."""
    from bot.domain.search.matcher import Matcher

    if root is None:
        return Matcher(catalog, vocabulary)
    key = index_key(root)
    path = root / yaml_cache.CACHE_DIR / INDEX_FILE
    with contextlib.suppress(Exception):  # none kept, or not one we wrote: build it
        kept_key, state = pickle.loads(path.read_bytes())
        if kept_key == key:
            return Matcher.restore(state, catalog, vocabulary)
    matcher = Matcher(catalog, vocabulary)
    yaml_cache.write_pickle(path, (key, matcher.__getstate__()))
    return matcher
