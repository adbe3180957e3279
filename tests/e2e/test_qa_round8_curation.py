"""QA round 8: the review modal through the HTTP door (signed clicks and ``view_submission``s, the
Slack stand-in). It asks for the discussion prompt an essential step needs, so an essential step
can be accepted; each error sits under its own input, in the curator's language; the confirmation
names the track as the curator reads it, not its id."""

from __future__ import annotations

import json

from bot.domain.catalog import load_catalog
from tests.domain.catalog.test_feed_drafts import NEW_TITLE
from tests.e2e.helpers import PATIENCE_S, USER, FakeSlack
from tests.e2e.test_draft_review import QUESTIONS, card, curated, submit, text_of

__all__ = ["curated"]  # the fixture, shared with the issue 41 tests

TRACK = "apis"  # a bilingual track with room for one more essential step
QUESTIONS_ZH = "怎么训练 EAGLE 草稿模型？\n接受率多少？"


def _values(position: int, reading: str, questions: str, **texts: str) -> dict:
    values = {
        "track": {"track": {"type": "static_select", "selected_option": {"value": TRACK}}},
        "position": {"position": {"type": "number_input", "value": str(position)}},
        "reading": {"reading": {"type": "radio_buttons", "selected_option": {"value": reading}}},
        "summary": text_of("summary", "Training EAGLE drafters and what they buy."),
        "summary_zh": text_of("summary_zh", "训练 EAGLE 草稿模型及其收益。"),
        "questions": text_of("questions", questions),
        "questions_zh": text_of("questions_zh", QUESTIONS_ZH),
        "prompt": text_of("prompt", ""),
        "prompt_zh": text_of("prompt_zh", ""),
    }
    for block, value in texts.items():
        values[block] = text_of(block, value)
    return values


def test_an_essential_step_is_accepted_with_its_prompt_and_errors_sit_under_their_inputs(curated, standin):
    root, rt, door = curated
    slack = FakeSlack(door.url, standin, rt)
    rt.store.set_lang(slack.team, USER, "zh")
    before = rt.holder.catalog
    ack, _ = slack.click(card(root, NEW_TITLE), "draft_accept:")
    assert ack.status == 200
    modal = standin.wait_for_call("views.open", timeout=PATIENCE_S).response["view"]
    blocks = {b.get("block_id") for b in modal["blocks"]}
    assert {"prompt", "prompt_zh"} <= blocks

    position = len(before.essentials(TRACK))  # among the essential steps
    refused = submit(slack, modal, _values(position, "essential", "Too few questions?"))
    body = json.loads(refused.body)
    assert body["response_action"] == "errors"
    errors = body["errors"]
    assert set(errors) == {"questions", "prompt", "prompt_zh"}, errors  # each under its own input
    assert "核心步骤需要讨论问题" in errors["prompt"] and "每行一个" in errors["questions"]
    assert load_catalog(root).version == before.version

    prompt = "Where would a drafter pay off in your own serving stack?"
    prompt_zh = "在你们的推理服务中，草稿模型在哪里最划算？"
    values = _values(position, "essential", QUESTIONS, prompt=prompt, prompt_zh=prompt_zh)
    done = submit(slack, modal, values)
    assert done.status == 200 and not done.body.strip(), done.text
    after = load_catalog(root)
    draft_id = modal["private_metadata"]
    assert after.step(TRACK, draft_id).essential and after.order(TRACK).index(draft_id) + 1 == position
    told = standin.wait_for_call("chat.postMessage", timeout=PATIENCE_S)
    name = after.track(TRACK).names.get("zh")
    assert name in told.args["text"] and f"：{TRACK}，" not in told.args["text"], told.args["text"]
