"""Time to the full reply of a signed ``/vllm-path speculative``, 50 clients at once, against a
no-op Bolt app on the same kind of server.

Both servers are the same setup: waitress + Bolt's WSGI adapter (:class:`bot.doors.serve.HttpDoor`) on
loopback, signature verification on, each in **its own process** (as an app runs in production:
Slack's side is elsewhere), the Web API and the response URLs at one local
:class:`~bot.doors.standin.SlackStandIn` in the benchmark's process, which also runs the clients.
So neither the load generator nor Slack's side of the exchange is charged to the app's process;
both apps share the machine's two cores with them alike. One serves the real app
(``build_app``), the other a Bolt app whose only listener answers "ok" the same way ours answers
this command: in the ack (``--noop ack``, the default; :func:`_noop_app` has the older
baselines). Ours answers a read-only command in its ack once it knows the person's language
without asking Slack: the warm-up's first command remembers the one benchmark user's
``users.info``, as a person's first command of the hour does in production.

``--clients`` closed-loop clients (default 50) each send a signed command and wait for its
reply before sending the next. The reply is what Slack shows: the ack's body when it carries a
message (handed to the stand-in, :meth:`~bot.doors.standin.SlackStandIn.answer_ack`, which checks
its blocks against Block Kit's limits as Slack does), else the post to that request's response
URL. A request's time runs from sending the POST (the body is signed before the clock starts)
to the moment the stand-in recorded the reply (``time.monotonic()`` on both sides, both in the
benchmark's process). The stand-in checks each distinct body once (it remembers the verdict by
the body's bytes) and parses a recorded reply only when it is read. The two apps take turns in
rounds, so that both see the same machine load; the p99 is over all requests of each.

The no-op app is configured as ours (acks on a pool of 32, lazy listeners on a pool of 64 of
their own), and both server processes freeze their start-up heap as ``vllm-path serve`` does
(:func:`bot.doors.serve.freeze_startup_heap`), so that the ratio is what our work costs. Printed with
the figures: the load average before and after (the machine may be shared), the tail (p90 /
p95 / p99 / max), the CPU each server process spent per request (``/proc``, user and system
apart) and the CPU of this benchmark's own process (clients + stand-in) per request.

Run: ``python benchmarks/command_latency.py [--clients 50] [--rounds 4] [--per-client 5]
[--threads 32] [--noop ack|lazy|inline] [--text speculative] [--check]``. Prints p50/p99 in
milliseconds for both and the ratio; ``--check`` exits 1 when the p99 ratio is above the target
(1.5). ``--profile N`` instead runs N commands through the real app in one thread under
cProfile and prints where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import logging
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from slack_bolt import Ack, App, Respond
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient

from bot.config import Settings
from bot.doors.serve import HttpDoor, freeze_startup_heap
from bot.doors.standin import SlackStandIn, signed_headers, slash_command_body
from bot.runtime import Runtime
from bot.slack.app import ACK_THREADS, build_app, separate_lazy_pool

SECRET = "bench-signing-secret"
TOKEN = "xoxb-bench"
TARGET_P99_RATIO = 1.5


def _post(url: str, body: bytes, secret: str) -> tuple[float, bytes]:
    """Send the signed POST; returns ``time.monotonic()`` when it was sent and the answer's body
    (the ack). Raises on non-200."""
    headers = signed_headers(body, secret)
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    started = time.monotonic()
    with urllib.request.urlopen(req, timeout=30) as resp:
        acked = resp.read()
        if resp.status != 200:
            raise RuntimeError(f"HTTP {resp.status}")
    return started, acked


def _load(avg: tuple[float, float, float]) -> str:
    return " / ".join(f"{x:.2f}" for x in avg)


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


NOOP_DESCRIPTIONS = {"ack": "same pools as ours, reply in the ack",
                     "lazy": "same pools as ours, reply from a lazy listener",
                     "inline": "Bolt's default pool, reply posted from the ack listener"}
NOOP_KINDS = tuple(NOOP_DESCRIPTIONS)
"""The no-op baselines: ``ack`` (default) answers "ok" in its ack, as ours answers a read-only
command; ``lazy`` acks empty and posts "ok" to the response URL from a lazy listener on its own
pool (the baseline until stop 21, when ours answered that way too); ``inline``: Bolt's default
5-thread pool, "ok" posted to the response URL from the ack listener itself."""


def _noop_app(api_url: str, kind: str = "ack") -> App:
    """The baseline (:data:`NOOP_KINDS`): a Bolt app configured as ours
    (:func:`bot.slack.app.build_app`): acks on a pool of :data:`~bot.slack.app.ACK_THREADS`,
    lazy listeners on their own pool of :data:`~bot.slack.lazy.THREADS`; Bolt checks the
    signature (ours does it in its own ``before_authorize`` middleware; both get the same signed
    bodies). Its reply is ``"ok"``, in the ack (``ack``) or through the response URL."""
    if kind == "inline":
        app = App(signing_secret=SECRET, client=WebClient(token=TOKEN, base_url=api_url),
                  token_verification_enabled=False, process_before_response=False)

        @app.command("/vllm-path")
        def reply(ack: Ack, respond: Respond) -> None:
            ack()
            respond(text="ok", response_type="ephemeral")

        return app
    app = App(signing_secret=SECRET, client=WebClient(token=TOKEN, base_url=api_url),
              token_verification_enabled=False, process_before_response=False,
              listener_executor=ThreadPoolExecutor(max_workers=ACK_THREADS,
                                                   thread_name_prefix="noop-ack"))
    separate_lazy_pool(app)

    if kind == "ack":
        def answer_in_ack(ack: Ack) -> None:
            ack(text="ok", response_type="ephemeral")

        app.command("/vllm-path")(answer_in_ack)
        return app

    def ack_now(ack: Ack) -> None:
        ack()

    def answer(respond: Respond) -> None:
        respond(text="ok", response_type="ephemeral")

    app.command("/vllm-path")(ack=ack_now, lazy=[answer])
    return app


def _round(events_url: str, standin: SlackStandIn, text: str, clients: int,
           per_client: int) -> list[float]:
    """``clients`` threads, each sending ``per_client`` commands one after the other; returns the
    seconds from send to reply of every request."""
    def client() -> list[float]:
        took = []
        for _ in range(per_client):
            url = standin.response_url()
            sent, acked = _post(events_url, slash_command_body(text, response_url=url), SECRET)
            if acked.strip():  # the reply came in the ack: Slack shows it (and checks its blocks)
                standin.answer_ack(url, acked)
            reply = standin.wait_for_response(url, timeout=60)
            took.append(reply.at - sent)
        return took

    with ThreadPoolExecutor(max_workers=clients) as pool:
        futures = [pool.submit(client) for _ in range(clients)]
        return [t for f in futures for t in f.result()]


def _settings(standin: SlackStandIn, tmp: str) -> Settings:
    return Settings(_env_file=None, database_url=f"sqlite:///{tmp}/bench.db",
                    slack_bot_token=TOKEN, slack_signing_secret=SECRET, slack_app_token=None,
                    slack_client_id=None, slack_client_secret=None, slack_api_url=standin.api_url)


def serve(args: argparse.Namespace) -> int:
    """Child process: serve one app (``--serve real`` or ``noop``) over HTTP with the Web API at
    ``--api-url``; print the door's URL on stdout, run until stdin closes."""
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp}/bench.db",
                            slack_bot_token=TOKEN, slack_signing_secret=SECRET, slack_app_token=None,
                            slack_client_id=None, slack_client_secret=None, slack_api_url=args.api_url)
        runtime = Runtime.create(settings)
        app = build_app(runtime) if args.serve == "real" else _noop_app(args.api_url, args.noop)
        freeze_startup_heap()  # as `vllm-path serve` does before its door opens, for both apps
        with HttpDoor(runtime, app, port=0, threads=args.threads) as door:
            print(door.url, flush=True)
            sys.stdin.read()  # the parent closes our stdin when it is done
        runtime.store.close()
    return 0


