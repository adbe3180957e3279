"""Rendering the web pages from ``bot/web/templates`` (autoescaped, so catalog text never forms
markup), their words (frame, install reasons for each scope, failures) from :mod:`bot.i18n`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from bot.i18n import LANGS, Words, text

APP_NAME = "vllm-path"
"""The app's name as the manifest's ``display_information.name`` gives it."""
STATIC_DIR = Path(__file__).resolve().parent / "static"
"""Files served at ``/static/`` (the stylesheet)."""


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The Jinja2 environment (templates from ``bot/web/templates``, HTML autoescaped)."""
    return Environment(
        loader=FileSystemLoader(str(Path(__file__).resolve().parent / "templates")),
        autoescape=select_autoescape(("html",)),
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(template: str, *, lang: str = "en", install_link: bool = False, **values: Any) -> str:
    """The page ``template`` (a file name) in ``lang`` (``en`` or ``zh``) as HTML text; its frame's
    words are the catalogs' ``web.*`` (:mod:`bot.i18n`)."""
    lang = lang if lang in LANGS else "en"
    frame = {
        "app_name": APP_NAME,
        "words": Words("web", lang),
        "lang_tag": "zh-Hans" if lang == "zh" else "en",
        "lang_query": "?lang=zh" if lang == "zh" else "",
        "install_link": install_link,
    }
    return environment().get_template(template).render(**frame, **values)


def install_page(authorize_url: str, scopes: Iterable[str]) -> str:
    """The install page: what the app does, each scope with its reason (the catalogs' ``scope.*``;
    one without says so), what it stores, how to remove it, and the *Add to Slack* link
    ``authorize_url`` (Bolt's)."""
    rows = [{"name": s, "reason": _or(f"scope.{s}", "scope.other")} for s in scopes]
    return render("install.html", authorize_url=authorize_url, scopes=rows)


def _or(key: str, fallback: str, lang: str = "en") -> str:
    try:
        return text(key, lang)
    except KeyError:
        return text(fallback, lang)


SLACK_HOME = "https://slack.com/"
"""Where *Open Slack* goes when the app or team id is unknown."""


def open_slack_url(app_id: str | None, team_id: str | None) -> str:
    """Slack's link that opens the app (``app_redirect``, in the workspace ``team_id`` when known);
    :data:`SLACK_HOME` without an ``app_id``."""
    if not app_id:
        return SLACK_HOME
    query = {"app": app_id, **({"team": team_id} if team_id else {})}
    return "https://slack.com/app_redirect?" + urlencode(query)


def success_page(
    team_name: str | None,
    *,
    reinstall: bool = False,
    welcomed: bool = False,
    open_url: str = SLACK_HOME,
    already: bool = False,
) -> str:
    """The page after a good install of ``team_name`` (a workspace or org; None: unnamed): installed,
    or installed again when ``reinstall`` (the workspace had an installation before), or already
    installed when ``already`` (the used link reloaded); the direct-message line only when the
    welcome DM was ``welcomed`` (sent now); what to do next in Slack; an *Open Slack* button to
    ``open_url`` (:func:`open_slack_url`)."""
    w = Words("web.success", "en")
    stem = "already_title" if already else "again_title" if reinstall else "title"
    title = w[stem + ("_in" if team_name else "")].format(app=APP_NAME, team=team_name or "")
    page_title = w[stem].format(app=APP_NAME)
    steps = [
        _with_code(w.step_help, command="/vllm-path help"),
        _with_code(w.step_path, command="/vllm-path speculative"),
        _with_code(w.step_digest, invite="/invite @vllm-path", subscribe="/vllm-path subscribe spec"),
    ]
    lead = [w.already_lead] if already else [w.again_lead] if reinstall else []
    lead += [w.lead] + ([w.dm_sent] if welcomed else [])
    return render(
        "success.html", title=title, page_title=page_title, lead=" ".join(lead), steps=steps, open_url=open_url, w=w
    )


def _with_code(template: str, **commands: str) -> Markup:
    """The catalog ``template`` escaped, its ``{name}`` fields filled with ``<code>`` elements."""
    return Markup(escape(template)).format(**{k: Markup("<code>{}</code>").format(v) for k, v in commands.items()})


FAILURES: Mapping[str, int] = {
    "invalid_browser": 400,
    "invalid_state": 400,
    "missing_code": 400,
    "access_denied": 403,
    "invalid_code": 400,
    "storage_error": 500,
}
"""Bolt's OAuth failure reasons -> HTTP status; their title and message are the catalogs'
``failure.<reason>.title`` / ``.message`` (``failure.other.*`` for any other reason)."""


def failure_page(reason: str) -> tuple[int, str]:
    """``(status, html)`` for an OAuth failure ``reason`` (Bolt's words, never shown)."""
    known = reason if reason in FAILURES else "other"
    title, message = text(f"failure.{known}.title"), text(f"failure.{known}.message")
    return FAILURES.get(reason, 400), render("error.html", title=title, message=message, start_over=True)


UNREACHABLE_STATUS = 503
"""The status of the page shown when Slack could not be reached to finish an install."""


def unreachable_page() -> tuple[int, str]:
    """``(status, html)`` when Slack did not answer the install's code exchange: nothing was
    installed, try again in a minute."""
    title, message = text("failure.unreachable.title"), text("failure.unreachable.message")
    return UNREACHABLE_STATUS, render("error.html", title=title, message=message, start_over=True)


def not_found_page(lang: str = "en") -> str:
    """The 404 page, with a link to every reading path."""
    title, message = text("web.not_found.title", lang), text("web.not_found.message", lang)
    back = "/paths" + ("?lang=zh" if lang == "zh" else "")
    return render("error.html", lang=lang, title=title, message=message, back_link=back)
