"""The stand-in's tokens: the scopes each token was granted and token rotation (expiring access
tokens, refresh tokens, ``oauth.v2.access`` with ``grant_type=refresh_token``). Tokens live only in
memory, to compare; they are never recorded or printed."""

from __future__ import annotations

import base64
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from bot.doors.standin.ids import BOT_USER_ID, CONSOLE_APP_ID

REFRESHED_EXPIRES_IN_S = 43200
"""How long an access token answered by a refresh lives (Slack: 12 hours)."""


class Tokens:
    """The tokens of one stand-in workspace. ``token_scopes`` maps a token to its scopes (``None``:
    any token has the workspace's scopes); ``oauth_client`` is ``(client_id, client_secret)``;
    ``ids`` numbers the tokens issued."""

    def __init__(self, lock: threading.RLock, ids: Iterator[int], token_scopes: Mapping[str, Iterable[str]] | None,
                 oauth_client: tuple[str, str] | None) -> None:
        self._lock = lock
        self._ids = ids
        self._scopes = None if token_scopes is None else {k: frozenset(v) for k, v in token_scopes.items()}
        self._oauth_client = oauth_client
        self._expiry: dict[str, float] = {}  # rotating access token -> epoch seconds
        self._refresh_tokens: dict[str, frozenset[str]] = {}  # refresh token -> scopes

    def granted(self, token: str | None, default: frozenset[str]) -> frozenset[str] | str:
        """The scopes ``token`` holds (``default`` when scopes are not kept per token), or the error
        code refusing it: ``token_expired``, ``invalid_auth`` (a token never granted)."""
        if token is not None:
            with self._lock:
                expiry = self._expiry.get(token)
            if expiry is not None and expiry <= time.time():
                return "token_expired"
        if self._scopes is None:
            return default
        granted = self._scopes.get(token or "")
        return "invalid_auth" if granted is None else granted

    def issue(self, scopes: Iterable[str], expires_in_s: float) -> tuple[str, str]:
        """Grant a rotating access token with ``scopes`` expiring in ``expires_in_s`` seconds and
        its refresh token: ``(access, refresh)``."""
        n = next(self._ids)
        access, refresh = f"xoxe.xoxb-1-rot{n:04d}{uuid.uuid4().hex[:8]}", f"xoxe-1-ref{n:04d}{uuid.uuid4().hex[:8]}"
        with self._lock:
            if self._scopes is None:
                self._scopes = {}
            self._scopes[access] = frozenset(scopes)
            self._expiry[access] = time.time() + expires_in_s
            self._refresh_tokens[refresh] = frozenset(scopes)
        return access, refresh

    def refresh(self, args: Mapping[str, Any], auth: str | None, team: dict[str, str]) -> dict[str, Any]:
        """Slack's body for ``oauth.v2.access`` with ``grant_type=refresh_token``: the client by HTTP
        Basic ``auth`` or ``client_id``/``client_secret`` in ``args``; a new access and refresh token
        (the old refresh token stops working), or ``invalid_client_id``, ``bad_client_secret``,
        ``invalid_refresh_token``. ``team``: ``{"id", "name"}``."""
        client_id, secret = args.get("client_id"), args.get("client_secret")
        if auth and auth.startswith("Basic "):
            try:
                client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
            except (ValueError, UnicodeDecodeError):
                return {"ok": False, "error": "invalid_client_id"}
        if self._oauth_client is None or client_id != self._oauth_client[0]:
            return {"ok": False, "error": "invalid_client_id"}
        if secret != self._oauth_client[1]:
            return {"ok": False, "error": "bad_client_secret"}
        with self._lock:
            scopes = self._refresh_tokens.pop(str(args.get("refresh_token") or ""), None)
        if scopes is None:
            return {"ok": False, "error": "invalid_refresh_token"}
        access, refresh = self.issue(scopes, REFRESHED_EXPIRES_IN_S)
        return {"ok": True, "access_token": access, "token_type": "bot", "scope": ",".join(sorted(scopes)),
                "bot_user_id": BOT_USER_ID, "app_id": CONSOLE_APP_ID, "team": dict(team), "enterprise": None,
                "is_enterprise_install": False, "refresh_token": refresh, "expires_in": REFRESHED_EXPIRES_IN_S}