def _start_server(kind: str, api_url: str, args: argparse.Namespace) -> tuple[subprocess.Popen[str], str]:
    """Start ``kind``'s server process; returns it and its base URL."""
    cmd = [sys.executable, __file__, "--serve", kind, "--api-url", api_url, "--threads", str(args.threads),
           "--noop", args.noop]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        proc.kill()
        raise RuntimeError(f"the {kind} server did not start")
    return proc, url


def _cpu_s(pid: int) -> tuple[float, float]:
    """``(user, system)`` CPU seconds a process has used so far (``/proc/<pid>/stat``; zeros
    elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def measure(args: argparse.Namespace) -> int:
    with SlackStandIn() as standin:
        real_proc, real_base = _start_server("real", standin.api_url, args)
        noop_proc, noop_base = _start_server("noop", standin.api_url, args)
        load_before = os.getloadavg()
        real_t: list[float] = []
        noop_t: list[float] = []
        cpu = {"real": [0.0, 0.0], "noop": [0.0, 0.0]}  # user, system seconds
        slack_cpu = {"real": 0.0, "noop": 0.0}
        try:
            real_url, noop_url = real_base + "/slack/events", noop_base + "/slack/events"
            _round(real_url, standin, args.text, min(args.clients, 8), 2)  # warm-up
            _round(noop_url, standin, args.text, min(args.clients, 8), 2)
            procs = {real_url: ("real", real_proc.pid), noop_url: ("noop", noop_proc.pid)}
            for i in range(args.rounds):
                order = [(real_url, real_t), (noop_url, noop_t)]
                for url, into in order if i % 2 == 0 else order[::-1]:
                    kind, pid = procs[url]
                    used, own = _cpu_s(pid), time.process_time()
                    into += _round(url, standin, args.text, args.clients, args.per_client)
                    spent = zip(cpu[kind], _cpu_s(pid), used, strict=True)
                    cpu[kind] = [total + now - then for total, now, then in spent]
                    slack_cpu[kind] += time.process_time() - own
                    standin.reset()  # keep the stand-in's record lists short
        finally:
            for proc in (real_proc, noop_proc):
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait(timeout=30)
        load_after = os.getloadavg()

    ms = 1000.0
    r50, r99 = _pct(real_t, 50) * ms, _pct(real_t, 99) * ms
    n50, n99 = _pct(noop_t, 50) * ms, _pct(noop_t, 99) * ms
    ratio50, ratio99 = r50 / n50, r99 / n99
    print(f"time to the full reply, signed `/vllm-path {args.text}` over loopback HTTP "
          f"(waitress {args.threads} threads + Bolt WSGI), {args.clients} concurrent clients, "
          f"N={len(real_t)} each; no-op app: "
          f"{NOOP_DESCRIPTIONS[args.noop]}")
    print(f"  load average (1, 5, 15 min): before {_load(load_before)}, after {_load(load_after)}; "
          f"{os.cpu_count()} CPUs")
    print(f"  real app : p50 {r50:7.1f} ms   p99 {r99:7.1f} ms   mean "
          f"{statistics.mean(real_t) * ms:7.1f} ms")
    print(f"  no-op app: p50 {n50:7.1f} ms   p99 {n99:7.1f} ms   mean "
          f"{statistics.mean(noop_t) * ms:7.1f} ms")
    print("  tail     : p90 / p95 / p99 / max, real "
          + " / ".join(f"{_pct(real_t, p) * ms:.0f}" for p in (90, 95, 99, 100))
          + " ms; no-op " + " / ".join(f"{_pct(noop_t, p) * ms:.0f}" for p in (90, 95, 99, 100)) + " ms")
    if sum(cpu["real"]) and sum(cpu["noop"]):
        def per_request(kind: str, n: int) -> str:
            user, system = (x / n * ms for x in cpu[kind])
            return f"{user + system:.2f} ms ({user:.2f} user + {system:.2f} system)"
        print(f"  server CPU per request (/proc): real app {per_request('real', len(real_t))}, "
              f"no-op app {per_request('noop', len(noop_t))}")
    print(f"  benchmark process CPU per request (clients + stand-in Slack): real app "
          f"{slack_cpu['real'] / len(real_t) * ms:.2f} ms, no-op app {slack_cpu['noop'] / len(noop_t) * ms:.2f} ms")
    verdict = "ok" if ratio99 <= TARGET_P99_RATIO else "ABOVE TARGET"
    print(f"  ratio    : p50 {ratio50:.2f}x  p99 {ratio99:.2f}x   "
          f"(target p99 <= {TARGET_P99_RATIO}x: {verdict})")
    return 1 if args.check and ratio99 > TARGET_P99_RATIO else 0


class _InlineExecutor(Executor):
    """Runs each submitted task at once in the calling thread (so one profiler sees it all)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the future, as a thread pool would
            future.set_exception(exc)
        return future


