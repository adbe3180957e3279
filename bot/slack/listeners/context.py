"""What a listener reads from Bolt's ``context`` besides Bolt's own keys: the app's
:class:`~bot.slack.handlers.Handlers`, put there for every request by :func:`provide_handlers`
and read with :func:`handlers_of`. Bolt deep-copies custom context values into a lazy
listener's request (``BoltContext.to_copyable``, dropping with a warning what cannot be copied);
the handlers' copy is themselves.
"""

from __future__ import annotations

import time

from slack_bolt import Ack, BoltContext

from bot import metrics
from bot.slack.handlers import Handlers

HANDLERS = "vllm_path_handlers"
"""The context key holding the app's :class:`~bot.slack.handlers.Handlers`."""


def provide_handlers(context: BoltContext, handlers: Handlers) -> None:
    """Put ``handlers`` into a request's ``context``, and the request's arrival time
    (``time.monotonic()`` seconds, :data:`bot.metrics.RECEIVED_AT`) for the reply-latency metric.
    :meth:`bot.slack.app.BotApp.dispatch` calls it before Bolt's own middleware (a global
    middleware would have Bolt build its arguments on every request)."""
    context[metrics.RECEIVED_AT] = time.monotonic()
    context[HANDLERS] = handlers


def handlers_of(context: BoltContext) -> Handlers:
    """The app's handlers from Bolt's ``context`` (a lazy listener's copy too). Raises
    ``LookupError`` when the app was not built by :func:`bot.slack.app.build_app`."""
    handlers = context.get(HANDLERS)
    if not isinstance(handlers, Handlers):
        raise LookupError("no Handlers in Bolt's context: build the app with bot.slack.app.build_app")
    return handlers


def ack_now(ack: Ack) -> None:
    """Ack at once, in the request thread; the work (reply, unfurl, Home publish) is the lazy
    listener's, so no Web API call runs before the ack."""
    ack()
