"""The methods the stand-in serves and Slack's checks of a call's arguments (pure; the checks of
tokens, scopes and membership are ``SlackStandIn._auth_refusal``'s)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.standin import blockkit

MAX_MESSAGE_TEXT = 4000
"""Characters of top-level ``text`` past which Slack answers ``msg_too_long`` (it documents 40,000)."""

NO_TOKEN_METHODS = frozenset({"api.test", "oauth.v2.access"})  # OAuth uses the client id/secret
MESSAGE_METHODS = frozenset({"chat.postMessage", "chat.postEphemeral", "chat.update"})
VIEW_METHODS = frozenset({"views.publish", "views.open", "views.update", "views.push"})
SERVED_METHODS: frozenset[str] = (
    NO_TOKEN_METHODS
    | MESSAGE_METHODS
    | VIEW_METHODS
    | {
        "apps.connections.open",
        "auth.test",
        "chat.delete",
        "chat.unfurl",
        "conversations.open",
        "conversations.history",
        "conversations.info",
        "conversations.list",
        "users.conversations",
        "users.info",
    }
)
"""The Web API methods served (scopes: :mod:`tests.standin.scopes`); others are ``unknown_method``."""


def argument_refusal(method: str, args: Mapping[str, Any]) -> str | None:
    """The error code Slack gives a call whose arguments it refuses (``None``: acceptable):
    ``no_text``, ``msg_too_long`` and ``invalid_blocks`` for messages, ``invalid_arguments`` for a
    view :mod:`tests.standin.blockkit` refuses, :func:`unfurl_refusal` for ``chat.unfurl``."""
    if method in MESSAGE_METHODS:
        text, blocks = args.get("text"), args.get("blocks")
        if not text and not blocks and not args.get("attachments"):
            return "no_text"
        if isinstance(text, str) and len(text) > MAX_MESSAGE_TEXT:
            return "msg_too_long"
        if blocks and blockkit.block_kit_problems(blocks, "message"):
            return "invalid_blocks"
    if method in VIEW_METHODS and blockkit.view_problems(args.get("view")):
        return "invalid_arguments"
    if method == "chat.unfurl":
        return unfurl_refusal(args)
    return None


def unfurl_refusal(args: Mapping[str, Any]) -> str | None:
    """Why Slack refuses a ``chat.unfurl`` call (None: acceptable). It needs ``channel`` + ``ts``
    or ``unfurl_id`` + ``source``, and ``unfurls``: an object mapping each http(s) URL to an
    attachment with acceptable ``blocks`` (or ``text``)."""
    if not ((args.get("channel") and args.get("ts")) or (args.get("unfurl_id") and args.get("source"))):
        return "invalid_arguments"
    unfurls = args.get("unfurls")
    if unfurls is None or unfurls == "":
        return "missing_unfurls"
    if isinstance(unfurls, str):
        return "invalid_json"
    if not isinstance(unfurls, dict) or not unfurls:
        return "json_not_object" if not isinstance(unfurls, dict) else "missing_unfurls"
    for url, card in unfurls.items():
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            return "cannot_unfurl_url"
        if not isinstance(card, dict) or not (card.get("blocks") or card.get("text")):
            return "invalid_unfurls"
        if card.get("blocks") and blockkit.block_kit_problems(card["blocks"], "message"):
            return "invalid_blocks"
    return None
