"""Slack's requests to an app, byte for byte (the console's builders) and their signatures."""

from __future__ import annotations

import time

from bot.doors.console.slack import (  # noqa: F401  (re-exported: the tests build Slack's requests with them)
    app_home_opened_event,
    block_actions_body,
    button_action,
    event_body,
    link_shared_event,
    slash_command_body,
)


def signed_headers(
    body: bytes, secret: str, timestamp: int | None = None, content_type: str = "application/x-www-form-urlencoded"
) -> dict[str, str]:
    """Slack's headers for ``body``: ``Content-Type``, ``X-Slack-Request-Timestamp`` (epoch seconds,
    default now), ``X-Slack-Signature`` (v0 HMAC-SHA256, by slack-sdk's ``SignatureVerifier``)."""
    from slack_sdk.signature import SignatureVerifier

    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    assert signature is not None  # slack-sdk returns None only for a None timestamp or body
    return {"Content-Type": content_type, "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": signature}
