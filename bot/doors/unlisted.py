"""Signed requests the HTTP door answers itself, because Bolt has no listener that could: Slack's
``app_rate_limited`` notice (a top-level ``type``, not an ``event_callback``: answered 200, logged
once per workspace and minute, counted in ``vllm_path_events_rate_limited_total``), and a slash
command without ``response_url`` (its whole reply goes in the ack, as nothing can follow it)."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from prometheus_client import Counter

from bot import metrics

if TYPE_CHECKING:
    from bot.runtime import Runtime

log = logging.getLogger(__name__)

EVENTS_RATE_LIMITED = Counter(
    "vllm_path_events_rate_limited",
    "Slack's app_rate_limited notices: minutes in which Slack held back a workspace's events.",
    registry=metrics.REGISTRY,
)

_REMEMBERED = 1024
"""How many (workspace, minute) notices are remembered, so that a repeat is neither logged nor counted."""

_seen: OrderedDict[tuple[str, str], None] = OrderedDict()
_seen_lock = threading.Lock()


def note_rate_limited(notice: dict[str, Any]) -> bool:
    """Log (one WARNING naming the workspace and the minute) and count Slack's ``app_rate_limited``
    ``notice``; a repeat of one already noted changes nothing. Returns whether it was new."""
    team = str(notice.get("team_id") or notice.get("enterprise_id") or "-")
    minute = _minute(notice.get("minute_rate_limited"))
    with _seen_lock:
        if (team, minute) in _seen:
            return False
        _seen[(team, minute)] = None
        while len(_seen) > _REMEMBERED:
            _seen.popitem(last=False)
    EVENTS_RATE_LIMITED.inc()
    log.warning(
        "Slack rate-limited the events of workspace %s (app %s) in minute %s: events sent to it in that "
        "minute were not delivered to the app",
        team,
        notice.get("api_app_id") or "-",
        minute,
    )
    return True


def _minute(value: Any) -> str:
    """``minute_rate_limited`` (Unix seconds of the minute's start) as ``2018-02-12 20:37 UTC``; as
    given when it is not a number."""
    try:
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(int(value)))
    except (TypeError, ValueError, OverflowError, OSError):
        return str(value if value is not None else "?")


def answer_in_ack(runtime: Runtime, app: Any, raw: bytes, content_type: str) -> str | None:
    """The JSON reply to a slash command without ``response_url`` (signed, checked by
    :mod:`bot.doors.guard`), made in the request thread with the Web API calls it needs; None to
    leave the request to Bolt (an OAuth app not installed in the caller's workspace: Bolt answers
    that in the ack). A failure is logged in one line, without a traceback, and answered with the
    generic apology."""
    from slack_bolt import BoltRequest

    from bot.slack.grammar import parse
    from bot.slack.i18n import t
    from bot.slack.listeners.context import caller_of
    from bot.slack.views.blocks import Reply

    request = BoltRequest(body=raw.decode("utf-8"), headers={"content-type": content_type})
    body, caller = request.body, caller_of(request.context)
    handlers = getattr(app, "handlers", None)
    if handlers is None or not caller.team_id:
        return None
    if runtime.settings.oauth_enabled and runtime.store.installation_key(caller.team_id) is None:
        return None
    text = str(body.get("text") or "")
    try:
        cmd = parse(text)
        reply = handlers.answer_now(caller, text, cmd) or handlers.run(caller, cmd, text)
    except Exception as exc:
        log.warning("slash command without response_url failed (team %s): %s", caller.team_id, type(exc).__name__)
        reply = Reply(text=str(t("error.generic", "en")))
    else:
        log.info("slash command without response_url answered in the ack (team %s)", caller.team_id)
    body_json: str = reply.body_json
    return body_json
