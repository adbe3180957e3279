"""A *Mark read* click's change is written with its hold, before the ack
(:func:`bot.slack.listeners.actions.mark_read_effect`), and its answer is the one the use case gives
when it writes the change itself; the legacy ``token`` is cut out of a held body without parsing it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode

import pytest
from slack_bolt import BoltRequest
from slack_sdk import WebClient

from bot.slack.app import build_app
from bot.slack.handlers import Caller
from bot.slack.held import _cut_token, _without_token
from bot.slack.views.blocks import encode_value
from tests.standin import SlackStandIn, block_actions_body
from tests.waits import PATIENCE_S

EVER = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))


class Later(Executor):
    """Keeps every submitted job until :meth:`run_all`."""

    def __init__(self) -> None:
        self.jobs: list[Callable[[], Any]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.jobs.append(lambda: fn(*args, **kwargs))
        return Future()

    def run_all(self) -> None:
        jobs, self.jobs = self.jobs, []
        for job in jobs:
            job()


@contextmanager
def _clicking(runtime) -> Iterator[tuple[Any, SlackStandIn, Later]]:
    """``(app, standin, executor)``: the real Bolt app on ``runtime`` against a stand-in, its
    listener executor held until ``run_all`` (the follow-ups run when the test says)."""
    executor = Later()
    with SlackStandIn() as standin:
        client = WebClient(token="xoxb-test", base_url=standin.api_url)
        yield build_app(runtime, client=client, verify_requests=False, listener_executor=executor), standin, executor


def _click(team: str, user: str, post: str, url: str, view: str = "next") -> BoltRequest:
    value = {"p": post, "t": "pd", "v": view}
    action = {
        "type": "button",
        "block_id": "b1",
        "action_id": "mark_read:0",
        "text": {"type": "plain_text", "text": "Mark read"},
        "value": encode_value(value),
    }
    body = block_actions_body(action, message_ts="1700000000.000100", response_url=url, user_id=user, team_id=team)
    return BoltRequest(body=body.decode(), headers={"content-type": "application/x-www-form-urlencoded"})


@pytest.mark.parametrize("view", ["next", "track:pd"])
def test_a_click_written_with_its_hold_answers_as_the_use_case_writing_it_does(runtime, view: str) -> None:
    with _clicking(runtime) as (app, standin, executor):
        team, store = standin.team_id, runtime.store
        post = runtime.holder.catalog.track("pd").steps[1].post
        for user in ("U0HELD", "U0PLAIN"):  # two people in the same state
            store.follow(team, user, "pd")
            store.mark_read(team, user, [runtime.holder.catalog.track("pd").steps[0].post])
        url = standin.response_url()

        assert app.dispatch(_click(team, "U0HELD", post, url, view)).status == 200
        assert post in store.read_posts(team, "U0HELD")  # written before the ack
        executor.run_all()
        held = standin.wait_for_response(url, timeout=PATIENCE_S).body

        # the same click's use case, writing the change itself (no hold: as before, or a replay)
        caller = Caller(team_id=team, user_id="U0PLAIN", channel_id="C0CONSOLE")
        reply = app.handlers.action(caller, "mark_read", {"p": post, "t": "pd", "v": view}, "Mark read")
        assert reply is not None and post in store.read_posts(team, "U0PLAIN")
        assert {k: v for k, v in held.items() if k != "replace_original"} == json.loads(json.dumps(reply.payload()))
        assert "Marked read" in json.dumps(held)


def test_a_click_on_a_post_read_before_writes_nothing_with_its_hold_and_says_so(runtime) -> None:
    with _clicking(runtime) as (app, standin, executor):
        team, store = standin.team_id, runtime.store
        post = runtime.holder.catalog.track("pd").steps[0].post
        store.follow(team, "U0AGAIN", "pd")
        store.mark_read(team, "U0AGAIN", [post])
        url = standin.response_url()
        assert app.dispatch(_click(team, "U0AGAIN", post, url)).status == 200
        assert len(store.held_requests(*EVER)) == 1  # held all the same
        executor.run_all()
        assert "Already read" in json.dumps(standin.wait_for_response(url, timeout=PATIENCE_S).body)


def test_a_click_on_a_post_gone_from_the_catalog_writes_nothing(runtime) -> None:
    with _clicking(runtime) as (app, standin, executor):
        team, store = standin.team_id, runtime.store
        url = standin.response_url()
        assert app.dispatch(_click(team, "U0GONE", "a-post-dropped-long-ago", url)).status == 200
        executor.run_all()
        assert store.read_posts(team, "U0GONE") == set()
        standin.wait_for_response(url, timeout=PATIENCE_S)  # answered (outdated)


def _payload(members: dict[str, Any], separators: tuple[str, str]) -> str:
    return urlencode({"payload": json.dumps(members, separators=separators)})


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
@pytest.mark.parametrize(
    "members",
    [
        {"type": "block_actions", "token": "abc123", "user": {"id": "U1"}},
        {"token": "abc123", "a": 1},
        {"a": "a token b", "token": "abc123"},
        {"token": "abc123"},
        {"a": {"token": "abc123"}, "token": "abc123"},  # two: parsed
    ],
)
def test_the_token_cut_out_of_a_payload_leaves_what_parsing_leaves(
    members: dict[str, Any], separators: tuple[str, str]
) -> None:
    body = _payload(members, separators)
    cut = _without_token(body, "application/x-www-form-urlencoded", "abc123")
    parsed = _without_token(body, "application/x-www-form-urlencoded")
    assert json.loads(dict(parse_qsl(cut))["payload"]) == json.loads(dict(parse_qsl(parsed))["payload"])
    assert "abc123" not in json.dumps(json.loads(dict(parse_qsl(cut))["payload"])) or "a" in members


def test_a_verbatim_cut_is_made_only_where_it_is_sure() -> None:
    assert _cut_token(_payload({"type": "x", "token": "abc123"}, (",", ":")), "abc123") is not None
    assert _cut_token(_payload({"token": "abc123"}, (",", ":")), "abc123") is None  # the only member: parsed
    assert _cut_token(_payload({"type": "x", "token": "abc123"}, (",", ":")), "abc12") is None  # another value
    assert _cut_token(_payload({"type": "token", "token": "abc123"}, (",", ":")), "abc123") is None  # two "token"s
    assert _cut_token(_payload({"type": "x", "token": "a%b"}, (",", ":")), "a%b") is None  # not a plain token


@pytest.mark.parametrize(
    "fields",
    [
        {"token": "abc123", "text": "hi"},
        {"a": "1", "token": "abc123", "b": "2"},
        {"a": "1", "token": "abc123"},
        {"a": "1", "token": "abc1234"},
        {"text": "token=abc123&", "token": "abc123"},
    ],
)
def test_the_token_cut_out_of_a_form_leaves_what_parsing_leaves(fields: dict[str, str]) -> None:
    body = urlencode(fields)
    cut = _without_token(body, "application/x-www-form-urlencoded", "abc123")
    assert dict(parse_qsl(cut)) == {k: v for k, v in fields.items() if k != "token"}


def test_a_click_dispatched_again_writes_its_change_itself(runtime) -> None:
    """A request held already (answered again, or dispatched twice) carries no change from before."""
    with _clicking(runtime) as (app, standin, executor):
        team, store = standin.team_id, runtime.store
        post = runtime.holder.catalog.track("pd").steps[0].post
        url = standin.response_url()
        request = _click(team, "U0TWICE", post, url)
        assert app.dispatch(request).status == 200
        executor.run_all()
        store.mark_unread(team, "U0TWICE", [post])
        assert app.dispatch(request).status == 200  # its context says it is held: no hold, no change written
        executor.run_all()
        assert post in store.read_posts(team, "U0TWICE")  # written by the use case itself
