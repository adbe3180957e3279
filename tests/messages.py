"""The gettext catalogs' messages as the tests read them (Babel's reader of the ``.po`` sources)."""

from __future__ import annotations

from babel.messages.pofile import read_po

from bot.i18n import DOMAIN, LANGS, LOCALE_DIR


def messages(lang: str) -> dict[str, str]:
    """``{key: text}`` of the ``.po`` source of ``lang`` (untranslated keys with ``""``)."""
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as fh:
        catalog = read_po(fh, locale=lang, domain=DOMAIN)
    return {str(m.id): str(m.string) for m in catalog if m.id}


__all__ = ["LANGS", "messages"]
