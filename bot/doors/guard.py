"""What the HTTP door refuses before Bolt reads ``POST /slack/events``, without a traceback: a body
over :data:`MAX_BODY_BYTES` gets 413 before a byte is read (waitress refuses chunked ones alike); a
bad signature 401, the body neither parsed nor logged; a signed body Slack would never send (not
UTF-8, a ``payload`` that is not JSON) 400."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
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
    if content_type.split(";", 1)[0].strip().lower() == "application/json":
        return None if _json_ok(text) else Refusal(400, "body is not valid JSON")
    payload = parse_qs(text, keep_blank_values=True).get("payload")
    if payload and not _json_ok(payload[0]):
        return Refusal(400, "payload is not valid JSON")
    return None


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def _json_ok(text: str) -> bool:
    """Whether ``text`` is JSON nested at most :data:`MAX_JSON_DEPTH` deep (the depth is measured
    before parsing, so a hostile depth cannot exhaust the parser's stack)."""
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_JSON_DEPTH:
            return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
