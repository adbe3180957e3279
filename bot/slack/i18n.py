"""Slack's strings: :func:`t` formats one of the gettext catalogs' strings (:mod:`bot.i18n`) into
:class:`~bot.slack.mrkdwn.Mrkdwn`, escaping every value that is not ``Mrkdwn`` already."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING

from bot.i18n import LANGS as LANGS
from bot.i18n import text
from bot.i18n import weekday_name as weekday_name
from bot.slack.mrkdwn import Mrkdwn, cjk_typeset, truncate

if TYPE_CHECKING:
    from babel import Locale


ECHO_MAX = 60
"""Characters of a reader's own text a reply echoes back (:data:`ECHOED` fields), ellipsis included."""

ECHOED = ("value", "query")
"""The strings' fields that echo what the reader typed: cut to :data:`ECHO_MAX` by :func:`t`."""


def t(key: str, lang: str = "en", **values: object) -> Mrkdwn:
    """The string ``key`` in ``lang`` (English when missing), formatted with ``values`` (escaped
    unless :class:`Mrkdwn`); a plain-text :data:`ECHOED` field (the reader's own words) is cut to
    :data:`ECHO_MAX` characters with an ellipsis before it is escaped, so a pasted essay or a
    3,000-digit number comes back as a short quote. Chinese is set as Chinese typography sets mixed
    text (:func:`~bot.slack.mrkdwn.cjk_typeset`: a space between Hanzi and Latin words, none around a
    Chinese bold span), so the web and the terminal read as Slack does. Raises ``KeyError`` for an
    unknown key."""
    template = Mrkdwn(text(key, lang))
    if not values:
        return template
    for name in ECHOED:
        echoed = values.get(name)
        if isinstance(echoed, str) and len(echoed) > ECHO_MAX and not isinstance(echoed, Mrkdwn):
            values[name] = truncate(echoed, ECHO_MAX)
    filled = template.format(**values)
    if lang == "zh":
        typeset = cjk_typeset(filled)
        return filled if typeset == filled else Mrkdwn(typeset)
    return filled


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


_DAY_PATTERNS = {"en": ("d MMM y", "EEEE d MMM y"), "zh": ("y年M月d日", "y年M月d日 EEE")}
"""CLDR date patterns of a day as replies show it, by language: without and with the weekday."""


def day_text(day: dt.date, lang: str = "en", *, weekday: bool = True) -> str:
    """A calendar day as every reply shows it in ``lang`` (Babel's :func:`~babel.dates.format_date`):
    ``Monday 7 Dec 2026`` / ``2026年12月7日 周一``, or without the ``weekday`` ``7 Dec 2026`` /
    ``2026年12月7日`` (the catalog's dates). A ``datetime`` gives its own (local) date. Plain text."""
    from babel.dates import format_date  # deferred like _locale: CLDR's data on first use

    pattern = _DAY_PATTERNS.get(lang, _DAY_PATTERNS["en"])[weekday]
    day = day.date() if isinstance(day, dt.datetime) else day
    return format_date(day, pattern, locale=_locale(lang))
