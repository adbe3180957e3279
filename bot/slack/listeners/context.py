"""The app's :class:`~bot.slack.handlers.Handlers` in Bolt's ``context``: put there by
:func:`provide_handlers`, read by :func:`handlers_of`. Bolt deep-copies context values into a lazy
listener's request; the handlers' copy is themselves."""

from __future__ import annotations

import time

from slack_bolt import Ack, BoltContext

from bot import metrics
from bot.slack.handlers import Handlers

HANDLERS = "vllm_path_handlers"
"""The context key holding the app's :class:`~bot.slack.handlers.Handlers`."""


def provide_handlers(context: BoltContext, handlers: Handlers) -> None:
    """Put ``handlers`` and the arrival time (``time.monotonic()`` seconds, :data:`bot.metrics.RECEIVED_AT`)
    into a request's ``context`` (from :meth:`bot.slack.app.BotApp.dispatch`, before Bolt's middleware)."""
    context[metrics.RECEIVED_AT] = time.monotonic()
    context[HANDLERS] = handlers


def handlers_of(context: BoltContext) -> Handlers:
    """The app's handlers from Bolt's ``context``; ``LookupError`` unless built by ``build_app``."""
    handlers = context.get(HANDLERS)
    if not isinstance(handlers, Handlers):
        raise LookupError("no Handlers in Bolt's context: build the app with bot.slack.app.build_app")
    return handlers


def ack_now(ack: Ack) -> None:
    """Ack at once, in the request thread (the lazy listener does the work, after the ack)."""
    ack()
