"""The web pages' routes for the HTTP door: ``GET /static/site.css`` and the path pages of
:mod:`bot.web.paths` (a picture URL with ``read``/``sig`` is a reader's, for
:func:`bot.pictures.picture_app`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from bot.domain.paths import track_path
from bot.web import pages
from bot.web import paths as path_pages
from bot.web.pages import STATIC_DIR
from bot.web.urls import PATHS_PREFIX

if TYPE_CHECKING:
    from bot.runtime import Runtime

log = logging.getLogger(__name__)

Page = tuple[str, list[tuple[str, str]], bytes]
"""``(status line, headers, body bytes)`` for WSGI."""
PICTURE_TYPES = {"svg": "image/svg+xml", "png": "image/png"}


def _page(status: str, content_type: str, body: bytes, *headers: tuple[str, str]) -> Page:
    return status, [("Content-Type", content_type), ("Content-Length", str(len(body))), *headers], body


def _html(status: str, text: str, cache: str = "public, max-age=300") -> Page:
    headers = ("Cache-Control", cache), ("Vary", "Accept-Language")
    return _page(status, "text/html; charset=utf-8", text.encode("utf-8"), *headers)


def routes(runtime: Runtime) -> Callable[[str, str, dict[str, Any]], Page | None]:
    """The page router for ``runtime``: ``(path, method, environ) -> Page``, or None when it is
    not a page (Bolt's, or the 404). The header links the install page when OAuth is configured."""
    css = (STATIC_DIR / "site.css").read_bytes()
    pictures = path_pages.Pictures()
    install_link = bool(getattr(runtime.settings, "oauth_enabled", False))

    def picture(name: str, query: str, lang: str) -> Page | None:
        track_id, _, fmt = name.rpartition(".")
        params = parse_qs(query)
        if "sig" in params or "read" in params:
            return None  # a reader's signed picture (bot.pictures.picture_app)
        catalog = runtime.holder.catalog
        if fmt not in PICTURE_TYPES or not catalog.has_track(track_id):
            return _page("404 Not Found", "text/plain; charset=utf-8", b"not found")
        from bot.pictures import PictureError

        try:
            body = pictures.get(catalog, track_id, fmt, lang)
        except PictureError as exc:
            log.warning("path picture %s.%s not drawn: %s", track_id, fmt, exc)
            return _page("500 Internal Server Error", "text/plain; charset=utf-8", b"picture unavailable")
        return _page("200 OK", PICTURE_TYPES[fmt], body, ("Cache-Control", "public, max-age=3600"))

    def path_page(path: str, environ: dict[str, Any]) -> Page | None:
        query = str(environ.get("QUERY_STRING") or "")
        lang = path_pages.page_lang(query, environ.get("HTTP_ACCEPT_LANGUAGE"))
        catalog = runtime.holder.catalog
        rest = path[len(PATHS_PREFIX) :].strip("/")
        if not rest:
            every = [track_path(catalog, tr.id) for tr in catalog.tracks]
            return _html("200 OK", path_pages.index_page(catalog, every, lang, install_link))
        if "/" not in rest and "." in rest:
            return picture(rest, query, lang)
        if "/" in rest or not catalog.has_track(rest):
            return _html("404 Not Found", pages.not_found_page(lang), "no-store")
        return _html("200 OK", path_pages.track_page(catalog, track_path(catalog, rest), lang, install_link))

    def route(path: str, method: str, environ: dict[str, Any]) -> Page | None:
        if method not in ("GET", "HEAD"):
            return None
        if path == "/static/site.css":
            return _page("200 OK", "text/css; charset=utf-8", css, ("Cache-Control", "public, max-age=3600"))
        if path == PATHS_PREFIX or path.startswith(PATHS_PREFIX + "/"):
            return path_page(path, environ)
        return None

    return route
