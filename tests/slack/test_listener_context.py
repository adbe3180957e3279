"""The app's handlers reach module-level listeners through Bolt's ``context``, lazy ones too."""

from __future__ import annotations

import logging
from typing import Any, cast

import pytest
from slack_bolt import BoltContext

from bot import metrics
from bot.runtime import Runtime
from bot.slack.handlers import Handlers
from bot.slack.listeners.context import HANDLERS, handlers_of, provide_handlers


def _handlers() -> Handlers:
    return Handlers(cast(Runtime, object()))


def test_the_handlers_and_the_arrival_time_are_put_into_the_context() -> None:
    handlers, context = _handlers(), BoltContext()
    provide_handlers(context, handlers)
    assert handlers_of(context) is handlers
    assert isinstance(context[metrics.RECEIVED_AT], float)  # for the reply-latency metric


def test_a_lazy_listeners_copy_of_the_context_keeps_the_same_handlers(caplog: Any) -> None:
    # Bolt deep-copies custom context values for lazy listeners and drops (with a warning) those
    # it cannot copy; the handlers must arrive, as the very same object.
    handlers, context = _handlers(), BoltContext()
    provide_handlers(context, handlers)
    with caplog.at_level(logging.WARNING):
        copied = context.to_copyable()
    assert HANDLERS in copied
    assert handlers_of(copied) is handlers
    assert not [r for r in caplog.records if "Skipped setting" in r.getMessage()]


def test_a_context_without_handlers_is_refused_by_name() -> None:
    with pytest.raises(LookupError, match="build_app"):
        handlers_of(BoltContext())
