"""``/vllm-path next <track>`` is one of the kept answers' kinds (issue 43, ``benchmarks/clicks.py``:
``next`` at 2.0-2.1x the no-op's in-process CPU without it): a repeated ``next`` of a person whose
reading state did not change is the kept answer, the same as a fresh one; after a read it is made
anew. On SQLite, where the store keeps reader states; on PostgreSQL nothing is kept."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient

from bot.slack.app import build_app
from bot.slack.commands import registry
from tests.standin import SlackStandIn, slash_command_body
from tests.waits import PATIENCE_S


@pytest.fixture
def standin():
    with SlackStandIn(users={"U1": {}, "U2": {}}) as s:
        yield s


def _ack(app: Any, standin: SlackStandIn, text: str, user: str = "U1") -> dict[str, Any] | None:
    """The reply carried by the ack, else None (answered at the response URL, waited for)."""
    url = standin.response_url()
    body = slash_command_body(text, team_id=standin.team_id, user_id=user, channel_id="C1", response_url=url)
    response = app.dispatch(
        BoltRequest(body=body.decode(), headers={"content-type": ["application/x-www-form-urlencoded"]})
    )
    assert response.status == 200
    if response.body:
        reply: dict[str, Any] = json.loads(response.body)
        return reply
    standin.wait_for_response(url, timeout=PATIENCE_S)
    return None


def test_a_repeated_next_is_the_kept_answer_until_the_person_reads(runtime, standin, monkeypatch) -> None:
    ran: Counter[str] = Counter()
    real = registry.COMMANDS["next"]

    def counted(ctx, cmd):
        ran["next"] += 1
        return real(ctx, cmd)

    monkeypatch.setitem(registry.COMMANDS, "next", counted)
    sqlite = runtime.settings.database_url.startswith("sqlite")
    app = build_app(runtime, client=WebClient(token="xoxb-test", base_url=standin.api_url), verify_requests=False)
    team, store = standin.team_id, runtime.store
    for user in ("U1", "U2"):
        store.follow(team, user, "pd")
        _ack(app, standin, "help", user)  # their users.info remembered: answers go in the ack
    ran.clear()

    first = _ack(app, standin, "next pd")
    assert first is not None and _ack(app, standin, "next pd") == first  # made, and kept once its state is
    ran.clear()
    assert _ack(app, standin, "next pd") == first
    assert _ack(app, standin, "next pd", user="U2") == first  # the same state: the same answer
    assert _ack(app, standin, "next pd", user="U2") == first
    assert ran["next"] == (0 if sqlite else 3)

    step = runtime.holder.catalog.track("pd").steps[0].post
    store.mark_read(team, "U1", [step])  # the kept state carried over the write: a new state object
    ran.clear()
    after = _ack(app, standin, "next pd")
    assert after is not None and after != first  # made anew: the next read moved on
    assert _ack(app, standin, "next pd") == after
    assert ran["next"] == (1 if sqlite else 2)
    assert _ack(app, standin, "next pd", user="U2") == first  # the other person's place still holds
