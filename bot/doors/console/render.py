"""Block Kit -> text for the console (pure): numbered controls, mrkdwn made readable."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.doors.console.slack import button_action


@dataclass(frozen=True)
class Control:
    """A pressable element shown as ``[number] label``; ``action``: Slack's ``actions[0]`` for it."""

    number: int
    label: str
    action: dict[str, Any]
    url: str | None = None


_ENTITY = re.compile(r"<([^<>]*)>")
_EMOJI_CODE = re.compile(r":([a-z0-9_+\-]+):")
EMOJI = {
    "arrow_right": "➡️",
    "white_small_square": "▫️",
    "white_check_mark": "✅",
    "tada": "🎉",
    "double_vertical_bar": "⏸️",
}
"""Emoji shortcodes shown as characters in the console (others stay as ``:code:``)."""


def mrkdwn_to_text(text: str) -> str:
    """Slack mrkdwn made readable: ``<url|label>`` -> ``label (url)``, ``<url>`` -> ``url``, ``<@U1>`` ->
    ``@U1``, ``<#C1|name>`` -> ``#name``, ``<!here>`` -> ``@here``, ``<!date^…|fallback>`` -> ``fallback``,
    :data:`EMOJI` codes -> characters; then ``&lt;``, ``&gt;``, ``&amp;`` unescaped and the zero-width
    characters escaping puts around marks (U+200B, U+2060) dropped: a terminal shows them as gaps or
    boxes (QA)."""

    def entity(m: re.Match[str]) -> str:
        target, _, label = m.group(1).partition("|")
        if target[:1] in ("@", "#"):
            return target[0] + (label or target[1:])
        if target.startswith("!"):
            return label or "@" + target[1:].split("^", 1)[0]
        return _label_url(label, target)

    text = _ENTITY.sub(entity, text)
    text = _EMOJI_CODE.sub(lambda m: EMOJI.get(m.group(1), m.group(0)), text)
    text = text.replace("\u200b", "").replace("\u2060", "")
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _text(obj: Any) -> str:
    """A text object (``plain_text`` or ``mrkdwn``) as display text."""
    if not isinstance(obj, Mapping):
        return str(obj or "")
    raw = str(obj.get("text") or "")
    return mrkdwn_to_text(raw) if obj.get("type") == "mrkdwn" else raw


_INLINE = {
    "text": lambda el: str(el.get("text") or ""),
    "link": lambda el: _label_url(str(el.get("text") or ""), str(el.get("url") or "")),
    "user": lambda el: "@" + str(el.get("user_id") or el.get("usergroup_id") or ""),
    "usergroup": lambda el: "@" + str(el.get("user_id") or el.get("usergroup_id") or ""),
    "channel": lambda el: "#" + str(el.get("channel_id") or ""),
    "emoji": lambda el: f":{el.get('name', '')}:",
    "broadcast": lambda el: "@" + str(el.get("range") or ""),
}
"""A rich_text leaf element (by ``type``) as display text."""


def _label_url(label: str, url: str) -> str:
    return f"{label} ({url})" if label and label != url else url


def _rich_text(elements: Iterable[Any]) -> str:
    """rich_text elements (sections, lists, quotes, leaves) as display text."""
    out: list[str] = []
    for el in elements or []:
        if not isinstance(el, Mapping):
            continue
        kind = el.get("type")
        if kind in ("rich_text_section", "rich_text_preformatted", "rich_text_quote"):
            out.append(_rich_text(el.get("elements") or []) + ("" if kind == "rich_text_section" else "\n"))
        elif kind == "rich_text_list":
            out.extend("• " + _rich_text(item.get("elements") or []) + "\n" for item in el.get("elements") or [])
        elif kind in _INLINE:
            out.append(_INLINE[kind](el))
    return "".join(out)


