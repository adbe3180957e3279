"""App Home is built as plain dicts (``bot/slack/views/home.py``, issue 43): slack-sdk's models validate
its shapes here instead of on every render. Each dict builder gives exactly what the model builder of
``bot/slack/views/blocks.py`` serialises to, and a whole Home in every state parses back to itself
through slack-sdk's ``Block.parse`` and passes the stand-in's Block Kit checks."""

from __future__ import annotations

import pytest
from slack_sdk.models.blocks import Block

from bot.slack.handlers import Caller, Handlers
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views import blocks, home
from tests.standin import blockkit

TEXTS = [
    "",
    "   ",
    "plain",
    "*bold* <b> & <!channel> <#C1>",
    "x" * 3100,
    "长文本" * 1200,
    Mrkdwn("*ours* & <https://a|b>"),
]


@pytest.mark.parametrize("text", TEXTS)
def test_each_dict_builder_is_what_the_model_builder_serialises_to(text) -> None:
    tap = home.button(text, "mark_read:" + "9" * 300, {"p": text[:40]}, style="primary")
    assert tap == blocks.button(text, "mark_read:" + "9" * 300, {"p": text[:40]}, style="primary").to_dict()
    assert home.button(text, "f:1", {}) == blocks.button(text, "f:1", {}).to_dict()
    assert home.header(text) == blocks.header(text).to_dict()
    assert home.context(text) == blocks.context(text).to_dict()
    assert home.section(text) == blocks.section(text).to_dict()
    model = blocks.section(text, accessory=blocks.button("b", "x:1", {}))
    assert home.section(text, home.button("b", "x:1", {})) == model.to_dict()
    assert home.actions([tap] * 30) == blocks.actions([blocks.button(text, "mark_read:1", {})] * 30).to_dict() | {
        "elements": [tap] * 25
    }


def _check(view: dict) -> None:
    assert view["type"] == "home" and 0 < len(view["blocks"]) <= 100
    for block in view["blocks"]:
        parsed = Block.parse(block)
        assert parsed is not None and parsed.to_dict() == block  # slack-sdk's models validate the shape
    blockkit.validate_blocks(view["blocks"], surface="home")


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
