"""Time to ack of a signed ``/vllm-path speculative`` through the HTTP door, against a no-op app.

Both servers are the same setup: waitress + Bolt's WSGI adapter (:class:`bot.serve.HttpDoor`) on
loopback, signature verification on, the Web API at a local :class:`SlackStandIn`. One serves the
real app (``build_app``), the other a Bolt app whose only listener is
``app.command('/vllm-path')(lambda ack: ack())``. A request's time runs from sending the signed
POST to receiving the HTTP answer (the ack); the body is signed before the clock starts. After
each real request the benchmark waits for its reply at the response URL, so that background work
of one request does not overlap the next measurement. Requests alternate between the two servers.

Run: ``/tmp/venv/bin/python benchmarks/command_latency.py [-n 300] [--warmup 30] [--check]``.
Prints p50/p99 in milliseconds for both and their ratios; ``--check`` exits 1 when the p50 ratio
is above the target (1.3).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from slack_bolt import App  # noqa: E402
from slack_sdk import WebClient  # noqa: E402

from bot.config import Settings  # noqa: E402
from bot.runtime import Runtime  # noqa: E402
from bot.serve import HttpDoor  # noqa: E402
from bot.slack.app import build_app  # noqa: E402
from bot.slack.standin import SlackStandIn, signed_headers, slash_command_body  # noqa: E402

SECRET = "bench-signing-secret"
TOKEN = "xoxb-bench"
TARGET_P50_RATIO = 1.3


def _post(url: str, body: bytes, secret: str) -> float:
    """Seconds from sending the signed POST to having read the answer."""
    headers = signed_headers(body, secret)
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    started = time.perf_counter()
    with urllib.request.urlopen(req, timeout=10) as resp:
        resp.read()
        status = resp.status
    elapsed = time.perf_counter() - started
    if status != 200:
        raise RuntimeError(f"HTTP {status}")
    return elapsed


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=300, help="measured requests per server")
    parser.add_argument("--warmup", type=int, default=30, help="unmeasured requests per server")
    parser.add_argument("--text", default="speculative", help="command text")
    parser.add_argument("--check", action="store_true", help="exit 1 when the p50 ratio > 1.3")
    args = parser.parse_args(argv)

    with SlackStandIn() as standin, tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp}/bench.db",
                            slack_bot_token=TOKEN, slack_signing_secret=SECRET,
                            slack_app_token=None, slack_client_id=None, slack_client_secret=None,
                            slack_api_url=standin.api_url)
        runtime = Runtime.create(settings)
        real_app = build_app(runtime)
        noop_app = App(signing_secret=SECRET,
                       client=WebClient(token=TOKEN, base_url=standin.api_url),
                       token_verification_enabled=False, process_before_response=False)
        noop_app.command("/vllm-path")(lambda ack: ack())

        with HttpDoor(runtime, real_app, port=0, threads=8) as real, \
                HttpDoor(runtime, noop_app, port=0, threads=8) as noop:
            def real_once() -> float:
                url = standin.response_url()
                took = _post(real.url + "/slack/events",
                             slash_command_body(args.text, response_url=url), SECRET)
                standin.wait_for_response(url, timeout=10)
                return took

            def noop_once() -> float:
                return _post(noop.url + "/slack/events",
                             slash_command_body(args.text, response_url=standin.response_url()),
                             SECRET)

            for _ in range(args.warmup):
                real_once()
                noop_once()
            real_t: list[float] = []
            noop_t: list[float] = []
            for i in range(args.n):
                if i % 2:
                    real_t.append(real_once())
                    noop_t.append(noop_once())
                else:
                    noop_t.append(noop_once())
                    real_t.append(real_once())
        runtime.store.close()

    ms = 1000.0
    r50, r99 = _pct(real_t, 50) * ms, _pct(real_t, 99) * ms
    n50, n99 = _pct(noop_t, 50) * ms, _pct(noop_t, 99) * ms
    ratio50, ratio99 = r50 / n50, r99 / n99
    print(f"time to ack, signed `/vllm-path {args.text}` over loopback HTTP "
          f"(waitress + Bolt WSGI), N={args.n} each after {args.warmup} warm-up")
    print(f"  real app : p50 {r50:6.2f} ms   p99 {r99:6.2f} ms   mean "
          f"{statistics.mean(real_t) * ms:6.2f} ms")
    print(f"  no-op app: p50 {n50:6.2f} ms   p99 {n99:6.2f} ms   mean "
          f"{statistics.mean(noop_t) * ms:6.2f} ms")
    verdict = "ok" if ratio50 <= TARGET_P50_RATIO else "ABOVE TARGET"
    print(f"  ratio    : p50 {ratio50:.2f}x  p99 {ratio99:.2f}x   "
          f"(target p50 <= {TARGET_P50_RATIO}x: {verdict})")
    return 1 if args.check and ratio50 > TARGET_P50_RATIO else 0


if __name__ == "__main__":
    sys.exit(main())
