"""QA round 14: the curator's review modal says each refusal of the catalog under the input it is
about, in Slack's terms: a bilingual track's missing Chinese summary under ``summary_zh`` (not
the English ``summary``), a track the list does not have under ``track`` without the command
line's ``--track``."""

from __future__ import annotations

import json

from tests.domain.catalog.test_feed_drafts import NEW_TITLE
from tests.e2e.helpers import PATIENCE_S, FakeSlack
from tests.e2e.test_draft_review import card, curated, submit, text_of

__all__ = ["curated"]  # the fixture, used by name


def _values(track: str, summary_zh: str) -> dict:
    return {
        "track": {"track": {"type": "static_select", "selected_option": {"value": track}}},
        "reading": {"reading": {"type": "radio_buttons", "selected_option": {"value": "further"}}},
        "summary": text_of("summary", "Training EAGLE drafters and what they buy."),
        "summary_zh": text_of("summary_zh", summary_zh),
        "questions": text_of("questions", "How do I train one?\nWhat does it buy?\nWhich flag?"),
        "questions_zh": text_of("questions_zh", "怎么训练？\n接受率多少？"),
    }


def _errors(slack: FakeSlack, modal: dict, values: dict) -> dict[str, str]:
    answer = submit(slack, modal, values)
    assert answer.status == 200
    body = json.loads(answer.body)
    assert body["response_action"] == "errors", body
    return body["errors"]


def test_review_refusals_are_under_their_inputs_in_slack_terms(curated, standin):
    root, rt, door = curated
    slack = FakeSlack(door.url, standin, rt)
    slack.click(card(root, NEW_TITLE), "draft_accept:")
    modal = standin.wait_for_call("views.open", timeout=PATIENCE_S).response["view"]
    blocks = {b.get("block_id") for b in modal["blocks"]}
    assert {"summary", "summary_zh", "track"} <= blocks

    errors = _errors(slack, modal, _values("spec", ""))  # spec is bilingual
    assert set(errors) == {"summary_zh"}, errors
    assert "Chinese summary" in errors["summary_zh"]

    errors = _errors(slack, modal, _values("zzz", "训练 EAGLE 草稿模型。"))
    assert set(errors) == {"track"}, errors
    assert errors["track"] == "Pick a track from the list."
    assert "--" not in json.dumps(errors)
