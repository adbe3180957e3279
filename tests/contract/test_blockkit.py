"""Tests of the Block Kit checker: good payloads pass, each limit is enforced."""

from __future__ import annotations

import pytest

from tests.standin.blockkit import BlockKitError, block_kit_problems, validate_blocks, validate_view


def section(text="hello", **extra):
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}, **extra}


def button(action_id="go", text="Go", **extra):
    return {"type": "button", "action_id": action_id, "text": {"type": "plain_text", "text": text}, **extra}


GOOD = [
    {"type": "header", "text": {"type": "plain_text", "text": "Your vLLM reading path"}},
    section("*1.* PagedAttention", block_id="post-1", accessory=button("open_1", "Open", value="p1")),
    {"type": "divider"},
    {"type": "section", "fields": [{"type": "mrkdwn", "text": "*Level*\nintro"}]},
    {"type": "actions", "elements": [button("next", "Next", value="2"), button("done", "Done", style="primary")]},
    {"type": "context", "elements": [{"type": "mrkdwn", "text": "3 of 7 read"}]},
]


def test_a_realistic_message_passes():
    assert block_kit_problems(GOOD, "message") == []
    validate_blocks(GOOD, surface="message")


def test_blocks_as_json_string_are_checked_too():
    import json

    validate_blocks(json.dumps(GOOD))
    with pytest.raises(BlockKitError):
        validate_blocks(json.dumps([section("x" * 3001)]))


@pytest.mark.parametrize(
    ("blocks", "surface", "needle"),
    [
        ([{"type": "divider"}] * 51, "message", "51 blocks in a message (max 50)"),
        ([{"type": "divider"}] * 101, "home", "101 blocks in a home (max 100)"),
        ([section("x" * 3001)], "message", "section text longer than 3000"),
        (
            [{"type": "section", "fields": [{"type": "mrkdwn", "text": "x" * 2001}]}],
            "message",
            "field text longer than 2000",
        ),
        ([{"type": "section", "fields": [{"type": "mrkdwn", "text": "f"}] * 11}], "message", "11 section fields"),
        (
            [{"type": "header", "text": {"type": "plain_text", "text": "x" * 151}}],
            "message",
            "header text longer than 150",
        ),
        ([{"type": "actions", "elements": [button(text="x" * 76)]}], "message", "button text longer than 75"),
        ([{"type": "actions", "elements": [button(value="v" * 2001)]}], "message", "button value longer than 2000"),
        (
            [{"type": "actions", "elements": [button(f"a{i}") for i in range(26)]}],
            "message",
            "26 elements in an actions block (max 25)",
        ),
        (
            [{"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * 11}],
            "message",
            "11 elements in a context block (max 10)",
        ),
        ([section(block_id="b" * 256)], "message", "block_id 'bbbbbbbbbbbbbbbbbbbb'... longer than 255"),
        ([{"type": "actions", "elements": [button("a" * 256)]}], "message", "action_id"),
        ([section(block_id="same"), section(block_id="same")], "message", "block_id 'same' used 2 times"),
        (
            [{"type": "actions", "elements": [button("dup")]}, section(accessory=button("dup"))],
            "home",
            "action_id 'dup' used 2 times in one home",
        ),
        ([{"type": "sektion", "text": {"type": "mrkdwn", "text": "x"}}], "message", "unknown block type 'sektion'"),
        ([section(acessory=button())], "message", "unknown key(s) ['acessory']"),
        ([{"type": "section"}], "message", "text or fields attribute must be specified"),
        (
            [
                {
                    "type": "actions",
                    "elements": [{"type": "button", "action_id": "m", "text": {"type": "mrkdwn", "text": "x"}}],
                }
            ],
            "message",
            "button text must be a plain_text object",
        ),
        (
            [
                {
                    "type": "actions",
                    "elements": [
                        {
                            "type": "static_select",
                            "action_id": "s",
                            "placeholder": {"type": "plain_text", "text": "p"},
                            "options": [
                                {"text": {"type": "plain_text", "text": str(i)}, "value": str(i)} for i in range(101)
                            ],
                        }
                    ],
                }
            ],
            "message",
            "101 options (max 100)",
        ),
        (["not a block"], "message", "not a block object"),
        ({"type": "section"}, "message", "blocks must be a list"),
    ],
)
def test_bad_blocks_are_refused(blocks, surface, needle):
    problems = block_kit_problems(blocks, surface)
    assert any(needle in p for p in problems), problems
    with pytest.raises(BlockKitError):
        validate_blocks(blocks, surface=surface)


def test_limits_that_slack_sdk_models_do_not_check_are_ours():
    """slack-sdk accepts 51 blocks and a 2,001-char field; our checks must be the ones refusing."""
    problems = block_kit_problems([{"type": "divider"}] * 51)
    assert problems == ["51 blocks in a message (max 50)"]
    problems = block_kit_problems([{"type": "section", "fields": [{"type": "mrkdwn", "text": "x" * 2001}]}])
    assert problems == ["blocks[0].fields[0]: field text longer than 2000 characters"]


def test_unknown_surface_is_a_programming_error():
    with pytest.raises(ValueError):
        block_kit_problems([], "page")


def test_home_view_passes_and_bad_views_fail():
    validate_view({"type": "home", "blocks": GOOD})
    validate_view({"type": "modal", "title": {"type": "plain_text", "text": "Path"}, "blocks": GOOD})
    with pytest.raises(BlockKitError, match="type must be 'home' or 'modal'"):
        validate_view({"type": "page", "blocks": GOOD})
    with pytest.raises(BlockKitError, match="title"):
        validate_view({"type": "modal", "blocks": GOOD})
    with pytest.raises(BlockKitError, match="101 blocks in a home"):
        validate_view({"type": "home", "blocks": [{"type": "divider"}] * 101})
    with pytest.raises(BlockKitError, match="bytes"):
        validate_view({"type": "home", "blocks": [section("x" * 2900, block_id=f"b{i}") for i in range(90)]})


def test_a_block_checked_again_gets_the_same_answer() -> None:
    """The checker remembers blocks it has seen: a refused block stays refused, at its place."""
    bad = {"type": "header", "text": {"type": "plain_text", "text": "x" * 151}}
    good = {"type": "section", "text": {"type": "mrkdwn", "text": "fine"}}
    first = block_kit_problems([good, bad])
    assert first and all(p.startswith("blocks[1]") for p in first)
    assert block_kit_problems([good, bad]) == first
    assert block_kit_problems([bad])[0].startswith("blocks[0]")
    assert block_kit_problems([good]) == []
