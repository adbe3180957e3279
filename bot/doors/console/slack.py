"""The console's Slack: Slack's requests to the app, byte for byte, for one workspace, one person
and one channel, and what a Slack records of the app's calls and replies (:class:`ApiCall`,
:class:`ResponsePost`). :mod:`~bot.doors.console.recorder` is that Slack in process;
``vllm-path console --strict`` uses the tests' strict stand-in on loopback instead (``tests/standin``)."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import urlencode, urlsplit

CONSOLE_TEAM_ID = "T0CONSOLE"
"""The workspace the console is in (``auth.test`` reports it)."""
CONSOLE_TEAM_DOMAIN = "console"
CONSOLE_USER_ID = "U0CONSOLE"
CONSOLE_USER_NAME = "you"
CONSOLE_CHANNEL_ID = "C0CONSOLE"
CONSOLE_CHANNEL_NAME = "console"
CONSOLE_CHANNEL = {
    "id": CONSOLE_CHANNEL_ID,
    "name": CONSOLE_CHANNEL_NAME,
    "is_channel": True,
    "is_private": False,
    "is_member": True,
    "is_archived": False,
}
"""The console's one channel, as ``conversations.info`` answers it."""
CONSOLE_APP_ID = "A0CONSOLE"
BOT_USER_ID = "U0BOT"
BOT_ID = "B0BOT"
SLASH_COMMAND = "/vllm-path"
"""The slash command the app registers (also in ``manifest.yaml``)."""

RESPONSE_PREFIX = "/response/"
"""A response URL's path: ``<base>/response/<key>``."""


# --- what was recorded ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ApiCall:
    """One Web API call received: ``args`` parsed (JSON fields decoded); ``authorized``: it had a
    token, kept only as ``token_fingerprint`` (8 hex digits of its SHA-256); the ``status`` and
    ``response`` answered; ``at``: ``time.monotonic()`` seconds."""

    method: str
    args: dict[str, Any]
    authorized: bool
    token_fingerprint: str | None
    status: int
    response: dict[str, Any]
    at: float

    @property
    def ok(self) -> bool:
        """True when Slack would have accepted the call (HTTP 200 and ``"ok": true``)."""
        return self.status == 200 and bool(self.response.get("ok"))

    @property
    def channel(self) -> str | None:
        """The ``channel`` argument; for an accepted post, where it landed (a user id: their DM)."""
        landed = self.response.get("channel") if self.method == "chat.postMessage" else None
        value = landed if isinstance(landed, str) else self.args.get("channel")
        return str(value) if value is not None else None


@dataclass(frozen=True)
class ResponsePost:
    """One post to a response URL: ``key`` (its last path segment), ``url``, ``raw`` JSON text, the
    HTTP ``status`` answered, ``at`` (``time.monotonic()`` seconds); :attr:`body` parsed."""

    key: str
    url: str
    raw: bytes
    status: int
    at: float
    ack: bool = False
    """The message came as the slash command's ack (not one of the URL's five posts)."""

    @cached_property
    def body(self) -> dict[str, Any]:
        """The posted JSON object, parsed when first read."""
        parsed: dict[str, Any] = json.loads(self.raw.decode("utf-8") or "{}")
        return parsed


def response_key(path: str) -> str | None:
    """The key of a response URL's path (``/response/<key>``), ``None`` for any other path."""
    return path[len(RESPONSE_PREFIX) :].strip("/") if path.startswith(RESPONSE_PREFIX) else None


# --- Slack's requests to the app -----------------------------------------------------------------


_CLIENT_MARKUP = re.compile(r"(<(?:[@#!][^<>\s]*|https?://[^<>\s]*)>)")
"""What Slack's client itself writes into a message as markup: a mention, a channel, ``<!here>``, a link."""


def typed_text(text: str) -> str:
    """``text`` as Slack sends what a person typed: ``&``, ``<`` and ``>`` as entities (so ``</b>``
    stays a literal, not markup the app decodes), a mention or link written as Slack's markup
    (:data:`_CLIENT_MARKUP`, ``<@U1>``, ``<https://…>``) kept so the console can still send one."""
    parts = _CLIENT_MARKUP.split(text)
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "".join(parts)


def slash_command_body(
    text: str,
    *,
    command: str = SLASH_COMMAND,
    user_id: str = CONSOLE_USER_ID,
    user_name: str = CONSOLE_USER_NAME,
    team_id: str = CONSOLE_TEAM_ID,
    channel_id: str = CONSOLE_CHANNEL_ID,
    channel_name: str = CONSOLE_CHANNEL_NAME,
    response_url: str = "https://hooks.slack.com/commands/T0/1/x",
    enterprise_id: str | None = None,
    enterprise_name: str | None = None,
    token: str = "verification-token-unused",
) -> bytes:
    """A slash command request body as Slack sends it: form-encoded bytes with every field Slack
    documents, in its order (``enterprise_id`` and ``enterprise_name`` only when given)."""
    fields: list[tuple[str, str]] = [("token", token), ("team_id", team_id), ("team_domain", CONSOLE_TEAM_DOMAIN)]
    if enterprise_id:
        fields += [("enterprise_id", enterprise_id), ("enterprise_name", enterprise_name or "")]
    fields += [("channel_id", channel_id), ("channel_name", channel_name), ("user_id", user_id)]
    fields += [("user_name", user_name), ("command", command), ("text", text), ("api_app_id", CONSOLE_APP_ID)]
    fields += [("is_enterprise_install", "false"), ("response_url", response_url), ("trigger_id", _trigger_id())]
    return urlencode(fields).encode("utf-8")


