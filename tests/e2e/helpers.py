"""Playing Slack against the HTTP door: signed requests in, replies collected at the stand-in."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from tests.e2e.slack_requests import (
    HttpResult,
    app_home_opened_event,
    block_actions_body,
    button_action,
    event_body,
    signed_post,
    slash_command_body,
)
from tests.standin import ResponsePost, SlackStandIn
from tests.waits import PATIENCE_S

SIGNING_SECRET = "e2e-fake-signing-secret-0123456789"
BOT_TOKEN = "xoxb-e2e-fake-bot-token"
TEAM = "T0E2E"
USER = "U0E2E"
CHANNEL = "C0E2E"
OWNER_BYSTANDER_ADMIN = {
    "U0E2E": {"real_name": "Ana Lima", "display_name": "Ana"},
    "U0BOB": {"real_name": "Bob Stone", "display_name": "Bob"},
    "U0ADM": {"real_name": "Admin Person", "display_name": "Ada", "is_admin": True},
}
"""The people of a channel's digest tests: who sets it up (``USER``), someone else, a workspace admin."""


def ack_shown(standin: SlackStandIn, result: HttpResult, response_url: str) -> HttpResult:
    """Slack's side of a slash command's HTTP answer ``result``: a body that carries a message
    is shown as the reply (recorded at ``response_url``, as the stand-in records response-URL
    posts). Returns ``result``."""
    if result.status == 200 and result.body.strip():
        standin.answer_ack(response_url, result.body)
    return result


def iter_elements(blocks: list[Mapping[str, Any]]) -> Iterator[tuple[dict, str]]:
    """Every interactive element in ``blocks`` with its block id (accessories and actions)."""
    for block in blocks or []:
        block_id = block.get("block_id", "")
        if isinstance(block.get("accessory"), Mapping):
            yield dict(block["accessory"]), block_id
        for el in block.get("elements") or []:
            if isinstance(el, Mapping) and el.get("action_id"):
                yield dict(el), block_id


def find_button(blocks: list[Mapping[str, Any]], prefix: str) -> tuple[dict, str]:
    """The first button whose ``action_id`` starts with ``prefix``; raises ``LookupError``."""
    for el, block_id in iter_elements(blocks):
        if el.get("type") == "button" and str(el.get("action_id", "")).startswith(prefix):
            return el, block_id
    ids = [el.get("action_id") for el, _ in iter_elements(blocks)]
    raise LookupError(f"no button {prefix!r}… among {ids}")


def block_texts(blocks: list[Mapping[str, Any]]) -> str:
    """All text in ``blocks`` joined (section/header/context texts, fields, button labels)."""
    return json.dumps(blocks, ensure_ascii=False)


@dataclass
class FakeSlack:
    """Sends Slack's signed requests to ``url`` (the door) and waits for replies at ``standin``."""

    url: str
    standin: SlackStandIn
    runtime: Any
    secret: str = SIGNING_SECRET
    team: str = TEAM
    user: str = USER
    channel: str = CHANNEL

    @property
    def events_url(self) -> str:
        return self.url + "/slack/events"

    def command(self, text: str, *, user: str | None = None) -> tuple[HttpResult, str]:
        """Send ``/vllm-path text``; returns the HTTP answer (the ack) and the response URL used.
        An ack that carries the reply is handed to the stand-in as Slack does
        (:meth:`~tests.standin.SlackStandIn.answer_ack`), so the reply is waited for the same
        way either way."""
        response_url = self.standin.response_url()
        body = slash_command_body(
            text,
            user_id=user or self.user,
            team_id=self.team,
            channel_id=self.channel,
            channel_name="e2e",
            response_url=response_url,
        )
        result = signed_post(self.events_url, body, self.secret)
        return ack_shown(self.standin, result, response_url), response_url

    def ask(self, text: str, *, timeout: float = PATIENCE_S) -> ResponsePost:
        """Send a command and wait for its reply at the response URL."""
        result, response_url = self.command(text)
        assert result.status == 200, (result.status, result.text)
        return self.standin.wait_for_response(response_url, timeout=timeout)

    def click(self, message: Mapping[str, Any], prefix: str, *, ephemeral: bool = True) -> tuple[HttpResult, str]:
        """Click the first button ``prefix…`` in ``message`` (a reply body); returns the HTTP
        answer and the fresh response URL Slack attached to the click."""
        element, block_id = find_button(message.get("blocks") or [], prefix)
        response_url = self.standin.response_url()
        body = block_actions_body(
            button_action(element, block_id),
            message_ts="1700000000.000100",
            message=None if ephemeral else dict(message),
            is_ephemeral=ephemeral,
            response_url=response_url,
            user_id=self.user,
            team_id=self.team,
            channel_id=self.channel,
            channel_name="e2e",
        )
        return signed_post(self.events_url, body, self.secret), response_url

    def click_in_view(self, view: Mapping[str, Any], prefix: str) -> HttpResult:
        """Click the first button ``prefix…`` in a published view (App Home)."""
        element, block_id = find_button(view.get("blocks") or [], prefix)
        body = block_actions_body(button_action(element, block_id), view=view, user_id=self.user, team_id=self.team)
        return signed_post(self.events_url, body, self.secret)

    def event(
        self, event: Mapping[str, Any], *, event_id: str | None = None, retry_num: int | None = None
    ) -> HttpResult:
        """Deliver an Events API event (signed JSON); ``retry_num`` sends it as Slack's retry
        (``X-Slack-Retry-Num``, ``X-Slack-Retry-Reason: http_timeout``)."""
        body = event_body(event, team_id=self.team, event_id=event_id)
        headers = (
            {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"}
            if retry_num is not None
            else None
        )
        return signed_post(self.events_url, body, self.secret, json_body=True, headers=headers)

    def open_home(self, *, user: str | None = None, event_id: str | None = None) -> HttpResult:
        """Deliver ``app_home_opened`` for ``user`` (default the test user)."""
        return self.event(app_home_opened_event(user or self.user), event_id=event_id)


@contextmanager
def zoned_standin(zone: str) -> Iterator[SlackStandIn]:
    """The stand-in Slack with the test's channel (the app a member) and its user in time zone ``zone``."""
    channel = {"id": CHANNEL, "name": "e2e", "is_channel": True, "is_private": False, "is_member": True}
    with SlackStandIn(team_id=TEAM, channels=[channel], users={USER: {"tz": zone}}) as s:
        yield s


def zoned_standin_fixture(zone: str) -> Any:
    """A ``standin`` fixture for a test module: :func:`zoned_standin` in time zone ``zone``
    (``standin = zoned_standin_fixture("Asia/Shanghai")`` replaces the e2e conftest's)."""

    @pytest.fixture
    def standin() -> Iterator[SlackStandIn]:
        with zoned_standin(zone) as s:
            yield s

    return standin


def reply_text(slack: Any, words: str) -> str:
    """The reply to ``/vllm-path words`` (``slack``: the e2e door's driver) as one string: its
    fallback text and its blocks."""
    body = slack.ask(words).body
    return str(body.get("text", "")) + "\n" + block_texts(body.get("blocks") or [])
