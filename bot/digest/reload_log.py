"""The log line of a catalog reload after another process recorded a newer version (the clock's
:meth:`~bot.digest.clock.DigestClock.reconcile`, the queue worker's ``maybe_reload_catalog``)."""

from __future__ import annotations

import logging
from pathlib import Path


def log_reload(log: logging.Logger, latest: str, ok: bool, errors: int, serving: str, folder: Path | str) -> None:
    """Say how the reload to ``latest`` went: INFO when this process now serves it; a WARNING when
    the reload was refused (``errors``) or ``folder`` (its ``CATALOG_DIR``) still holds another
    version ``serving``: then its folder is not the one the other process updated."""
    if ok and serving == latest:
        log.info("catalog %s recorded by another process: reloaded, now serving it", latest)
        return
    if not ok:
        log.warning(
            "catalog %s recorded by another process: reload refused (%d errors); still serving %s from %s",
            latest, errors, serving, folder,
        )  # fmt: skip
        return
    older = "older than" if serving < latest else "different from"
    log.warning(
        "catalog %s recorded by another process, but this process's catalog folder %s holds %s, %s the "
        "recorded version: share CATALOG_DIR between the web and clock processes (or update this folder)",
        latest, folder, serving, older,
    )  # fmt: skip
