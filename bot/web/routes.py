"""The web pages' routes for the HTTP door: ``GET /`` (a redirect to ``/paths``), ``GET
/static/site.css``, the path pages of :mod:`bot.web.paths` and their pictures (with ``read``/``sig``
a reader's, signed by :func:`bot.pictures.signed_url`). The facts a page shows (the path, its weeks
at the default budget, the tracks' suggested order) come from :mod:`bot.domain` here."""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from bot.domain.course import course_plan, level_range, suggested_order
from bot.domain.paths import track_state
from bot.web import pages
from bot.web import paths as path_pages
from bot.web.pages import STATIC_DIR
from bot.web.urls import PATHS_PREFIX, path_page_url

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
    base_url = getattr(runtime.settings, "public_url", None)

    def picture(name: str, query: str, lang: str) -> Page:
        """The track's picture: the catalog's (kept), or with ``read``/``sig`` a reader's signed one
        (:func:`bot.pictures.signed_url`; 403 when the signature does not match)."""
        from bot.pictures import PictureError, render, signature

        track_id, _, fmt = name.rpartition(".")
        params = parse_qs(query)
        catalog = runtime.holder.catalog
        if fmt not in PICTURE_TYPES or not catalog.has_track(track_id):
            return _page("404 Not Found", "text/plain; charset=utf-8", b"not found")
        signed = "sig" in params or "read" in params
        read = [p for p in (params.get("read") or [""])[0].split(",") if p]
        if signed and not hmac.compare_digest((params.get("sig") or [""])[0], signature(runtime.settings, name, read)):
            return _page("403 Forbidden", "text/plain; charset=utf-8", b"forbidden")
        try:
            if signed:
                body = render(catalog, track_id, fmt, [p for p in read if catalog.has_post(p)])
            else:
                body = pictures.get(catalog, track_id, fmt, lang)
        except PictureError as exc:
            log.warning("path picture %s not drawn: %s", name, exc)
            return _page("500 Internal Server Error", "text/plain; charset=utf-8", b"picture unavailable")
        cache = "private, max-age=300" if signed else "public, max-age=3600"
        body = path_pages.reader_svg(body) if fmt == "svg" else body  # no internal ids on hover
        return _page("200 OK", PICTURE_TYPES[fmt], body, ("Cache-Control", cache))

    def path_page(path: str, environ: dict[str, Any]) -> Page | None:
        query = str(environ.get("QUERY_STRING") or "")
        lang = path_pages.page_lang(query, environ.get("HTTP_ACCEPT_LANGUAGE"))
        catalog = runtime.holder.catalog
        rest = path[len(PATHS_PREFIX) :].strip("/")
        if not rest:
            every = [track_state(catalog, tid) for tid in suggested_order(catalog)]
            levels = [level_range(s.path) for s in every]
            url = f"{str(base_url).rstrip('/')}{PATHS_PREFIX}{'?lang=zh' if lang == 'zh' else ''}" if base_url else None
            page = path_pages.index_page(catalog, every, lang, install_link, levels=levels, url=url)
            return _html("200 OK", page)
        if "/" not in rest and "." in rest:
            return picture(rest, query, lang)
        if "/" not in rest and not catalog.has_track(rest):  # a name or alias the bot accepts too
            from urllib.parse import unquote

            try:  # WSGI gives the path as latin-1 characters of its bytes (PEP 3333)
                raw = rest.encode("latin-1").decode("utf-8")
            except UnicodeError:
                raw = rest
            wanted = unquote(raw).replace("-", " ").casefold()
            names = {
                n.replace("-", " ").casefold(): tr.id
                for tr in reversed(catalog.tracks)  # the earlier track wins a shared name
                for n in (tr.id, tr.names.en, tr.names.zh or "", *tr.aliases)
                if n
            }
            if (tid := names.get(wanted)) is not None:
                where = f"{PATHS_PREFIX}/{tid}" + (f"?{query}" if query else "")
                return _page("301 Moved Permanently", "text/plain; charset=utf-8", b"", ("Location", where))
        if "/" in rest or not catalog.has_track(rest):
            return _html("404 Not Found", pages.not_found_page(lang), "no-store")
        page = path_pages.track_page(
            catalog,
            track_state(catalog, rest),
            lang,
            install_link,
            plan=course_plan(catalog, rest),
            svg=inline_picture(rest, lang),
            url=path_page_url(runtime.settings, rest, lang),
        )
        return _html("200 OK", page)

    def inline_picture(track_id: str, lang: str) -> bytes | None:
        """The track's SVG for the page, or None (logged) when it cannot be drawn: the page goes on."""
        from bot.pictures import PictureError

        try:
            return pictures.get(runtime.holder.catalog, track_id, "svg", lang)
        except PictureError as exc:
            log.warning("path picture %s.svg not drawn for its page: %s", track_id, exc)
            return None

    def route(path: str, method: str, environ: dict[str, Any]) -> Page | None:
        if method not in ("GET", "HEAD"):
            return None
        if path == "/":  # the site's front page is the list of paths (its language kept)
            asked = (parse_qs(str(environ.get("QUERY_STRING") or "")).get("lang") or [""])[0]
            where = PATHS_PREFIX + ("?lang=zh" if asked == "zh" else "")
            return _page(
                "302 Found", "text/plain; charset=utf-8", b"", ("Location", where), ("Cache-Control", "no-store")
            )
        if path == "/static/site.css":
            return _page("200 OK", "text/css; charset=utf-8", css, ("Cache-Control", "public, max-age=3600"))
        if path == PATHS_PREFIX or path.startswith(PATHS_PREFIX + "/"):
            return path_page(path, environ)
        return None

    return route
