"""Acks under a slow Slack: 60 signed ``/vllm-path`` commands at once through the HTTP door while
the stand-in's Web API answers every call in 1.5 s.

Each command comes from a different person, so each answer first asks Slack ``users.info`` (their
locale and time zone) — the slow follow-up work that runs in Bolt's lazy listener — and then posts
the reply to its response URL. Slack shows ``operation_timeout`` when the HTTP answer (the ack)
takes over 3 s; our target is every ack under 1 s and every reply delivered.

Two setups in the same run, on the same machine, same stand-in, same requests:

* ``app``: :func:`bot.slack.app.build_app` as shipped (acks on their own ``listener_executor``,
  lazy listeners on a pool of their own) behind :class:`bot.doors.serve.HttpDoor` with its default
  waitress threads;
* ``baseline``: the same app with Bolt's defaults put back (one 5-thread pool for acks and lazy
  listeners alike) behind 8 waitress threads, which is what ``serve`` ran before.

A request's ack time runs from sending the signed POST to reading the HTTP answer; its reply
time from sending to the stand-in receiving the post at its response URL.

Run: ``.venv/bin/python benchmarks/slow_slack.py [-n 60] [--latency 1.5] [--rounds 1] [--check]``.
Prints ack p50/p99/max, time to full reply, and counts; ``--check`` exits 1 unless every ack of
the shipped app is under 1 s and every reply arrived.

``--mix`` (issue 27) models a workspace instead of a burst: ``--clients`` people (default 200), each
sending one request after another for ``--seconds`` (default 60) with the Web API at ``--latency``:
half slash commands, a quarter *Mark read* clicks, a quarter App Home opens (``app_home_opened``,
whose ``views.publish`` must never run on the ack pool). It reports the ack p50/p99/max per kind,
acks over 3 s (Slack shows the person an error) and non-200 answers; ``--check`` exits 1 on any.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from command_latency import SECRET, bench_settings  # benchmarks/, this script's folder

from bot.doors.serve import HttpDoor
from bot.runtime import Runtime
from bot.slack.app import build_app
from tests.standin import (
    SlackStandIn,
    app_home_opened_event,
    block_actions_body,
    button_action,
    event_body,
    signed_headers,
    slash_command_body,
)

ACK_TARGET_S = 1.0


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def _bolt_defaults(app) -> None:  # type: ignore[no-untyped-def]
    """Put Bolt's default executors back: one ``ThreadPoolExecutor(max_workers=5)`` shared by
    the ack functions and the lazy listeners (``slack_bolt.App.__init__``)."""
    from slack_bolt.lazy_listener.thread_runner import ThreadLazyListenerRunner

    shared = ThreadPoolExecutor(max_workers=5)
    runner = app._listener_runner
    runner.listener_executor = shared
    runner.lazy_listener_runner = ThreadLazyListenerRunner(logger=app.logger, executor=shared)


def _fire(
    door: HttpDoor, standin: SlackStandIn, n: int, round_no: int, label: str, reply_timeout: float
) -> dict[str, object]:
    """``n`` commands at once (a barrier releases them together); ack and reply times."""
    barrier = threading.Barrier(n)
    acks: list[float] = []
    statuses: list[int] = []
    sent_at: dict[str, float] = {}
    lock = threading.Lock()

    def one(i: int) -> None:
        url = standin.response_url(f"{label}-{round_no}-{i}")
        body = slash_command_body("speculative", user_id=f"U{label[:1].upper()}{round_no}{i:04d}", response_url=url)
        headers = signed_headers(body, SECRET)
        req = urllib.request.Request(door.url + "/slack/events", data=body, headers=headers, method="POST")
        barrier.wait()
        started = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                acked = resp.read()
                status = resp.status
        except urllib.error.HTTPError as exc:
            status, acked = exc.code, b""
        took = time.monotonic() - started
        if status == 200 and acked.strip():  # a reply in the ack: Slack shows it
            standin.answer_ack(url, acked)
        with lock:
            acks.append(took)
            statuses.append(status)
            sent_at[url] = started

    with ThreadPoolExecutor(max_workers=n) as pool:
        list(pool.map(one, range(n)))
    deadline = time.monotonic() + reply_timeout
    replies: dict[str, float] = {}
    while time.monotonic() < deadline:
        for post in standin.responses():
            if post.url in sent_at and post.url not in replies and post.status == 200:
                replies[post.url] = post.at - sent_at[post.url]
        if len(replies) == n:
            break
        time.sleep(0.05)
    return {"acks": acks, "statuses": statuses, "replies": list(replies.values())}


def _report(label: str, results: list[dict[str, object]], n: int) -> tuple[float, int]:
    acks = [a for r in results for a in r["acks"]]  # type: ignore[attr-defined]
    replies = [a for r in results for a in r["replies"]]  # type: ignore[attr-defined]
    non200 = sum(1 for r in results for s in r["statuses"] if s != 200)  # type: ignore[attr-defined]
    over1 = sum(1 for a in acks if a >= 1.0)
    over3 = sum(1 for a in acks if a >= 3.0)
    expected = n * len(results)
    print(
        f"  {label:8}: ack p50 {_pct(acks, 50):6.3f} s  p99 {_pct(acks, 99):6.3f} s  "
        f"max {max(acks):6.3f} s | acks >= 1 s: {over1}, >= 3 s: {over3}, non-200: {non200} | "
        f"replies {len(replies)}/{expected}"
        + (f", full reply p50 {_pct(replies, 50):.2f} s max {max(replies):.2f} s" if replies else "")
    )
    return max(acks), expected - len(replies)


def _mark_read_button(door: HttpDoor, standin: SlackStandIn) -> tuple[dict[str, Any], str]:
    """A *Mark read* button of a real reply (element, block id), to click in the mix."""
    url = standin.response_url("mix-seed")
    body = slash_command_body("speculative", user_id="U0MIXSEED", response_url=url)
    req = urllib.request.Request(
        door.url + "/slack/events", data=body, method="POST", headers=signed_headers(body, SECRET)
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        acked = resp.read()
    if acked.strip():
        standin.answer_ack(url, acked)
    reply = standin.wait_for_response(url, timeout=60).body
    for block in reply.get("blocks") or []:
        for element in block.get("elements") or ([block["accessory"]] if "accessory" in block else []):
            if str(element.get("action_id", "")).startswith("mark_read:"):
                return element, str(block.get("block_id", ""))
    raise SystemExit("no Mark read button in the reply")


def _clients(
    url: str, response_base: str, element: dict[str, Any], block_id: str, clients: int, seconds: float, out: Any
) -> None:
    """The ``--mix`` people, in a process of their own (their CPU is not the server's): each sends one
    request after another for ``seconds``, then opens App Home once more (its latest open). Puts on
    ``out`` the list of ``(kind, person, sent at (time.monotonic()), ack seconds, HTTP status)``."""
    done: list[tuple[str, str, float, float, int]] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def request(kind: str, person: str, n: int) -> tuple[bytes, dict[str, str]]:
        reply_to = f"{response_base}/response/{kind}-{person}-{n}"
        if kind == "command":
            body = slash_command_body("speculative" if n % 2 else "follow pd", user_id=person, response_url=reply_to)
            return body, signed_headers(body, SECRET)
        if kind == "click":
            action = button_action(element, block_id)
            body = block_actions_body(
                action, user_id=person, response_url=reply_to, is_ephemeral=True, message_ts="1700000000.000100"
            )
            return body, signed_headers(body, SECRET)
        body = event_body(app_home_opened_event(person))
        return body, signed_headers(body, SECRET, content_type="application/json")

    def send(kind: str, person: str, n: int) -> None:
        body, headers = request(kind, person, n)
        req = urllib.request.Request(url + "/slack/events", data=body, headers=headers, method="POST")
        started = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                resp.read()
                status = resp.status
        except urllib.error.HTTPError as exc:
            status = exc.code
        except OSError:
            status = 0
        with lock:
            done.append((kind, person, started, time.monotonic() - started, status))

    def client(i: int) -> None:
        person, n = f"U0MIX{i:04d}", 0
        while time.monotonic() < stop_at:
            send(("command", "command", "click", "home")[(i + n) % 4], person, n)
            n += 1
        send("home", person, n)

    with ThreadPoolExecutor(max_workers=clients) as pool:
        list(pool.map(client, range(clients)))
    out.put(done)


def _quiet(standin: SlackStandIn, publisher: Any, ceiling_s: float = 120.0) -> None:
    """Wait until no App Home publish is left and the stand-in saw nothing new for 3 s."""
    deadline, seen, still_since = time.monotonic() + ceiling_s, -1, time.monotonic()
    while time.monotonic() < deadline:
        now = len(standin.calls()) + len(standin.responses())
        if now != seen or publisher.waiting():
            seen, still_since = now, time.monotonic()
        elif time.monotonic() - still_since >= 3.0:
            return
        time.sleep(0.2)


def _latest_homes_published(app: Any, standin: SlackStandIn, opened: dict[str, float]) -> tuple[int, list[str]]:
    """People whose latest App Home open is published: a publish Slack accepted after it, or a
    published view equal to their Home now (Slack shows it already). Returns (count, the others)."""
    from bot.slack.handlers import Caller

    publishes: dict[str, list[Any]] = {}
    for call in standin.calls("views.publish"):
        if call.ok:
            publishes.setdefault(str(call.args.get("user_id")), []).append(call)
    channels = [c["id"] for c in standin.channels]
    missed = []
    for person, at in opened.items():
        mine = publishes.get(person) or []
        after = any(c.at >= at for c in mine)
        same = bool(mine) and mine[-1].args["view"] == app.handlers.home(Caller(standin.team_id, person), channels)
        if not (after or same):
            missed.append(person)
    return len(opened) - len(missed), missed


def _one_person(door: HttpDoor, standin: SlackStandIn, opens: int = 30, seconds: float = 10.0) -> int:
    """One person opening App Home ``opens`` times in ``seconds``: the ``views.publish`` calls made."""
    person = "U0ONEHOME"
    for _ in range(opens):
        body = event_body(app_home_opened_event(person))
        headers = signed_headers(body, SECRET, content_type="application/json")
        req = urllib.request.Request(door.url + "/slack/events", data=body, headers=headers, method="POST")
        with urllib.request.urlopen(req, timeout=30) as resp:
            resp.read()
        time.sleep(max(0.0, seconds / opens))
    _quiet(standin, door.app.handlers.publisher)
    return len([c for c in standin.calls("views.publish") if c.args.get("user_id") == person])


def _mix_main(args: argparse.Namespace) -> int:
    import contextlib
    import multiprocessing
    import os

    import benchdb  # benchmarks/, on sys.path as this script's folder

    from bot.slack.i18n import t

    with SlackStandIn() as standin, tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        url = stack.enter_context(benchdb.own_postgres_database(args.database_url)) if args.database_url else None
        settings = bench_settings(standin.api_url, tmp)
        if url:  # its own PostgreSQL database
            settings = settings.model_copy(update={"database_url": url})
        runtime = Runtime.create(settings)
        app = build_app(runtime)
        with HttpDoor(runtime, app, port=0) as door:
            element, block_id = _mark_read_button(door, standin)  # warm: the catalog index and the first reply
            standin.configure(latency_s=args.latency)
            load_before = os.getloadavg()
            cpu_before = time.process_time()
            spawn = multiprocessing.get_context("spawn")
            out = spawn.Queue()
            people = spawn.Process(
                target=_clients,
                args=(door.url, standin.base_url, element, block_id, args.clients, args.seconds, out),
                name="mix-clients",
            )
            people.start()
            done: list[tuple[str, str, float, float, int]] = out.get(timeout=args.seconds + 600)
            people.join(60)
            _quiet(standin, app.handlers.publisher)
            cpu = time.process_time() - cpu_before
            opened: dict[str, float] = {}
            for kind, person, started, _took, _status in done:
                if kind == "home":
                    opened[person] = max(opened.get(person, 0.0), started)
            published, missed = _latest_homes_published(app, standin, opened)
            one = _one_person(door, standin)
            load_after = os.getloadavg()
        runtime.store.close()
    busy = str(t("busy"))
    answers: dict[str, int] = {"command": 0, "click": 0}
    told_busy: dict[str, int] = {"command": 0, "click": 0}
    began = min((started for _k, _p, started, _t, _s in done), default=0.0)
    busy_at: list[float] = []
    for post in standin.responses():
        kind = post.key.split("-", 1)[0]
        if kind in answers and post.status == 200:
            answers[kind] += 1
            if post.body.get("text") == busy:
                told_busy[kind] += 1
                busy_at.append(post.at - began)
    acks = {kind: [took for k, _p, _s, took, _st in done if k == kind] for kind in ("command", "click", "home")}
    every = [took for *_rest, took, _st in done]
    over3 = sum(1 for a in every if a >= 3.0)
    non200 = sum(1 for *_rest, st in done if st != 200)
    sent = {kind: len(v) for kind, v in acks.items()}
    print(
        f"mix: {args.clients} people (their own process) back to back for {args.seconds:.0f} s (commands 1/2, "
        f"Mark read clicks 1/4, App Home opens 1/4, then one last open each), Web API latency {args.latency} s, "
        f"{len(every)} requests, {'PostgreSQL' if args.database_url else 'SQLite'}; load average "
        f"{load_before[0]:.1f} before, {load_after[0]:.1f} after; server process CPU {cpu:.1f} s"
    )
    for kind, took in acks.items():
        if took:
            print(
                f"  {kind:8}: {len(took):6d} acks  p50 {_pct(took, 50):6.3f} s  p99 {_pct(took, 99):6.3f} s"
                f"  max {max(took):6.3f} s"
            )
    click_busy = told_busy["click"] / max(1, sent["click"])
    print(f"  all     : p99 {_pct(every, 99):.3f} s, acks >= 3 s: {over3}, non-200: {non200}")
    if busy_at:
        print(f"  busy answers from {min(busy_at):.1f} s to {max(busy_at):.1f} s into the run")
    print(
        f"  busy answers: commands {told_busy['command']}/{sent['command']}, clicks {told_busy['click']}/"
        f"{sent['click']} ({100 * click_busy:.2f}%)"
    )
    print(
        f"  latest App Home open published: {published}/{len(opened)} people"
        + (f" (missed: {missed[:5]})" if missed else "")
    )
    print(f"  one person, 30 App Home opens in 10 s: {one} views.publish call(s)")
    checks = {
        "0 acks over 3 s": over3 == 0,
        "0 non-200": non200 == 0,
        "0 busy answers to commands": told_busy["command"] == 0,
        "<= 1% busy answers to clicks": click_busy <= 0.01,
        "every person's latest App Home open published": not missed,
        "30 opens by one person: <= 3 publishes": one <= 3,
    }
    for name, ok in checks.items():
        print(f"  target: {name}: {'ok' if ok else 'MISSED'}")
    return 0 if all(checks.values()) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=60, help="concurrent commands per round")
    parser.add_argument("--latency", type=float, default=1.5, help="Web API latency, seconds")
    parser.add_argument("--rounds", type=int, default=1, help="rounds per setup (alternating)")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 unless every ack of the app is under 1 s and every reply came"
    )
    parser.add_argument(
        "--mix", action="store_true", help="commands, clicks and App Home opens from --clients people for --seconds"
    )
    parser.add_argument("--clients", type=int, default=200, help="--mix: people sending at once")
    parser.add_argument("--seconds", type=float, default=60.0, help="--mix: how long")
    parser.add_argument(
        "--database-url",
        default=None,
        help="--mix: a PostgreSQL server on which the run creates (and then drops) its own database "
        "(default: an SQLite file in a temporary folder)",
    )
    args = parser.parse_args(argv)
    if args.mix:
        return _mix_main(args)

    results: dict[str, list[dict[str, object]]] = {"app": [], "baseline": []}
    with SlackStandIn() as standin, tempfile.TemporaryDirectory() as tmp:
        settings = bench_settings(standin.api_url, tmp)
        runtime = Runtime.create(settings)
        app = build_app(runtime)  # auth.test at start, before the latency is turned on
        baseline = build_app(runtime)
        _bolt_defaults(baseline)
        standin.configure(latency_s=args.latency)
        with HttpDoor(runtime, app, port=0) as shipped, HttpDoor(runtime, baseline, port=0, threads=8) as old:
            for round_no in range(args.rounds):
                for label, door in (("app", shipped), ("baseline", old)):
                    results[label].append(
                        _fire(door, standin, args.n, round_no, label, reply_timeout=60 + args.n * args.latency)
                    )
        runtime.store.close()

    print(
        f"{args.n} concurrent signed `/vllm-path speculative` from different people, Web API "
        f"latency {args.latency} s, {args.rounds} round(s) per setup"
    )
    worst, lost = _report("app", results["app"], args.n)
    _report("baseline", results["baseline"], args.n)
    ok = worst < ACK_TARGET_S and lost == 0
    print(f"  target: every ack < {ACK_TARGET_S:.0f} s and every reply delivered: {'ok' if ok else 'MISSED'}")
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
