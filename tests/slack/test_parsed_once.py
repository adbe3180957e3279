"""A slash command is parsed and run once, whichever listener answers it: the ack's middleware parses
it, and a command that cannot be answered in the ack reaches the lazy listener already parsed
(through Bolt's copy of the request context), where its use case runs once."""

from __future__ import annotations

from collections import Counter

import pytest
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient

from bot.slack import grammar
from bot.slack.app import build_app
from bot.slack.commands import registry
from bot.slack.listeners import commands as listener
from tests.standin import SlackStandIn, slash_command_body
from tests.waits import PATIENCE_S


@pytest.fixture
def standin():
    with SlackStandIn(users={"U1": {}}) as s:
        yield s


def _dispatch(app, standin: SlackStandIn, text: str) -> tuple[int, str, str]:
    url = standin.response_url()
    body = slash_command_body(text, team_id=standin.team_id, user_id="U1", channel_id="C1", response_url=url)
    response = app.dispatch(
        BoltRequest(body=body.decode(), headers={"content-type": ["application/x-www-form-urlencoded"]})
    )
    return response.status, response.body, url


@pytest.mark.parametrize("text", ["follow spec", "speculative"])
def test_a_command_answered_after_the_ack_is_parsed_and_run_once(runtime, standin, monkeypatch, text):
    parsed: list[str] = []
    ran: Counter[str] = Counter()

    def counting_parse(typed: str) -> grammar.Command:
        parsed.append(typed)
        return grammar.parse(typed)

    monkeypatch.setattr(listener, "parse", counting_parse)
    for kind, fn in list(registry.COMMANDS.items()):

        def counted(ctx, cmd, fn=fn, kind=kind):
            ran[kind] += 1
            return fn(ctx, cmd)

        monkeypatch.setitem(registry.COMMANDS, kind, counted)

    app = build_app(runtime, client=WebClient(token="xoxb-test", base_url=standin.api_url), verify_requests=False)
    status, body, url = _dispatch(app, standin, text)  # a first command: users.info not remembered
    assert status == 200 and body == ""  # answered after the ack
    reply = standin.wait_for_response(url, timeout=PATIENCE_S)
    assert not reply.ack and reply.body["blocks"]
    kind = grammar.parse(text).kind
    assert parsed == [text] and ran == Counter({kind: 1})
    if kind == "follow":
        assert runtime.store.follows(standin.team_id, "U1") == ["spec"]

    parsed.clear()
    ran.clear()
    status, body, url = _dispatch(app, standin, text)  # remembered now
    if kind == "query":  # a reading command of a remembered person: the reply is the ack
        assert '"blocks"' in body
    else:
        assert body == "" and standin.wait_for_response(url, timeout=PATIENCE_S).body["text"]
    assert parsed == [text] and ran == Counter({kind: 1})
