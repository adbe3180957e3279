"""A local stand-in for Slack: the Web API and response URLs on loopback, plus Slack's requests.

The one stand-in: the console, the tests and the benchmarks all use it. Both halves follow what
Slack does (Slack's Web API reference, https://docs.slack.dev/reference/methods):

* :class:`SlackStandIn` serves on ``127.0.0.1`` the Web API methods the app calls with Slack's
  ``ok`` bodies and accepts posts to response URLs, recording both (:class:`ApiCall`,
  :class:`ResponsePost`: tokens are never stored, only a fingerprint); it injects Slack's failure
  modes (:class:`~bot.doors.standin.records.Faults`). It refuses what Slack refuses: no token, an
  unknown method, a scope the token lacks (:mod:`bot.slack.scopes`), blocks or a view
  :mod:`bot.slack.blockkit` refuses, a message without text or with too long a text
  (:mod:`~bot.doors.standin.refusals`; a response URL answers 400 ``invalid_blocks``).
* :func:`slash_command_body`, :func:`block_actions_body`, :func:`event_body` and
  :func:`signed_headers` build Slack's requests to an app byte for byte, so that the console and
  the end-to-end tests drive the real Bolt parsing.

Modules: :mod:`~bot.doors.standin.server` (the workspace; it names the others),
:mod:`~bot.doors.standin.requests` (Slack's requests to an app), :mod:`~bot.doors.standin.ids`
(the console's workspace, user and channel).
"""

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
