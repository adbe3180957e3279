"""Events API request payloads: builders for tests, and validation against Slack's published schemas.

Builders (importable from app tests: ``from tests.contract.events import app_home_opened``) return
the JSON body Slack POSTs to the Request URL -- an ``event_callback`` wrapper with the fields
listed in Slack's Events API reference (https://docs.slack.dev/apis/events-api/): ``token,
team_id, api_app_id, event{...}, type: "event_callback", event_id, event_time, authorizations[...],
event_context`` -- plus
``authed_users``, which Slack's wrapper schemas still *require* (see below). Every builder takes
keyword overrides for any wrapper field; pass ``omit=("event_id",)`` to drop fields.

:func:`validate_event_payload` raises :class:`EventPayloadError` unless the payload passes:

1. ``spec/slack_common_event_wrapper_schema.json`` (JSON Schema draft-07, Slack's);
2. the payload schema of the event's *topic* in ``spec/slack_events_api_async_v1.json``
   (AsyncAPI 1.2, Slack's; topic = event type with ``_`` -> ``.``, e.g. ``tokens.revoked``).
   Every topic's payload is a ``$ref`` to ``GenericEventWrapper``, except ``message``, whose
   inline schema was generated from a single example (a deleted file-comment message) and is no
   general message schema -- so inline topic schemas are not used and the generic wrapper applies.
   Event types the 2018-era spec does not list are refused unless :data:`NEWER_EVENT_TYPES`
   has them (``app_home_opened`` is the one the app needs), so a typo in ``event.type`` fails;
3. our own schema for what the spec lacks, from slack-facts.md (:data:`FACTS_SCHEMAS`):
   ``type`` is ``event_callback``; ``authorizations`` is a non-empty list of
   ``{team_id, user_id, is_bot, ...}``; ``event_context`` is a string; and per event type the
   fields the app relies on (``app_home_opened``: ``user, channel, event_ts, tab`` in
   ``home | messages``, ``view`` an object if present; ``tokens_revoked``: ``tokens{oauth, bot}``;
   ``link_shared``: ``channel, user, message_ts, links[{domain, url}]``).

``url_verification`` bodies (``token, challenge, type``) are not event wrappers; they are checked
against :data:`URL_VERIFICATION_SCHEMA` only (Slack's async spec lists the topic but points it at
the event wrapper, which a verification request never matches).

**authed_users.** Both of Slack's schemas require ``authed_users`` (a non-empty list of user IDs).
Slack has since deprecated it in favour of ``authorizations``; slack-facts.md does not list it.
The builders include it (the bot user's ID) so their payloads pass Slack's schemas unchanged;
the app must not depend on it (Bolt does not).
"""

from __future__ import annotations

import copy
import itertools
import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

SPEC_DIR = Path(__file__).resolve().parent / "spec"
WRAPPER_SCHEMA_PATH = SPEC_DIR / "slack_common_event_wrapper_schema.json"
ASYNC_SPEC_PATH = SPEC_DIR / "slack_events_api_async_v1.json"
_ASYNC_URI = "urn:slack:events-api-async-v1"

TEAM_ID = "T0PATH001"
API_APP_ID = "A0PATH001"
BOT_USER_ID = "U0PATHBOT"
USER_ID = "U0READER1"
VERIFICATION_TOKEN = "verification-token-for-tests"

# Event types the app handles that postdate Slack's async spec (2018): allowed without a topic.
NEWER_EVENT_TYPES = {"app_home_opened"}

_AUTHORIZATION = {
    "type": "object",
    "required": ["team_id", "user_id", "is_bot"],
    "properties": {
        "enterprise_id": {"type": ["string", "null"]},
        "team_id": {"type": "string"},
        "user_id": {"type": "string"},
        "is_bot": {"type": "boolean"},
        "is_enterprise_install": {"type": "boolean"},
    },
}

