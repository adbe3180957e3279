"""A local stand-in for Slack, used by the tests, the benchmarks and ``vllm-path console --strict``, following
Slack's Web API reference (https://docs.slack.dev/reference/methods).

:class:`SlackStandIn` (:mod:`~tests.standin.server`) serves the Web API methods the app calls
and response URLs on loopback, recording both (:class:`ApiCall`, :class:`ResponsePost`; tokens
only as a fingerprint), injects Slack's failures (:class:`~tests.standin.records.Faults`) and
refuses what Slack refuses: no token, an unknown method, a missing scope, blocks or a view
:mod:`tests.standin.blockkit` refuses, a message without text or with too long a text
(:mod:`~tests.standin.refusals`). :mod:`~tests.standin.requests` builds Slack's requests to
an app byte for byte, so that the console and the tests drive Bolt's real parsing."""

from __future__ import annotations

from tests.standin.ids import (
    CONSOLE_CHANNEL_ID,
    CONSOLE_CHANNEL_NAME,
    CONSOLE_TEAM_ID,
    CONSOLE_USER_ID,
    SLASH_COMMAND,
)
from tests.standin.records import ApiCall, ResponsePost
from tests.standin.requests import (
    app_home_opened_event,
    block_actions_body,
    button_action,
    event_body,
    link_shared_event,
    signed_headers,
    slash_command_body,
)
from tests.standin.server import SlackStandIn

__all__ = [
    "CONSOLE_CHANNEL_ID",
    "CONSOLE_CHANNEL_NAME",
    "CONSOLE_TEAM_ID",
    "CONSOLE_USER_ID",
    "SLASH_COMMAND",
    "ApiCall",
    "ResponsePost",
    "SlackStandIn",
    "app_home_opened_event",
    "block_actions_body",
    "button_action",
    "event_body",
    "link_shared_event",
    "signed_headers",
    "slash_command_body",
]
