"""Block Kit is built as plain dicts (``bot/slack/views/blocks.py``, issue 43): slack-sdk's models check
the shapes here instead of on every render. Each builder gives exactly what the slack-sdk model
built from the same arguments serialises to (the same JSON, key order included, so that no reply
changes), every output passes the stand-in's Block Kit checks (slack-sdk's validators, then Slack's
limits), a whole App Home in every state too, and nothing in ``bot/`` imports slack-sdk's models."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    ImageBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.slack.handlers import Caller, Handlers
from bot.slack.mrkdwn import Mrkdwn, as_plain, esc
from bot.slack.views import blocks
from bot.slack.views.blocks import cut, encode_value, nonblank
from tests.standin import blockkit

TEXTS = [
    "",
    "   ",
    "plain",
    "*bold* <b> & <!channel> <#C1>",
    "x" * 3100,
    "长文本" * 1200,
    Mrkdwn("*ours* & <https://a|b>"),
    Mrkdwn("<https://example.com/x|" + "y" * 3100 + ">"),
    "a" * 2990 + " &amp; <tail",
    "\x00\u202econtrol :tada: ~s~ _i_ `c`",
]


# The builders as they were on slack-sdk's models (the reference the dicts must equal).
def _md(text: str) -> MarkdownTextObject:
    return MarkdownTextObject(text=nonblank(str(esc(text))), verbatim=True)


def _pt(text: str, limit: int) -> PlainTextObject:
    return PlainTextObject(text=nonblank(cut(as_plain(text), limit)), emoji=True)


def _button(text: str, action_id: str, data: dict[str, Any], style: Any = None, confirm: Any = None) -> ButtonElement:
    return ButtonElement(
        text=_pt(text, 75), action_id=action_id[:255], value=encode_value(data), style=style, confirm=confirm
    )


def _confirm(title: str, text: str, yes: str, no: str, style: Any = None) -> ConfirmObject:
    return ConfirmObject(
        title=nonblank(cut(as_plain(title), 100)),
        text=_md(cut(esc(text), 300)),
        confirm=nonblank(cut(as_plain(yes), 30)),
        deny=nonblank(cut(as_plain(no), 30)),
        style=style,
    )


def _same(ours: Any, model: Any) -> None:
    """``ours`` is ``model`` serialised, as the same JSON text (key order included)."""
    want = model.to_dict() if hasattr(model, "to_dict") else [m.to_dict() for m in model]
    assert json.dumps(ours, ensure_ascii=False) == json.dumps(want, ensure_ascii=False)


@pytest.mark.parametrize("text", TEXTS)
def test_each_builder_is_what_the_slack_sdk_model_serialises_to(text: str) -> None:
    long_id = "mark_read:" + "9" * 300
    data = {"p": text[:300], "none": None, "o": 3}
    _same(blocks.header(text), HeaderBlock(text=_pt(text, 150)))
    _same(blocks.section(text), SectionBlock(text=_md(cut(esc(text), 3000))))
    _same(blocks.context(text), ContextBlock(elements=[_md(cut(esc(text), 3000))]))
    _same(blocks.context(*[text] * 12), ContextBlock(elements=[_md(cut(esc(text), 3000))] * 10))
    for style in (None, "primary", "danger"):
        _same(blocks.button(text, long_id, data, style=style), _button(text, long_id, data, style))
    _same(blocks.confirm_dialog(text, text, text, text), _confirm(text, text, text, text))
    confirm = blocks.confirm_dialog(text, text, "Stop", "Cancel", style="danger")
    model_confirm = _confirm(text, text, "Stop", "Cancel", "danger")
    _same(
        blocks.button(text, "stop:1", {}, style="danger", confirm=confirm),
        _button(text, "stop:1", {}, "danger", model_confirm),
    )
    accessory = blocks.button("b", "x:1", {"t": "pd"})
    _same(
        blocks.section(text, accessory),
        SectionBlock(text=_md(cut(esc(text), 3000)), accessory=_button("b", "x:1", {"t": "pd"})),
    )
    tap = [blocks.button(text, f"m:{i}", {}) for i in range(30)]
    _same(blocks.actions(tap), ActionsBlock(elements=[_button(text, f"m:{i}", {}) for i in range(25)]))
    _same(blocks.divider(), DividerBlock())
    _same(
        blocks.image("https://x/" + text, text),
        ImageBlock(image_url=("https://x/" + text)[:3000], alt_text=nonblank(text[:2000])),
    )


@pytest.mark.parametrize("text", TEXTS)
def test_every_builder_output_passes_the_block_kit_checks(text: str) -> None:
    stop = blocks.confirm_dialog(text, text, text, text, style="danger")
    row = [blocks.button(text, f"m:{i}", {"p": text}, style="primary") for i in range(30)]
    made = [
        blocks.header(text),
        blocks.section(text, blocks.button(text, "a:" + "1" * 300, {"p": text}, confirm=stop)),
        blocks.context(*[text] * 12),
        blocks.actions(row),
        blocks.divider(),
        blocks.image("https://example.com/p.png", text or "alt"),
        *blocks.sections([text] * 5),
    ]
    blockkit.validate_blocks(made, surface="message")
    reply = blocks.make_reply([blocks.section(text)] * 60, text)
    assert len(reply.blocks) == 50 and len(reply.text) <= 3000 and reply.text.strip()
    blockkit.validate_blocks(reply.blocks, surface="message")


def test_blocks_are_new_dicts_each_time() -> None:
    """A block a caller changes (``plan_dm`` swaps an ``action_id``) changes no other."""
    first, second = blocks.divider(), blocks.divider()
    first["block_id"] = "x"
    assert second == {"type": "divider"}


def _check(view: dict) -> None:
    assert view["type"] == "home" and 0 < len(view["blocks"]) <= 100
    blockkit.validate_blocks(view["blocks"], surface="home")  # slack-sdk's models validate the shapes too


def test_app_home_in_every_state_is_valid_block_kit(runtime) -> None:
    h = Handlers(runtime)
    me = Caller(team_id="T1", user_id="U1", channel_id="C0HOMEDICT")
    _check(h.home(me, None))  # nothing followed, no DM, no channel
    h.command(me, "follow pd")
    h.command(me, "follow speculative")
    _check(h.home(me, ["C0HOMEDICT"]))
    runtime.store.mark_read("T1", "U1", runtime.holder.catalog.order("pd"))  # one track done
    h.command(me, "dm on friday 08:30 UTC")
    h.command(me, "subscribe pd monday 09:00 UTC")
    view = h.home(me, ["C0HOMEDICT"])
    _check(view)
    assert "<#C0HOMEDICT>" in str(view) and "unfollow:" in str(view)


def test_nothing_in_bot_imports_slack_sdk_models() -> None:
    """Replies are plain dicts at run time: slack-sdk's models (and their ``to_dict`` validation) are for tests."""
    root = Path(__file__).resolve().parents[2] / "bot"
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [f"{path.relative_to(root.parent)}: {n}" for n in names if n.startswith("slack_sdk.models")]
    assert found == []
