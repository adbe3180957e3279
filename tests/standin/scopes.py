"""The OAuth scopes each Web API method the app calls needs (Slack's OpenAPI ``security.slackAuth``;
its ``chat:write:bot`` is today's ``chat:write``), and Slack's refusal when a token lacks them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

SCOPES_BY_METHOD: Mapping[str, frozenset[str]] = {
    "chat.postMessage": frozenset({"chat:write"}),
    "chat.postEphemeral": frozenset({"chat:write"}),
    "chat.update": frozenset({"chat:write"}),
    "chat.delete": frozenset({"chat:write"}),
    "chat.scheduleMessage": frozenset({"chat:write"}),
    "chat.unfurl": frozenset({"links:write"}),
    "conversations.open": frozenset({"channels:write", "groups:write", "im:write", "mpim:write"}),
    "conversations.history": frozenset({"channels:history", "groups:history", "im:history", "mpim:history"}),
    "conversations.replies": frozenset({"channels:history", "groups:history", "im:history", "mpim:history"}),
    "conversations.info": frozenset({"channels:read", "groups:read", "im:read", "mpim:read"}),
    "conversations.list": frozenset({"channels:read", "groups:read", "im:read", "mpim:read"}),
    "users.conversations": frozenset({"channels:read", "groups:read", "im:read", "mpim:read"}),
    "users.info": frozenset({"users:read"}),
    "team.info": frozenset({"team:read"}),
}
"""Web API method -> the scopes any one of which allows it; a method not listed needs none."""

SCOPES_BY_EVENT: Mapping[str, frozenset[str]] = {
    "link_shared": frozenset({"links:read"}),
    "reaction_added": frozenset({"reactions:read"}),
}
"""Events API event -> the scopes any one of which subscribes to it (Slack's event reference); an
event not listed needs none (``app_home_opened``, ``app_uninstalled``, ``tokens_revoked``)."""

_BY_KIND_SUFFIX = {"public": "channels", "private": "groups", "im": "im", "mpim": "mpim"}


def conversation_kind(channel_id: str, is_private: bool | None = None) -> str | None:
    """``'im'`` for a DM id (``D…``), ``'private'`` for a private channel (a ``G…`` id, or
    ``is_private``), ``'public'`` for another ``C…`` id; None when unknown."""
    kind = {"D": "im", "G": "private", "C": "public"}.get(channel_id[:1])
    return "private" if channel_id and is_private and kind != "im" else kind


def acceptable_scopes(method: str, kind: str | None = None) -> frozenset[str]:
    """The scopes any one of which allows ``method`` on a ``kind`` of conversation
    (:func:`conversation_kind`; None: any), e.g. ``im:history`` on a DM. Empty: none needed."""
    scopes = SCOPES_BY_METHOD.get(method, frozenset())
    if kind is None or len(scopes) <= 1:
        return scopes
    prefix = _BY_KIND_SUFFIX.get(kind)
    narrowed = frozenset(s for s in scopes if s.split(":")[0] == prefix)
    return narrowed or scopes


def parse_scopes(scopes: str | Iterable[str]) -> frozenset[str]:
    """A scope set from Slack's comma-separated form (``"commands,chat:write"``) or an iterable."""
    items = scopes.split(",") if isinstance(scopes, str) else scopes
    return frozenset(s.strip() for s in items if s and s.strip())


def scope_refusal(method: str, granted: Iterable[str], kind: str | None = None) -> dict[str, Any] | None:
    """None when ``granted`` allows ``method`` on ``kind``, else Slack's HTTP 200 body
    ``{"ok": false, "error": "missing_scope", "needed": …, "provided": …}`` (comma-separated)."""
    needed = acceptable_scopes(method, kind)
    have = parse_scopes(granted)
    if not needed or needed & have:
        return None
    return {
        "ok": False,
        "error": "missing_scope",
        "needed": ",".join(sorted(needed)),
        "provided": ",".join(sorted(have)),
    }


def default_bot_scopes() -> frozenset[str]:
    """The bot scopes the app asks for (``Settings.slack_scopes``' default, as ``manifest.yaml``)."""
    from bot.config import Settings

    return parse_scopes(str(Settings.model_fields["slack_scopes"].default))
