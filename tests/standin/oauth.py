"""The stand-in's tokens: each token's scopes, rotation (expiring access tokens, refresh tokens) and
installs (``/oauth/v2/authorize`` issues a code); only in memory, never recorded or printed."""

from __future__ import annotations

import base64
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tests.standin.ids import BOT_USER_ID, CONSOLE_APP_ID

REFRESHED_EXPIRES_IN_S = 43200
"""How long an access token answered by a refresh lives (Slack: 12 hours)."""


@dataclass(frozen=True)
class Grant:
    """One approval on the authorize page: the installing ``user``, the bot ``scopes`` and
    ``user_scopes`` asked for, the ``redirect_uri`` given (None: the app's own), org-wide or not."""

    user: str
    scopes: frozenset[str]
    user_scopes: frozenset[str]
    redirect_uri: str | None
    org_wide: bool


def _bot_token_body(
    access: str, scopes: Iterable[str], team: dict[str, str] | None, enterprise: dict[str, str] | None, org_wide: bool
) -> dict[str, Any]:
    """The fields of an ``oauth.v2.access`` answer that every bot token grant has."""
    return {
        "ok": True,
        "app_id": CONSOLE_APP_ID,
        "scope": ",".join(sorted(scopes)),
        "token_type": "bot",
        "access_token": access,
        "bot_user_id": BOT_USER_ID,
        "team": team,
        "enterprise": dict(enterprise) if enterprise else None,
        "is_enterprise_install": org_wide,
    }


def _client_of(args: Mapping[str, Any], auth: str | None) -> tuple[Any, Any] | None:
    """``(client_id, client_secret)`` from HTTP Basic ``auth`` or ``args``; None for a bad Basic header."""
    if auth and auth.startswith("Basic "):
        try:
            client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            return None
        return client_id, secret
    return args.get("client_id"), args.get("client_secret")


