"""GET /metrics on the HTTP door: counters move with real signed requests; names follow
Prometheus' conventions; /healthz still answers."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.slack_requests import get, post
from tests.standin import link_shared_event
from tests.waits import PATIENCE_S


def _samples(door) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = get(door.url + "/metrics")
    assert answer.status == 200 and answer.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(answer.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def _value(samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_move_after_commands_and_follow_the_conventions(door, slack, standin, runtime):
    before = _samples(door)
    slack.ask("speculative")
    slack.ask("help")
    slack.event(
        link_shared_event(
            ["https://vllm-project.github.io/2024/10/17/spec-decode.html"], user_id=slack.user, channel=slack.channel
        )
    )
    standin.wait_for_call("chat.unfurl", timeout=PATIENCE_S)
    assert post(door.url + "/slack/events", b"command=%2Fvllm-path&text=help").status == 401
    after = _samples(door)

    def moved(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert moved("vllm_path_requests_total", kind="command", outcome="ok") == 2
    assert moved("vllm_path_requests_total", kind="event", outcome="ok") == 1
    assert moved("vllm_path_requests_total", kind="command", outcome="unauthorized") == 1
    assert moved("vllm_path_ack_seconds_count", kind="command") == 3
    assert moved("vllm_path_reply_seconds_count", kind="command") == 2
    assert _value(after, "vllm_path_catalog_info", version=runtime.holder.catalog.version) == 1
    assert ("vllm_path_digests_total", (("outcome", "sent"),)) in after
    assert ("vllm_path_slack_ratelimited_total", ()) in after
    for name, _ in after:
        assert name.startswith("vllm_path_"), name
        assert not name.endswith("_total_total")
    histogram_parts = ("_bucket", "_count", "_sum", "_created")
    for name, _ in after:
        if "seconds" in name:
            assert name.endswith(tuple("_seconds" + p for p in histogram_parts)), name
    assert get(door.url + "/healthz").text == "ok"
