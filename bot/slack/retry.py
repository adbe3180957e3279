"""slack-sdk's 429 retry handler that counts each 429 for the metrics (a leaf module: the Slack
app's clients and the digest senders' paced clients both build on it), and the retry handlers
of the Bolt app's client (:func:`app_retry_handlers`), whose copies are themselves (:class:`SameOnCopy`)."""

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
    """slack-sdk's 429 handler (waits ``Retry-After``, then retries) that also counts each 429
    for the ``vllm_path_slack_ratelimited_total`` metric (:data:`bot.metrics.SLACK_RATELIMITED`)."""

    def _can_retry(self, *, response: HttpResponse | None = None, **others: Any) -> bool:
        if response is not None and response.status_code == 429:
            metrics.SLACK_RATELIMITED.inc()
        return super()._can_retry(response=response, **others)


class SameOnCopy:
    """A copy that is the object itself, for what Bolt deep-copies into each lazy listener's
    context and must not copy: the app's handlers, and the retry handlers (configuration: a
    request's retries are slack-sdk's ``RetryState``; copying their back-off objects was a third
    of that copy's cost, ``benchmarks/command_latency.py``)."""

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
    """The Bolt app's client's retry handlers, new objects on each call: a 429 waits
    ``Retry-After`` and retries up to 3 times (counted for the metrics), a 5xx and a connection
    error retry twice with slack-sdk's back-off. Copies of them (Bolt's per-request copies) are
    the same objects."""
    return [
        _AppRateLimitRetryHandler(max_retry_count=3),
        _AppServerErrorRetryHandler(max_retry_count=2),
        _AppConnectionErrorRetryHandler(max_retry_count=2),
    ]
