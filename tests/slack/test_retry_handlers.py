"""The Bolt app's retry handlers are shared by Bolt's per-request copies of the context."""

from __future__ import annotations

import copy
import threading

from slack_bolt import App, BoltContext
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)

from bot.slack.retry import CountingRateLimitRetryHandler, app_retry_handlers
from tests.standin import SlackStandIn, slash_command_body


def test_the_app_handlers_are_slack_sdks_and_a_copy_is_the_handler_itself() -> None:
    handlers = app_retry_handlers()
    kinds = (CountingRateLimitRetryHandler, ServerErrorRetryHandler, ConnectionErrorRetryHandler)
    assert [isinstance(h, k) for h, k in zip(handlers, kinds, strict=True)] == [True] * 3
    assert isinstance(handlers[0], RateLimitErrorRetryHandler)
    assert [h.max_retry_count for h in handlers] == [3, 2, 2]
    assert all(copy.deepcopy(h) is h and copy.copy(h) is h for h in handlers)
    assert app_retry_handlers()[0] is not handlers[0]  # new objects per call
    client = WebClient(token="xoxb-test", retry_handlers=handlers)
    copied = copy.deepcopy(client)
    assert copied is not client and copied.headers is not client.headers
    assert all(a is b for a, b in zip(copied.retry_handlers, handlers, strict=True))


def test_a_lazy_listener_gets_the_same_handlers_through_bolts_copy() -> None:
    handlers = app_retry_handlers()
    with SlackStandIn() as standin:  # Bolt's authorization asks auth.test on the first request
        _dispatch_and_check(standin, handlers)


def _dispatch_and_check(standin: SlackStandIn, handlers: list) -> None:
    app = App(
        client=WebClient(token="xoxb-test", base_url=standin.api_url, retry_handlers=handlers),
        signing_secret="s",
        request_verification_enabled=False,
        token_verification_enabled=False,
    )
    seen: list[BoltContext] = []
    done = threading.Event()

    def lazy(context: BoltContext) -> None:
        seen.append(context)
        done.set()

    app.command("/vllm-path")(ack=lambda ack: ack(), lazy=[lazy])
    response = app.dispatch(
        BoltRequest(
            body=slash_command_body("help").decode(), headers={"content-type": ["application/x-www-form-urlencoded"]}
        )
    )
    assert response.status == 200
    assert done.wait(10)
    lazy_handlers = seen[0].client.retry_handlers
    assert len(lazy_handlers) == 3 and all(a is b for a, b in zip(lazy_handlers, handlers, strict=True))
