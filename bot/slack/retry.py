"""slack-sdk's 429 retry handler that counts each 429 for the metrics (a leaf module: the Slack
app's clients and the digest senders' paced clients both build on it)."""

from __future__ import annotations

from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState

from bot import metrics


class CountingRateLimitRetryHandler(RateLimitErrorRetryHandler):
    """slack-sdk's 429 handler (waits ``Retry-After``, then retries) that also counts each 429
    for the ``vllm_path_slack_ratelimited_total`` metric (:data:`bot.metrics.SLACK_RATELIMITED`)."""

    def _can_retry(self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        if response is not None and response.status_code == 429:
            metrics.SLACK_RATELIMITED.inc()
        return super()._can_retry(state=state, request=request, response=response, error=error)
