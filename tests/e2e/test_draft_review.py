"""Issue 41: a curator reviews a new post from its card, end to end through the HTTP door: signed
clicks on *Accept* (the review modal opens at the Slack stand-in), a signed ``view_submission`` that
accepts it through the CLI's code (new catalog version, changelog line, the post at the position
given, this process reloaded), *Not for the catalog*, and a polite refusal for anyone else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from bot.domain.catalog import load_catalog
from bot.domain.catalog.drafts import FeedSource, new_drafts, read_drafts, write_draft
from bot.domain.feed import parse_feed
from bot.slack.views.feed import draft_card
from tests.domain.catalog.helpers import catalog_copy
from tests.domain.catalog.test_feed_drafts import CONTENT, NEW_TITLE, atom, entry
from tests.e2e.conftest import e2e_settings
from tests.e2e.helpers import PATIENCE_S, SIGNING_SECRET, USER, FakeSlack
from tests.e2e.slack_requests import signed_post
from tests.standin.blockkit import validate_blocks

OTHER = "U0NOTCURATOR"
QUESTIONS = "How do I train an EAGLE drafter?\nWhat acceptance rate do drafters reach?\nWhich flag turns it on?"


@pytest.fixture
def curated(tmp_path: Path, standin, any_migrated_db_url):
    """A runtime on a copy of the catalog holding two drafts, ``USER`` its one curator, behind the door."""
    from bot.doors.serve import serve_http
    from bot.runtime import Runtime

    root = catalog_copy(tmp_path / "catalog")
    posts, _ = parse_feed(
        atom(
            [
                entry(NEW_TITLE, "https://vllm-project.github.io/2026/12/03/eagle.html", "2026-12-03", "", CONTENT),
                entry("Serving Gemma with vLLM on GKE", "https://example.com/gemma", "2026-12-02", "vLLM on GKE"),
            ]
        )
    )
    feed = FeedSource(name="vLLM blog", url="https://vllm-project.github.io/feed.xml", kind="vllm-blog")
    for draft in new_drafts(posts, feed, load_catalog(root), []):
        write_draft(root, draft)
    settings = e2e_settings(
        tmp_path, standin, database_url=any_migrated_db_url, catalog_dir=root, catalog_curators=USER
    )
    rt = Runtime.create(settings)
    door = serve_http(rt, "127.0.0.1", 0, threads=4, background=True)
    try:
        yield root, rt, door
    finally:
        door.close()
        rt.store.close()


def card(root: Path, title: str) -> dict[str, Any]:
    draft = next(d for d in read_drafts(root) if d.title == title)
    return draft_card(draft, load_catalog(root)).payload()


def submit(slack: FakeSlack, view: dict[str, Any], values: dict[str, dict[str, Any]], user: str = USER):
    """Send the modal's ``view_submission`` (signed) with ``values`` as its state."""
    payload = {
        "type": "view_submission",
        "team": {"id": slack.team, "domain": "e2e"},
        "user": {"id": user, "username": "e2e", "name": "e2e", "team_id": slack.team},
        "api_app_id": "A0CONSOLE",
        "token": "verification-token-unused",
        "trigger_id": "1.2.3",
        "view": {**view, "team_id": slack.team, "state": {"values": values}},
        "is_enterprise_install": False,
        "enterprise": None,
    }
    return signed_post(slack.events_url, urlencode({"payload": json.dumps(payload)}).encode(), SIGNING_SECRET)


def text_of(block: str, value: str) -> dict[str, Any]:
    return {block: {"type": "plain_text_input", "value": value}}


def test_a_curator_accepts_a_draft_from_its_card(curated, standin):
    root, rt, door = curated
    slack = FakeSlack(door.url, standin, rt)
    before = rt.holder.catalog
    message = card(root, NEW_TITLE)
    validate_blocks(message["blocks"])
    assert "Speculative decoding" in json.dumps(message, ensure_ascii=False)

    ack, _ = slack.click(message, "draft_accept:")
    assert ack.status == 200
    opened = standin.wait_for_call("views.open", timeout=PATIENCE_S)
    modal = opened.response["view"]
    assert modal["callback_id"] == "draft_review" and modal["private_metadata"]

    position = len(before.essentials("spec")) + 2
    values = {
        "track": {"track": {"type": "static_select", "selected_option": {"value": "spec"}}},
        "position": {"position": {"type": "number_input", "value": str(position)}},
        "reading": {"reading": {"type": "radio_buttons", "selected_option": {"value": "further"}}},
        "summary": text_of("summary", "Training EAGLE drafters and what they buy."),
        "summary_zh": text_of("summary_zh", "训练 EAGLE 草稿模型及其收益。"),
        "questions": text_of("questions", "Too few questions?"),
        "questions_zh": text_of("questions_zh", "怎么训练？\n接受率多少？"),
    }
    refused = submit(slack, modal, values)  # one question: the check refuses; the modal says why
    assert refused.status == 200 and json.loads(refused.body)["response_action"] == "errors"
    assert load_catalog(root).version == before.version

    values["questions"] = text_of("questions", QUESTIONS)
    done = submit(slack, modal, values)
    assert done.status == 200 and not done.body.strip(), done.text
    after = load_catalog(root)
    draft_id = modal["private_metadata"]
    assert after.version != before.version and after.order("spec").index(draft_id) + 1 == position
    added = after.post(draft_id).added  # the day it entered: "catch me up" lists it
    assert added is not None and f"## {after.version} — {added.isoformat()}" in (root / "CHANGELOG.md").read_text()
    assert rt.holder.catalog.version == after.version  # this process reloaded
    posted = standin.wait_for_call("chat.postMessage", timeout=PATIENCE_S)
    assert posted.args["channel"] == USER and after.version in posted.args["text"]


def test_only_a_curator_may_review_and_reject_drops_the_draft(curated, standin):
    root, rt, door = curated
    message = card(root, "Serving Gemma with vLLM on GKE")
    stranger = FakeSlack(door.url, standin, rt, user=OTHER)
    ack, response_url = stranger.click(message, "draft_accept:")
    assert ack.status == 200
    refusal = standin.wait_for_response(response_url, timeout=PATIENCE_S).body
    assert refusal["response_type"] == "ephemeral" and "curators" in refusal["text"]
    assert not standin.calls("views.open")
    assert len(read_drafts(root)) == 2

    curator = FakeSlack(door.url, standin, rt)
    ack, response_url = curator.click(message, "draft_reject:")
    assert ack.status == 200
    answer = standin.wait_for_response(response_url, timeout=PATIENCE_S).body
    assert "Not for the catalog" in answer["text"]
    # the curator named as a mention Slack shows by name, not as escaped text (QA round 11)
    assert "&lt;@" not in answer["text"] and "<@U" in answer["text"], answer["text"]
    assert [d.title for d in read_drafts(root)] == [NEW_TITLE]
