"""Load: signed slash commands from many concurrent clients against the real ``vllm-path serve``.

What it does: starts a Slack stand-in (Web API and response URLs) in this process and the real
``vllm-path serve`` (the HTTP door: waitress, ``--threads`` workers, Bolt's WSGI adapter,
signature checks on) in a subprocess on a free loopback port, on a fresh SQLite file in a
temporary folder, or with ``--database-url`` (a PostgreSQL server) on a database
``vp_bench_<random>`` this run creates there and drops at its end (``benchmarks/benchdb.py``).
Then ``--clients`` threads each send ``--per-client`` signed ``/vllm-path`` commands (a mix:
track paths, searches, read, follow, next, help; each client is its own Slack user), each on a
new connection as Slack does. A request's *time to ack* runs from sending the signed POST
(signed before the clock starts) to receiving the HTTP answer. After the last ack, every lazy
reply must reach its response URL (within ``--reply-timeout`` s) and none may be the error
reply.

Errors: an ack that is not HTTP 200 (or a connection error), a missing reply, or an error reply.
Exit 1 when there is an error or the p99 time to ack is above ``--p99-target`` (1 s), else 0.

Run: ``python benchmarks/load.py`` (500 commands from 50 clients), ``--json`` for JSON,
``--database-url postgresql://…`` (the server; the run makes its own database) for PostgreSQL.
Results go in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import benchdb  # benchmarks/, on sys.path as this script's folder

from tests.standin import SlackStandIn, signed_headers, slash_command_body

SECRET = "load-benchmark-fake-signing-secret"
TOKEN = "xoxb-load-benchmark-fake-token"
TEAM = "T0LOAD"
TEXTS = (
    "speculative",
    "pd",
    "quant",
    "nixl",
    "eagle 3 on amd",
    "read p-eagle",
    "follow spec",
    "next",
    "help",
    "推测解码",
    "unfollow spec",
    "subscriptions",
    "torch.compile",
)
ERROR_TEXT = "Something went wrong"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of ``values``."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def _post(
    standin: SlackStandIn, url: str, body: bytes, headers: dict[str, str], timeout: float, response_url: str
) -> int:
    """Send a signed command; an ack that carries the reply is shown by Slack, so it is handed to
    the stand-in as the reply to ``response_url``. Returns the HTTP status."""
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            acked = resp.read()
            status = resp.status
    except urllib.error.HTTPError as err:
        return err.code
    if status == 200 and acked.strip():
        standin.answer_ack(response_url, acked)
    return status


def start_server(workdir: Path, standin: SlackStandIn, database_url: str, threads: int) -> tuple[subprocess.Popen, str]:
    """``vllm-path serve`` on a free port; returns the process and its base URL once healthy."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL"))}
    env.update(
        DATABASE_URL=database_url,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_BOT_TOKEN=TOKEN,
        SLACK_API_URL=standin.api_url,
        LOG_LEVEL="WARNING",
    )
    exe = Path(sys.executable).with_name("vllm-path")
    log = open(workdir / "serve.log", "wb")  # noqa: SIM115 - the server writes it until it stops
    proc = subprocess.Popen(
        [str(exe), "serve", "--port", str(port), "--threads", str(threads)],
        cwd=workdir,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"serve exited {proc.returncode}: {(workdir / 'serve.log').read_text()}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1) as resp:
                if resp.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("serve did not become healthy within 60 s")


def run(
    clients: int, per_client: int, threads: int, database_url: str | None, reply_timeout: float, ack_timeout: float
) -> dict:
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="vp-load-"))
        standin = stack.enter_context(SlackStandIn(team_id=TEAM))
        workdir = Path(tmp)
        db = (
            stack.enter_context(benchdb.own_postgres_database(database_url))
            if database_url
            else f"sqlite:///{workdir / 'load.db'}"
        )
        proc, base = start_server(workdir, standin, db, threads)
        events = base + "/slack/events"
        try:
            # Warm-up (imports, first queries): one command, not measured.
            url = standin.response_url()
            body = slash_command_body("help", team_id=TEAM, user_id="U0WARM", response_url=url)
            _post(standin, events, body, signed_headers(body, SECRET), ack_timeout, url)
            standin.wait_for_response(url, timeout=30)

            results: list[dict] = []
            lock = threading.Lock()
            start = threading.Barrier(clients)

            def client(n: int) -> None:
                start.wait()
                for i in range(per_client):
                    text = TEXTS[(n + i) % len(TEXTS)]
                    url = standin.response_url()
                    body = slash_command_body(
                        text, team_id=TEAM, user_id=f"U0LOAD{n:03d}", channel_id="C0LOAD", response_url=url
                    )
                    headers = signed_headers(body, SECRET)
                    t0 = time.monotonic()
                    try:
                        status = _post(standin, events, body, headers, ack_timeout, url)
                    except OSError as exc:
                        status = f"{type(exc).__name__}"
                    t1 = time.monotonic()
                    with lock:
                        results.append({"url": url, "sent": t0, "ack_s": t1 - t0, "status": status})

            t_start = time.monotonic()
            workers = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            t_acked = time.monotonic()
            expected = {r["url"] for r in results}
            with contextlib.suppress(TimeoutError):
                standin.wait_for(lambda: expected <= {p.url for p in standin.responses()}, timeout=reply_timeout)
            t_replied = time.monotonic()
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        replies = {}
        for p in standin.responses():
            replies.setdefault(p.url, p)
    acks = [r["ack_s"] for r in results]
    bad_acks = [r for r in results if r["status"] != 200]
    missing = [r for r in results if r["url"] not in replies]
    error_replies = [
        r for r in results if r["url"] in replies and ERROR_TEXT in str(replies[r["url"]].body.get("text", ""))
    ]
    reply_s = [replies[r["url"]].at - r["sent"] for r in results if r["url"] in replies]
    return {
        "requests": len(results),
        "clients": clients,
        "per_client": per_client,
        "server_threads": threads,
        "database": "postgresql" if database_url and database_url.startswith("postgres") else "sqlite",
        "errors": len(bad_acks) + len(missing) + len(error_replies),
        "bad_acks": len(bad_acks),
        "missing_replies": len(missing),
        "error_replies": len(error_replies),
        "ack_ms": {
            "p50": 1000 * _percentile(acks, 50),
            "p90": 1000 * _percentile(acks, 90),
            "p99": 1000 * _percentile(acks, 99),
            "max": 1000 * max(acks),
            "mean": 1000 * statistics.fmean(acks),
        },
        "reply_ms": (
            {"p50": 1000 * _percentile(reply_s, 50), "p99": 1000 * _percentile(reply_s, 99), "max": 1000 * max(reply_s)}
            if reply_s
            else None
        ),
        "acks_per_s": len(results) / (t_acked - t_start),
        "all_replies_s": t_replied - t_start,
        "statuses": sorted({str(r["status"]) for r in results}),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (default 50)")
    parser.add_argument("--per-client", type=int, default=10, help="commands per client (default 10)")
    parser.add_argument("--threads", type=int, default=8, help="waitress worker threads (default 8)")
    parser.add_argument(
        "--database-url",
        default=None,
        help="a PostgreSQL server to create this run's own database on "
        "(default: a fresh SQLite file in a temporary folder)",
    )
    parser.add_argument(
        "--reply-timeout", type=float, default=120.0, help="seconds to wait for every lazy reply after the last ack"
    )
    parser.add_argument("--ack-timeout", type=float, default=10.0, help="HTTP timeout per request")
    parser.add_argument("--p99-target", type=float, default=1.0, help="seconds (default 1)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    result = run(args.clients, args.per_client, args.threads, args.database_url, args.reply_timeout, args.ack_timeout)
    result["p99_target_ms"] = 1000 * args.p99_target
    ok = result["errors"] == 0 and result["ack_ms"]["p99"] <= 1000 * args.p99_target
    result["ok"] = ok
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        a = result["ack_ms"]
        r = result["reply_ms"] or {}
        print(
            f"{result['requests']} signed commands, {result['clients']} clients, "
            f"{result['server_threads']} server threads, {result['database']}"
        )
        print(
            f"errors: {result['errors']} (bad acks {result['bad_acks']}, missing replies "
            f"{result['missing_replies']}, error replies {result['error_replies']})"
        )
        print(
            f"time to ack ms: p50 {a['p50']:.1f}  p90 {a['p90']:.1f}  p99 {a['p99']:.1f}  "
            f"max {a['max']:.1f}  (target p99 <= {result['p99_target_ms']:.0f})"
        )
        if r:
            print(f"time to reply ms: p50 {r['p50']:.1f}  p99 {r['p99']:.1f}  max {r['max']:.1f}")
        print(f"{result['acks_per_s']:.0f} acks/s; every reply in {result['all_replies_s']:.1f} s")
        print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