def block_actions_body(
    action: Mapping[str, Any],
    *,
    message: Mapping[str, Any] | None = None,
    view: Mapping[str, Any] | None = None,
    message_ts: str | None = None,
    is_ephemeral: bool = False,
    response_url: str | None = None,
    user_id: str = CONSOLE_USER_ID,
    team_id: str = CONSOLE_TEAM_ID,
    channel_id: str = CONSOLE_CHANNEL_ID,
    channel_name: str = CONSOLE_CHANNEL_NAME,
) -> bytes:
    """A ``block_actions`` request body: form field ``payload`` holding the JSON Slack sends, with
    ``action`` as ``actions[0]`` (:func:`button_action`; ``action_ts`` added when missing). A click
    in a message: ``message_ts`` (and ``message`` as posted; Slack stores no ephemeral one), giving a
    ``message`` container, ``channel`` and ``response_url``; in a view (App Home, modal): ``view``,
    giving a ``view`` container. Raises ``ValueError`` when neither or both are given."""
    if (view is not None) == (message_ts is not None or message is not None):
        raise ValueError("give either a message (message_ts/message) or a view")
    act = dict(action)
    act.setdefault("action_ts", f"{time.time():.6f}")
    payload: dict[str, Any] = {
        "type": "block_actions",
        "user": {"id": user_id, "username": CONSOLE_USER_NAME, "name": CONSOLE_USER_NAME, "team_id": team_id},
        "api_app_id": CONSOLE_APP_ID,
        "token": "verification-token-unused",
        "trigger_id": _trigger_id(),
        "team": {"id": team_id, "domain": CONSOLE_TEAM_DOMAIN},
        "enterprise": None,
        "is_enterprise_install": False,
        "state": {"values": {}},
        "actions": [act],
    }
    if view is not None:
        payload["container"] = {"type": "view", "view_id": view.get("id", "V0000000001")}
        payload["view"] = dict(view)
    else:
        ts = message_ts or (message or {}).get("ts") or f"{time.time():.6f}"
        payload["container"] = {
            "type": "message",
            "message_ts": ts,
            "channel_id": channel_id,
            "is_ephemeral": is_ephemeral,
        }
        payload["channel"] = {"id": channel_id, "name": channel_name}
        if message is not None:
            payload["message"] = {"type": "message", "ts": ts, **dict(message)}
        payload["response_url"] = response_url or "https://hooks.slack.com/actions/T0/1/x"
    return urlencode({"payload": json.dumps(payload)}).encode("utf-8")


def button_action(element: Mapping[str, Any], block_id: str) -> dict[str, Any]:
    """``actions[0]`` for a click on ``element`` (a Block Kit button dict) in block ``block_id``."""
    return {
        "type": "button",
        "block_id": block_id,
        "action_id": element.get("action_id", ""),
        "text": element.get("text", {"type": "plain_text", "text": ""}),
        **{k: element[k] for k in ("value", "style") if k in element},
    }


def event_body(
    event: Mapping[str, Any],
    *,
    team_id: str = CONSOLE_TEAM_ID,
    event_id: str | None = None,
    token: str = "verification-token-unused",
) -> bytes:
    """An Events API body: the ``event_callback`` wrapper around ``event`` (``event_id``,
    ``event_time`` in epoch seconds, ``authorizations`` naming the bot user, ``event_context``)."""
    wrapper = {
        "token": token,
        "team_id": team_id,
        "api_app_id": CONSOLE_APP_ID,
        "event": dict(event),
        "type": "event_callback",
        "event_id": event_id or f"Ev{uuid.uuid4().hex[:10].upper()}",
        "event_time": int(time.time()),
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team_id,
                "user_id": BOT_USER_ID,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-{uuid.uuid4().hex}",
    }
    return json.dumps(wrapper).encode("utf-8")


def link_shared_event(
    urls: Iterable[str],
    *,
    user_id: str = CONSOLE_USER_ID,
    channel: str = CONSOLE_CHANNEL_ID,
    message_ts: str | None = None,
    thread_ts: str | None = None,
    source: str = "conversations_history",
    unfurl_id: str | None = None,
) -> dict[str, Any]:
    """A ``link_shared`` event (``type, channel, is_bot_user_member, user, message_ts, unfurl_id,
    thread_ts?, source, links[{domain, url}], event_ts``); the composer's has placeholders."""
    now = f"{time.time():.6f}"
    composer = source == "composer"
    event: dict[str, Any] = {
        "type": "link_shared",
        "channel": "COMPOSER" if composer else channel,
        "is_bot_user_member": True,
        "user": user_id,
        "message_ts": (f"{uuid.uuid4()}" if composer else message_ts or now),
        "unfurl_id": unfurl_id or f"C{uuid.uuid4().hex[:8].upper()}.{now}.{uuid.uuid4().hex[:8]}",
        "source": source,
        "links": [{"domain": urlsplit(u).hostname or "", "url": u} for u in urls],
        "event_ts": now,
    }
    if thread_ts is not None:
        event["thread_ts"] = thread_ts
    return event


def app_home_opened_event(user_id: str = CONSOLE_USER_ID, *, view: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An ``app_home_opened`` event: ``type, user, channel, tab, event_ts``, ``view`` if published."""
    event: dict[str, Any] = {
        "type": "app_home_opened",
        "user": user_id,
        "channel": "D0CONSOLE",
        "tab": "home",
        "event_ts": f"{time.time():.6f}",
    }
    if view is not None:
        event["view"] = dict(view)
    return event


def _trigger_id() -> str:
    return f"{int(time.time())}.{uuid.uuid4().int % 10**12}.{uuid.uuid4().hex}"
