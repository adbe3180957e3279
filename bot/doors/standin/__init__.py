"""A local stand-in for Slack: the Web API and response URLs on loopback, plus Slack's requests.

The one stand-in: the console, the tests and the benchmarks all use this module. Two halves,
both modelled on what Slack really does (Slack's Web API reference, https://docs.slack.dev/reference/methods):

* :class:`SlackStandIn` is an HTTP server on ``127.0.0.1`` that answers the Web API methods the
  app calls (``chat.postMessage``, ``views.publish``, ``conversations.history``, ...) with
  plausible ``ok`` bodies and accepts posts to response URLs. It records every call so that the
  console can print what the app sent and tests can assert on it, and it can inject Slack's
  failure modes (429 with ``Retry-After``, per-channel and per-workspace ``chat.postMessage`` rate
  limits, error codes with HTTP 200, latency, HTTP 500).
* It is as strict as Slack where the app could get it wrong: no token, an unknown method, a
  scope the token lacks (:mod:`bot.slack.scopes`), blocks or a view :mod:`bot.slack.blockkit`
  refuses, a message without text or with too long a text get Slack's error codes
  (:mod:`~bot.doors.standin.refusals`; a response URL answers 400 ``invalid_blocks``).
* :func:`slash_command_body`, :func:`block_actions_body`, :func:`event_body` and
  :func:`signed_headers` build the requests Slack sends to an app, byte for byte in Slack's
  formats, so that the console and the end-to-end tests drive the real Bolt parsing.

Tokens are never stored: a call records only whether an ``Authorization`` header was present and
a short fingerprint (first 8 hex digits of its SHA-256), enough to tell workspaces apart.

Modules: :mod:`~bot.doors.standin.server` (the workspace; it names the others),
:mod:`~bot.doors.standin.requests` (Slack's requests to an app), :mod:`~bot.doors.standin.ids`
(the console's workspace, user and channel). What its users need is importable from this package.
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
