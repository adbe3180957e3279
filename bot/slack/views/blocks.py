"""Small Block Kit builders on top of ``slack_sdk.models.blocks``, with Slack's limits applied.

Every builder returns a slack-sdk model; :func:`to_dicts` serialises them (``to_dict()`` runs
slack-sdk's validation). Texts longer than a limit are cut with an ellipsis rather than rejected
by Slack.
"""

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
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    Option,
    PlainTextObject,
    SectionBlock,
)

from bot.slack import blockkit
from bot.slack.mrkdwn import Mrkdwn, as_plain, esc, plain, truncate

# Slack's limits, from the one checker (bot.slack.blockkit) that tests and the stand-in run.
MAX_BLOCKS_MESSAGE = blockkit.MAX_BLOCKS["message"]
MAX_BLOCKS_VIEW = blockkit.MAX_BLOCKS["home"]
MAX_SECTION_TEXT = blockkit.SECTION_TEXT_MAX
MAX_FALLBACK_TEXT = 3000
"""Slack's Block Kit limits (characters or counts), from Slack's documentation (the fallback
text is cut at 3,000 of Slack's 4,000 so that Slack never truncates a notification itself)."""

_OPEN_TAIL = re.compile(r"(&[a-z#0-9]*|<[^>]*)$")
"""An escape (``&amp;``) or a ``<link|label>`` that a cut would leave open at the end."""


_Text = TypeVar("_Text", str, Mrkdwn)


def cut(text: _Text, limit: int) -> _Text:
    """``text`` cut to at most ``limit`` characters with an ellipsis (a :class:`Mrkdwn` stays
    :class:`Mrkdwn`). A cut never leaves half an escape (``&am``) or an open ``<link`` at the
    end: those are dropped whole, so cut mrkdwn stays inert and well-formed. Every text the
    builders below take from catalog or user data goes through here."""
    if len(text) <= limit:
        return text
    body = str(text)[: max(0, limit - 1)].rstrip()
    open_tail = _OPEN_TAIL.search(body)
    if open_tail:
        body = body[: open_tail.start()].rstrip()
    return Mrkdwn(body + "…") if isinstance(text, Mrkdwn) else body + "…"


@dataclass(frozen=True)
class Reply:
    """A message to send: ``text`` (plain-text fallback, still mrkdwn-escaped), ``blocks`` (dicts),
    ``response_type`` ``ephemeral`` (only the asker sees it) or ``in_channel``;
    ``keep_original``: a button's answer that must not replace the message the button was in
    (e.g. "this message is out of date")."""

    text: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    response_type: str = "ephemeral"
    keep_original: bool = False

    def payload(self) -> dict[str, Any]:
        """The message as Slack receives it: ``{"response_type", "text", "blocks"}``."""
        return {"response_type": self.response_type, "text": self.text, "blocks": self.blocks}

    @cached_property
    def body_json(self) -> str:
        """:meth:`payload` as compact JSON text (UTF-8 characters kept, not ``\\u`` escaped),
        made once per reply: a reply kept per reading state (``memo_reply``) is serialised once
        however often it is sent."""
        return json.dumps(self.payload(), ensure_ascii=False, separators=(",", ":"))


BLANK = "–"
"""Stands in for a text that is empty once escaped (catalog text made only of control or bidi
characters passes the catalog's checks): Slack refuses a message with an empty text object."""


def nonblank(text: str) -> str:
    """``text``, or :data:`BLANK` when it is empty or only whitespace."""
    return text if text.strip() else BLANK


def mrkdwn(text: str) -> MarkdownTextObject:
    """A mrkdwn text object: ``text`` is :class:`Mrkdwn`, or plain text that is escaped here.
    ``verbatim`` is on: Slack still renders our formatting and ``<url|label>`` links, but does not
    auto-link bare URLs, channel names or ``@channel``-style mentions in catalog or user text."""
    return MarkdownTextObject(text=nonblank(str(esc(text))), verbatim=True)


def header(text: str) -> HeaderBlock:
    """A header block (plain text; :class:`Mrkdwn` is unescaped), cut to 150 characters."""
    return HeaderBlock(text=PlainTextObject(text=nonblank(cut(as_plain(text), blockkit.HEADER_TEXT_MAX)), emoji=True))


