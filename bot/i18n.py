"""Every string a person reads, in English and Chinese: the gettext catalogs of ``bot/locale``
(``<lang>/LC_MESSAGES/vllm_path.po``, compiled to ``.mo`` by ``make messages``), read with the
standard library's :mod:`gettext`. A message id is a key the code names (``help.title``); Slack
replies (:mod:`bot.slack.i18n`), the web pages and the console read the same catalogs."""

from __future__ import annotations

import functools
import gettext
from pathlib import Path

DOMAIN = "vllm_path"
LOCALE_DIR = Path(__file__).with_name("locale")
LANGS = ("en", "zh")
"""The languages every string exists in (a test checks that Chinese lacks none)."""


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog of ``lang`` (``en`` for an unknown language), falling back to English."""
    english = gettext.translation(DOMAIN, LOCALE_DIR, languages=["en"])
    if lang not in LANGS or lang == "en":
        return english
    other = gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])
    other.add_fallback(english)
    return other


def text(key: str, lang: str = "en") -> str:
    """The string ``key`` in ``lang`` (English when ``lang`` lacks it). Raises ``KeyError`` for a
    key no catalog holds."""
    found = translations(lang).gettext(key)
    if found == key:
        raise KeyError(key)
    return found


def weekday_name(index: int, lang: str = "en") -> str:
    """Weekday name for 0=Monday … 6=Sunday."""
    return text(f"weekday.{index}", lang)


class Words:
    """The strings under ``prefix`` in ``lang`` by their last part (``words.paths``,
    ``words["paths"]``): what a template reads."""

    def __init__(self, prefix: str, lang: str) -> None:
        self._prefix, self._lang = prefix, lang

    def __getitem__(self, name: str) -> str:
        return text(f"{self._prefix}.{name}", self._lang)

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None
