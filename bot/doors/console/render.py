"""Block Kit -> text for the console (pure): numbered controls, mrkdwn made readable."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.doors.standin import button_action


@dataclass(frozen=True)
class Control:
    """A pressable element found in blocks: ``number`` shown as ``[n]``, ``label`` its text,
    ``action`` what Slack puts in ``actions[0]`` when it is pressed (``type``, ``action_id``,
    ``block_id``, and ``value`` or ``selected_option``), ``url`` for link buttons."""

    number: int
    label: str
    action: dict[str, Any]
    url: str | None = None


_ENTITY = re.compile(r"<([^<>]*)>")
_EMOJI_CODE = re.compile(r":([a-z0-9_+\-]+):")
EMOJI = {"arrow_right": "➡️", "white_small_square": "▫️", "white_check_mark": "✅",
         "tada": "🎉", "double_vertical_bar": "⏸️", "warning": "⚠️", "x": "❌",
         "books": "📚", "bookmark": "🔖", "calendar": "📅", "bell": "🔔", "star": "⭐",
         "sparkles": "✨", "new": "🆕", "link": "🔗", "mailbox": "📫", "wave": "👋"}
"""Emoji shortcodes shown as characters in the console (others stay as ``:code:``)."""


def mrkdwn_to_text(text: str) -> str:
    """Slack mrkdwn shown readably: ``<url|label>`` -> ``label (url)``, ``<url>`` -> ``url``,
    ``<@U1>`` -> ``@U1``, ``<#C1|name>`` -> ``#name``, ``<!here>`` -> ``@here``,
    ``<!date^…|fallback>`` -> ``fallback``, common emoji codes (``:tada:``) -> characters; then
    ``&lt;``, ``&gt;``, ``&amp;`` are unescaped."""

    def entity(m: re.Match[str]) -> str:
        inner = m.group(1)
        target, _, label = inner.partition("|")
        if target.startswith("@"):
            return "@" + (label or target[1:])
        if target.startswith("#"):
            return "#" + (label or target[1:])
        if target.startswith("!"):
            if label:
                return label
            word = target[1:].split("^", 1)[0]
            return "@" + word
        if label and label != target:
            return f"{label} ({target})"
        return target

    text = _ENTITY.sub(entity, text)
    text = _EMOJI_CODE.sub(lambda m: EMOJI.get(m.group(1), m.group(0)), text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _text(obj: Any) -> str:
    """A text object (``plain_text`` or ``mrkdwn``) as display text."""
    if not isinstance(obj, Mapping):
        return str(obj or "")
    raw = str(obj.get("text") or "")
    return mrkdwn_to_text(raw) if obj.get("type") == "mrkdwn" else raw


def _rich_text(elements: Iterable[Any]) -> str:
    out: list[str] = []
    for el in elements or []:
        if not isinstance(el, Mapping):
            continue
        kind = el.get("type")
        if kind in ("rich_text_section", "rich_text_preformatted", "rich_text_quote"):
            out.append(_rich_text(el.get("elements") or []))
            if kind != "rich_text_section":
                out.append("\n")
        elif kind == "rich_text_list":
            for item in el.get("elements") or []:
                out.append("• " + _rich_text(item.get("elements") or []) + "\n")
        elif kind == "text":
            out.append(str(el.get("text") or ""))
        elif kind == "link":
            url = str(el.get("url") or "")
            label = str(el.get("text") or "")
            out.append(f"{label} ({url})" if label and label != url else url)
        elif kind in ("user", "usergroup"):
            out.append("@" + str(el.get("user_id") or el.get("usergroup_id") or ""))
        elif kind == "channel":
            out.append("#" + str(el.get("channel_id") or ""))
        elif kind == "emoji":
            out.append(f":{el.get('name', '')}:")
        elif kind == "broadcast":
            out.append("@" + str(el.get("range") or ""))
    return "".join(out)


def render_blocks(blocks: Sequence[Mapping[str, Any]] | None, start: int = 1
                  ) -> tuple[str, list[Control]]:
    """Render Block Kit ``blocks`` (dicts) as readable text and list what can be pressed.

    Buttons become ``[n] label`` (numbered from ``start``); overflow and static-select options
    are numbered the same way. Headers become ``== text ==``, dividers a rule, context blocks a
    ``·``-joined line, images ``[image: alt]``; mrkdwn goes through :func:`mrkdwn_to_text`.
    Blocks without a ``block_id`` get the one Slack would make up (``auto-<index>`` here, so the
    result is deterministic). Returns ``(text, controls)``; never raises on unknown block types.
    """
    lines: list[str] = []
    controls: list[Control] = []
    counter = itertools.count(start)

    def press(element: Mapping[str, Any], block_id: str) -> list[str]:
        kind = element.get("type")
        if kind == "button":
            label = _text(element.get("text"))
            n = next(counter)
            controls.append(Control(n, label, button_action(element, block_id),
                                    element.get("url")))
            return [f"[{n}] {label}" + (" ↗" if element.get("url") else "")]
        if kind in ("overflow", "static_select"):
            options = list(element.get("options") or [])
            for group in element.get("option_groups") or []:
                options.extend(group.get("options") or [])
            shown = []
            for option in options:
                n = next(counter)
                label = _text(option.get("text"))
                action = {"type": kind, "block_id": block_id,
                          "action_id": element.get("action_id", ""),
                          "selected_option": dict(option)}
                controls.append(Control(n, label, action, option.get("url")))
                shown.append(f"[{n}] {label}")
            prefix = "⋯ " if kind == "overflow" else _text(element.get("placeholder")) + ": "
            return [prefix + "  ".join(shown)] if shown else []
        if kind == "image":
            return [f"[image: {element.get('alt_text', '')}]"]
        if kind in ("plain_text", "mrkdwn"):
            return [_text(element)]
        return [f"({kind})"] if kind else []

    for index, block in enumerate(blocks or []):
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        block_id = str(block.get("block_id") or f"auto-{index}")
        if kind == "header":
            lines.append(f"== {_text(block.get('text'))} ==")
        elif kind == "section":
            parts = []
            if block.get("text"):
                parts.append(_text(block.get("text")))
            for f in block.get("fields") or []:
                parts.append("  " + _text(f))
            accessory = block.get("accessory")
            if isinstance(accessory, Mapping):
                extra = press(accessory, block_id)
                if extra:
                    if parts:
                        parts[-1] = parts[-1] + "   " + "  ".join(extra)
                    else:
                        parts.extend(extra)
            lines.append("\n".join(parts))
        elif kind == "divider":
            lines.append("─" * 40)
        elif kind == "context":
            bits = []
            for el in block.get("elements") or []:
                if isinstance(el, Mapping):
                    bits.extend(press(el, block_id))
            lines.append("  " + " · ".join(b for b in bits if b))
        elif kind == "actions":
            bits = []
            for el in block.get("elements") or []:
                if isinstance(el, Mapping):
                    bits.extend(press(el, block_id))
            lines.append("  ".join(bits))
        elif kind == "image":
            title = _text(block.get("title")) if block.get("title") else ""
            lines.append(f"[image: {block.get('alt_text', '')}]" + (f" {title}" if title else ""))
        elif kind == "rich_text":
            lines.append(_rich_text(block.get("elements") or []).rstrip("\n"))
        elif kind == "input":
            lines.append(f"{_text(block.get('label'))}: (input)")
        elif kind == "markdown":
            lines.append(str(block.get("text") or ""))
        else:
            lines.append(f"[{kind} block]")
    return "\n".join(lines), controls
