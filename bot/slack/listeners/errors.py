"""Where a listener's failure becomes a log line and, where Slack waits, a friendly reply:
:func:`on_error` (Bolt's ``@app.error``) before the ack, :func:`answers_failure` for lazy
listeners (whose exceptions Bolt logs and swallows)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from bot import metrics
from bot.domain.text import has_han
from bot.logging_setup import failure_cause
from bot.slack.held import release
from bot.slack.i18n import t
from bot.slack.listeners.context import caller_of, handlers_of

log = logging.getLogger(__name__)


def answers_failure(what: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Wrap a lazy listener taking ``body`` and ``respond``: an exception is logged as ``<what> failed
    (team T…)`` with its traceback (no payload) and answered privately through ``response_url``."""

    def wrap(listener: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(listener)
        def run(**kwargs: Any) -> None:
            try:
                listener(**kwargs)
                release(kwargs.get("context"))  # answered: a held request is done (bot/slack/held.py)
            except Exception as exc:
                body = kwargs.get("body") or {}
                metrics.FAILURES.labels(failure_cause(exc)).inc()
                log.exception("%s failed (team %s)", what, _team(body))
                respond = kwargs.get("respond")
                if respond is not None and body.get("response_url"):
                    text = t("error.generic", _lang(body, kwargs.get("context")))
                    respond(text=str(text), response_type="ephemeral", replace_original=False)
                release(kwargs.get("context"))  # failed for good, and said so: not answered again

        return run

    return wrap


def on_error(error: Exception, body: dict[str, Any]) -> None:
    """Bolt's ``@app.error`` handler: count the failure by cause (``vllm_path_failures``) and log it
    with its traceback and team (no payload)."""
    metrics.FAILURES.labels(failure_cause(error)).inc()
    log.error("listener failed (team %s): %s", _team(body), type(error).__name__, exc_info=error)


def _lang(body: dict[str, Any], context: Any) -> str:
    """The failure reply's language: Chinese when the command was typed in Chinese or the person
    chose it (looked up without raising: the store may be what failed), else English."""
    if has_han(str(body.get("text") or "")):
        return "zh"
    try:
        caller = caller_of(context, body)
        chosen = handlers_of(context).rt.store.get_lang(caller.team_id, caller.user_id)
    except Exception:
        return "en"
    return "zh" if chosen == "zh" else "en"


def _team(body: dict[str, Any]) -> Any:
    return body.get("team_id") or (body.get("team") or {}).get("id")
