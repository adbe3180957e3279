"""What the HTTP door refuses before Bolt reads ``POST /slack/events``, without a traceback: a body
over :data:`MAX_BODY_BYTES` gets 413 before a byte is read (waitress refuses chunked ones alike); a
bad signature 401, the body neither parsed nor logged; a signed body Slack would never send (not
UTF-8, JSON that is not an object, a ``payload`` that is not a JSON object) 400. It also tells the
door which signed bodies Bolt has no listener for: Slack's ``app_rate_limited`` notice
(:func:`rate_limited_notice`) and a slash command without ``response_url``
(:func:`command_without_response_url`)."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from bot.slack.signing import SignedRequestVerification

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1024 * 1024
"""Largest body accepted at ``/slack/events``, in bytes (1 MiB; Slack's are kB, a modal's 100s of kB)."""
MAX_JSON_DEPTH = 64
"""Deepest nesting of JSON a signed body may have; Slack's payloads stay under 20 levels."""


@dataclass(frozen=True)
class Refusal:
    """An answer given instead of Bolt's: HTTP ``status`` (400, 401 or 413) and the body's ``error``."""

    status: int
    error: str

    @property
    def status_line(self) -> str:
        """``"401 Unauthorized"`` and the like, for WSGI's ``start_response``."""
        return {400: "400 Bad Request", 401: "401 Unauthorized", 413: "413 Payload Too Large"}[self.status]

    @property
    def body(self) -> bytes:
        """``{"error": "<word>"}`` as UTF-8 bytes."""
        return json.dumps({"error": self.error}).encode()


def body_length(content_length: str | None) -> int:
    """A declared ``Content-Length`` (a header value, or None) in bytes; 0 when absent or unreadable."""
    try:
        return int(content_length or 0)
    except ValueError:
        return 0


def check(
    raw: bytes, content_type: str, timestamp: str | None, signature: str | None, verifier: SignedRequestVerification
) -> Refusal | None:
    """None when Bolt may have the request, else the :class:`Refusal`. ``raw``: the body as
    received; ``timestamp`` / ``signature``: ``X-Slack-Request-Timestamp`` / ``X-Slack-Signature``."""
    why = verifier.problem(raw, timestamp, signature)
    if why is not None:
        log.info("Invalid request signature (refused with 401): %s", why)
        return Refusal(401, "invalid request")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        log.info("signed request refused with 400: body is not UTF-8")
        return Refusal(400, "body is not UTF-8")
    if _is_json(content_type):
        return _object_refusal(text, "body")
    payload = parse_qs(text, keep_blank_values=True).get("payload")
    return _object_refusal(payload[0], "payload") if payload else None


def _object_refusal(text: str, what: str) -> Refusal | None:
    """None when ``text`` is a JSON object (:func:`_json_value`), else the 400 naming ``what``."""
    value = _json_value(text)
    if value is _INVALID:
        return Refusal(400, f"{what} is not valid JSON")
    if not isinstance(value, dict):  # Bolt reads every body as an object
        log.info("signed request refused with 400: %s is JSON but not an object", what)
        return Refusal(400, f"{what} is not a JSON object")
    return None


def _is_json(content_type: str) -> bool:
    """Whether a ``Content-Type`` header value says JSON (``application/json``, any parameters)."""
    return content_type.split(";", 1)[0].strip().lower() == "application/json"


def rate_limited_notice(raw: bytes, content_type: str) -> dict[str, Any] | None:
    """Slack's ``app_rate_limited`` notice (a JSON object whose top-level ``type`` says so: Slack
    stopped sending this workspace's events for a minute), or None. Call after :func:`check`
    passed: ``raw`` is then a signed JSON object within the depth limit."""
    if not _is_json(content_type) or b"app_rate_limited" not in raw:
        return None
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    return body if isinstance(body, dict) and body.get("type") == "app_rate_limited" else None


def command_without_response_url(raw: bytes, content_type: str) -> dict[str, str] | None:
    """The form fields of a slash command that carries no ``response_url`` (its reply can only
    go in the ack), or None for any other body. Call after :func:`check` passed."""
    if _is_json(content_type):
        return None
    try:
        form = parse_qs(raw.decode("utf-8"), keep_blank_values=True)
    except (UnicodeDecodeError, ValueError):
        return None
    if not (form.get("command") or [""])[0] or (form.get("response_url") or [""])[0]:
        return None
    return {key: values[0] for key, values in form.items()}


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


_INVALID = object()
"""What :func:`_json_value` returns for text that is not acceptable JSON."""


def _json_value(text: str) -> Any:
    """``text`` parsed, when it is JSON nested at most :data:`MAX_JSON_DEPTH` deep (the depth is
    measured before parsing, so a hostile depth cannot exhaust the parser's stack); else
    :data:`_INVALID`."""
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_JSON_DEPTH:
            return _INVALID
    try:
        return json.loads(text)
    except ValueError:
        return _INVALID
