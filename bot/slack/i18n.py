"""Slack's strings: :func:`t` formats one of the gettext catalogs' strings (:mod:`bot.i18n`) into
:class:`~bot.slack.mrkdwn.Mrkdwn`, escaping every value that is not ``Mrkdwn`` already."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING

from bot.i18n import LANGS as LANGS
from bot.i18n import text
from bot.i18n import weekday_name as weekday_name
from bot.slack.mrkdwn import Mrkdwn

if TYPE_CHECKING:
    from babel import Locale


def t(key: str, lang: str = "en", **values: object) -> Mrkdwn:
    """The string ``key`` in ``lang`` (English when missing), formatted with ``values`` (escaped
    unless :class:`Mrkdwn`). Raises ``KeyError`` for an unknown key."""
    template = Mrkdwn(text(key, lang))
    return template.format(**values) if values else template


def level_name(level: str, lang: str = "en") -> Mrkdwn:
    """A step's level (``intro``, ``core``, ``advanced``, ``capstone``) as a reader sees it in ``lang``."""
    return t("level." + level, lang)


@functools.cache
def _locale(lang: str) -> Locale:
    from babel import Locale  # CLDR's data, read on first use (not at import: the CLI's cold start)

    return Locale.parse(lang if lang in LANGS else "en")


_SEPARATORS = {"zh": "、"}
"""A list's separator without a conjunction (:func:`list_text`), by language; else ``", "``."""


def list_text(items: Iterable[str], lang: str = "en", *, conjunction: bool = True) -> str:
    """Plain ``items`` as one list in ``lang``, joined as CLDR's standard list pattern says (Babel's
    :func:`~babel.lists.format_list`): ``A, B, and C`` in English, ``A、B和C`` in Chinese; without
    a ``conjunction`` (a breakdown of counts) ``A, B, C`` and ``A、B、C``; empty for none."""
    parts = list(items)
    if not parts:
        return ""
    if not conjunction:
        return _SEPARATORS.get(lang, ", ").join(parts)
    from babel.lists import format_list

    return format_list(parts, locale=_locale(lang))


def join_list(items: Iterable[object], lang: str = "en", *, conjunction: bool = True) -> Mrkdwn:
    """:func:`list_text` of ``items`` as mrkdwn: each item escaped unless :class:`Mrkdwn` (the list
    patterns hold no mrkdwn mark); empty for no items."""
    return Mrkdwn(list_text((str(Mrkdwn.escape(item)) for item in items), lang, conjunction=conjunction))
