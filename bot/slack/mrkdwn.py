"""mrkdwn safety by construction: :class:`Mrkdwn`, MarkupSafe's ``Markup`` with Slack's escaping
(``&<>`` and formatting marks). The app's strings are ``Mrkdwn`` and the builders escape any plain
``str``, so catalog and user text cannot form a link, a mention or formatting."""

from __future__ import annotations

import functools
import html
import re
import string
from typing import Any

from markupsafe import Markup

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
_WORD_JOINER = "\u2060"
_ZERO_WIDTH_SPACE = "\u200b"
_CJK = "\u2e80-\u2fff\u3000-\u30ff\u3100-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
"""CJK ideographs, kana, hangul and their punctuation (、，。（）：and the full-width forms)."""
_LETTER = rf"(?![{_CJK}])[^\W_]"
_MARKS = re.compile(rf"(?<!{_LETTER})([*_~`])|([*_~`])(?!{_LETTER})")
"""A formatting mark that is not between two letters or digits (``Los_Angeles`` cannot format);
CJK counts as no letter here, so a mark in text next to one is wrapped too (:func:`_cjk_spaced`)."""
_JOINED_MARK = re.compile("\u2060([*_~`])\u2060")
_CJK_CHAR = re.compile(f"[{_CJK}]")
_FORMAT_MARK = re.compile(r"[*_~]")
_SPACED_MARK = re.compile("\u200b([*_~])\u200b")