FACTS_SCHEMAS: dict[str, dict[str, Any]] = {
    "event_callback": {
        "type": "object",
        "required": ["type", "authorizations", "event_context"],
        "properties": {
            "type": {"const": "event_callback"},
            "authorizations": {"type": "array", "minItems": 1, "items": _AUTHORIZATION},
            "event_context": {"type": "string", "minLength": 1},
            "event_time": {"type": "integer"},
        },
    },
    "app_home_opened": {
        "type": "object",
        "required": ["type", "user", "channel", "event_ts", "tab"],
        "properties": {
            "user": {"type": "string", "pattern": "^[UW]"},
            "channel": {"type": "string", "pattern": "^D"},
            "event_ts": {"type": "string"},
            "tab": {"enum": ["home", "messages"]},
            "view": {"type": "object"},
        },
    },
    "tokens_revoked": {
        "type": "object",
        "required": ["type", "tokens"],
        "properties": {
            "tokens": {
                "type": "object",
                "properties": {
                    "oauth": {"type": "array", "items": {"type": "string"}},
                    "bot": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
    },
    "app_uninstalled": {"type": "object", "required": ["type"]},
    "link_shared": {
        "type": "object",
        "required": ["type", "channel", "user", "message_ts", "links", "event_ts"],
        "properties": {
            "links": {
                "type": "array",
                "minItems": 1,
                "items": {"type": "object", "required": ["domain", "url"]},
            },
            "source": {"enum": ["conversations_history", "composer"]},
        },
    },
}

URL_VERIFICATION_SCHEMA = {
    "type": "object",
    "required": ["token", "challenge", "type"],
    "properties": {
        "token": {"type": "string"},
        "challenge": {"type": "string", "minLength": 1},
        "type": {"const": "url_verification"},
    },
}


class EventPayloadError(AssertionError):
    """An Events API payload Slack would not send. ``errors`` lists every reason."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("; ".join(errors))


def _load(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


_cache: dict[str, Any] = {}


def _schemas() -> tuple[dict[str, Any], dict[str, Any], Registry]:
    if not _cache:
        async_spec = _load(ASYNC_SPEC_PATH)
        _cache["wrapper"] = _load(WRAPPER_SCHEMA_PATH)
        _cache["async"] = async_spec
        _cache["registry"] = Registry().with_resource(
            _ASYNC_URI, Resource.from_contents(async_spec, default_specification=DRAFT7)
        )
    return _cache["wrapper"], _cache["async"], _cache["registry"]


def _errors(schema: dict[str, Any], instance: Any, label: str, registry: Registry | None = None) -> list[str]:
    kwargs = {"registry": registry} if registry is not None else {}
    validator = jsonschema.Draft7Validator(schema, **kwargs)
    out = []
    for err in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        out.append(f"{label}: {where}: {err.message}")
    return out


def topic_schema(event_type: str) -> dict[str, Any] | None:
    """The async spec's payload schema (as a ``$ref``) for ``event_type``, or None if unlisted."""
    _, async_spec, _ = _schemas()
    topic = event_type.replace("_", ".")
    entry = async_spec.get("topics", {}).get(topic)
    if entry is None:
        return None
    payload = entry.get("subscribe", {}).get("payload", {})
    if "$ref" in payload:
        return {"$ref": f"{_ASYNC_URI}{payload['$ref']}"}
    return {"$ref": f"{_ASYNC_URI}#/components/schemas/GenericEventWrapper"}


def event_payload_errors(payload: Any) -> list[str]:
    """Every reason ``payload`` is not a valid Events API request body (empty if valid)."""
    if not isinstance(payload, dict):
        return [f"payload must be a JSON object, not {type(payload).__name__}"]
    if payload.get("type") == "url_verification":
        return _errors(URL_VERIFICATION_SCHEMA, payload, "url_verification")
    wrapper, _, registry = _schemas()
    errors = _errors(wrapper, payload, "slack_common_event_wrapper_schema")
    event = payload.get("event")
    event_type = event.get("type") if isinstance(event, dict) else None
    if isinstance(event_type, str):
        schema = topic_schema(event_type)
        if schema is not None:
            errors += _errors(
                schema, payload, f"slack_events_api_async_v1 topic {event_type.replace('_', '.')}", registry
            )
        elif event_type not in NEWER_EVENT_TYPES:
            errors.append(
                f"event.type {event_type!r} is neither a topic of Slack's Events API spec "
                f"nor one of {sorted(NEWER_EVENT_TYPES)}"
            )
        if event_type in FACTS_SCHEMAS:
            errors += _errors(FACTS_SCHEMAS[event_type], event, f"slack-facts {event_type}")
    errors += _errors(FACTS_SCHEMAS["event_callback"], payload, "slack-facts event_callback")
    return errors


def validate_event_payload(payload: Any) -> None:
    """Raise :class:`EventPayloadError` unless ``payload`` is a valid Events API request body."""
    __tracebackhide__ = True
    errors = event_payload_errors(payload)
    if errors:
        raise EventPayloadError(errors)


# --------------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------------

_event_counter = itertools.count(1)


def _ts(now: float | None = None) -> str:
    return f"{(time.time() if now is None else now):.6f}"


def event_callback(
    event: dict[str, Any],
    *,
    team_id: str = TEAM_ID,
    api_app_id: str = API_APP_ID,
    bot_user_id: str = BOT_USER_ID,
    token: str = VERIFICATION_TOKEN,
    event_id: str | None = None,
    event_time: int | None = None,
    omit: Iterable[str] = (),
    **overrides: Any,
) -> dict[str, Any]:
    """The ``event_callback`` wrapper Slack POSTs around ``event``.

    ``overrides`` replace wrapper fields (e.g. ``authorizations=[...]``, ``is_ext_shared_channel``);
    ``omit`` drops them (e.g. ``omit=("event_id",)`` to build a broken payload).
    """
    event = copy.deepcopy(event)
    event.setdefault("event_ts", _ts())
    payload: dict[str, Any] = {
        "token": token,
        "team_id": team_id,
        "api_app_id": api_app_id,
        "event": event,
        "type": "event_callback",
        "event_id": event_id or f"Ev0PATH{next(_event_counter):05d}",
        "event_time": int(time.time()) if event_time is None else event_time,
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team_id,
                "user_id": bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-{event['type']}-{team_id}-{api_app_id}",
        "authed_users": [bot_user_id],
    }
    payload.update(overrides)
    for name in omit:
        payload.pop(name, None)
    return payload


def app_home_opened(
    *,
    user: str = USER_ID,
    channel: str = "D0PATHDM1",
    tab: str = "home",
    view: dict[str, Any] | None = None,
    event_ts: str | None = None,
    **wrapper: Any,
) -> dict[str, Any]:
    """A user opened the app's Home (``tab="home"``) or Messages tab. ``view`` is the published
    view, which Slack includes only once one was published."""
    event: dict[str, Any] = {
        "type": "app_home_opened",
        "user": user,
        "channel": channel,
        "tab": tab,
        "event_ts": event_ts or _ts(),
    }
    if view is not None:
        event["view"] = view
    return event_callback(event, **wrapper)


def app_uninstalled(*, event_ts: str | None = None, **wrapper: Any) -> dict[str, Any]:
    """The app was uninstalled from the workspace."""
    return event_callback({"type": "app_uninstalled", "event_ts": event_ts or _ts()}, **wrapper)


def tokens_revoked(
    *, oauth: Iterable[str] = (), bot: Iterable[str] = (BOT_USER_ID,), event_ts: str | None = None, **wrapper: Any
) -> dict[str, Any]:
    """Tokens were revoked: ``oauth`` lists user IDs whose user tokens went, ``bot`` bot user IDs."""
    event = {
        "type": "tokens_revoked",
        "tokens": {"oauth": list(oauth), "bot": list(bot)},
        "event_ts": event_ts or _ts(),
    }
    return event_callback(event, **wrapper)


def link_shared(
    *,
    urls: Iterable[str] = ("https://blog.vllm.ai/2023/06/20/vllm.html",),
    channel: str = "C0PATHCH1",
    user: str = USER_ID,
    message_ts: str | None = None,
    source: str = "conversations_history",
    unfurl_id: str = "C0PATHCH1.1700000000.000100.x",
    event_ts: str | None = None,
    **wrapper: Any,
) -> dict[str, Any]:
    """Someone posted links on a domain the app unfurls."""
    from urllib.parse import urlsplit

    ts = message_ts or _ts()
    event = {
        "type": "link_shared",
        "channel": channel,
        "is_bot_user_member": True,
        "user": user,
        "message_ts": ts,
        "unfurl_id": unfurl_id,
        "source": source,
        "links": [{"domain": urlsplit(u).hostname or "", "url": u} for u in urls],
        "event_ts": event_ts or ts,
    }
    return event_callback(event, **wrapper)


def url_verification(
    challenge: str = "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", token: str = VERIFICATION_TOKEN
) -> dict[str, Any]:
    """The one-off request Slack sends to verify a Request URL; the app must echo ``challenge``."""
    return {"token": token, "challenge": challenge, "type": "url_verification"}
