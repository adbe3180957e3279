"""The public path pages (issues 25, 40): ``/paths`` (every track as a card, in the suggested
order), ``/paths/<track>`` (a course page: the call to action, the time plan, the picture inline,
the steps) and its picture ``/paths/<track>.svg`` (or ``.png``). Everything comes from the catalog,
never a reader's data; the facts are computed in :mod:`bot.domain` and passed in by :mod:`bot.web.routes`.
English or Chinese by ``?lang=``, else the browser's ``Accept-Language``."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from markupsafe import Markup, escape

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import ExternalPrerequisite, Post
from bot.domain.outside_refs import covering_post, reference_title
from bot.domain.paths import PathStep, TrackState
from bot.i18n import Words, text
from bot.web import pages

if TYPE_CHECKING:
    from bot.domain.course import CoursePlan

DESCRIPTION_MAX = 300
"""Characters of a ``<meta name="description">`` (a longer one is cut at a word boundary)."""


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
    """A post's reading time: ``12 min`` (counted), ``about 12 min (estimate)``, ``minutes once
    linked`` (not linked yet), or "" (unknown); a post linked through a summary page
    (``source.link_kind: summary``) says its minutes are the summary's (``1 min summary``), as Slack's
    views do (:func:`bot.slack.views.plan.minutes_label`)."""
    if post.minutes is None:
        return _w(lang, "min_when_linked") if post.url is None else ""
    if post.source.link_kind == "summary":
        key = "min_summary" if post.minutes_source == "counted" else "min_estimate_summary"
        return text(f"budget.{key}", lang).format(n=post.minutes)
    return _w(lang, "min" if post.minutes_source == "counted" else "estimate", n=post.minutes)


def _total_text(state: TrackState, lang: str) -> str:
    """The essential path's minutes: ``54 min``, ``about 54 min`` (some not counted), "" (none known)."""
    path = state.path
    if not any(s.post.minutes for s in path.essentials):
        return ""
    return _w(lang, "min" if path.minutes_counted else "total_estimate", n=path.essential_minutes)


def _link(url: str | None, title: str) -> Markup:
    return Markup('<a href="{}">{}</a>').format(url, title) if url else Markup("{}").format(title)


def _template(key: str, lang: str, *names: str) -> Markup:
    """The string ``key`` with its ``{name}`` fields as positional Markup fields, in ``names``' order."""
    out = text(key, lang)
    for i, name in enumerate(names):
        out = out.replace("{" + name + "}", "{" + str(i) + "}")
    return Markup(out)


def _outside(catalog: Catalog, ref: ExternalPrerequisite, lang: str) -> Markup:
    """A reference outside the catalog named as in Slack (:func:`bot.slack.views.links.outside_link`)."""
    title = _link(ref.url, reference_title(ref))
    cover = covering_post(catalog, ref)
    if cover is None:
        return title
    return _template("ref.covered", lang, "title", "post").format(title, _link(catalog.url_of(cover), cover.title))


def references(catalog: Catalog, step: PathStep, lang: str) -> list[Markup]:
    """The labelled lines under a step, worded as in Slack (``ref.*`` of :mod:`bot.i18n`): *Read
    first* (catalog posts), *Background* and *Afterwards* (references outside the catalog); HTML."""
    groups = (
        ("read_first", [_link(catalog.url_of(catalog.post(p)), catalog.post(p).title) for p in step.read_first]),
        ("background", [_outside(catalog, x, lang) for x in step.background]),
        ("afterwards", [_outside(catalog, x, lang) for x in step.afterwards]),
    )
    line = _template("ref.line", lang, "label", "items")
    return [line.format(text("ref." + key, lang), Markup(", ").join(items)) for key, items in groups if items]


def _step(catalog: Catalog, step: PathStep, lang: str) -> dict[str, Any]:
    """One step for the template: number, title, link (or None), minutes, status words, summary,
    the catalog's note on why it is read here, level, date, source, references."""
    post = step.post
    url, kind = post.read_link(catalog.manifest)
    status = [_w(lang, "summary")] if kind == "summary" else []
    return {
        "number": step.number,
        "title": post.title,
        "url": None if kind == "archive" else url,
        "archive": url if kind == "archive" else None,
        "minutes": minutes_text(post, lang),
        "status": status,
        "summary": post.summary.get(lang),
        "note": step.step.note.get(lang) if step.step.note else None,
        # Off the essential path only "further reading", as in Slack (QA: "core · further reading").
        "level": text(f"level.{step.level}", lang) if step.essential else text("budget.further", lang),
        "date": post.published.display(lang),
        "source": post.source.label(lang),
        "references": references(catalog, step, lang),
    }


