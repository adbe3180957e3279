"""Prometheus metrics for operators (``GET /metrics`` on the HTTP door), with prometheus-client.

Names follow Prometheus' conventions (a ``vllm_path_`` prefix, base units, ``_total`` on
counters). In this process (:data:`REGISTRY`): requests by ``kind`` and ``outcome``, ack and reply
latency, 429s from the Web API, the lazy queue's shed and dropped follow-ups. Read from the
database at scrape time (:class:`RuntimeCollector`, all workspaces): ledger deliveries by
``outcome``, refusals by Slack's error code ``reason``, subscriptions by ``status``; and
``vllm_path_catalog_info`` labelled with the served catalog ``version``.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry, Counter, Histogram
    from prometheus_client.core import Metric

    from bot.runtime import Runtime

    REGISTRY: CollectorRegistry
    """This process's request metrics (not prometheus-client's global registry: tests build many apps)."""
    REQUESTS: Counter
    ACK_SECONDS: Histogram
    REPLY_SECONDS: Histogram
    FAILURES: Counter
    SLACK_RATELIMITED: Counter
    LAZY_SHED: Counter
    LAZY_DROPPED: Counter

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0)

_METRICS = frozenset(
    {"REGISTRY", "REQUESTS", "ACK_SECONDS", "REPLY_SECONDS", "FAILURES"}
    | {"SLACK_RATELIMITED", "LAZY_SHED", "LAZY_DROPPED"}
)
"""The module's metrics, made (and prometheus-client imported) on first use: a server that has
answered nothing holds none (~1 MB; issue 43, ``serve`` <= 70 MB idle, ``benchmarks/serve_memory.py``)."""
_MAKING = threading.Lock()


def _make() -> dict[str, Any]:
    """The metrics of :data:`_METRICS`, by name."""
    from prometheus_client import CollectorRegistry, Counter, Histogram

    registry = CollectorRegistry(auto_describe=True)
    made: dict[str, Any] = {"REGISTRY": registry}
    made["REQUESTS"] = Counter(
        "vllm_path_requests", "Requests Slack sent to the HTTP door.", ["kind", "outcome"], registry=registry
    )
    made["ACK_SECONDS"], made["REPLY_SECONDS"] = (
        Histogram(name, doc, ["kind"], buckets=_LATENCY_BUCKETS, registry=registry)
        for name, doc in (
            ("vllm_path_ack_seconds", "Seconds from a request's arrival to its HTTP answer."),
            ("vllm_path_reply_seconds", "Seconds from a request's arrival to the reply sent."),
        )
    )
    made["FAILURES"] = Counter(
        "vllm_path_failures",
        "Listeners that failed (a command, click or event answered with an apology), by cause "
        "(bot.logging_setup.failure_cause: database_disk_full, database_read_only, database_error, ...).",
        ["cause"],
        registry=registry,
    )
    made["SLACK_RATELIMITED"] = Counter(
        "vllm_path_slack_ratelimited", "Slack Web API answers HTTP 429 (rate limited).", registry=registry
    )
    made["LAZY_SHED"] = Counter(
        "vllm_path_lazy_shed", "Follow-ups refused with a busy answer (the lazy queue was full).", registry=registry
    )
    made["LAZY_DROPPED"] = Counter(
        "vllm_path_lazy_dropped", "Follow-ups dropped at shutdown after the grace period.", registry=registry
    )
    return made


def __getattr__(name: str) -> Any:
    """A metric of :data:`_METRICS`, all made on the first use of one (once, whichever thread asks)."""
    if name not in _METRICS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _MAKING:
        if name not in globals():
            globals().update(_make())
    return globals()[name]


def _metric(name: str) -> Any:
    """The metric ``name`` of :data:`_METRICS` (made now if none is yet)."""
    return globals()[name] if name in globals() else __getattr__(name)


RECEIVED_AT = "vllm_path_received_at"
"""Bolt ``context`` key: ``time.monotonic()`` when the app got the request (set by a middleware)."""


def observe_reply(kind: str, context: Any) -> None:
    """Observe the reply latency of ``kind`` since ``context[RECEIVED_AT]``, when known."""
    started = context.get(RECEIVED_AT) if context is not None else None
    if isinstance(started, float):
        histogram: Histogram = _metric("REPLY_SECONDS")
        histogram.labels(kind).observe(max(0.0, time.monotonic() - started))


CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The content type of the text exposition format."""


_EVENT_CALLBACK = re.compile(r'"type"\s*:\s*"event_callback"')


def request_kind(content_type: str, body: bytes) -> str:
    """``command``, ``action``, ``event`` or ``other``, from a request body (never raises)."""
    try:
        text = body.decode("utf-8", "replace")
        if "json" in content_type:  # a look, not a parse: the body may be hostile (unsigned, deep)
            return "event" if _EVENT_CALLBACK.search(text) else "other"
        form = parse_qs(text)
        if "command" in form:
            return "command"
        if "payload" in form:
            return "action"
    except ValueError:
        pass
    return "other"


def outcome_of(status: int) -> str:
    """``ok`` (2xx/3xx), ``unauthorized`` (401: bad signature), ``refused`` (other 4xx), ``error`` (5xx)."""
    if status < 400:
        return "ok"
    if status == 401:
        return "unauthorized"
    return "refused" if status < 500 else "error"


class RuntimeCollector:
    """Metrics read at scrape time from a runtime's database and catalog (none from a failing
    database); a prometheus-client collector (its ``collect``)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        info = GaugeMetricFamily(
            "vllm_path_catalog_info", "The catalog version this process serves.", labels=["version"]
        )
        info.add_metric([self.runtime.holder.catalog.version], 1)
        yield info
        try:
            deliveries, subs = self.runtime.store.operator_totals()
        except Exception:  # a scrape must not fail because the database is slow or down
            return
        digests = CounterMetricFamily(
            "vllm_path_digests", "Digest deliveries in the ledger, by outcome.", labels=["outcome"]
        )
        for outcome in ("sent", "skipped", "failed", "claimed"):
            digests.add_metric([outcome], deliveries.get(outcome, 0))
        yield digests
        try:
            refusals = self.runtime.store.refusals()
        except Exception:  # as above
            refusals = {}
        refused = CounterMetricFamily(
            "vllm_path_digest_refusals", "Digests Slack refused for good, by error code.", labels=["reason"]
        )
        for reason, count in sorted(refusals.items()):
            refused.add_metric([reason], count)
        yield refused
        gauge = GaugeMetricFamily("vllm_path_subscriptions", "Channel digests by status.", labels=["status"])
        for status in ("active", "paused"):
            gauge.add_metric([status], subs.get(status, 0))
        yield gauge


def exposition(runtime_registry: CollectorRegistry) -> bytes:
    """The text exposition of this process's metrics and ``runtime_registry``'s."""
    from prometheus_client import generate_latest

    registry: CollectorRegistry = _metric("REGISTRY")
    return generate_latest(registry) + generate_latest(runtime_registry)


def runtime_registry(runtime: Runtime) -> CollectorRegistry:
    """A registry holding a :class:`RuntimeCollector` for ``runtime`` (one per door)."""
    from prometheus_client import CollectorRegistry

    registry = CollectorRegistry(auto_describe=False)
    registry.register(RuntimeCollector(runtime))  # a collector by its collect()
    return registry