def profile(args: argparse.Namespace) -> int:
    """Run ``args.profile`` commands through the real app in this thread under cProfile."""
    with SlackStandIn() as standin, tempfile.TemporaryDirectory() as tmp:
        runtime = Runtime.create(_settings(standin, tmp))
        app = build_app(runtime, verify_requests=False, listener_executor=_InlineExecutor())

        def once() -> None:
            body = slash_command_body(args.text, response_url=standin.response_url())
            app.dispatch(BoltRequest(body=body.decode(), headers={
                "content-type": ["application/x-www-form-urlencoded"]}))

        for _ in range(5):
            once()
        profiler = cProfile.Profile()
        started = time.perf_counter()
        profiler.enable()
        for _ in range(args.profile):
            once()
        profiler.disable()
        took = time.perf_counter() - started
        runtime.store.close()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats(os.environ.get("PROFILE_SORT", "cumulative")).print_stats(45)
    print(f"{args.profile} commands in {took:.2f} s under cProfile "
          f"({took / args.profile * 1000:.1f} ms each, profiler overhead included)")
    print(out.getvalue())
    return 0


def main(argv: list[str] | None = None) -> int:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients")
    parser.add_argument("--rounds", type=int, default=4, help="rounds per app (alternating)")
    parser.add_argument("--per-client", type=int, default=5, help="requests per client per round")
    parser.add_argument("--threads", type=int, default=32,
                        help="waitress threads per server (32: what `vllm-path serve` runs)")
    parser.add_argument("--noop", choices=NOOP_KINDS, default="ack",
                        help="the no-op baseline: reply in its ack (default, as ours answers), from a "
                             "lazy listener, or posted from its ack listener on Bolt's default pool")
    parser.add_argument("--text", default="speculative", help="command text")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when the p99 ratio > {TARGET_P99_RATIO}")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="profile N commands in one thread instead of measuring")
    parser.add_argument("--serve", choices=["real", "noop"], help=argparse.SUPPRESS)  # child process
    parser.add_argument("--api-url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args)
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # 50 clients queue on purpose
    return profile(args) if args.profile else measure(args)


if __name__ == "__main__":
    sys.exit(main())
