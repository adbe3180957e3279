"""mrkdwn safety by construction: a text type that is escaped unless marked safe.

Slack treats ``&``, ``<`` and ``>`` as control characters: ``<!channel>``, ``<@U123>`` and
``<url|label>`` are live syntax; ``*``, ``_``, ``~`` and `````` ` ````` pair up into bold, italic,
strike and code. :class:`Mrkdwn` is MarkupSafe's ``Markup`` with Slack's escaping: a ``str``
that is already mrkdwn; anything else combined with it (``+``, ``format``, ``join``, ``%``) is
escaped first. The app's own strings (:func:`bot.slack.i18n.t`) are ``Mrkdwn``, and the Block
Kit builders (:mod:`bot.slack.views.blocks`) escape any plain ``str`` they are given, so catalog
and user text cannot form a link, a mention or formatting, whatever the call site does. Links are
built only by :func:`link` from URLs the catalog holds.
"""

from __future__ import annotations

import html
import re
from typing import Any

from markupsafe import Markup

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
_WORD_JOINER = "\u2060"
_MARKS = re.compile(r"(?<![^\W_])([*_~`])|([*_~`])(?![^\W_])")
"""A formatting mark that is not between two letters or digits (``Los_Angeles`` cannot format)."""
_JOINED_MARK = re.compile("\u2060([*_~`])\u2060")


def _escape_text(text: str) -> str:
    """``&``, ``<``, ``>`` as entities; control and bidi-override characters dropped; a ``*``,
    ``_``, ``~`` or `````` ` ````` next to a space or punctuation wrapped in word joiners (U+2060,
    invisible) so that it can neither open nor close formatting (Slack formats only from and to
    a word boundary; one between two letters, as in ``Los_Angeles``, is left as it is)."""
    text = _CONTROL.sub("", text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKS.sub(lambda m: _WORD_JOINER + (m.group(1) or m.group(2)) + _WORD_JOINER, text)


class Mrkdwn(Markup):
    """Text that is Slack mrkdwn already: safe to send as is.

    ``Mrkdwn(s)`` marks ``s`` safe (only for our own strings); :meth:`escape` (or :func:`esc`)
    turns any other text into ``Mrkdwn``. Operations with plain strings escape them:
    ``Mrkdwn("*{}*").format(title)``, ``Mrkdwn(", ").join(names)``, ``Mrkdwn("a ") + text``.
    Note that an f-string returns a plain ``str`` (which the builders then escape as text):
    build mrkdwn with ``format``/``join`` instead.
    """

    __slots__ = ()

    @classmethod
    def escape(cls, s: Any) -> Mrkdwn:
        """``s`` unchanged if it is ``Mrkdwn``, else ``str(s)`` escaped for mrkdwn."""
        if isinstance(s, cls):
            return s
        return cls(_escape_text(str(s)))

    def unescape(self) -> str:
        """The text as a person reads it (for ``plain_text`` fields): entities decoded, the
        word joiners around formatting marks removed."""
        return html.unescape(_JOINED_MARK.sub(r"\1", str(self)))


def esc(text: Any) -> Mrkdwn:
    """``text`` escaped for mrkdwn (see :class:`Mrkdwn`; ``Mrkdwn`` is returned unchanged)."""
    return Mrkdwn.escape(text)


def as_plain(text: str) -> str:
    """Text for a ``plain_text`` field: ``Mrkdwn`` unescaped, a plain ``str`` as it is."""
    return text.unescape() if isinstance(text, Mrkdwn) else text


def link(url: str | None, label: str) -> Mrkdwn:
    """``<url|label>`` with the label escaped; just the escaped label when there is no URL.
    ``url`` must come from the catalog (validated http(s) URLs without spaces or angle brackets)."""
    label = Mrkdwn(str(esc(label)).replace("|", "¦"))
    if not url:
        return label
    return Mrkdwn("<{}|{}>").format(Mrkdwn(url.replace("|", "%7C")), label)


def truncate(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "…"


_LINK = re.compile(r"<(https?://[^|>]+)\|([^>]+)>")
_AUTOLINK = re.compile(r"(?i)(://|\bwww\.)")


def _defang(text: str) -> str:
    """Break ``scheme://`` and ``www.`` so that Slack does not auto-link a URL typed by a user
    (the fallback ``text`` has no ``verbatim`` switch); the text reads the same."""
    return _AUTOLINK.sub(lambda m: m.group(1)[:-1] + _WORD_JOINER + m.group(1)[-1], text)


def plain(text: str) -> str:
    """Fallback ``text`` of a message built from mrkdwn: links become ``label (url)``, bold marks go.
    Still mrkdwn-escaped (Slack parses a message's top-level ``text`` too); URLs that are not in a
    ``<url|label>`` the app built are defanged (:func:`_defang`)."""
    text = str(esc(text))
    out, pos = [], 0
    for m in _LINK.finditer(text):
        out.append(_defang(text[pos : m.start()]))
        out.append(f"{_defang(m.group(2))} ({m.group(1)})")
        pos = m.end()
    out.append(_defang(text[pos:]))
    return "".join(out).replace("*", "")
