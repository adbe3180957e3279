"""Where the app's own files are, and how settings are read from the environment without
pydantic-settings (a faster cold start): for :class:`bot.config.Settings` and :func:`catalog_dir`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CATALOG_DIR = REPO_ROOT / "catalog"
"""The catalog shipped with the app (``catalog/`` at the repository root)."""


def catalog_dir(given: str | Path | None = None) -> Path:
    """The catalog folder: ``given`` (a ``--catalog-dir`` option) if set, else ``CATALOG_DIR``
    from the environment, else from ``./.env``, else :data:`DEFAULT_CATALOG_DIR`."""
    if given:
        return Path(given)
    return Path(environment(["catalog_dir"]).get("catalog_dir", DEFAULT_CATALOG_DIR))


def environment(names: Iterable[str], env_file: str | Path | None = ".env") -> dict[str, str]:
    """The values of the settings ``names`` (field names) in the environment, else in ``env_file``
    (a dotenv file, UTF-8, read when it exists); names case-insensitive, as pydantic-settings'
    default sources read them (a test keeps the two in step)."""
    found: dict[str, str] = {}
    if env_file is not None and Path(env_file).is_file():
        from dotenv import dotenv_values  # what pydantic-settings reads .env with

        found.update((k.lower(), v) for k, v in dotenv_values(env_file, encoding="utf-8").items() if v is not None)
    found.update((k.lower(), v) for k, v in os.environ.items())
    return {name: found[name] for name in names if name in found}
