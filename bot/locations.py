"""Where the app's own files are, and ``CATALOG_DIR`` read without pydantic-settings (a faster
cold start for the reading commands), exactly as :class:`bot.config.Settings` reads it.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CATALOG_DIR = REPO_ROOT / "catalog"
"""The catalog shipped with the app (``catalog/`` at the repository root)."""


def catalog_dir(given: str | Path | None = None) -> Path:
    """The catalog folder: ``given`` (a ``--catalog-dir`` option) if set, else ``CATALOG_DIR``
    from the environment, else from ``./.env``, else :data:`DEFAULT_CATALOG_DIR`."""
    if given:
        return Path(given)
    for key, value in os.environ.items():
        if key.lower() == "catalog_dir":
            return Path(value)
    if Path(".env").is_file():
        from dotenv import dotenv_values  # what pydantic-settings reads .env with

        for key, found in dotenv_values(".env", encoding="utf-8").items():
            if key.lower() == "catalog_dir" and found is not None:
                return Path(found)
    return DEFAULT_CATALOG_DIR
