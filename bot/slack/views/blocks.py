"""Small Block Kit builders on ``slack_sdk.models.blocks``: texts over a Slack limit are cut with an
ellipsis rather than refused; :func:`to_dicts` serialises (running slack-sdk's validation)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.slack.mrkdwn import Mrkdwn, as_plain, esc, plain, truncate

# Block Kit's limits (https://docs.slack.dev/reference/block-kit/; the tests' checker holds its own copy).
MAX_BLOCKS_MESSAGE, MAX_BLOCKS_VIEW = 50, 100
MAX_SECTION_TEXT = TEXT_OBJECT_MAX = 3000
HEADER_TEXT_MAX, BUTTON_TEXT_MAX, BUTTON_VALUE_MAX, CONTEXT_ELEMENTS_MAX, ID_MAX = 150, 75, 2000, 10, 255
CONFIRM_TITLE_MAX, CONFIRM_TEXT_MAX, CONFIRM_BUTTON_MAX, ACTIONS_ELEMENTS_MAX = 100, 300, 30, 25
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
    blocks: list[dict[str, Any]] = field(default_factory=list)
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


def mrkdwn(text: str) -> MarkdownTextObject:
    """A mrkdwn text object (plain ``str`` escaped), ``verbatim``: Slack renders our formatting and
    links but auto-links no bare URL, channel name or ``@channel`` in catalog or user text."""
    return MarkdownTextObject(text=nonblank(str(esc(text))), verbatim=True)


def header(text: str) -> HeaderBlock:
    """A header block (plain text; :class:`Mrkdwn` is unescaped), cut to 150 characters."""
    return HeaderBlock(text=PlainTextObject(text=nonblank(cut(as_plain(text), HEADER_TEXT_MAX)), emoji=True))


def section(text: str, accessory: ButtonElement | None = None) -> SectionBlock:
    """A mrkdwn section (plain ``str`` escaped), cut to 3,000 characters."""
    return SectionBlock(text=mrkdwn(cut(esc(text), MAX_SECTION_TEXT)), accessory=accessory)


def sections(lines: Iterable[str], limit: int = MAX_SECTION_TEXT - 100) -> list[SectionBlock]:
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


def context(*texts: str) -> ContextBlock:
    """A context block of up to 10 mrkdwn texts."""
    texts = texts[:CONTEXT_ELEMENTS_MAX]
    return ContextBlock(elements=[mrkdwn(cut(esc(t), TEXT_OBJECT_MAX)) for t in texts])


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
    text: str, action_id: str, data: dict[str, Any], style: str | None = None, confirm: ConfirmObject | None = None
) -> ButtonElement:
    """A button whose ``value`` is ``data`` as JSON; text cut to 75 characters."""
    return ButtonElement(
        text=PlainTextObject(text=nonblank(cut(as_plain(text), BUTTON_TEXT_MAX)), emoji=True),
        action_id=action_id[:ID_MAX],
        value=encode_value(data),
        style=style,
        confirm=confirm,
    )


def confirm_dialog(title: str, text: str, yes: str, no: str, style: str | None = None) -> ConfirmObject:
    """A confirm dialog: ``title`` (cut to 100 characters), ``text`` (mrkdwn, cut to 300), ``yes`` /
    ``no`` labels (cut to 30); ``style`` ``danger`` or ``primary`` for the confirm button."""
    return ConfirmObject(
        title=nonblank(cut(as_plain(title), CONFIRM_TITLE_MAX)),
        text=mrkdwn(cut(esc(text), CONFIRM_TEXT_MAX)),
        confirm=nonblank(cut(as_plain(yes), CONFIRM_BUTTON_MAX)),
        deny=nonblank(cut(as_plain(no), CONFIRM_BUTTON_MAX)),
        style=style,
    )


def actions(buttons: Sequence[ButtonElement]) -> ActionsBlock:
    """An actions block of up to 25 elements."""
    return ActionsBlock(elements=list(buttons)[:ACTIONS_ELEMENTS_MAX])


def to_dicts(blocks: Sequence[Block | dict[str, Any]], max_blocks: int = MAX_BLOCKS_MESSAGE) -> list[dict[str, Any]]:
    """Serialise at most ``max_blocks`` blocks (running slack-sdk's validation); a dict is kept as is."""
    return [b if isinstance(b, dict) else b.to_dict() for b in list(blocks)[:max_blocks]]


def make_reply(blocks: Sequence[Block | dict[str, Any]], fallback: str, response_type: str = "ephemeral") -> Reply:
    """A :class:`Reply` from models: blocks serialised within the message limit, fallback text cut."""
    text = nonblank(cut(plain(fallback), MAX_FALLBACK_TEXT))
    return Reply(text=text, blocks=to_dicts(blocks), response_type=response_type)