class Tokens:
    """The tokens of one stand-in workspace. ``token_scopes``: token -> scopes (None: any token has
    the workspace's); ``oauth_client``: ``(client_id, client_secret)``; ``ids`` numbers tokens."""

    def __init__(
        self,
        lock: threading.RLock,
        ids: Iterator[int],
        token_scopes: Mapping[str, Iterable[str]] | None,
        oauth_client: tuple[str, str] | None,
    ) -> None:
        self._lock = lock
        self._ids = ids
        self._scopes = None if token_scopes is None else {k: frozenset(v) for k, v in token_scopes.items()}
        self._oauth_client = oauth_client
        self._expiry: dict[str, float] = {}  # rotating access token -> epoch seconds
        self._refresh_tokens: dict[str, frozenset[str]] = {}  # refresh token -> scopes
        self._codes: dict[str, Grant] = {}  # code -> what it grants (a code works once)
        self._installed: dict[str, frozenset[str]] = {}  # token issued by an install -> its scopes

    def granted(self, token: str | None, default: frozenset[str]) -> frozenset[str] | str:
        """``token``'s scopes (``default`` if not kept per token), ``token_expired`` or ``invalid_auth``."""
        with self._lock:
            expiry, installed = self._expiry.get(token or ""), self._installed.get(token or "")
        if expiry is not None and expiry <= time.time():
            return "token_expired"
        if installed is not None:
            return installed
        if self._scopes is None:
            return default
        granted = self._scopes.get(token or "")
        return "invalid_auth" if granted is None else granted

    def issue(self, scopes: Iterable[str], expires_in_s: float) -> tuple[str, str]:
        """``(access, refresh)``: an access token with ``scopes`` expiring in ``expires_in_s`` s."""
        n = next(self._ids)
        access, refresh = f"xoxe.xoxb-1-rot{n:04d}{uuid.uuid4().hex[:8]}", f"xoxe-1-ref{n:04d}{uuid.uuid4().hex[:8]}"
        with self._lock:
            self._scopes = self._scopes or {}
            self._scopes[access] = frozenset(scopes)
            self._expiry[access] = time.time() + expires_in_s
            self._refresh_tokens[refresh] = frozenset(scopes)
        return access, refresh

    def refresh(self, args: Mapping[str, Any], auth: str | None, team: dict[str, str]) -> dict[str, Any]:
        """Slack's body for ``oauth.v2.access`` with ``grant_type=refresh_token``: new access and refresh
        tokens (the old refresh token stops working), or ``invalid_client_id``, ``bad_client_secret``,
        ``invalid_refresh_token``. The client by Basic ``auth`` or in ``args``; ``team``: ``{"id", "name"}``."""
        refused = self._client_refusal(args, auth)
        if refused is not None:
            return refused
        with self._lock:
            scopes = self._refresh_tokens.pop(str(args.get("refresh_token") or ""), None)
        if scopes is None:
            return {"ok": False, "error": "invalid_refresh_token"}
        access, refresh = self.issue(scopes, REFRESHED_EXPIRES_IN_S)
        body = _bot_token_body(access, scopes, dict(team), None, False)
        return {**body, "refresh_token": refresh, "expires_in": REFRESHED_EXPIRES_IN_S}

    @property
    def has_client(self) -> bool:
        """Whether the stand-in knows the app's client (installs are answered)."""
        return self._oauth_client is not None

    def _client_refusal(self, args: Mapping[str, Any], auth: str | None) -> dict[str, Any] | None:
        """``invalid_client_id`` or ``bad_client_secret`` as Slack's body; None for the app's client."""
        client = _client_of(args, auth)
        if client is None or self._oauth_client is None or client[0] != self._oauth_client[0]:
            return {"ok": False, "error": "invalid_client_id"}
        if client[1] != self._oauth_client[1]:
            return {"ok": False, "error": "bad_client_secret"}
        return None

    def authorize(self, client_id: str, grant: Grant) -> str | None:
        """A fresh one-time code for ``grant``, or None when ``client_id`` is not the app's."""
        if self._oauth_client is None or client_id != self._oauth_client[0]:
            return None
        code = f"{next(self._ids)}.{uuid.uuid4().hex}"
        with self._lock:
            self._codes[code] = grant
        return code

    def exchange(
        self, args: Mapping[str, Any], auth: str | None, team: dict[str, str], enterprise: dict[str, str] | None
    ) -> dict[str, Any]:
        """Slack's body for ``oauth.v2.access`` with a ``code``: ``ok``, ``app_id``, ``authed_user`` (``id``;
        ``scope``, ``access_token``, ``token_type`` with user scopes), ``scope``, ``token_type`` ``bot``,
        ``access_token``, ``bot_user_id``, ``team`` (null when org-wide), ``enterprise``,
        ``is_enterprise_install``; or ``invalid_client_id``, ``bad_client_secret``, ``invalid_code``
        (unknown or used), ``bad_redirect_uri`` (not the authorize step's)."""
        refused = self._client_refusal(args, auth)
        if refused is not None:
            return refused
        with self._lock:
            grant = self._codes.pop(str(args.get("code") or ""), None)
        if grant is None:
            return {"ok": False, "error": "invalid_code"}
        if args.get("redirect_uri") and args.get("redirect_uri") != grant.redirect_uri:
            return {"ok": False, "error": "bad_redirect_uri"}
        n = next(self._ids)
        bot = f"xoxb-{n:04d}-{uuid.uuid4().hex[:10]}-{uuid.uuid4().hex[:12]}"
        authed: dict[str, Any] = {"id": grant.user}
        with self._lock:
            self._installed[bot] = grant.scopes
            if grant.user_scopes:
                user_token = f"xoxp-{n:04d}-{uuid.uuid4().hex[:10]}-{uuid.uuid4().hex[:12]}"
                self._installed[user_token] = grant.user_scopes
                authed.update(scope=",".join(sorted(grant.user_scopes)), access_token=user_token, token_type="user")
        body = _bot_token_body(bot, grant.scopes, None if grant.org_wide else dict(team), enterprise, grant.org_wide)
        return {**body, "authed_user": authed}
