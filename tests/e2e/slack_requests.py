"""Requests in Slack's real formats, and a plain HTTP client to send them.

The builders live in :mod:`tests.standin` (the console sends the same requests); this module
re-exports them for the tests and adds :func:`post` and a few shortcuts.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass

from tests.standin import (
    CONSOLE_CHANNEL_ID,
    CONSOLE_TEAM_ID,
    CONSOLE_USER_ID,
    SLASH_COMMAND,
    app_home_opened_event,
    block_actions_body,
    button_action,
    event_body,
    signed_headers,
    slash_command_body,
)

# Re-exported for the tests that build Slack's requests through this module.
__all__ = [
    "CONSOLE_CHANNEL_ID",
    "CONSOLE_TEAM_ID",
    "CONSOLE_USER_ID",
    "SLASH_COMMAND",
    "HttpResult",
    "app_home_opened_event",
    "block_actions_body",
    "button_action",
    "event_body",
    "get",
    "post",
    "signed_headers",
    "signed_post",
    "slash_command_body",
]


@dataclass(frozen=True)
class HttpResult:
    """An HTTP answer: ``status`` code, ``headers`` (lower-case names), ``body`` bytes."""

    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> object:
        return json.loads(self.body)


def post(url: str, body: bytes, headers: Mapping[str, str] | None = None, timeout: float = 10.0) -> HttpResult:
    """POST ``body`` to ``url`` with ``headers`` via urllib; HTTP errors are returned, not raised.
    ``timeout`` in seconds."""
    req = urllib.request.Request(url, data=body, headers=dict(headers or {}), method="POST")
    return _open(req, timeout)


def get(url: str, timeout: float = 10.0) -> HttpResult:
    """GET ``url``; HTTP errors are returned, not raised."""
    return _open(urllib.request.Request(url, method="GET"), timeout)


def _open(req: urllib.request.Request, timeout: float) -> HttpResult:
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return HttpResult(resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read())
    except urllib.error.HTTPError as err:
        return HttpResult(err.code, {k.lower(): v for k, v in err.headers.items()}, err.read())


def signed_post(
    url: str,
    body: bytes,
    secret: str,
    *,
    json_body: bool = False,
    timestamp: int | None = None,
    headers: Mapping[str, str] | None = None,
) -> HttpResult:
    """POST ``body`` signed with ``secret`` the way Slack signs it (form or JSON content type);
    ``headers`` are added (``X-Slack-Retry-Num`` for a retry)."""
    ctype = "application/json" if json_body else "application/x-www-form-urlencoded"
    return post(url, body, {**signed_headers(body, secret, timestamp, content_type=ctype), **dict(headers or {})})
