"""Digest fan-out through the task queue: 1 clock, N worker processes, a rate-limited Slack.

    python benchmarks/fanout_queue.py [--workers 4] [--teams 200] [--messages 100000]
        [--rate 2.5] [--burst 5] [--threads 8] [--dm-batch 40] [--kill] [--database-url URL]
        [--redis-url URL] [--log-dir PARENT] [--ab-env 'NAME=VALUE ...']

Where it runs (no defaults, so that a run never writes to a database or Redis DB someone else
uses; a missing one stops the run with a message naming it): ``--database-url`` or
``BENCH_DATABASE_URL``, a PostgreSQL server on which each run creates its own database
``vp_bench_<random>`` and drops it at its end (the URL's own database is only connected to);
``--redis-url`` or ``BENCH_REDIS_URL``, a Redis server and DB number (e.g.
``redis://127.0.0.1:6379/15``) in which the run writes and then deletes only keys under its own
namespace ``vp-bench-<pid>-<time>``. Worker logs go to a new folder made by ``tempfile.mkdtemp``
(under ``--log-dir`` when given), whose path is printed; see ``benchmarks/benchdb.py``.

What runs, all real: PostgreSQL (the run's own fresh database), Redis (Dramatiq's broker and the
shared limits), ``--workers`` ``vllm-path worker`` processes, and in this process the clock
(:class:`bot.digest.clock.DigestClock` with the queue's
:class:`~bot.digest.queue.EnqueueingDeliverer`, ``run_now(dms=True)``): ``--messages`` people
spread over ``--teams`` workspaces, each with a weekly DM digest due.

**The stand-in Slack** (an asyncio HTTP server on 127.0.0.1 in its own process, written here to
be fast enough for thousands of calls per second) answers ``conversations.open``,
``chat.postMessage`` and ``conversations.history``. Per workspace it allows ``--rate`` posts per
second (a token bucket holding ``--burst``), per channel 1 per second (bucket of 1), and answers
beyond that ``429`` with ``Retry-After`` (whole seconds, as Slack does), counting every 429. Like
any network limiter it forgives ``--tolerance`` seconds (default 0.05) of arrival jitter. It
tells workspaces apart by the person in the DM (``U<team>X<n>``), since the benchmark uses one
bot token. It counts each post by the ledger key in its message metadata, so duplicates and
losses are counted where Slack would see them.

Printed last, one JSON line: workers, teams, messages, delivered (distinct digests posted),
duplicates, lost, allowed_per_s (``--rate`` x teams), achieved_per_s (posts per second from the
first to the last), rate_ratio (achieved / allowed), http_429, wall time and ``cpu_ms_per_dm``:
CPU milliseconds per delivered DM of the workers (after their start-up), this run's PostgreSQL
backends, the Redis server (shared with anything else using it), the stand-in and the clock's
enqueuing (``psutil``; a run with a high ``--rate`` is CPU-bound and shows the cost); and the
floor, measured in the same run, interleaved with it: ``floor_cpu_ms_per_post``, the CPU ms
per call of a bare slack-sdk ``chat_postMessage`` loop (one thread, ``--floor-calls`` posts, each of
``--floor-rounds`` rounds in a fresh process) with the body of the last DM the workers posted, to
the same stand-in, run while the workers send (at a quarter, half and three quarters of the DMs
delivered: the same machine load as the DMs it is compared with; ``floor_during_run``), and
``workers_to_floor`` / ``product_to_floor``, the workers' (the whole product's: workers,
PostgreSQL, Redis and the clock) CPU per DM over its median. The same loop is run again once the
workers stopped (``floor_after_run``, ``workers_to_floor_after``: a quieter machine, where a call
costs less; the only floor before 2026-12-07 evening). The stand-in is
Slack, not the product: its CPU is reported (``cpu_ms_per_dm.standin``) but left out of
``product_to_floor``. Targets (issue 43): workers_to_floor <= 1.5, product_to_floor <= 2.5,
rate_ratio >= 0.90 with 4 workers at >= 500 allowed per second; with ``--kill`` (one worker
SIGKILLed a third of the way through): delivered = messages, duplicates = 0.

``--dm-batch`` is the DMs per queue message (the clock's ``EnqueueingDeliverer``; default the
app's, :data:`bot.digest.queue.DM_BATCH`; 1: one ``digest.send_dm`` message per DM, as before
batches); a comma-separated list (``--dm-batch 1,10,1,10``) runs once per value, in that order,
each on its own database, and prints a line each (the last line is the last run's), so that the
two are compared on the same machine at the same time.

``--ab-env 'NAME=VALUE ...'`` adds that environment to the odd workers only: the result's ``ab``
gives each half's worker CPU ms per DM it sent (counted by the ledger's claimant pid) and B over A,
measured side by side under the same load (``--ab-env WORKER_SLACK_KEEP_ALIVE=0``: B makes a
connection a call).

``--one-workspace`` runs the pacing check instead: ``--messages`` DMs in ONE workspace with 2
and then 4 workers; the stand-in must count no 429.

Imports nothing from ``tests``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

import benchdb  # noqa: E402  (benchmarks/, on sys.path as this script's folder)

# --- the stand-in Slack ----------------------------------------------------------------------------


class Bucket:
    """A token bucket: ``rate`` per second, holding at most ``burst``; ``tolerance`` seconds of
    arrival jitter forgiven."""

    __slots__ = ("burst", "last", "rate", "tokens", "tolerance")

    def __init__(self, rate: float, burst: float, tolerance: float):
        self.rate, self.burst, self.tolerance = rate, burst, tolerance
        self.tokens, self.last = burst, time.monotonic()

    def take(self, now: float) -> float:
        """0 when a call may pass now (a token taken), else the seconds until it could."""
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens + self.tolerance * self.rate >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


class StandIn:
    """The stand-in's state (one event loop: no locks)."""

    def __init__(self, team_rate: float, team_burst: float, channel_rate: float, tolerance: float):
        self.team_rate, self.team_burst = team_rate, team_burst
        self.channel_rate, self.tolerance = channel_rate, tolerance
        self.teams: dict[str, Bucket] = {}
        self.channels: dict[str, Bucket] = {}
        self.history: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
        self.keys: Counter[str] = Counter()
        self.ok = 0
        self.first_ok = 0.0
        self.last_ok = 0.0
        self.limited_team = 0
        self.limited_channel = 0
        self.calls: Counter[str] = Counter()
        self.ts = 0
        self.teams_by_second: defaultdict[int, set[str]] = defaultdict(set)
        self.last_post: dict[str, Any] = {}

    @staticmethod
    def team_of(channel: str) -> str:
        return "T" + channel[1:].split("X", 1)[0]

    def answer(self, method: str, args: dict[str, Any]) -> tuple[int, dict[str, str], dict]:
        self.calls[method] += 1
        if method == "conversations.open":
            users = str(args.get("users") or "")
            if not users.startswith("U"):
                return 200, {}, {"ok": False, "error": "user_not_found"}
            return 200, {}, {"ok": True, "channel": {"id": "D" + users[1:]}}
        if method == "conversations.history":
            channel = str(args.get("channel") or "")
            return 200, {}, {"ok": True, "messages": list(reversed(self.history.get(channel, []))), "has_more": False}
        if method != "chat.postMessage":
            return 200, {}, {"ok": True}
        channel = str(args.get("channel") or "")
        if channel.startswith("F"):  # the floor's loop (:func:`bare_loop`): answered, never limited or counted
            return 200, {}, {"ok": True, "channel": channel, "ts": "1700000000.000001"}
        self.last_post = args
        if channel.startswith("U"):  # a user id: Slack posts to the app's DM with that person
            channel = "D" + channel[1:]
        if not channel.startswith("D") or "X" not in channel:
            return 200, {}, {"ok": False, "error": "channel_not_found"}
        now = time.monotonic()
        team = self.team_of(channel)
        bucket = self.teams.get(team)
        if bucket is None:
            bucket = self.teams[team] = Bucket(self.team_rate, self.team_burst, self.tolerance)
        chan = self.channels.get(channel)
        if chan is None:
            chan = self.channels[channel] = Bucket(self.channel_rate, 1.0, self.tolerance)
        wait = chan.take(now)
        if wait > 0:
            self.limited_channel += 1
            return 429, {"Retry-After": str(max(1, math.ceil(wait)))}, {"ok": False, "error": "ratelimited"}
        wait = bucket.take(now)
        if wait > 0:
            chan.tokens += 1.0  # the channel's token was not used
            self.limited_team += 1
            return 429, {"Retry-After": str(max(1, math.ceil(wait)))}, {"ok": False, "error": "ratelimited"}
        self.ts += 1
        ts = f"{1_700_000_000 + self.ts // 1_000_000}.{self.ts % 1_000_000:06d}"
        meta = args.get("metadata")
        if isinstance(meta, str):
            meta = json.loads(meta)
        key = ((meta or {}).get("event_payload") or {}).get("key", f"?{ts}")
        self.keys[key] += 1
        self.history[channel].append({"type": "message", "ts": ts, "metadata": meta})
        self.ok += 1
        wall = time.time()
        self.teams_by_second[int(wall)].add(team)
        self.first_ok = self.first_ok or wall
        self.last_ok = wall
        return 200, {}, {"ok": True, "channel": channel, "ts": ts}

    def stats(self) -> dict[str, Any]:
        return {
            "ok_posts": self.ok,
            "delivered": len(self.keys),
            "duplicates": sum(n - 1 for n in self.keys.values() if n > 1),
            "http_429": self.limited_team + self.limited_channel,
            "http_429_team": self.limited_team,
            "http_429_channel": self.limited_channel,
            "first_ok": self.first_ok,
            "last_ok": self.last_ok,
            "calls": dict(self.calls),
            "teams_posting_per_s": self._teams_posting(),
        }

    def _teams_posting(self) -> dict[str, int]:
        """How many workspaces got a post in each whole second of the run (its first and last
        seconds left out): the median and the 10th percentile. Well under ``teams`` means the
        workers held messages of a few workspaces, each waiting for its turn."""
        seconds = sorted(self.teams_by_second)[1:-1]
        counts = sorted(len(self.teams_by_second[s]) for s in seconds)
        if not counts:
            return {}
        return {"p50": counts[len(counts) // 2], "p10": counts[len(counts) // 10]}


def _parse(content_type: str, body: bytes, query: str) -> dict[str, Any]:
    args: dict[str, Any] = {k: v[0] for k, v in parse_qs(query).items()}
    if body:
        if "json" in content_type:
            args.update(json.loads(body))
        else:
            args.update({k: v[0] for k, v in parse_qs(body.decode()).items()})
    return args


async def _handle(state: StandIn, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            verb, target, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length") or 0)
            body = await reader.readexactly(length) if length else b""
            url = urlsplit(target)
            if url.path == "/stats":
                status, extra, payload = 200, {}, state.stats()
            elif url.path == "/last-post":
                status, extra, payload = 200, {}, state.last_post
            else:
                method = url.path.rsplit("/", 1)[-1]
                if not headers.get("authorization", "").startswith("Bearer xoxb-"):
                    status, extra, payload = 200, {}, {"ok": False, "error": "not_authed"}
                else:
                    status, extra, payload = state.answer(
                        method, _parse(headers.get("content-type", ""), body, url.query)
                    )
            data = json.dumps(payload).encode()
            close = headers.get("connection", "").lower() == "close"
            out = [
                f"HTTP/1.1 {status} {'OK' if status == 200 else 'Too Many Requests'}",
                "Content-Type: application/json; charset=utf-8",
                f"Content-Length: {len(data)}",
            ]
            out += [f"{k}: {v}" for k, v in extra.items()]
            out.append("Connection: close" if close else "Connection: keep-alive")
            writer.write(("\r\n".join(out) + "\r\n\r\n").encode() + data)
            await writer.drain()
            if close or verb == "":
                break
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


def serve_standin(
    port: int, ready: Any, team_rate: float, team_burst: float, channel_rate: float, tolerance: float
) -> None:
    """Run the stand-in on 127.0.0.1:``port`` until killed (a child process)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    state = StandIn(team_rate, team_burst, channel_rate, tolerance)

    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: _handle(state, r, w), "127.0.0.1", port, backlog=1024)
        ready.set()
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def standin_stats(port: int, path: str = "stats") -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=10) as resp:
        return dict(json.loads(resp.read()))


# --- the floor: a bare slack-sdk loop ------------------------------------------------------------


def bare_loop(port: int, post: dict[str, Any], n: int, out: Any) -> None:
    """The floor (a child process): ``n`` ``chat_postMessage`` calls in one thread with the body of a
    DM the workers posted (``post``, its channel replaced by one the stand-in never limits) through
    a plain slack-sdk ``WebClient`` to the same stand-in; puts its CPU ms per call on ``out``."""
    from slack_sdk import WebClient

    client = WebClient(token="xoxb-bench", base_url=f"http://127.0.0.1:{port}/api/")
    post = {**post, "channel": "F0000X000000"}
    for key in ("metadata", "blocks"):  # sent as JSON, as the workers' client sends them
        if isinstance(post.get(key), str):
            post[key] = json.loads(post[key])
    client.chat_postMessage(**post)  # warm-up: imports, the first connection
    cpu0 = time.process_time()
    for _ in range(n):
        client.chat_postMessage(**post)
    out.put((time.process_time() - cpu0) * 1000 / n)


def floor_cpu_ms(port: int, n: int) -> float:
    """CPU ms per call of :func:`bare_loop` with the last DM body the stand-in saw (0 if none yet)."""
    post = standin_stats(port, "last-post")
    if not post:
        return 0.0
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=bare_loop, args=(port, post, n, out))
    proc.start()
    ms = float(out.get(timeout=600))
    proc.join()
    return ms


# --- the database --------------------------------------------------------------------------------


def seed(db_url: str, teams: int, messages: int, seed_: int = 7) -> list[tuple[str, str]]:
    """``messages`` people over ``teams`` workspaces, each with a DM digest (Mondays 09:00 UTC),
    1-3 followed tracks and a random part of them read. Bulk inserts (setup, not measured)."""
    from sqlalchemy import insert

    from bot.config import DEFAULT_CATALOG_DIR
    from bot.domain.catalog import load_catalog
    from bot.store import Store
    from bot.store.models import DmPreference, ReadingProgress, TrackFollow

    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    tracks = [t.id for t in catalog.tracks]
    rng = random.Random(seed_)
    store = Store.from_url(db_url)
    now = datetime.now(UTC)
    people = [(f"T{i % teams:04d}", f"U{i % teams:04d}X{i // teams:06d}") for i in range(messages)]
    dms, follows, reads = [], [], []
    for team, user in people:
        dms.append(
            {
                "team_id": team,
                "user_id": user,
                "enabled": True,
                "weekday": 0,
                "at_time": "09:00",
                "timezone": "UTC",
                "snoozed_until": None,
                "status": "active",
                "updated_at": now,
            }
        )
        for tid in rng.sample(tracks, rng.randint(1, 3)):
            follows.append({"team_id": team, "user_id": user, "track_id": tid, "followed_at": now})
            order = catalog.order(tid)
            for pid in rng.sample(order, rng.randint(0, min(3, len(order) - 1))):
                reads.append({"team_id": team, "user_id": user, "post_id": pid, "read_at": now})
    reads = list({(r["team_id"], r["user_id"], r["post_id"]): r for r in reads}.values())
    with store.engine.begin() as conn:
        for model, rows in ((DmPreference, dms), (TrackFollow, follows), (ReadingProgress, reads)):
            for i in range(0, len(rows), 5000):
                conn.execute(insert(model), rows[i : i + 5000])
    store.close()
    return people


# --- a run ---------------------------------------------------------------------------------------


def start_workers(
    n: int, env: dict[str, str], threads: int, log_dir: Path, b_env: dict[str, str] | None = None
) -> list[subprocess.Popen]:
    """``n`` worker processes; with ``b_env``, the odd ones (the B half) run with it added to ``env``."""
    procs = []
    for i in range(n):
        log = (log_dir / f"worker{i}.log").open("wb")
        procs.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bot.cli.main",
                    "worker",
                    "--threads",
                    str(threads),
                    "--heartbeat-timeout",
                    "10",
                    "--stale-after",
                    "15",
                ],
                cwd=REPO_ROOT,
                env={**env, **b_env} if b_env and i % 2 else env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
    return procs


def stop_workers(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _cpu_by_component(worker_pids: list[int], standin_pid: int, db_name: str) -> dict[str, float]:
    """CPU seconds (user + system) so far of the workers (``workers_system``: their kernel part),
    the stand-in Slack, this run's PostgreSQL backends (those connected to the run's database
    ``db_name``) and the Redis server (shared with anything else using it on this machine)."""
    import psutil

    def cpu(proc: psutil.Process) -> float:
        try:
            t = proc.cpu_times()
            return float(t.user + t.system)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            return 0.0

    def system(proc: psutil.Process) -> float:
        try:
            return float(proc.cpu_times().system)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            return 0.0

    out = {
        "workers": sum(cpu(psutil.Process(pid)) for pid in worker_pids if psutil.pid_exists(pid)),
        "workers_system": sum(system(psutil.Process(pid)) for pid in worker_pids if psutil.pid_exists(pid)),
        "standin": cpu(psutil.Process(standin_pid)),
        "postgres": 0.0,
        "redis": 0.0,
    }
    for proc in psutil.process_iter(["name", "cmdline"]):
        line = " ".join(proc.info["cmdline"] or [])
        if line.startswith("postgres:") and f" {db_name} " in line:
            out["postgres"] += cpu(proc)
        elif (proc.info["name"] or "").startswith("redis-server"):
            out["redis"] += cpu(proc)
    return out


def _cpu_by_worker(procs: list[subprocess.Popen]) -> dict[int, float]:
    """CPU seconds (user + system) so far of each worker still running, by pid."""
    import psutil

    out = {}
    for p in procs:
        try:
            t = psutil.Process(p.pid).cpu_times()
            out[p.pid] = float(t.user + t.system)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return out


def _ab_halves(procs: list[subprocess.Popen], cpu_s: dict[int, float], sent: Counter[int]) -> dict[str, Any]:
    """``--ab-env``: the CPU ms per DM each half of the workers sent (by the ledger's claimant pid;
    the even workers are A, the odd ones B) and B over A, measured side by side in one run."""
    half: dict[str, list[float]] = {"a": [0.0, 0.0], "b": [0.0, 0.0]}
    for i, p in enumerate(procs):
        h = half["b" if i % 2 else "a"]
        h[0] += cpu_s.get(p.pid, 0.0)
        h[1] += sent.get(p.pid, 0)
    ms = {k: round(c * 1000 / n, 4) if n else None for k, (c, n) in half.items()}
    return {
        "a_ms": ms["a"],
        "b_ms": ms["b"],
        "a_dms": int(half["a"][1]),
        "b_dms": int(half["b"][1]),
        "b_to_a": round(ms["b"] / ms["a"], 3) if ms["a"] and ms["b"] else None,
    }


def _wait_idle(pids: list[int], quiet_s: float = 1.0, timeout_s: float = 60.0) -> None:
    """Wait until the processes ``pids`` used under 5 % of a core for ``quiet_s`` (started)."""
    import psutil

    procs = [psutil.Process(pid) for pid in pids]
    deadline = time.monotonic() + timeout_s
    last = sum(sum(p.cpu_times()[:2]) for p in procs)
    while time.monotonic() < deadline:
        time.sleep(quiet_s)
        now = sum(sum(p.cpu_times()[:2]) for p in procs)
        if now - last < 0.05 * quiet_s * len(procs):
            return
        last = now


def run_once(
    args: argparse.Namespace, workers: int, teams: int, messages: int, kill: bool, dm_batch: int | None = None
) -> dict[str, Any]:
    """One run on its own database (created on ``args.database_url``'s server, dropped after)
    with its logs in a new temporary folder, ``dm_batch`` DMs a queue message (None: the app's
    default); the result row printed by :func:`main`."""
    with benchdb.own_postgres_database(args.database_url) as db_url:
        return _run_on(args, db_url, workers, teams, messages, kill, dm_batch)


def _run_on(
    args: argparse.Namespace,
    db_url: str,
    workers: int,
    teams: int,
    messages: int,
    kill: bool,
    dm_batch: int | None = None,
) -> dict[str, Any]:
    from bot.config import Settings
    from bot.digest.clock import DigestClock
    from bot.digest.queue import DM_BATCH, DigestQueue, EnqueueingDeliverer, make_broker
    from bot.digest.ratelimit import SharedPacer
    from bot.runtime import CatalogHolder, Runtime
    from bot.store import Store

    db_name = db_url.split("?", 1)[0].rsplit("/", 1)[1]
    t_seed = time.monotonic()
    seed(db_url, teams, messages)
    seed_s = time.monotonic() - t_seed
    namespace = f"vp-bench-{os.getpid()}-{int(time.time())}"
    port = free_port()
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    server = ctx.Process(
        target=serve_standin, daemon=True, args=(port, ready, args.rate, args.burst, 1.0, args.tolerance)
    )
    server.start()
    ready.wait(30)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL"))}
    env.update(
        DATABASE_URL=db_url,
        REDIS_URL=args.redis_url,
        QUEUE_NAMESPACE=namespace,
        SLACK_BOT_TOKEN="xoxb-bench",
        SLACK_API_URL=f"http://127.0.0.1:{port}/api/",
        SLACK_TEAM_RATE_PER_S=str(args.rate),
        SLACK_CHANNEL_RATE_PER_S="1",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    log_dir = benchdb.log_folder("vp-bench-fanout-", parent=args.log_dir)
    b_env = dict(pair.split("=", 1) for pair in args.ab_env.split()) if args.ab_env else None
    procs = start_workers(workers, env, args.threads, log_dir, b_env)
    settings = Settings(
        _env_file=None,
        database_url=db_url,
        redis_url=args.redis_url,
        queue_namespace=namespace,
        slack_bot_token="xoxb-bench",
        slack_api_url=f"http://127.0.0.1:{port}/api/",
        slack_client_id=None,
        slack_client_secret=None,
        slack_app_token=None,
    )
    store = Store.from_url(db_url)
    runtime = Runtime(settings, store, CatalogHolder(settings.catalog_dir))
    queue = DigestQueue(make_broker(args.redis_url, namespace=namespace))
    dm_batch = dm_batch or DM_BATCH
    enqueuer = EnqueueingDeliverer(queue, stale_after_s=15, dm_batch=dm_batch)
    clock = DigestClock(
        runtime,
        deliverer=enqueuer,  # type: ignore[arg-type]
        reconcile_every_s=None,
        workers=4,
    )
    _wait_idle([p.pid for p in procs])  # the workers' start-up (imports, catalog) not counted
    cpu_at_start = _cpu_by_component([p.pid for p in procs], server.pid, db_name)
    worker_cpu0 = _cpu_by_worker(procs)
    t0 = time.monotonic()
    clock_cpu0 = time.process_time()
    counts = clock.run_now(dms=True)
    enqueuer.flush(timeout=600)
    clock_cpu_s = time.process_time() - clock_cpu0
    enqueue_s = time.monotonic() - t0
    killed = None
    last_progress, last_delivered = time.monotonic(), -1
    stats = standin_stats(port)
    during: list[float] = []  # the floor measured while the workers send (same load), at 1/4, 1/2, 3/4
    while stats["delivered"] < messages:
        time.sleep(1.0)
        stats = standin_stats(port)
        if len(during) < args.floor_rounds and stats["delivered"] >= messages * (len(during) + 1) // (
            args.floor_rounds + 1
        ):
            during.append(floor_cpu_ms(port, args.floor_calls))
        if kill and killed is None and stats["delivered"] >= messages // 3:
            procs[0].send_signal(signal.SIGKILL)
            killed = stats["delivered"]
        if stats["delivered"] != last_delivered:
            last_delivered, last_progress = stats["delivered"], time.monotonic()
        elif time.monotonic() - last_progress > args.stall_s:
            break
        if args.verbose:
            print(
                f"  {stats['delivered']:,}/{messages:,} delivered, backlog "
                f"{queue.backlog():,}, 429s {stats['http_429']}",
                file=sys.stderr,
            )
    time.sleep(2.0)  # a duplicate would show up now, if any
    stats = standin_stats(port)
    wall = time.monotonic() - t0
    cpu_at_end = _cpu_by_component([p.pid for p in procs], server.pid, db_name)
    cpu = {k: cpu_at_end[k] - cpu_at_start.get(k, 0.0) for k in cpu_at_end}
    cpu["clock"] = clock_cpu_s
    worker_cpu = {pid: s - worker_cpu0.get(pid, 0.0) for pid, s in _cpu_by_worker(procs).items()}
    stop_workers(procs)
    after = sorted(floor_cpu_ms(port, args.floor_calls) for _ in range(args.floor_rounds))
    during = sorted(f for f in during if f > 0)
    floor = during or after  # interleaved with the run (issue 43), else after it (a run too short for rounds)
    enqueuer.close()
    clock.shutdown()
    rows = [r for r in store.deliveries() if r.status == "sent"]
    sent_rows = len(rows)
    ab = _ab_halves(procs, worker_cpu, Counter(int(r.claimed_by.split(":")[-2]) for r in rows)) if b_env else None
    store.close()
    SharedPacer(args.redis_url, namespace=namespace).clear()
    for key in queue.broker.client.scan_iter(f"{namespace}*"):  # this run's keys only
        queue.broker.client.delete(key)
    queue.broker.close()
    server.kill()
    span = stats["last_ok"] - stats["first_ok"]
    achieved = (stats["ok_posts"] - 1) / span if span > 0 else float("nan")
    allowed = args.rate * teams
    product_s = sum(v for k, v in cpu.items() if k not in ("standin", "workers_system"))  # the stand-in is Slack
    return {
        "workers": workers,
        "teams": teams,
        "messages": messages,
        "delivered": stats["delivered"],
        "duplicates": stats["duplicates"],
        "lost": messages - stats["delivered"],
        "allowed_per_s": allowed,
        "achieved_per_s": round(achieved, 2),
        "rate_ratio": round(achieved / allowed, 3),
        "http_429": stats["http_429"],
        "http_429_team": stats["http_429_team"],
        "http_429_channel": stats["http_429_channel"],
        "teams_posting_per_s": stats["teams_posting_per_s"],
        "ledger_sent": sent_rows,
        "killed_worker_at": killed,
        "enqueued": dict(counts),
        "enqueue_s": round(enqueue_s, 1),
        "worker_cpu_ms_per_dm": round(cpu["workers"] * 1000 / max(1, stats["ok_posts"]), 2),
        "cpu_ms_per_dm": {k: round(v * 1000 / max(1, stats["ok_posts"]), 2) for k, v in sorted(cpu.items())},
        "floor_cpu_ms_per_post": [round(f, 3) for f in floor],
        "floor_during_run": [round(f, 3) for f in during],
        "floor_after_run": [round(f, 3) for f in after],
        "workers_to_floor_after": round(cpu["workers"] * 1000 / max(1, stats["ok_posts"]) / after[len(after) // 2], 2)
        if after and after[0] > 0
        else None,
        "workers_to_floor": round(cpu["workers"] * 1000 / max(1, stats["ok_posts"]) / floor[len(floor) // 2], 2)
        if floor and floor[0] > 0
        else None,
        "product_to_floor": round(product_s * 1000 / max(1, stats["ok_posts"]) / floor[len(floor) // 2], 2)
        if floor and floor[0] > 0
        else None,
        "load_avg_1m": round(os.getloadavg()[0], 1),
        "ab": ab,
        "wall_s": round(wall, 1),
        "seed_s": round(seed_s, 1),
        "threads_per_worker": args.threads,
        "dm_batch": dm_batch,
        "per_team_rate": args.rate,
        "per_team_burst": args.burst,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--teams", type=int, default=200)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--rate", type=float, default=2.5, help="posts/s allowed per workspace")
    parser.add_argument("--burst", type=float, default=5.0, help="workspace bucket size")
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument(
        "--threads",
        type=int,
        default=8,
        help="threads per worker (8: the turns booked ahead stay within the pacer's horizon; 16 cost more CPU a DM)",
    )
    parser.add_argument(
        "--dm-batch",
        default=None,
        help="DMs per queue message (default: the app's); a comma-separated list runs once per value",
    )
    parser.add_argument("--kill", action="store_true", help="SIGKILL one worker mid-run")
    parser.add_argument("--one-workspace", action="store_true", help="pacing check: one workspace, 2 then 4 workers")
    parser.add_argument(
        "--database-url",
        default=None,
        help=f"PostgreSQL server to create this run's own database on "
        f"(default ${benchdb.DATABASE_ENV}; no built-in default)",
    )
    parser.add_argument(
        "--redis-url",
        default=None,
        help=f"Redis server and DB, e.g. redis://127.0.0.1:6379/15 (default ${benchdb.REDIS_ENV}; no built-in default)",
    )
    parser.add_argument("--stall-s", type=float, default=120.0)
    parser.add_argument("--floor-calls", type=int, default=2000, help="posts per round of the bare slack-sdk loop")
    parser.add_argument(
        "--floor-rounds", type=int, default=3, help="rounds of the bare loop during the run, and again after it"
    )
    parser.add_argument(
        "--log-dir",
        default=None,
        help="folder under which this run makes its own log folder (default: the system's temporary folder)",
    )
    parser.add_argument(
        "--ab-env",
        default=None,
        help="'NAME=VALUE ...' added to the environment of the odd workers only (B); prints each half's "
        "CPU ms per DM it sent (by the ledger's claimant) and B over A, side by side in one run",
    )
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    args.database_url = benchdb.required(
        args.database_url, "--database-url", benchdb.DATABASE_ENV, "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    args.redis_url = benchdb.required(args.redis_url, "--redis-url", benchdb.REDIS_ENV, "redis://127.0.0.1:6379/15")
    if args.one_workspace:
        results = [run_once(args, n, 1, args.messages, False) for n in (2, 4)]
        for r in results[:-1]:
            print(json.dumps(r))
        print(json.dumps(results[-1]))
        return 0 if all(r["http_429"] == 0 and r["lost"] == 0 for r in results) else 1
    batches = [int(b) for b in args.dm_batch.split(",")] if args.dm_batch else [None]
    ok = True
    for dm_batch in batches:
        result = run_once(args, args.workers, args.teams, args.messages, args.kill, dm_batch)
        print(json.dumps(result), flush=True)
        ok = ok and result["lost"] == 0 and result["duplicates"] == 0 and (args.kill or result["rate_ratio"] >= 0.9)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
