"""Time to the full reply of a signed ``/vllm-path speculative``, 50 clients at once, each a
different person, against two no-op Bolt apps on the same kind of server.

The servers are the same setup: waitress + Bolt's WSGI adapter (:class:`bot.doors.serve.HttpDoor`)
on loopback, signature verification on, each in **its own process** (as an app runs in
production: Slack's side is elsewhere), the Web API and the response URLs at one local
:class:`~tests.standin.SlackStandIn` in the benchmark's process, which also runs the clients.
So neither the load generator nor Slack's side of the exchange is charged to an app's process;
the apps share the machine's cores with them alike. Three servers:

* ``real``: ours (:func:`bot.slack.app.build_app`), on SQLite in a temporary folder of its own;
* ``noop``: a Bolt app configured as ours: ack functions in the request thread
  (``process_before_response=True``), lazy listeners on their own bounded pool
  (:class:`~bot.slack.lazy.BoundedLazyPool`), its only listener answering "ok" in the ack as ours
  answers a read-only command. The ratio to this one is what our work costs;
* ``default``: a Bolt app as Bolt configures it (``process_before_response=False``, its default
  pool of 5), answering "ok" in the ack: the second baseline, which waits in Bolt's ack poll.

**People.** ``--clients`` closed-loop clients (default 50) are each a different Slack user
(``U0BENCH00`` …) with a reading state of their own, seeded in the real server's database before
it serves (:func:`seed_people`: each person has read a different number of the speculative
track's posts and follows a different set of tracks), so no person's reply is another's: the
per-person work (their reader state read, their track view rendered) is paid on every request.
The warm-up sends each person's first command once (their ``users.info`` is then remembered, as a
person's first command of the hour does in production) before the clock starts.

A client sends a signed command and waits for its reply before sending the next. The reply is
what Slack shows: the ack's body when it carries a message (handed to the stand-in,
:meth:`~tests.standin.SlackStandIn.answer_ack`, which checks its blocks against Block Kit's
limits as Slack does), else the post to that request's response URL. A request's time runs from
sending the POST (the body is signed before the clock starts) to the moment the stand-in
recorded the reply (``time.monotonic()`` on both sides, both in the benchmark's process). The
servers take turns in rounds, the order rotated each round, so that all see the same machine
load.

Printed: per round, each server's p50 / p99 and the p99 ratio real : noop with the load average;
over all requests, p50 and p99 of each server, the ratios to both baselines, the tail, the CPU
each server process spent per request (``/proc``, user and system apart) and its ratio, the CPU
of this benchmark's process (clients + stand-in) per request, and the load average before and
after (the machine may be shared).

Run: ``python benchmarks/command_latency.py [--clients 50] [--rounds 4] [--per-client 5]
[--threads 32] [--text speculative] [--check]``. ``--check`` exits 1 when the median of the
rounds' p99 ratios (real : noop) or the CPU-per-request ratio is above its target (1.3 and 1.2, issue 43).
``--profile N`` instead runs N commands (the people in turn) through the real app in one thread
under cProfile and prints where the time goes. Writes nothing but its own temporary folders.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout: tests/standin

from slack_bolt import Ack, App
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient

from bot.config import Settings
from bot.doors.serve import HttpDoor
from bot.runtime import Runtime
from bot.slack.app import build_app
from bot.slack.lazy import BoundedLazyPool
from tests.standin import SlackStandIn, signed_headers, slash_command_body

SECRET = "bench-signing-secret"
TOKEN = "xoxb-bench"
TARGET_P99_RATIO = 1.3
"""The median of the rounds' p99 ratios (real : same-configured no-op) may be at most this."""
TARGET_CPU_RATIO = 1.2
"""Server CPU per request, real : same-configured no-op, at most this (issue 43)."""
SERVERS = ("real", "noop", "default")
"""The server kinds (see the module docstring); ``noop`` is the baseline the targets use."""
TRACK = "spec"
"""The track ``/vllm-path speculative`` names; the people's reads are among its posts."""
OTHER_TRACKS = ("quant", "pd", "agentic", "hardware")
"""Tracks the people follow besides (each a different subset)."""


