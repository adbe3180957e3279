"""Rendering the web pages from ``bot/web/templates`` (autoescaped, so catalog text never forms
markup), with their words in English and Chinese and the install page's reasons for each scope."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

APP_NAME = "vllm-path"
"""The app's name as the manifest's ``display_information.name`` gives it."""
STATIC_DIR = Path(__file__).resolve().parent / "static"
"""Files served at ``/static/`` (the stylesheet)."""

SCOPE_REASONS: Mapping[str, str] = {
    "commands": "adds the /vllm-path command.",
    "chat:write": "posts the weekly digests in the channels that subscribe and the weekly DMs people turn on.",
    "im:write": "opens the direct message for a person's weekly DM and reminders.",
    "users:read": "reads a person's time zone and language, so digests arrive at their local hour in their language.",
    "channels:read": "checks that a public channel exists before it subscribes, and lists a person's channels on App Home.",
    "groups:read": "the same for private channels the app was invited to.",
    "channels:history": "only to check that a digest it posted in a public channel arrived, so none is sent twice.",
    "groups:history": "the same check in private channels.",
    "im:history": "the same check in its own DMs.",
    "links:read": "sees links to the vLLM blog posted in messages.",
    "links:write": "shows those links with the post's place in its reading path (an unfurl).",
    "chat:write.public": "posts digests in public channels it was not invited to.",
}
"""Why the app asks for each bot scope, in plain words (the install page lists them)."""

WORDS: Mapping[str, Mapping[str, str]] = {
    "en": {
        "paths": "Reading paths",
        "install": "Add to Slack",
        "all_paths": "All reading paths",
        "footer": "vllm-path · reading paths through the vLLM blog · the catalog only, never a reader's data",
    },
    "zh": {
        "paths": "阅读路径",
        "install": "添加到 Slack",
        "all_paths": "全部阅读路径",
        "footer": "vllm-path · vLLM 博客阅读路径 · 页面只展示目录，从不展示读者的数据",
    },
}
"""Words of the page frame (header, footer) by language."""


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
    """The page ``template`` (a file name) in ``lang`` (``en`` or ``zh``) as HTML text."""
    lang = lang if lang in WORDS else "en"
    frame = {
        "app_name": APP_NAME,
        "words": WORDS[lang],
        "lang_tag": "zh-Hans" if lang == "zh" else "en",
        "lang_query": "?lang=zh" if lang == "zh" else "",
        "install_link": install_link,
    }
    return environment().get_template(template).render(**frame, **values)


def install_page(authorize_url: str, scopes: Iterable[str]) -> str:
    """The install page: what the app does, each scope with its reason (if missing from :data:`SCOPE_REASONS`,
    says so), what it stores, how to remove it, and the *Add to Slack* link ``authorize_url`` (Bolt's)."""
    rows = [{"name": s, "reason": SCOPE_REASONS.get(s, "asked for by this app's configuration.")} for s in scopes]
    return render("install.html", authorize_url=authorize_url, scopes=rows)


def success_page(team_name: str | None) -> str:
    """The page after a good install: what to do next in Slack."""
    return render("success.html", team_name=team_name)


FAILURES: Mapping[str, tuple[int, str, str]] = {
    "invalid_browser": (
        400,
        "This installation link has expired",
        "The installation has to be finished in the same browser it was started in, and this one has no record of starting it. Start again from the install page.",
    ),
    "invalid_state": (
        400,
        "This installation link has expired",
        "The link was already used or is more than ten minutes old. Start again from the install page.",
    ),
    "missing_code": (
        400,
        "Slack did not finish the installation",
        "Slack sent no approval with this page. Start again from the install page.",
    ),
    "access_denied": (
        403,
        "The installation was cancelled",
        "The app was not added to the workspace. You can start again whenever you like.",
    ),
    "invalid_code": (
        400,
        "Slack did not accept the approval",
        "The approval was already used or has expired. Start again from the install page.",
    ),
    "storage_error": (
        500,
        "The installation could not be saved",
        "Slack approved it, but this server could not save it. Please try again in a few minutes; if it keeps happening, tell the person who runs this server.",
    ),
}
"""Bolt's OAuth failure reasons -> (HTTP status, title, what it means and what to do)."""


def failure_page(reason: str) -> tuple[int, str]:
    """``(status, html)`` for an OAuth failure ``reason`` (Bolt's words, never shown)."""
    status, title, message = FAILURES.get(reason) or (
        400,
        "The installation did not go through",
        "Something went wrong between Slack and this server. Start again from the install page.",
    )
    return status, render("error.html", title=title, message=message, start_over=True)


def not_found_page(lang: str = "en") -> str:
    """The 404 page, with a link to every reading path."""
    zh = lang == "zh"
    title = "没有这个页面" if zh else "No such page"
    message = "这里没有这个页面，可能链接写错了。" if zh else "There is no page here; the link may be mistyped."
    back = "/paths" + ("?lang=zh" if zh else "")
    return render("error.html", lang=lang, title=title, message=message, back_link=back)