def _escape_text(text: str) -> str:
    """``&<>`` as entities, control and bidi-override characters dropped, a formatting mark at a
    word boundary wrapped in word joiners (U+2060) so that it cannot open or close formatting."""
    text = _CONTROL.sub("", text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKS.sub(lambda m: _WORD_JOINER + (m.group(1) or m.group(2)) + _WORD_JOINER, text)


class Mrkdwn(Markup):
    """Text that is Slack mrkdwn already (``Mrkdwn(s)``: our own ``s``; :func:`esc`: any other);
    ``+``, ``format`` and ``join`` escape plain strings (an f-string gives a plain ``str``)."""

    __slots__ = ()

    @classmethod
    def escape(cls, s: Any) -> Mrkdwn:
        """``s`` unchanged if it is ``Mrkdwn``, else ``str(s)`` escaped for mrkdwn."""
        if isinstance(s, cls):
            return s
        return cls(_escape_text(str(s)))

    def format(self, *args: Any, **kwargs: Any) -> Mrkdwn:
        """MarkupSafe's ``format`` (each field escaped unless it is ``Mrkdwn``); a template whose fields
        are all plain (``{}``, ``{0}``, ``{name}``: no attribute, index, spec or conversion) is filled by
        ``str.format`` with its fields escaped first, the same text at a fraction of the cost of
        MarkupSafe's ``string.Formatter`` (about half of a search reply's drawing, issue 43's
        ``benchmarks/commands_inproc.py``). Raises what ``str.format`` raises."""
        if not _plain_fields(self):
            return super().format(*args, **kwargs)
        fields = {key: _field(value) for key, value in kwargs.items()}
        return self.__class__(str.format(self, *map(_field, args), **fields))

    def unescape(self) -> str:
        """The text as a person reads it (for ``plain_text``): entities decoded, word joiners (and
        the zero-width spaces of :func:`_cjk_spaced`) removed."""
        return html.unescape(_SPACED_MARK.sub(r"\1", _JOINED_MARK.sub(r"\1", str(self))))


_FORMATTER = string.Formatter()


@functools.lru_cache(maxsize=4096)
def _plain_fields(template: str) -> bool:
    """Whether every replacement field of ``template`` is ``{}``, ``{<digits>}`` or ``{<identifier>}``."""
    try:
        for _literal, name, spec, conversion in _FORMATTER.parse(template):
            if name is not None and (spec or conversion or not (name == "" or name.isdigit() or name.isidentifier())):
                return False
    except ValueError:  # a malformed template: MarkupSafe's formatter raises as str.format does
        return False
    return True


def _field(value: Any) -> str:
    """A field as MarkupSafe's ``EscapeFormatter`` fills it without a spec: ``Mrkdwn`` (or any object with
    ``__html__``) as it is, anything else ``format(value, "")`` escaped."""
    if hasattr(value, "__html_format__"):
        return str(value.__html_format__(""))
    if hasattr(value, "__html__"):
        return str(value.__html__())
    return _escape_text(format(value, ""))


_HAN = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Hanzi and kana: the characters Chinese typography sets apart from Latin words (not its punctuation)."""
_RUN = "*_~\u200b"
_TO_LATIN = re.compile(rf"([{_HAN}])([{_RUN}]*)(?=[A-Za-z0-9`<])")
_FROM_LATIN = re.compile(rf"([A-Za-z0-9`>])([{_RUN}]*)(?=[{_HAN}])")
_MARK_RUN = "((?:\u200b?[*_~]\u200b?)+)"
_SPACED_BOLD = re.compile(rf"(?<=[{_CJK}]) {_MARK_RUN}(?=[{_CJK}])|(?<=[{_CJK}]){_MARK_RUN} (?=[{_CJK}])")
_PROTECTED = re.compile(r"<[^<>\n]*>|(?<!\u2060)`[^`\n]+`(?!\u2060)|“[^”\n]*”")
"""Left as they are: links, code spans and quoted words (a reader's own text echoed back)."""
_DATE_JOIN = re.compile(r"\d[年月日号]|[年月]\d")
_LATIN = re.compile(r"[A-Za-z0-9]")


def _label_edge(link: str, last: bool) -> str:
    """The first (or ``last``) character a reader sees of a ``<url|label>`` link; "" for a mention."""
    bar = link.find("|")
    label = link[bar + 1 : -1].strip("*_~\u200b") if bar > 0 else ""
    return (label[-1:] if last else label[:1]) if label else ""


def cjk_typeset(text: str) -> str:
    """Chinese typography's one rule for mixed text (QA: bold spans set off by ASCII spaces in some
    strings and glued in others, ``Breakthrough和The``, ``在2026年``): a space between a Hanzi and a
    Latin letter, digit, code span or link whose label starts or ends with one, placed outside any
    bold, italic or strike mark (``和 *PD*``, ``*推测* vLLM``), but none inside a date
    (``2026年12月14日``) nor inside a code span, link or “quote”; no ASCII space between CJK text and a bold
    span that begins or ends with CJK (``订阅*推测解码*每周``: :func:`_cjk_spaced` makes it format).
    Idempotent; text without CJK is returned as it is (a few µs for a Chinese line)."""
    if text.isascii() or _CJK_CHAR.search(text) is None:
        return text
    text = _SPACED_BOLD.sub(lambda m: m.group(1) or m.group(2), text)
    if _TO_LATIN.search(text) is None and _FROM_LATIN.search(text) is None:
        return text
    spans = [m.span() for m in _PROTECTED.finditer(text)]
    opens = _mark_openers(text, spans)

    def inside(at: int) -> bool:
        return any(start < at < end for start, end in spans)

    def spaced(m: re.Match[str], to_latin: bool) -> str:
        glyph, run, at = m.group(1), m.group(2), m.end()
        start = m.start(1)
        if inside(at) or (inside(start) and not any(end == start + 1 for _, end in spans)):
            return m.group()
        nxt = text[at : at + 1]
        if to_latin and nxt == "<" and not _LATIN.match(_label_edge(text[at : text.find(">", at) + 1], False)):
            return m.group()
        if not to_latin and glyph == ">":
            label = _label_edge(text[text.rfind("<", 0, start) : start + 1], True)
            if not _LATIN.match(label):
                return m.group()
        if not to_latin and glyph == "`" and not any(end == start + 1 for _, end in spans):
            return m.group()
        if to_latin and nxt == "`" and not any(begin == at for begin, _ in spans):
            return m.group()
        if not run and _DATE_JOIN.fullmatch(glyph + nxt):
            return m.group()
        marks = [(i, c) for i, c in enumerate(run, m.start(2)) if c != "\u200b"]
        closers = "".join(c for i, c in marks if not opens.get(i, True))
        openers = "".join(c for i, c in marks if opens.get(i, True))
        return f"{glyph}{closers} {openers}"

    text = _TO_LATIN.sub(lambda m: spaced(m, True), text)
    spans = [m.span() for m in _PROTECTED.finditer(text)]
    opens = _mark_openers(text, spans)
    return _FROM_LATIN.sub(lambda m: spaced(m, False), text)


def _mark_openers(text: str, spans: list[tuple[int, int]]) -> dict[int, bool]:
    """Each formatting mark's position in ``text`` (outside ``spans``, not escaped, not inside a word)
    mapped to whether it opens its span (marks of one kind alternate: open, close, …)."""
    seen: dict[str, int] = {}
    opens: dict[int, bool] = {}
    for m in _FORMAT_MARK.finditer(text):
        at = m.start()
        before, after = text[at - 1 : at], text[at + 1 : at + 2]
        if "\u2060" in (before, after) or any(start < at < end for start, end in spans):
            continue
        if before.isascii() and before.isalnum() and after.isascii() and after.isalnum():
            continue
        n = seen.get(m.group(), 0)
        seen[m.group()] = n + 1
        opens[at] = n % 2 == 0
    return opens


def _cjk_spaced(text: str) -> str:
    """``text`` with each bold, italic or strike mark that stands between a CJK character (or CJK
    punctuation) and another character that is no space (``和*粗体*、``, ``*PD*。``) set between
    zero-width spaces (U+200B): Slack opens or closes formatting only at a word's edge, so such
    marks showed as asterisks; spaced they format (the "exact mode" of jsx-slack,
    docs/about-escape-and-exact-mode.md). A mark with a space or the text's edge on its other
    side (`` *推测解码* ``) formats as it is and is left alone. Marks of escaped text never touch
    CJK (they are wrapped in word joiners, :data:`_MARKS`), so only our own are spaced. Idempotent."""
    if text.isascii() or _CJK_CHAR.search(text) is None:  # the fast ways out first (~0.1 and ~0.6 µs)
        return text
    text = cjk_typeset(text)
    parts: list[str] = []
    last = 0
    for m in _FORMAT_MARK.finditer(text):
        at = m.start()
        before, after = text[at - 1 : at], text[at + 1 : at + 2]
        if not before or not after or before.isspace() or after.isspace():
            continue
        if _CJK_CHAR.match(before) or _CJK_CHAR.match(after):
            parts += [text[last:at], _ZERO_WIDTH_SPACE, m.group(), _ZERO_WIDTH_SPACE]
            last = at + 1
    return "".join([*parts, text[last:]]) if parts else text


def esc(text: Any) -> Mrkdwn:
    """``text`` escaped for mrkdwn (see :class:`Mrkdwn`); ``Mrkdwn`` is returned as it is but for its
    marks next to CJK text, spaced to format (:func:`_cjk_spaced`): every text object of a reply
    passes here (:func:`bot.slack.views.blocks.mrkdwn`), the one place that rule is kept."""
    if isinstance(text, Mrkdwn):
        spaced = _cjk_spaced(str(text))
        return text if len(spaced) == len(text) else Mrkdwn(spaced)
    return Mrkdwn.escape(text)


def as_plain(text: str) -> str:
    """Text for a ``plain_text`` field: ``Mrkdwn`` unescaped, a plain ``str`` as it is."""
    return text.unescape() if isinstance(text, Mrkdwn) else text


def link(url: str | None, label: str) -> Mrkdwn:
    """``<url|label>`` with the label escaped (just the label without ``url``, a catalog URL)."""
    label = Mrkdwn(str(esc(label)).replace("|", "¦"))
    if not url:
        return label
    return Mrkdwn("<{}|{}>").format(Mrkdwn(url.replace("|", "%7C")), label)


def truncate(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending with an ellipsis when cut: after the last
    whole sentence when one ends in the second half of the room, else at the end of a word when one
    ends in the last 40 % (QA round 10: summaries ended "how to measu…"), else where it must be (a
    URL, Chinese text without spaces, one very long word)."""
    if len(text) <= limit:
        return text
    room = max(0, limit - 1)
    cut = text[:room]
    ends = [m.end() for m in _SENTENCE_END.finditer(cut)]
    if ends and ends[-1] >= room * 0.5:  # QA round 12: "… on four…" says less than a whole sentence
        kept = cut[: ends[-1]].rstrip()
        return kept + ("…" if kept[-1] in "。！？；" or len(kept) + 2 > limit else " …")
    if text[room : room + 1].isspace() or not cut:
        return cut.rstrip() + "…"
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space >= room * 0.6:
        cut = cut[:space]
    return cut.rstrip() + "…"


_SENTENCE_END = re.compile(r"[.!?;](?=\s)|[。！？；]")
"""The end of a sentence (``. `` before a space: not ``v0.6`` or ``e.g.x``; ``。`` in Chinese)."""


_LINK = re.compile(r"<(https?://[^|>]+)\|([^>]+)>")
_AUTOLINK = re.compile(r"(?i)(://|\bwww\.)")


def _defang(text: str) -> str:
    """Break ``scheme://`` and ``www.`` so that Slack auto-links no URL a user typed (no ``verbatim``)."""
    return _AUTOLINK.sub(lambda m: m.group(1)[:-1] + _WORD_JOINER + m.group(1)[-1], text)


def plain(text: str) -> str:
    """Fallback ``text`` from mrkdwn, still escaped: ``label (url)`` links, no bold, other URLs defanged."""
    text = str(esc(text))
    out, pos = [], 0
    for m in _LINK.finditer(text):
        out.append(_defang(text[pos : m.start()]))
        out.append(f"{_defang(m.group(2))} ({m.group(1)})")
        pos = m.end()
    out.append(_defang(text[pos:]))
    return _SPACED_MARK.sub(lambda m: "" if m.group(1) == "*" else m.group(0), "".join(out)).replace("*", "")
