"""The catalog's YAML files as parsed before, kept beside them by content (``__pycache__/``).

Parsing is most of a CLI start (~0.1 s). :class:`YamlCache` keeps what the files parsed to in
``<catalog>/__pycache__/vllm-path-<name>.pickle``, keyed by the SHA-256 of each file's bytes and
the parser (PyYAML's installed copy, found without importing it: a hit never loads PyYAML);
:func:`loaded` / :func:`keep_loaded` keep a whole validated catalog, keyed by :func:`catalog_key`.
A missing or corrupt cache is ignored; an unwritable one left as it is.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

CACHE_DIR = "__pycache__"
"""Where, under the catalog folder, the parsed files are kept."""


@functools.cache
def _parser() -> bytes:
    """PyYAML's installed copy: the path, size and mtime of its ``yaml/__init__.py``."""
    spec = importlib.util.find_spec("yaml")
    assert spec is not None and spec.origin is not None  # PyYAML is a dependency
    stat = Path(spec.origin).stat()
    return f"PyYAML {spec.origin} {stat.st_size} {stat.st_mtime_ns}\n".encode()


def yaml_error() -> type[Exception]:
    """``yaml.YAMLError``, for an ``except`` clause: evaluated only once something was raised, so
    that a cache hit never imports PyYAML."""
    import yaml

    return yaml.YAMLError


def write_pickle(path: Path, value: Any) -> None:
    """Pickle ``value`` to ``path`` atomically; never raises (a read-only folder keeps no cache)."""
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


def catalog_key(root: Path, *flags: object) -> bytes:
    """SHA-256 over the catalog's files, the code that checks them (this package, budget.py,
    graphs.py, paths.py), pydantic's version and ``flags``."""
    import pydantic  # already imported by the models whenever a catalog is loaded

    digest = hashlib.sha256(f"{pydantic.VERSION} {flags}\n".encode())
    here = Path(__file__).parent
    code = [*sorted(here.glob("*.py")), *(here.parent / f"{m}.py" for m in ("budget", "graphs", "paths"))]
    files = [root / "manifest.yaml", root / "CHANGELOG.md", *sorted(root.glob("posts/*.yaml"))]
    for path in [*code, *files, *sorted(root.glob("tracks/*.yaml"))]:
        with contextlib.suppress(OSError):
            digest.update(f"{path.name} {path.stat().st_size}\n".encode() + path.read_bytes())
    return digest.digest()


def loaded(root: Path, key: bytes) -> Any:
    """The parts :func:`keep_loaded` kept for ``key`` under ``root``, or ``None``."""
    with contextlib.suppress(Exception):
        kept_key, parts = pickle.loads((root / CACHE_DIR / "vllm-path-loaded.pickle").read_bytes())
        if kept_key == key:
            return parts
    return None


def keep_loaded(root: Path, key: bytes, parts: Any) -> None:
    """Keep ``parts`` (picklable) of the catalog loaded from ``root`` under ``key``; never raises."""
    write_pickle(root / CACHE_DIR / "vllm-path-loaded.pickle", (key, parts))


class YamlCache:
    """Parsed YAML files of the catalog folder ``root``: :meth:`load` each, then :meth:`save`."""

    def __init__(self, root: Path, name: str) -> None:
        self.path = root / CACHE_DIR / f"vllm-path-{name}.pickle"
        self._old: dict[str, tuple[bytes, Any]] = {}
        with contextlib.suppress(Exception):  # no cache, or not one we wrote: parse everything
            old = pickle.loads(self.path.read_bytes())
            if isinstance(old, dict):
                self._old = old
        self._new: dict[str, tuple[bytes, Any]] = {}

    def load(self, path: Path, rel: str) -> Any:
        """``yaml.load`` of ``path`` (``rel`` in the catalog); raises as reading and parsing do."""
        key = hashlib.sha256(_parser() + path.read_bytes()).digest()
        old = self._old.get(rel)
        if old is not None and old[0] == key:
            data = old[1]
        else:
            import yaml  # deferred: only a file not parsed before needs PyYAML

            with path.open(encoding="utf-8") as fh:  # libyaml's safe loader when built with it (~10x faster)
                data = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        self._new[rel] = (key, data)
        return data

    def save(self) -> None:
        """Write the files loaded (only when one changed), atomically; never raises."""
        if {k: v[0] for k, v in self._new.items()} != {k: v[0] for k, v in self._old.items()}:
            write_pickle(self.path, self._new)
