"""slack-sdk's 429 retry handler, counted for the metrics, and the Bolt app's client's retry handlers."""

from __future__ import annotations

from typing import Any

from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.http_retry.handler import RetryHandler
from slack_sdk.http_retry.response import HttpResponse

from bot import metrics


class CountingRateLimitRetryHandler(RateLimitErrorRetryHandler):
    """slack-sdk's 429 handler (waits ``Retry-After``) counting each 429 (:data:`bot.metrics.SLACK_RATELIMITED`)."""

    def _can_retry(self, *, response: HttpResponse | None = None, **others: Any) -> bool:
        if response is not None and response.status_code == 429:
            metrics.SLACK_RATELIMITED.inc()
        return super()._can_retry(response=response, **others)


class SameOnCopy:
    """A copy that is the object itself, for what Bolt deep-copies into each lazy listener's
    context and need not copy: the app's handlers and the retry handlers (configuration only)."""

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return self


class _AppRateLimitRetryHandler(SameOnCopy, CountingRateLimitRetryHandler):
    pass


class _AppServerErrorRetryHandler(SameOnCopy, ServerErrorRetryHandler):
    pass


class _AppConnectionErrorRetryHandler(SameOnCopy, ConnectionErrorRetryHandler):
    pass


def app_retry_handlers() -> list[RetryHandler]:
    """New retry handlers for the Bolt app's client: 3 retries of a 429, 2 of a 5xx or connection error."""
    return [
        _AppRateLimitRetryHandler(max_retry_count=3),
        _AppServerErrorRetryHandler(max_retry_count=2),
        _AppConnectionErrorRetryHandler(max_retry_count=2),
    ]
