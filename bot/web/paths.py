"""The public path pages (issue 25): ``/paths`` (every track), ``/paths/<track>`` and its picture
``/paths/<track>.svg`` (or ``.png``). Everything comes from the catalog, never a reader's data.
English or Chinese by ``?lang=``, else the browser's ``Accept-Language``."""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import parse_qs

from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Post
from bot.i18n import Words, text
from bot.web import pages


def page_lang(query: str, accept_language: str | None) -> str:
    """``zh`` or ``en``: ``?lang=``, else the browser's best by q-value of the two, else ``en``."""
    asked = (parse_qs(query).get("lang") or [""])[0].lower()
    if asked in ("zh", "en"):
        return asked
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        ranked.append((-q, i, tag.strip().lower()))
    return next((tag[:2] for _q, _i, tag in sorted(ranked) if tag[:2] in ("zh", "en")), "en")


def _w(lang: str, key: str, **values: Any) -> str:
    return text(f"page.{key}", lang).format(**values)


def minutes_text(post: Post, lang: str) -> str:
    """A post's reading time: ``12 min`` (counted), ``about 12 min (estimate)``, or "" (unknown)."""
    if post.minutes is None:
        return ""
    return _w(lang, "min" if post.minutes_source == "counted" else "estimate", n=post.minutes)


def _total_text(catalog: Catalog, post_ids: tuple[str, ...], lang: str) -> str:
    """The minutes of ``post_ids``: ``54 min``, ``about 54 min`` (some not counted), "" (none known)."""
    if not any(catalog.post(p).minutes for p in post_ids):
        return ""
    total, complete = paths.total_minutes(catalog, post_ids)
    return _w(lang, "min" if complete else "total_estimate", n=total)


def _step(catalog: Catalog, post_id: str, number: int, lang: str) -> dict[str, Any]:
    """One step for the template: number, title, link (or None), minutes, status words, summary."""
    post = catalog.post(post_id)
    url, kind = post.read_link(catalog.manifest)
    status = [_w(lang, "draft")] if post.is_draft else []
    if kind == "summary":
        status.append(_w(lang, "summary"))
    return {
        "number": number,
        "title": post.title,
        "url": None if kind == "archive" else url,
        "archive": url if kind == "archive" else None,
        "minutes": minutes_text(post, lang),
        "status": status,
        "summary": post.summary.get(lang),
    }


def _alt(catalog: Catalog, track_id: str, lang: str) -> str:
    """The picture's alt text: the essential steps, how much further reading, the tracks before."""
    track = catalog.track(track_id)
    ess, more = paths.essentials(catalog, track_id), paths.further(catalog, track_id)
    joiner = "、" if lang == "zh" else "; "
    steps = joiner.join(catalog.post(p).title for p in ess)
    text = _w(lang, "alt", track=track.names.get(lang), n=len(ess), m=len(more), steps=steps)
    before = [catalog.track(b).names.get(lang) for b in track.before if catalog.has_track(b)]
    return text + (_w(lang, "alt_before", tracks=joiner.join(before)) if before else "")


def index_page(catalog: Catalog, lang: str = "en", install_link: bool = False) -> str:
    """``/paths``: every track with its essential path's steps and minutes."""
    rows = []
    for track in catalog.tracks:
        ess = paths.essentials(catalog, track.id)
        name, description = track.names.get(lang), track.description.get(lang)
        steps, minutes = _w(lang, "steps", n=len(ess)), _total_text(catalog, ess, lang)
        rows.append({"id": track.id, "name": name, "description": description, "steps": steps, "minutes": minutes})
    return pages.render(
        "paths.html", lang=lang, install_link=install_link, w=Words("page", lang), tracks=rows, version=catalog.version
    )


def track_page(catalog: Catalog, track_id: str, lang: str = "en", install_link: bool = False) -> str:
    """``/paths/<track>``: the picture, the essential steps and further reading with links and
    minutes, the tracks to read before. Raises ``KeyError`` for an unknown track."""
    track = catalog.track(track_id)
    ess, more = paths.essentials(catalog, track_id), paths.further(catalog, track_id)
    before = [{"id": b, "name": catalog.track(b).names.get(lang)} for b in track.before if catalog.has_track(b)]
    return pages.render(
        "path.html",
        lang=lang,
        install_link=install_link,
        w=Words("page", lang),
        track_id=track_id,
        name=track.names.get(lang),
        description=track.description.get(lang),
        before=before,
        essentials=[_step(catalog, p, i + 1, lang) for i, p in enumerate(ess)],
        further=[_step(catalog, p, len(ess) + i + 1, lang) for i, p in enumerate(more)],
        essential_head=" · ".join(x for x in (_w(lang, "steps", n=len(ess)), _total_text(catalog, ess, lang)) if x),
        alt=_alt(catalog, track_id, lang),
        version=catalog.version,
        follow=_w(lang, "follow", track=track_id),
    )


class Pictures:
    """Catalog-only pictures of the tracks, drawn once per (catalog version, track, language,
    format) and kept (a catalog has a few dozen tracks; a new version replaces the lot)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version: str | None = None
        self._kept: dict[tuple[str, str, str], bytes] = {}

    def get(self, catalog: Catalog, track_id: str, fmt: str, lang: str) -> bytes:
        """The picture bytes; raises ``KeyError`` (unknown track) or
        :class:`bot.pictures.PictureError` (``dot`` missing or failing, unknown format)."""
        from bot.pictures import render

        key = (track_id, fmt, lang)
        with self._lock:
            if self._version != catalog.version:
                self._version, self._kept = catalog.version, {}
            if key in self._kept:
                return self._kept[key]
        data = render(catalog, track_id, fmt, None, lang)
        with self._lock:
            if self._version == catalog.version:
                self._kept[key] = data
        return data