def person(i: int) -> str:
    """The Slack user id of client ``i`` (``U0BENCH00`` …)."""
    return f"U0BENCH{i:02d}"


def seed_people(runtime: Runtime, people: int) -> None:
    """Give each of ``people`` persons a reading state of their own in ``runtime``'s store (the
    slash command's default team): person ``i`` has read the first ``i mod (n + 1)`` of the
    speculative track's ``n`` posts, follows it unless ``i`` is a multiple of 3, and follows the
    tracks of :data:`OTHER_TRACKS` whose bit is set in ``i``."""
    from tests.standin import CONSOLE_TEAM_ID

    catalog = runtime.holder.catalog
    posts = [step.post for step in catalog.track(TRACK).steps]
    for i in range(people):
        user = person(i)
        runtime.store.mark_read(CONSOLE_TEAM_ID, user, posts[: i % (len(posts) + 1)])
        if i % 3:
            runtime.store.follow(CONSOLE_TEAM_ID, user, TRACK)
        for bit, track in enumerate(OTHER_TRACKS):
            if i >> bit & 1 and catalog.has_track(track):
                runtime.store.follow(CONSOLE_TEAM_ID, user, track)


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


def _noop_app(api_url: str, kind: str) -> App:
    """A baseline (:data:`SERVERS`) whose only listener answers "ok" in its ack: ``noop``
    configured as ours (request-thread acks, lazy listeners on their own pool), ``default`` as
    Bolt configures an app. Bolt checks the signature (ours does it in its own
    ``before_authorize`` middleware; all get the same signed bodies)."""
    client = WebClient(token=TOKEN, base_url=api_url)
    if kind == "default":
        app = App(signing_secret=SECRET, client=client, token_verification_enabled=False)
    else:
        app = App(
            signing_secret=SECRET,
            client=client,
            token_verification_enabled=False,
            process_before_response=True,
            raise_error_for_unhandled_request=False,
            listener_executor=BoundedLazyPool(),
        )

    def answer_in_ack(ack: Ack) -> None:
        ack(text="ok", response_type="ephemeral")

    app.command("/vllm-path")(answer_in_ack)
    return app


def _round(events_url: str, standin: SlackStandIn, text: str, clients: int, per_client: int) -> list[float]:
    """``clients`` threads, client ``i`` sending ``per_client`` commands as :func:`person`
    ``i``, one after the other; returns the seconds from send to reply of every request."""

    def client(i: int) -> list[float]:
        took = []
        for _ in range(per_client):
            url = standin.response_url()
            body = slash_command_body(text, user_id=person(i), user_name=f"bench{i}", response_url=url)
            sent, acked = _post(events_url, body, SECRET)
            if acked.strip():  # the reply came in the ack: Slack shows it (and checks its blocks)
                standin.answer_ack(url, acked)
            reply = standin.wait_for_response(url, timeout=60)
            took.append(reply.at - sent)
        return took

    with ThreadPoolExecutor(max_workers=clients) as pool:
        futures = [pool.submit(client, i) for i in range(clients)]
        return [t for f in futures for t in f.result()]


def bench_settings(api_url: str, tmp: str) -> Settings:
    """The benchmarks' settings: SQLite in the folder ``tmp``, the stand-in at ``api_url``, no
    credential but the bench token and signing secret (shared by clicks, home_open, slow_slack)."""
    return Settings(
        _env_file=None,
        database_url=f"sqlite:///{tmp}/bench.db",
        slack_bot_token=TOKEN,
        slack_signing_secret=SECRET,
        slack_app_token=None,
        slack_client_id=None,
        slack_client_secret=None,
        slack_api_url=api_url,
    )


def serve(args: argparse.Namespace) -> int:
    """Child process: serve one app (``--serve real|noop|default``) over HTTP with the Web API at
    ``--api-url`` (the real one with ``--clients`` people seeded); print the door's URL on
    stdout, run until stdin closes."""
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="vp-bench-latency-") as tmp:
        runtime = Runtime.create(bench_settings(args.api_url, tmp))
        app: App
        if args.serve == "real":
            seed_people(runtime, args.clients)
            app = build_app(runtime)
        else:
            app = _noop_app(args.api_url, args.serve)
        with HttpDoor(runtime, app, port=0, threads=args.threads) as door:
            print(door.url, flush=True)
            sys.stdin.read()  # the parent closes our stdin when it is done
        runtime.store.close()
    return 0


