"""The web pages' routes for the HTTP door: ``GET /static/site.css`` now; the path pages
(``/paths``, ``/paths/<track>``) come from :mod:`bot.web.paths` when it is present.

:func:`routes` gives the door one function: ``(path, method, environ) -> (status line, headers,
body) | None``; None means "not a page: let Bolt (or the 404) have it"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.web.pages import STATIC_DIR

Page = tuple[str, list[tuple[str, str]], bytes]
"""``(status line, headers, body bytes)`` for WSGI."""


def routes(runtime: Any) -> Callable[[str, str, dict[str, Any]], Page | None]:
    """The page router for ``runtime`` (its catalog holder and settings)."""
    css = (STATIC_DIR / "site.css").read_bytes()

    def route(path: str, method: str, environ: dict[str, Any]) -> Page | None:
        if method not in ("GET", "HEAD"):
            return None
        if path == "/static/site.css":
            return ("200 OK", [("Content-Type", "text/css; charset=utf-8"), ("Content-Length", str(len(css))),
                               ("Cache-Control", "public, max-age=3600")], css)
        return None

    return route
