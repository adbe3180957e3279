"""Slack's request signatures checked by a ``before_authorize`` middleware (Bolt's answers a
non-integer timestamp with a 500): https://docs.slack.dev/authentication/verifying-requests-from-slack/
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import Callable

from slack_bolt.middleware.middleware import Middleware
from slack_bolt.request import BoltRequest
from slack_bolt.response import BoltResponse

log = logging.getLogger(__name__)


class SignedRequestVerification(Middleware):
    """Refuse (401 ``{"error": "invalid request"}``) an HTTP request whose signature headers are
    missing, malformed, more than 300 seconds from ``clock()`` (Unix seconds) or not matching;
    with an empty ``signing_secret``, every one. Socket Mode passes. Nothing of it is logged."""

    def __init__(self, signing_secret: str, *, clock: Callable[[], float] = time.time) -> None:
        self._secret = signing_secret.encode() if signing_secret else None
        self._clock = clock

    def process(self, *, req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse:
        if req.mode == "socket_mode":
            return next()
        why = self.problem(req.raw_body, _first(req, "x-slack-request-timestamp"), _first(req, "x-slack-signature"))
        if why is None:
            return next()
        log.info("Invalid request signature (refused with 401): %s", why)
        return BoltResponse(status=401, body={"error": "invalid request"})

    def problem(self, raw_body: str | bytes, timestamp: str | None, signature: str | None) -> str | None:
        """Why a request with this raw body (text as UTF-8) and headers is refused; None: signed well."""
        if self._secret is None:
            return "no signing secret configured for the HTTP door"
        if timestamp is None or signature is None or not timestamp.isascii() or not timestamp.isdigit():
            return "missing or malformed signature headers"
        raw = raw_body.encode() if isinstance(raw_body, str) else raw_body
        mac = hmac.new(self._secret, b"v0:" + timestamp.encode() + b":" + raw, hashlib.sha256)
        if abs(self._clock() - int(timestamp)) > 300 or not hmac.compare_digest("v0=" + mac.hexdigest(), signature):
            return "signature does not match or timestamp out of range"
        return None


def _first(req: BoltRequest, name: str) -> str | None:
    values = req.headers.get(name) or []
    return values[0] if values else None