def _start_server(kind: str, api_url: str, args: argparse.Namespace) -> tuple[subprocess.Popen[str], str]:
    """Start ``kind``'s server process; returns it and its base URL."""
    cmd = [
        sys.executable,
        __file__,
        "--serve",
        kind,
        "--api-url",
        api_url,
        "--threads",
        str(args.threads),
        "--clients",
        str(args.clients),
    ]
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
    """Run the rounds (see the module docstring), print the figures; the exit code is 1 with
    ``--check`` when a target is missed."""
    times: dict[str, list[float]] = {k: [] for k in SERVERS}
    cpu = {k: [0.0, 0.0] for k in SERVERS}  # user, system seconds
    own_cpu = dict.fromkeys(SERVERS, 0.0)
    round_ratios: list[float] = []
    with SlackStandIn() as standin:
        procs = {k: _start_server(k, standin.api_url, args) for k in SERVERS}
        load_before = os.getloadavg()
        try:
            urls = {k: base + "/slack/events" for k, (_, base) in procs.items()}
            for kind in SERVERS:  # each person's first command (users.info remembered), twice over
                _round(urls[kind], standin, args.text, args.clients, 2)
                standin.reset()
            for i in range(args.rounds):
                order = SERVERS[i % len(SERVERS) :] + SERVERS[: i % len(SERVERS)]
                this: dict[str, list[float]] = {}
                for kind in order:
                    pid = procs[kind][0].pid
                    used, own = _cpu_s(pid), time.process_time()
                    this[kind] = _round(urls[kind], standin, args.text, args.clients, args.per_client)
                    spent = zip(cpu[kind], _cpu_s(pid), used, strict=True)
                    cpu[kind] = [total + now - then for total, now, then in spent]
                    own_cpu[kind] += time.process_time() - own
                    standin.reset()  # keep the stand-in's record lists short
                    times[kind] += this[kind]
                ratio = _pct(this["real"], 99) / _pct(this["noop"], 99)
                round_ratios.append(ratio)
                print(
                    f"  round {i + 1} ({' > '.join(order)}): "
                    + ", ".join(
                        f"{k} p50 {_pct(this[k], 50) * 1000:.1f} / p99 {_pct(this[k], 99) * 1000:.1f} ms"
                        for k in SERVERS
                    )
                    + f"; p99 real:noop {ratio:.2f}x; load {_load(os.getloadavg())}",
                    flush=True,
                )
        finally:
            for proc, _ in procs.values():
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait(timeout=30)
        load_after = os.getloadavg()
    return _report(args, times, cpu, own_cpu, round_ratios, load_before, load_after)