class _Renderer:
    """One :func:`render_blocks` call: the controls found so far, numbered from ``start``."""

    def __init__(self, start: int) -> None:
        self.controls: list[Control] = []
        self.counter = itertools.count(start)

    def press(self, element: Mapping[str, Any], block_id: str) -> list[str]:
        """An element's display text, numbering what can be pressed."""
        kind = element.get("type")
        if kind == "button":
            label = _text(element.get("text"))
            n = next(self.counter)
            self.controls.append(Control(n, label, button_action(element, block_id), element.get("url")))
            return [f"[{n}] {label}" + (" ↗" if element.get("url") else "")]
        if kind in ("overflow", "static_select"):
            return self.options(element, block_id)
        if kind == "image":
            return [f"[image: {element.get('alt_text', '')}]"]
        if kind in ("plain_text", "mrkdwn"):
            return [_text(element)]
        return [f"({kind})"] if kind else []

    def options(self, element: Mapping[str, Any], block_id: str) -> list[str]:
        """An overflow's or static select's options, each numbered."""
        kind, action_id = element.get("type"), element.get("action_id", "")
        options = list(element.get("options") or [])
        for group in element.get("option_groups") or []:
            options.extend(group.get("options") or [])
        shown = []
        for option in options:
            n = next(self.counter)
            label = _text(option.get("text"))
            action = {"type": kind, "block_id": block_id, "action_id": action_id, "selected_option": dict(option)}
            self.controls.append(Control(n, label, action, option.get("url")))
            shown.append(f"[{n}] {label}")
        prefix = "⋯ " if kind == "overflow" else _text(element.get("placeholder")) + ": "
        return [prefix + "  ".join(shown)] if shown else []

    def elements(self, block: Mapping[str, Any], block_id: str) -> list[str]:
        """A context or actions block's elements as display text."""
        return [
            bit for el in block.get("elements") or [] if isinstance(el, Mapping) for bit in self.press(el, block_id)
        ]

    def section(self, block: Mapping[str, Any], block_id: str) -> str:
        parts = [_text(block.get("text"))] if block.get("text") else []
        parts += ["  " + _text(f) for f in block.get("fields") or []]
        accessory = block.get("accessory")
        extra = self.press(accessory, block_id) if isinstance(accessory, Mapping) else []
        if extra and parts:
            parts[-1] = parts[-1] + "   " + "  ".join(extra)
        else:
            parts.extend(extra)
        return "\n".join(parts)

    def block(self, block: Mapping[str, Any], block_id: str) -> str:
        """One block as display text (``[kind block]`` for a kind not known here)."""
        kind = block.get("type")
        if kind == "section":
            return self.section(block, block_id)
        if kind == "context":
            return "  " + " · ".join(b for b in self.elements(block, block_id) if b)
        if kind == "actions":
            return "  ".join(self.elements(block, block_id))
        if kind == "image":
            title = _text(block.get("title")) if block.get("title") else ""
            return f"[image: {block.get('alt_text', '')}]" + (f" {title}" if title else "")
        simple = _SIMPLE_BLOCKS.get(str(kind))
        return simple(block) if simple else f"[{kind} block]"


_SIMPLE_BLOCKS = {
    "header": lambda b: f"== {_text(b.get('text'))} ==",
    "divider": lambda b: "─" * 40,
    "rich_text": lambda b: _rich_text(b.get("elements") or []).rstrip("\n"),
    "input": lambda b: f"{_text(b.get('label'))}: (input)",
    "markdown": lambda b: str(b.get("text") or ""),
}
"""Blocks rendered without controls, by ``type``."""


def render_blocks(blocks: Sequence[Mapping[str, Any]] | None, start: int = 1) -> tuple[str, list[Control]]:
    """Block Kit ``blocks`` as readable text, and what can be pressed: ``(text, controls)``. Buttons
    and overflow/select options become ``[n] label`` (numbered from ``start``), headers ``== text
    ==``, images ``[image: alt]``, mrkdwn :func:`mrkdwn_to_text`'s. A block without ``block_id`` gets
    ``auto-<index>`` (deterministic). Unknown block types never raise."""
    renderer = _Renderer(start)
    lines = [
        renderer.block(block, str(block.get("block_id") or f"auto-{index}"))
        for index, block in enumerate(blocks or [])
        if isinstance(block, Mapping)
    ]
    return "\n".join(lines), renderer.controls
