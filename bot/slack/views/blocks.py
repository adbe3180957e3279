"""Block Kit builders as plain dicts (:data:`Json`), exactly what Slack receives: texts over a Slack
limit are cut with an ellipsis rather than refused, so every block is within Block Kit's limits by
construction. No slack-sdk models at run time: their ``to_dict`` validation was half of a ``next``
reply's CPU and 40% of an App Home open's (issue 43). Keys are in slack-sdk's order (sorted; a
confirm dialog's as slack-sdk writes it), so that a reply's JSON is the same bytes as before;
``tests/slack/test_block_dicts.py`` parses every builder's output back through slack-sdk's models
and the stand-in's checker (``tests/standin/blockkit.py``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, TypeVar

from bot.slack.mrkdwn import Mrkdwn, as_plain, esc, plain, truncate

Json = dict[str, Any]
"""A Block Kit object (block, element, text or confirm object) as Slack receives it."""
Style = Literal["primary", "danger"]
"""A button's or a confirm dialog's style (Slack knows no other)."""

# Block Kit's limits (https://docs.slack.dev/reference/block-kit/; the tests' checker holds its own copy).
MAX_BLOCKS_MESSAGE, MAX_BLOCKS_VIEW = 50, 100
MAX_SECTION_TEXT = TEXT_OBJECT_MAX = 3000
HEADER_TEXT_MAX, BUTTON_TEXT_MAX, BUTTON_VALUE_MAX, CONTEXT_ELEMENTS_MAX, ID_MAX = 150, 75, 2000, 10, 255
CONFIRM_TITLE_MAX, CONFIRM_TEXT_MAX, CONFIRM_BUTTON_MAX, ACTIONS_ELEMENTS_MAX = 100, 300, 30, 25
IMAGE_URL_MAX, IMAGE_ALT_MAX = 3000, 2000
MAX_FALLBACK_TEXT = 3000
"""Characters of fallback text kept (of Slack's 4,000, so that Slack never cuts a notification)."""

_OPEN_TAIL = re.compile(r"(&[a-z#0-9]*|<[^>]*)$")
"""An escape (``&amp;``) or a ``<link|label>`` that a cut would leave open at the end."""


_Text = TypeVar("_Text", str, Mrkdwn)


def cut(text: _Text, limit: int) -> _Text:
    """``text`` cut to at most ``limit`` characters with an ellipsis (``Mrkdwn`` stays ``Mrkdwn``),
    never leaving half an escape (``&am``) or an open ``<link`` at the end."""
    if len(text) <= limit:
        return text
    body = str(text)[: max(0, limit - 1)].rstrip()
    open_tail = _OPEN_TAIL.search(body)
    if open_tail:
        body = body[: open_tail.start()].rstrip()
    return Mrkdwn(body + "…") if isinstance(text, Mrkdwn) else body + "…"


@dataclass(frozen=True)
class Reply:
    """A message to send: ``text`` (fallback, still mrkdwn-escaped), ``blocks`` (dicts),
    ``response_type`` ``ephemeral`` or ``in_channel``; ``keep_original``: a button's answer that
    must not replace the button's message (e.g. "this message is out of date")."""

    text: str
    blocks: list[Json] = field(default_factory=list)
    response_type: str = "ephemeral"
    keep_original: bool = False

    def payload(self) -> dict[str, Any]:
        """The message as Slack receives it: ``{"response_type", "text", "blocks"}``."""
        return {"response_type": self.response_type, "text": self.text, "blocks": self.blocks}

    @cached_property
    def body_json(self) -> str:
        """:meth:`payload` as compact JSON (UTF-8 kept), made once per reply however often it is sent
        (a kept reply, :func:`~bot.slack.views.parts.memo_reply`). A speed layer needed by
        ``benchmarks/command_latency.py``: made on every send, the CPU per request was 1.55-1.57x the
        no-op's (target <= 1.3x)."""
        return json.dumps(self.payload(), ensure_ascii=False, separators=(",", ":"))


BLANK = "–"
"""Stands in for a text empty once escaped: Slack refuses an empty text object."""


def nonblank(text: str) -> str:
    """``text``, or :data:`BLANK` when it is empty or only whitespace."""
    return text if text.strip() else BLANK


def mrkdwn(text: str) -> Json:
    """A mrkdwn text object (plain ``str`` escaped; not cut), ``verbatim``: Slack renders our
    formatting and links but auto-links no bare URL, channel name or ``@channel`` in catalog or user
    text."""
    return {"text": nonblank(str(esc(text))), "type": "mrkdwn", "verbatim": True}


def plain_text(text: str, limit: int) -> Json:
    """A plain_text object (:class:`Mrkdwn` unescaped), ``emoji``, cut to ``limit`` characters."""
    return {"emoji": True, "text": nonblank(cut(as_plain(text), limit)), "type": "plain_text"}


def header(text: str) -> Json:
    """A header block (plain text; :class:`Mrkdwn` is unescaped), cut to 150 characters."""
    return {"text": plain_text(text, HEADER_TEXT_MAX), "type": "header"}


def section(text: str, accessory: Json | None = None) -> Json:
    """A mrkdwn section (plain ``str`` escaped), cut to 3,000 characters, with an ``accessory``
    element (a :func:`button`) when given."""
    block: Json = {"text": mrkdwn(cut(esc(text), MAX_SECTION_TEXT)), "type": "section"}
    return block if accessory is None else {"accessory": accessory, **block}


def sections(lines: Iterable[str], limit: int = MAX_SECTION_TEXT - 100) -> list[Json]:
    """Pack lines (escaped; a longer one cut) into as few sections of ``limit`` characters as fit."""
    chunks: list[list[Mrkdwn]] = []
    size = 0
    for line in lines:
        line = cut(esc(line), limit)
        if not chunks or size + len(line) + 1 > limit:
            chunks.append([])
            size = 0
        chunks[-1].append(line)
        size += len(line) + 1
    return [section(Mrkdwn("\n").join(chunk)) for chunk in chunks]


def context(*texts: str) -> Json:
    """A context block of the first 10 ``texts``, each a mrkdwn text cut to 3,000 characters."""
    elements = [mrkdwn(cut(esc(t), TEXT_OBJECT_MAX)) for t in texts[:CONTEXT_ELEMENTS_MAX]]
    return {"elements": elements, "type": "context"}


def divider() -> Json:
    """A divider block (a new dict each time: blocks may be changed by whoever holds them)."""
    return {"type": "divider"}


def image(url: str, alt: str) -> Json:
    """An image block of ``url`` (cut to 3,000 characters) with ``alt`` text (plain, cut to 2,000;
    Slack requires one: :data:`BLANK` for an empty one)."""
    return {"alt_text": nonblank(alt[:IMAGE_ALT_MAX]), "image_url": url[:IMAGE_URL_MAX], "type": "image"}


def encode_value(data: dict[str, Any]) -> str:
    """A button value: compact JSON, at most 2,000 characters (long strings in it are cut first)."""
    clean = {k: (truncate(v, 150) if isinstance(v, str) else v) for k, v in data.items() if v is not None}
    value = json.dumps(clean, ensure_ascii=False, separators=(",", ":"))
    return value[:BUTTON_VALUE_MAX]


def decode_value(value: str | None) -> dict[str, Any]:
    """The data of a button value; ``{}`` for anything that is not our JSON (never raises)."""
    try:
        data = json.loads(value or "{}")
    except (TypeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def button(
    text: str, action_id: str, data: dict[str, Any], style: Style | None = None, confirm: Json | None = None
) -> Json:
    """A button element whose ``value`` is ``data`` as JSON (:func:`encode_value`); text cut to 75
    characters, ``action_id`` to 255; ``confirm``: a :func:`confirm_dialog`."""
    out: Json = {"action_id": action_id[:ID_MAX]}
    if confirm is not None:
        out["confirm"] = confirm
    if style is not None:
        out["style"] = style
    out["text"] = plain_text(text, BUTTON_TEXT_MAX)
    out["type"] = "button"
    out["value"] = encode_value(data)
    return out


def confirm_dialog(title: str, text: str, yes: str, no: str, style: Style | None = None) -> Json:
    """A confirm dialog object: ``title`` (cut to 100 characters), ``text`` (mrkdwn, cut to 300),
    ``yes`` / ``no`` labels (cut to 30); ``style`` ``danger`` or ``primary`` for the confirm button."""
    out: Json = {
        "title": plain_text(title, CONFIRM_TITLE_MAX),
        "text": mrkdwn(cut(esc(text), CONFIRM_TEXT_MAX)),
        "confirm": plain_text(yes, CONFIRM_BUTTON_MAX),
        "deny": plain_text(no, CONFIRM_BUTTON_MAX),
    }
    if style is not None:
        out["style"] = style
    return out


def actions(buttons: Sequence[Json]) -> Json:
    """An actions block of the first 25 elements of ``buttons``."""
    return {"elements": list(buttons[:ACTIONS_ELEMENTS_MAX]), "type": "actions"}


def make_reply(blocks: Sequence[Json], fallback: str, response_type: str = "ephemeral") -> Reply:
    """A :class:`Reply` of the first 50 ``blocks`` (a message's limit) and ``fallback`` as its text
    (:func:`~bot.slack.mrkdwn.plain`, cut to :data:`MAX_FALLBACK_TEXT`)."""
    text = nonblank(cut(plain(fallback), MAX_FALLBACK_TEXT))
    return Reply(text=text, blocks=list(blocks[:MAX_BLOCKS_MESSAGE]), response_type=response_type)
