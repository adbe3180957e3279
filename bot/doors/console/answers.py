"""Slack's answers to accepted Web API calls, by method family, as its reference shapes them: the
console's in-process Slack (:class:`~bot.doors.console.recorder.Recorder`) and the tests' stand-in."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any, Protocol

from bot.doors.console.slack import BOT_ID, BOT_USER_ID, CONSOLE_APP_ID, CONSOLE_TEAM_DOMAIN, CONSOLE_USER_ID, ApiCall


class Workspace(Protocol):
    """What the answers read of the Slack answering (:class:`~bot.doors.console.recorder.Recorder`, the
    tests' stand-in): its team, people and channels, fresh message ``ts`` values and ids, the calls
    recorded."""

    team_id: str
    team_name: str
    users: dict[str, dict[str, Any]] | None
    channels: list[dict[str, Any]]

    def next_ts(self) -> str: ...
    def next_id(self) -> int: ...
    def calls(self, method: str | None = None) -> list[ApiCall]: ...


def chat(ws: Workspace, method: str, args: dict[str, Any]) -> dict[str, Any]:
    """``chat.postMessage``, ``.postEphemeral``, ``.update``, ``.delete`` (others: ``{"ok": true}``)."""
    channel = args.get("channel")
    if method == "chat.postMessage":
        if isinstance(channel, str) and channel[:1] in ("U", "W"):
            channel = dm_id(channel)  # Slack posts to the app's DM with that person
        ts = ws.next_ts()
        return {
            "ok": True,
            "channel": channel,
            "ts": ts,
            "message": {
                "type": "message",
                "user": BOT_USER_ID,
                "bot_id": BOT_ID,
                "text": args.get("text", ""),
                "blocks": args.get("blocks", []),
                "ts": ts,
            },
        }
    if method == "chat.postEphemeral":
        ts = ws.next_ts()
        return {"ok": True, "channel": channel, "ts": ts, "message_ts": ts}
    if method == "chat.update":
        return {"ok": True, "channel": channel, "ts": args.get("ts") or ws.next_ts(), "text": args.get("text", "")}
    if method == "chat.delete":
        return {"ok": True, "channel": channel, "ts": args.get("ts")}
    return {"ok": True}


def dm_id(users: str) -> str:
    """The app's DM with ``users`` (user ids joined by commas): ``conversations.open``'s, a post's."""
    return "D" + hashlib.sha1(users.encode()).hexdigest()[:8].upper()


def conversations(ws: Workspace, method: str, args: dict[str, Any]) -> dict[str, Any]:
    """``conversations.open``, ``.list``, ``.history``, ``.info``."""
    channel = args.get("channel")
    if method == "conversations.open":
        return {"ok": True, "channel": {"id": dm_id(str(args.get("users") or channel or ""))}}
    if method == "conversations.list":
        return {"ok": True, "channels": [dict(c) for c in ws.channels], "response_metadata": {"next_cursor": ""}}
    if method == "conversations.history":
        return history(ws, str(channel or ""), int(args.get("limit") or 100))
    if method == "conversations.info":
        # Slack: a private channel is visible to the bot only when it is a member.
        for c in ws.channels:
            if c.get("id") == channel and (c.get("is_member", True) or not c.get("is_private")):
                return {"ok": True, "channel": dict(c)}
        return {"ok": False, "error": "channel_not_found"}
    return {"ok": True}


def history(ws: Workspace, channel: str, limit: int) -> dict[str, Any]:
    """``conversations.history``: the posts accepted in ``channel``, newest first, with their
    ``metadata`` (as with ``include_all_metadata``); ``oldest``/``latest`` are not applied."""
    messages = []
    for call in ws.calls("chat.postMessage"):
        if not call.ok or call.channel != channel:  # the DM a post by user id landed in too
            continue
        args = call.args
        message = {"type": "message", "ts": call.response.get("ts"), "text": args.get("text", ""), "bot_id": BOT_ID}
        if args.get("metadata"):
            message["metadata"] = args["metadata"]
        messages.append(message)
    messages.reverse()
    return {"ok": True, "messages": messages[:limit], "has_more": len(messages) > limit}


def users(ws: Workspace, method: str, args: dict[str, Any]) -> dict[str, Any]:
    """``users.info`` (the stand-in's ``users``, else all named by id) and ``users.conversations``."""
    if method == "users.conversations":  # the stand-in's channels, as conversations.list
        return conversations(ws, "conversations.list", args)
    if method != "users.info":
        return {"ok": True}
    user = str(args.get("user") or CONSOLE_USER_ID)
    known = (
        ws.users.get(user)
        if ws.users is not None
        # the console's person administers its workspace, so that `stats` can be tried locally
        else {"real_name": "Console User", "is_admin": True}
        if user == CONSOLE_USER_ID
        else {}
    )
    if known is None:
        return {"ok": False, "error": "user_not_found"}
    real = str(known.get("real_name") or user)
    display = str(known.get("display_name") or real)
    return {
        "ok": True,
        "user": {
            "id": user,
            "team_id": ws.team_id,
            "name": user.lower(),
            "real_name": real,
            "deleted": False,
            "is_bot": False,
            "is_app_user": False,
            "tz": "Europe/Berlin",
            "tz_label": "Central European Time",
            "tz_offset": 3600,
            "locale": "en-US",
            "is_admin": False,
            "is_owner": False,
            "profile": {"display_name": display, "real_name": real},
            **{k: v for k, v in known.items() if k not in ("real_name", "display_name")},
        },
    }


def views(ws: Workspace, method: str, args: dict[str, Any]) -> dict[str, Any]:
    """``views.publish``, ``.open``, ``.update``, ``.push``: the view as Slack stores it."""
    view = args.get("view") or {}
    if isinstance(view, str):
        view = json.loads(view)
    view_id = args.get("view_id") or f"V{ws.next_id():08d}"
    return {
        "ok": True,
        "view": {
            **view,
            "id": view_id,
            "team_id": ws.team_id,
            "hash": f"{time.time():.6f}",
            "app_id": CONSOLE_APP_ID,
            "bot_id": BOT_ID,
        },
    }


def auth(ws: Workspace, method: str, args: dict[str, Any]) -> dict[str, Any]:
    """``auth.test``: the stand-in's team and bot user (others: ``{"ok": true}``)."""
    if method == "auth.test":
        return {
            "ok": True,
            "url": f"https://{CONSOLE_TEAM_DOMAIN}.slack.com/",
            "team": ws.team_name,
            "user": "vllm-path",
            "team_id": ws.team_id,
            "user_id": BOT_USER_ID,
            "bot_id": BOT_ID,
            "is_enterprise_install": False,
        }
    return {"ok": True}


FAMILIES: dict[str, Callable[[Workspace, str, dict[str, Any]], dict[str, Any]]] = {
    "chat": chat,
    "conversations": conversations,
    "users": users,
    "views": views,
    "auth": auth,
}
"""The answer function of each method family (the method name before its first dot)."""


def ok_body(ws: Workspace, method: str, args: dict[str, Any]) -> dict[str, Any]:
    """Slack's body for an accepted call of ``method`` (``{"ok": true}`` for e.g. ``api.test``)."""
    family = FAMILIES.get(method.split(".", 1)[0])
    return family(ws, method, args) if family is not None else {"ok": True}