def _report(
    args: argparse.Namespace,
    times: dict[str, list[float]],
    cpu: dict[str, list[float]],
    own_cpu: dict[str, float],
    round_ratios: list[float],
    load_before: tuple[float, float, float],
    load_after: tuple[float, float, float],
) -> int:
    """Print the figures over all requests; returns the exit code (see :func:`measure`)."""
    ms = 1000.0
    n = len(times["real"])
    print(
        f"time to the full reply, signed `/vllm-path {args.text}` over loopback HTTP "
        f"(waitress {args.threads} threads + Bolt WSGI), {args.clients} concurrent clients, each a "
        f"different person, {args.rounds} rounds, N={n} per server"
    )
    print(
        f"  load average (1, 5, 15 min): before {_load(load_before)}, after {_load(load_after)}; {os.cpu_count()} CPUs"
    )
    for kind, label in (("real", "real app      "), ("noop", "no-op as ours "), ("default", "no-op default ")):
        t = times[kind]
        print(
            f"  {label}: p50 {_pct(t, 50) * ms:7.1f} ms   p99 {_pct(t, 99) * ms:7.1f} ms   mean "
            f"{statistics.mean(t) * ms:7.1f} ms   tail p90/p95/max "
            + " / ".join(f"{_pct(t, p) * ms:.0f}" for p in (90, 95, 100))
            + " ms"
        )
    per_req = {k: [x / len(times[k]) * ms for x in cpu[k]] for k in SERVERS}
    print(
        "  server CPU per request (/proc): "
        + ", ".join(f"{k} {sum(v):.2f} ms ({v[0]:.2f} user + {v[1]:.2f} system)" for k, v in per_req.items())
    )
    print(
        "  benchmark process CPU per request (clients + stand-in Slack): "
        + ", ".join(f"{k} {own_cpu[k] / len(times[k]) * ms:.2f} ms" for k in SERVERS)
    )
    noop_cpu = sum(per_req["noop"])
    cpu_ratio = sum(per_req["real"]) / noop_cpu if noop_cpu else float("nan")
    median_ratio = statistics.median(round_ratios)
    for base in ("noop", "default"):
        r50 = _pct(times["real"], 50) / _pct(times[base], 50)
        r99 = _pct(times["real"], 99) / _pct(times[base], 99)
        print(f"  ratio real:{base:<7}: p50 {r50:.2f}x  p99 {r99:.2f}x (all requests)")
    ok = median_ratio <= TARGET_P99_RATIO and cpu_ratio <= TARGET_CPU_RATIO
    print(
        f"  p99 ratio real:noop per round {', '.join(f'{r:.2f}x' for r in round_ratios)}; median "
        f"{median_ratio:.2f}x (target <= {TARGET_P99_RATIO}x); CPU per request ratio {cpu_ratio:.2f}x "
        f"(target <= {TARGET_CPU_RATIO}x): {'ok' if ok else 'ABOVE TARGET'}"
    )
    return 1 if args.check and not ok else 0


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
    with SlackStandIn() as standin, tempfile.TemporaryDirectory(prefix="vp-bench-latency-") as tmp:
        runtime = Runtime.create(bench_settings(standin.api_url, tmp))
        seed_people(runtime, args.clients)
        app = build_app(runtime, verify_requests=False, listener_executor=_InlineExecutor())
        turn = iter(range(1 << 62))

        def once() -> None:
            i = next(turn) % args.clients
            body = slash_command_body(args.text, user_id=person(i), response_url=standin.response_url())
            app.dispatch(
                BoltRequest(body=body.decode(), headers={"content-type": ["application/x-www-form-urlencoded"]})
            )

        for _ in range(2 * args.clients):  # each person's first command: users.info remembered
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
    stats = pstats.Stats(profiler, stream=out).sort_stats(os.environ.get("PROFILE_SORT", "cumulative"))
    stats.print_stats(os.environ.get("PROFILE_FILTER", ""), 45)  # e.g. PROFILE_FILTER=bot/ for ours only
    print(
        f"{args.profile} commands in {took:.2f} s under cProfile "
        f"({took / args.profile * 1000:.1f} ms each, profiler overhead included)"
    )
    print(out.getvalue())
    return 0


def main(argv: list[str] | None = None) -> int:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients, each a different person")
    parser.add_argument("--rounds", type=int, default=4, help="rounds per app (alternating)")
    parser.add_argument("--per-client", type=int, default=5, help="requests per client per round")
    parser.add_argument(
        "--threads", type=int, default=32, help="waitress threads per server (32: what `vllm-path serve` runs)"
    )
    parser.add_argument("--text", default="speculative", help="command text")
    parser.add_argument(
        "--check",
        action="store_true",
        help=f"exit 1 when the median p99 ratio > {TARGET_P99_RATIO} or the CPU ratio > {TARGET_CPU_RATIO}",
    )
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="profile N commands in one thread instead of measuring"
    )
    parser.add_argument("--serve", choices=SERVERS, help=argparse.SUPPRESS)  # child process
    parser.add_argument("--api-url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args)
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # 50 clients queue on purpose
    return profile(args) if args.profile else measure(args)


if __name__ == "__main__":
    sys.exit(main())
