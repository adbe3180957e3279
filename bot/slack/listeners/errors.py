"""The one place where a listener's failure becomes a log line and, where Slack waits for an
answer, a friendly reply.

Bolt's ``@app.error`` handler (:func:`register`) sees errors of listeners that run before the
ack. Lazy listeners (the work after the ack) run in Bolt's lazy-listener runner, which logs and
swallows their exceptions without calling ``@app.error``; :func:`answers_failure` gives them the
same treatment in one decorator instead of a ``try``/``except`` in each listener.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App

from bot.slack.i18n import t

log = logging.getLogger(__name__)


def answers_failure(what: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Wrap a lazy listener taking Bolt's ``body`` and ``respond`` (by name): an exception is
    logged as ``<what> failed (team T…)`` with its traceback (no payload, no secrets) and the
    person gets the generic error privately through ``response_url`` when the request has one."""

    def wrap(listener: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(listener)
        def run(**kwargs: Any) -> None:
            try:
                listener(**kwargs)
            except Exception:
                body = kwargs.get("body") or {}
                team = body.get("team_id") or (body.get("team") or {}).get("id")
                log.exception("%s failed (team %s)", what, team)
                respond = kwargs.get("respond")
                if respond is not None and body.get("response_url"):
                    respond(text=str(t("error.generic")), response_type="ephemeral", replace_original=False)

        return run

    return wrap


def on_error(error: Exception, body: dict[str, Any]) -> None:
    """Bolt's ``@app.error`` handler: log the failure with its traceback, the team only (no
    payload, no secrets)."""
    team = body.get("team_id") or (body.get("team") or {}).get("id")
    log.error("listener failed (team %s): %s", team, type(error).__name__, exc_info=error)


def register(app: App) -> None:
    """Attach the app's one error handler (errors before the ack, event listeners)."""
    app.error(on_error)