def section(text: str, accessory: ButtonElement | None = None) -> SectionBlock:
    """A mrkdwn section (plain ``str`` escaped), cut to 3,000 characters."""
    return SectionBlock(text=mrkdwn(cut(esc(text), MAX_SECTION_TEXT)), accessory=accessory)


def sections(lines: Iterable[str], limit: int = MAX_SECTION_TEXT - 100) -> list[SectionBlock]:
    """Pack lines into as few sections as fit ``limit`` characters each (a longer line is cut;
    plain ``str`` lines are escaped)."""
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
    texts = texts[: blockkit.CONTEXT_ELEMENTS_MAX]
    return ContextBlock(elements=[mrkdwn(cut(esc(t), blockkit.TEXT_OBJECT_MAX)) for t in texts])


def divider() -> DividerBlock:
    """A divider."""
    return DividerBlock()


def encode_value(data: dict[str, Any]) -> str:
    """A button value: compact JSON, at most 2,000 characters (long strings in it are cut first)."""
    clean = {k: (truncate(v, 150) if isinstance(v, str) else v) for k, v in data.items() if v is not None}
    value = json.dumps(clean, ensure_ascii=False, separators=(",", ":"))
    return value[: blockkit.BUTTON_VALUE_MAX]


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
    """A button; ``data`` travels in its ``value`` as JSON; text cut to 75 characters;
    ``confirm``: a dialog from :func:`confirm_dialog`."""
    return ButtonElement(
        text=PlainTextObject(text=nonblank(cut(as_plain(text), blockkit.BUTTON_TEXT_MAX)), emoji=True),
        action_id=action_id[: blockkit.ID_MAX],
        value=encode_value(data),
        style=style,
        confirm=confirm,
    )


def confirm_dialog(title: str, text: str, yes: str, no: str, style: str | None = None) -> ConfirmObject:
    """A confirm dialog: ``title`` (plain text, cut to 100 characters), ``text`` (mrkdwn,
    verbatim, plain ``str`` escaped, cut to 300), ``yes`` / ``no`` button labels (plain text,
    cut to 30); ``style`` ``danger`` or ``primary`` for the confirm button."""
    return ConfirmObject(
        title=nonblank(cut(as_plain(title), blockkit.CONFIRM_TITLE_MAX)),
        text=mrkdwn(cut(esc(text), blockkit.CONFIRM_TEXT_MAX)),
        confirm=nonblank(cut(as_plain(yes), blockkit.CONFIRM_BUTTON_MAX)),
        deny=nonblank(cut(as_plain(no), blockkit.CONFIRM_BUTTON_MAX)),
        style=style,
    )


def option(text: str, value: str) -> Option:
    """A select or overflow option: ``text`` plain text cut to 75 characters, ``value`` cut to
    150 (keep values short ids; a cut value would not round-trip)."""
    return Option(
        text=PlainTextObject(text=nonblank(cut(as_plain(text), blockkit.OPTION_TEXT_MAX)), emoji=True),
        value=value[: blockkit.OPTION_VALUE_MAX],
    )


def actions(buttons: Sequence[ButtonElement]) -> ActionsBlock:
    """An actions block of up to 25 elements."""
    return ActionsBlock(elements=list(buttons)[: blockkit.ACTIONS_ELEMENTS_MAX])


def to_dicts(blocks: Sequence[Block | dict[str, Any]], max_blocks: int = MAX_BLOCKS_MESSAGE) -> list[dict[str, Any]]:
    """Serialise (running slack-sdk's validation), keeping at most ``max_blocks`` blocks; a dict
    is a block serialised already and is kept as is."""
    return [b if isinstance(b, dict) else b.to_dict() for b in list(blocks)[:max_blocks]]


def make_reply(blocks: Sequence[Block | dict[str, Any]], fallback: str, response_type: str = "ephemeral") -> Reply:
    """A :class:`Reply` from models: blocks serialised within the message limit, fallback text cut."""
    text = nonblank(cut(plain(fallback), MAX_FALLBACK_TEXT))
    return Reply(text=text, blocks=to_dicts(blocks), response_type=response_type)
