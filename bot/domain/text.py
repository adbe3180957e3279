"""Text normalisation shared by the command grammar and search: one place, one behaviour.

Slack sends what people type with its own markup (``<https://…|label>``, ``<@U123>``,
``<!here>``) and HTML entities (``&amp;``, ``&lt;``, ``&gt;``; see Slack's "Formatting text for
app surfaces"). Chinese input methods type full-width forms (``ｆｏｌｌｏｗ　ｓｐｅｃ``, with an
ideographic space U+3000). Three functions, each built on the one before:

* :func:`decode_slack` — Slack markup and entities → plain text: a link becomes its URL (a pasted
  link is a query), a ``mailto:`` link its label, a channel ``<#C…|name>`` becomes ``#name``;
  user and group mentions and special mentions (``<@U…>``, ``<!here>``, ``<!subteam^…>``) are
  dropped; ``<!date^…|fallback>`` becomes its fallback.
* :func:`clean` — :func:`decode_slack`, then Unicode NFKC (full-width letters, digits, punctuation
  and the ideographic space → ASCII; ligatures; ``²`` → ``2``) and whitespace runs → one space,
  trimmed. Case and accents are kept: this is the text to **display** or to parse arguments from
  (the grammar calls it first).
* :func:`fold` — :func:`clean`, then ``str.casefold`` and accents folded (combining diacritical
  marks U+0300–U+036F removed after NFD: ``Café`` → ``cafe``, ``ÉAGLE`` → ``eagle``). For
  **matching** only (search, keywords); CJK, kana (dakuten are not in that block) and Hangul keep
  their form.

All three are pure functions of ``str`` → ``str``; they never raise.
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["clean", "decode_slack", "fold", "fold_accents", "has_han"]

_ANGLE_RE = re.compile(r"<([^<>]*)>")
_SPACE_RE = re.compile(r"\s+")
_COMBINING_RE = re.compile("[\u0300-\u036f]")
_ACCENTED_RE = re.compile("[\u00c0-\u024f\u0300-\u036f\u1e00-\u1eff]")
"""Characters that may carry a Latin accent (precomposed Latin-1/Extended, combining marks)."""


_HAN_RE = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def has_han(text: str) -> bool:
    """Whether ``text`` holds a Chinese character (CJK Unified Ideographs, Extension A and the
    compatibility block): the sign that a command was typed in Chinese."""
    return _HAN_RE.search(text) is not None


def _angle(match: re.Match[str]) -> str:
    inner = match.group(1)
    target, _, label = inner.partition("|")
    if not target:
        return match.group(0)
    if target[0] in "@!":
        if target.startswith("!date^"):
            return label
        return " "  # <@U123>, <@U123|name>, <!here>, <!channel>, <!subteam^S1|@team>: dropped
    if target[0] == "#":
        return f"#{label}" if label else " "
    if target.startswith("mailto:"):
        return label or target[len("mailto:") :]
    if "://" in target or target.startswith(("www.", "/")):
        return target
    return match.group(0)  # not Slack markup: a literal "<…>" that Slack would have escaped


def decode_slack(text: str) -> str:
    """Slack's markup and HTML entities → plain text (see the module docstring for each form).

    ``"see <https://x.io/a|the post> &amp; <@U1> <!here>"`` → ``"see https://x.io/a &   "``
    (whitespace is left for :func:`clean` to collapse).
    """
    if not text:
        return ""
    if "<" in text:
        text = _ANGLE_RE.sub(_angle, text)
    if "&" in text:
        text = html.unescape(text)
    return text


def clean(text: str) -> str:
    """Slack markup decoded, NFKC, whitespace collapsed and trimmed; case and accents kept.

    ``"ｆｏｌｌｏｗ　ｓｐｅｃ"`` → ``"follow spec"``; ``" <https://b.io/p|p> "`` → ``"https://b.io/p"``.
    """
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", decode_slack(text))
    return _SPACE_RE.sub(" ", text).strip()


def fold_accents(text: str) -> str:
    """Remove Latin/Greek/Cyrillic accents (combining marks U+0300–U+036F): ``é`` → ``e``.

    Text without such marks is returned unchanged (fast path for ASCII)."""
    if text.isascii() or not _ACCENTED_RE.search(text):
        return text
    decomposed = unicodedata.normalize("NFD", text)
    if not _COMBINING_RE.search(decomposed):
        return text
    return unicodedata.normalize("NFC", _COMBINING_RE.sub("", decomposed))


def fold(text: str) -> str:
    """The matching form: :func:`clean`, ``casefold``, accents folded.

    ``"ÉAGLE"`` → ``"eagle"``; ``"Straße"`` → ``"strasse"``; ``"ｆｏｌｌｏｗ　ｓｐｅｃ"`` →
    ``"follow spec"``; ``"推测解码"`` unchanged.
    """
    cleaned = clean(text).casefold()
    folded = fold_accents(cleaned)
    if folded is not cleaned:  # a removed mark may leave a space ("¯" is NFKC " " + U+0304)
        folded = _SPACE_RE.sub(" ", folded).strip()
    return folded