def _weeks(plan: CoursePlan | None, lang: str) -> dict[str, Any] | None:
    """The time plan for the template: the essential path's weeks (each its number, minutes and
    steps) and one line for the further reading's weeks after them."""
    if plan is None or not plan.weeks:
        return None
    ess, more = plan.essential_weeks, plan.further_weeks
    rows = [
        {
            "number": w.number,
            "title": _w(lang, "week", n=w.number),
            "minutes": _w(lang, "min" if w.counted else "total_estimate", n=w.minutes) if w.minutes else "",
            "steps": [{"number": s.number, "title": s.post.title, "essential": s.essential} for s in w.steps],
        }
        for w in ess
    ]
    n_further = sum(len(w.steps) for w in more)
    further = ""
    if more:
        key = "plan_further_one" if len(more) == 1 else "plan_further"
        further = _w(lang, key, n=n_further, first=more[0].number, last=more[-1].number)
    key = "plan_lead_one" if len(ess) == 1 else "plan_lead"
    return {
        "title": _w(lang, "plan_title", minutes=plan.minutes_per_week),
        "lead": _w(lang, key, weeks=len(ess), minutes=plan.minutes_per_week),
        "weeks": rows,
        "further": further,
    }


def _cut(words: str, most: int = DESCRIPTION_MAX) -> str:
    """``words`` with its whitespace folded, cut at a word boundary to at most ``most`` characters (``…``)."""
    words = " ".join(words.split())
    if len(words) <= most:
        return words
    head = words[: most - 1]
    return (head.rsplit(" ", 1)[0] if " " in head[most // 2 :] else head).rstrip(" ,;:") + "…"


@dataclass(frozen=True)
class Share:
    """What a page says of itself to search engines and link previews: ``title``, ``description``,
    and ``url`` (its public address; ``None`` when the base URL is not configured)."""

    title: str
    description: str
    url: str | None = None


_SVG_TITLE = re.compile(r"<title>.*?</title>\n?", re.S)
_SVG_COMMENT = re.compile(r"<!--.*?-->\n?", re.S)
_SVG_TEXT = re.compile(r"<text\b[^>]*>(.*?)</text>", re.S)


def reader_svg(svg: bytes) -> bytes:
    """Graphviz's SVG document ``svg`` with no internal id a reader could see (QA round 6): each
    ``<title>`` (a browser's tooltip on hover) becomes the words its own element shows (the track's
    name for the picture, a box's title and minutes), or goes when it shows none (an arrow's
    ``a->b``), and the comments naming node ids go. A box's link keeps its post title
    (``xlink:title``). Texts stay as Graphviz escaped them."""
    body = _SVG_COMMENT.sub("", svg.decode("utf-8"))
    out, last = [], 0
    titles = list(_SVG_TITLE.finditer(body))
    for i, match in enumerate(titles):
        end = titles[i + 1].start() if i + 1 < len(titles) else len(body)
        words = " ".join(w.strip() for w in _SVG_TEXT.findall(body, match.end(), end) if w.strip())
        out += [body[last : match.start()], f"<title>{words}</title>\n" if words else ""]
        last = match.end()
    out.append(body[last:])
    return "".join(out).encode("utf-8")


def inline_svg(svg: bytes | None) -> Markup | None:
    """Graphviz's SVG document ``svg`` as markup to put in a page: from its ``<svg`` element on (no
    XML prolog or DOCTYPE), with ``class="path-picture"`` and readers' tooltips (:func:`reader_svg`).
    Graphviz escapes the catalog's text."""
    if not svg:
        return None
    body = reader_svg(svg).decode("utf-8")
    start = body.find("<svg")
    if start < 0:
        return None
    return Markup('<svg class="path-picture"' + body[start + len("<svg") :].rstrip())


def call_to_action(track_id: str, lang: str, install_link: bool) -> dict[str, Any]:
    """The *Start this path in Slack* box: the command to type, and the install link when offered."""
    command = Markup("<code>{}</code>").format(_w(lang, "cta_command", track=track_id))
    install = None
    if install_link:
        link = Markup('<a href="/slack/install">{}</a>').format(_w(lang, "cta_install_link"))
        install = Markup(escape(text("page.cta_install", lang))).format(link=link)
    return {
        "title": _w(lang, "cta_title"),
        "text": Markup(escape(text("page.cta_text", lang))).format(command=command),
        "install": install,
    }


def _alt(catalog: Catalog, state: TrackState, lang: str) -> str:
    """The picture's alt text: the essential steps, how much further reading, the tracks before."""
    path = state.path
    joiner = "、" if lang == "zh" else "; "
    steps = joiner.join(s.post.title for s in path.essentials)
    track = path.track
    text = _w(lang, "alt", track=track.names.get(lang), n=len(path.essentials), m=len(path.further), steps=steps)
    before = [catalog.track(b).names.get(lang) for b in path.before]
    return text + (_w(lang, "alt_before", tracks=joiner.join(before)) if before else "")


def _levels(levels: tuple[str, str] | None, lang: str) -> str:
    if levels is None:
        return ""
    low, high = (text(f"level.{x}", lang) for x in levels)
    return low if low == high else _w(lang, "level_range", low=low, high=high)


def index_page(
    catalog: Catalog,
    tracks: Sequence[TrackState],
    lang: str = "en",
    install_link: bool = False,
    *,
    levels: Sequence[tuple[str, str]] | None = None,
    url: str | None = None,
) -> str:
    """``/paths``: a card for each of ``tracks`` (every track's state, in the order given: the
    suggested one), with its ``levels`` (``(lowest, highest)`` of its essential steps, one per
    track), essential steps and minutes; ``url`` is the page's public address, when known."""
    rows = []
    for i, state in enumerate(tracks):
        path, track = state.path, state.path.track
        name, description = track.names.get(lang), track.description.get(lang)
        steps, minutes = _w(lang, "steps", n=len(path.essentials)), _total_text(state, lang)
        before = [catalog.track(b).names.get(lang) for b in path.before]
        rows.append(
            {
                "id": track.id,
                "name": name,
                "description": description,
                "steps": steps,
                "minutes": minutes,
                "level": _levels(levels[i] if levels else None, lang),
                "before": _w(lang, "card_before", tracks=("、" if lang == "zh" else ", ").join(before))
                if before
                else "",
            }
        )
    share = Share(_w(lang, "index_title"), _cut(_w(lang, "index_lead")), url)
    return pages.render(
        "paths.html",
        lang=lang,
        install_link=install_link,
        w=Words("page", lang),
        tracks=rows,
        version=catalog.version,
        share=share,
    )


def track_page(
    catalog: Catalog,
    state: TrackState,
    lang: str = "en",
    install_link: bool = False,
    *,
    plan: CoursePlan | None = None,
    svg: bytes | None = None,
    url: str | None = None,
) -> str:
    """``/paths/<track>`` of the track's ``state``, read like a course page: the *Start this path in
    Slack* box (with the install link when ``install_link``), the time plan ``plan``, the picture
    ``svg`` inline (Graphviz's document; ``None``: the ``<img>`` of ``/paths/<track>.svg``) with its
    legend, the essential steps and further reading with why each is read here, level, date,
    source, minutes and references, the tracks to read before; ``url`` its public address."""
    path, track = state.path, state.path.track
    track_id = track.id
    before = [{"id": b, "name": catalog.track(b).names.get(lang)} for b in path.before]
    heading = (_w(lang, "steps", n=len(path.essentials)), _total_text(state, lang))
    return pages.render(
        "path.html",
        lang=lang,
        install_link=install_link,
        w=Words("page", lang),
        track_id=track_id,
        name=track.names.get(lang),
        description=track.description.get(lang),
        before=before,
        essentials=[_step(catalog, s, lang) for s in path.essentials],
        further=[_step(catalog, s, lang) for s in path.further],
        essential_head=" · ".join(x for x in heading if x),
        alt=_alt(catalog, state, lang),
        version=catalog.version,
        follow=_w(lang, "follow", track=track_id),
        plan=_weeks(plan, lang),
        svg=inline_svg(svg),
        cta=call_to_action(track_id, lang, install_link),
        share=Share(f"{track.names.get(lang)} · {_w(lang, 'index_title')}", _cut(track.description.get(lang)), url),
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
