"""QA round 15: the curator's review modal refuses a position that is no whole number 1 or more
(``abc`` and ``-5`` took the suggested place) under ``position``, and a summary holding Slack markup
(``<!channel>``, ``<@U…>``, ``<https://…|…>``) under ``summary`` (it was written into the catalog):
nothing is written either way."""

from __future__ import annotations

import json

import pytest

from bot.domain.catalog import load_catalog
from tests.domain.catalog.test_feed_drafts import NEW_TITLE
from tests.e2e.helpers import PATIENCE_S, FakeSlack
from tests.e2e.test_draft_review import card, curated, submit, text_of

__all__ = ["curated"]  # the fixture, used by name


def _values(position: str, summary: str = "Training EAGLE drafters and what they buy.") -> dict:
    return {
        "track": {"track": {"type": "static_select", "selected_option": {"value": "spec"}}},
        "position": {"position": {"type": "number_input", "value": position}},
        "reading": {"reading": {"type": "radio_buttons", "selected_option": {"value": "further"}}},
        "summary": text_of("summary", summary),
        "summary_zh": text_of("summary_zh", "训练 EAGLE 草稿模型。"),
        "questions": text_of("questions", "How do I train one?\nWhat does it buy?\nWhich flag?"),
        "questions_zh": text_of("questions_zh", "怎么训练？\n接受率多少？"),
    }


@pytest.mark.parametrize(
    ("position", "summary", "block", "said"),
    [
        ("abc", None, "position", "whole number"),
        ("1.5", None, "position", "whole number"),
        ("-5", None, "position", "Pick a position from 1 to"),
        ("0", None, "position", "Pick a position from 1 to"),
        ("3", "Read this <!channel> now", "summary", "plain text"),
        ("3", "Ask <@U0ALL> or see <https://evil.example|click>", "summary", "plain text"),
    ],
)
def test_a_bad_position_or_a_summary_with_markup_is_refused_under_its_input(
    curated, standin, position: str, summary: str | None, block: str, said: str
) -> None:
    root, rt, door = curated
    version = load_catalog(root).version
    slack = FakeSlack(door.url, standin, rt)
    slack.click(card(root, NEW_TITLE), "draft_accept:")
    modal = standin.wait_for_call("views.open", timeout=PATIENCE_S).response["view"]
    values = _values(position) if summary is None else _values(position, summary)
    answer = submit(slack, modal, values)
    assert answer.status == 200
    body = json.loads(answer.body)
    assert body.get("response_action") == "errors", body
    assert set(body["errors"]) == {block}, body
    assert said in body["errors"][block] and "--" not in body["errors"][block]
    assert load_catalog(root).version == version  # nothing written
