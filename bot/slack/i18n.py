"""Slack's strings: :func:`t` formats one of the gettext catalogs' strings (:mod:`bot.i18n`) into
:class:`~bot.slack.mrkdwn.Mrkdwn`, escaping every value that is not ``Mrkdwn`` already."""

from __future__ import annotations

from bot.i18n import LANGS as LANGS
from bot.i18n import text
from bot.i18n import weekday_name as weekday_name
from bot.slack.mrkdwn import Mrkdwn


def t(key: str, lang: str = "en", **values: object) -> Mrkdwn:
    """The string ``key`` in ``lang`` (English when missing), formatted with ``values`` (escaped
    unless :class:`Mrkdwn`). Raises ``KeyError`` for an unknown key."""
    template = Mrkdwn(text(key, lang))
    return template.format(**values) if values else template


def level_name(level: str, lang: str = "en") -> Mrkdwn:
    """A step's level (``intro``, ``core``, ``advanced``, ``capstone``) as a reader sees it in ``lang``."""
    return t("level." + level, lang)
