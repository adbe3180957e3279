"""mrkdwn safety: escape text so that nothing forms a link, a mention or a channel ping by accident.

Slack treats ``&``, ``<`` and ``>`` as control characters: ``<!channel>``, ``<@U123>`` and
``<url|label>`` are live syntax. Every piece of catalog or user text goes through :func:`esc`;
links are built only by :func:`link` from URLs the catalog holds.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def esc(text: str) -> str:
    """Escape ``&``, ``<``, ``>`` for mrkdwn and drop control and bidi-override characters."""
    text = _CONTROL.sub("", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def link(url: str | None, label: str) -> str:
    """``<url|label>`` with the label escaped; just the escaped label when there is no URL.

    ``url`` must come from the catalog (validated http(s) URLs without spaces or angle brackets).
    """
    label = esc(label).replace("|", "¦")
    if not url:
        return label
    return f"<{url.replace('|', '%7C')}|{label}>"


def truncate(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "…"


_LINK = re.compile(r"<(https?://[^|>]+)\|([^>]+)>")
_AUTOLINK = re.compile(r"(?i)(://|\bwww\.)")
_WORD_JOINER = "\u2060"


def _defang(text: str) -> str:
    """Break ``scheme://`` and ``www.`` so that Slack does not auto-link a URL typed by a user
    (the fallback ``text`` has no ``verbatim`` switch); the text reads the same."""
    return _AUTOLINK.sub(lambda m: m.group(1)[:-1] + _WORD_JOINER + m.group(1)[-1], text)


def plain(text: str) -> str:
    """Fallback ``text`` of a message built from mrkdwn: links become ``label (url)``, bold marks go.

    The result is still mrkdwn-escaped (Slack parses a message's top-level ``text`` too). URLs
    that are not ours (not inside a ``<url|label>`` the app built) are defanged (:func:`_defang`).
    """
    out, pos = [], 0
    for m in _LINK.finditer(text):
        out.append(_defang(text[pos:m.start()]))
        out.append(f"{_defang(m.group(2))} ({m.group(1)})")
        pos = m.end()
    out.append(_defang(text[pos:]))
    return "".join(out).replace("*", "")
