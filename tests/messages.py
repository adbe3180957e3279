"""The gettext catalogs' messages as the tests read them (Babel's reader of the ``.po`` sources)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from babel.messages.pofile import read_po

from bot.i18n import DOMAIN, LANGS, LOCALE_DIR


def messages(lang: str) -> Mapping[str, str]:
    """``{key: text}`` of the ``.po`` source of ``lang`` (untranslated keys with ``""``), read-only.

    Read once per file version (its modification time and size): parsing a ``.po`` file costs
    ~13 ms, and some tests ask for it hundreds of times (tests/golden/test_step_labels.py: 401)."""
    path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    stat = path.stat()
    return _read(lang, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _read(lang: str, _mtime_ns: int, _size: int) -> Mapping[str, str]:
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as fh:
        catalog = read_po(fh, locale=lang, domain=DOMAIN)
    return MappingProxyType({str(m.id): str(m.string) for m in catalog if m.id})


__all__ = ["LANGS", "messages"]
