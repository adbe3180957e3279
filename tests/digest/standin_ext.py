"""Two Slack behaviours the digest needs from the stand-in, added here until
``bot/slack/standin.py`` has them (a subclass; nothing of the base class is changed):

* ``conversations.history`` answers from the messages the stand-in accepted: newest first, with
  the ``metadata`` each was posted with (Slack returns it when ``include_all_metadata`` is set),
  filtered by ``channel`` (not by ``oldest``: the stand-in's ``ts`` values are synthetic);
* a workspace-wide rate limit for ``chat.postMessage`` (``team_rate_per_s``, a token bucket of
  ``team_burst``), answered 429 with ``Retry-After`` like the per-channel one — Slack caps a
  workspace's messages across channels too.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from bot.slack.standin import SlackStandIn


class DigestStandIn(SlackStandIn):
    """:class:`SlackStandIn` plus ``conversations.history`` and a workspace message rate."""

    def __init__(self, *args: Any, team_rate_per_s: float | None = None, team_burst: int = 1,
                 **kwargs: Any):
        self.team_rate_per_s = team_rate_per_s
        self.team_burst = team_burst
        self._team_bucket = (float(team_burst), time.monotonic())
        self._team_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def set_team_rate(self, rate: float | None, burst: int = 1) -> None:
        with self._team_lock:
            self.team_rate_per_s, self.team_burst = rate, burst
            self._team_bucket = (float(burst), time.monotonic())

    def _team_wait(self) -> float:
        with self._team_lock:
            rate = self.team_rate_per_s
            if not rate:
                return 0.0
            now = time.monotonic()
            tokens, last = self._team_bucket
            tokens = min(float(self.team_burst), tokens + (now - last) * rate)
            if tokens >= 1.0:
                self._team_bucket = (tokens - 1.0, now)
                return 0.0
            self._team_bucket = (tokens, now)
            return (1.0 - tokens) / rate

    def _decide(self, method: str, args: dict[str, Any], faults: Any):
        status, headers, body = super()._decide(method, args, faults)
        if method == "chat.postMessage" and status == 200 and body.get("ok"):
            wait = self._team_wait()
            if wait > 0:
                return 429, {"Retry-After": str(max(1, math.ceil(wait)))}, \
                    {"ok": False, "error": "ratelimited"}
        return status, headers, body

    def _ok_body(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "conversations.history":
            channel = str(args.get("channel") or "")
            messages = []  # ``oldest`` is not applied: the stand-in's ts are synthetic
            for call in self.calls("chat.postMessage"):
                if not call.ok or call.channel != channel:
                    continue
                ts = call.response.get("ts")
                message = {"type": "message", "ts": ts, "text": call.args.get("text", ""),
                           "bot_id": "B0BOT"}
                if call.args.get("metadata"):
                    message["metadata"] = call.args["metadata"]
                messages.append(message)
            messages.reverse()
            limit = int(args.get("limit") or 100)
            return {"ok": True, "messages": messages[:limit], "has_more": len(messages) > limit}
        return super()._ok_body(method, args)
