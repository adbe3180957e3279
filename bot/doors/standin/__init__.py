"""A local stand-in for Slack, used by the console, the tests and the benchmarks, following
Slack's Web API reference (https://docs.slack.dev/reference/methods).

:class:`SlackStandIn` (:mod:`~bot.doors.standin.server`) serves the Web API methods the app calls
and response URLs on loopback, recording both (:class:`ApiCall`, :class:`ResponsePost`; tokens
only as a fingerprint), injects Slack's failures (:class:`~bot.doors.standin.records.Faults`) and
refuses what Slack refuses: no token, an unknown method, a missing scope, blocks or a view
:mod:`bot.slack.blockkit` refuses, a message without text or with too long a text
(:mod:`~bot.doors.standin.refusals`). :mod:`~bot.doors.standin.requests` builds Slack's requests to
an app byte for byte, so that the console and the tests drive Bolt's real parsing."""

from __future__ import annotations

from bot.doors.standin.ids import (
    CONSOLE_CHANNEL_ID,
    CONSOLE_CHANNEL_NAME,
    CONSOLE_TEAM_ID,
    CONSOLE_USER_ID,
    SLASH_COMMAND,
)
from bot.doors.standin.records import ApiCall, ResponsePost
from bot.doors.standin.requests import (
    app_home_opened_event,
    block_actions_body,
    button_action,
    event_body,
    link_shared_event,
    signed_headers,
    slash_command_body,
)
from bot.doors.standin.server import SlackStandIn
