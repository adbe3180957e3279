"""CPU of a ``/vllm-path next <track>`` and of a *Mark read* click, in process: ours
(:func:`bot.slack.app.build_app`) against a no-op Bolt app doing the same Slack calls (issue 43:
``next`` <= 2x, *Mark read* <= 1.5x the no-op's).

Both apps get the same signed bodies through ``App.dispatch`` in this thread, their work after the
ack run in the same thread (an inline executor), so ``time.thread_time()`` of this thread is one
request's CPU: signature check, Bolt's dispatch, and what each app does. What the app does on its
own threads meanwhile is added (:func:`background_cpu`: ours holds each click in the store on the
held-request batcher's thread, :mod:`bot.store.held_batch`, and releases it there; the no-op has no
such thread): the ratios judged are of both together, those of this thread alone are printed beside
them (the figures before 2026-12-06 late evening). The Web API and the response URLs are the tests'
stand-in on loopback (its threads' CPU is not counted). Two cases, interleaved in rounds, each over
``--people`` people following the track:

* ``next``: ``/vllm-path next <track>``; ours reads the person's state and answers in the ack, the
  no-op app acks with a one-line text.
* ``mark read``: a click on the *Mark read* button of the person's ``next`` reply; before each click
  (not timed) that post is marked unread again, so every click marks it read. Ours records it and
  posts its answer to the response URL; the no-op app acks and posts a one-line text there.

Run: ``.venv/bin/python benchmarks/clicks.py [--people 20] [--requests 300] [--rounds 4]``; prints
the CPU per request of each app and case, their ratios (median of the rounds) and the load
average; exits 1 when a ratio is above its target. ``--profile next|'mark read'`` instead profiles
ours on that case (cProfile, thread time) and prints where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from command_latency import SECRET, TOKEN, bench_settings  # benchmarks/, this script's folder
from slack_bolt import App, BoltRequest
from slack_sdk import WebClient

from bot.runtime import Runtime
from bot.slack.app import build_app
from tests.standin import SlackStandIn, block_actions_body, button_action, signed_headers, slash_command_body

TRACK = "pd"
TARGETS = {"next": 2.0, "mark read": 1.5}


class Inline(Executor):
    """Runs every job at once in the submitting thread; every thread is spare (``run_spare``)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future

    def run_spare(self, fn: Callable[[], Any]) -> bool:
        fn()
        return True


def _noop_app(api_url: str) -> App:
    app = App(
        signing_secret=SECRET,
        client=WebClient(token=TOKEN, base_url=api_url),
        process_before_response=True,
        listener_executor=Inline(),
        name="noop",
    )
    app.command("/vllm-path")(lambda ack: ack(text="ok", response_type="ephemeral"))
    app.action(re.compile(".*"))(ack=lambda ack: ack(), lazy=[lambda respond: respond(text="ok")])
    return app


def _signed(body: bytes, content_type: str = "application/x-www-form-urlencoded") -> BoltRequest:
    headers = signed_headers(body, SECRET, content_type=content_type)
    return BoltRequest(body=body.decode(), headers={k.lower(): [v] for k, v in headers.items()})


def _mark_read_button(blocks: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The first *Mark read* button of a reply's blocks and its block id."""
    for block in blocks:
        for element in block.get("elements", []) + ([block["accessory"]] if "accessory" in block else []):
            if str(element.get("action_id", "")).startswith("mark_read"):
                return element, block.get("block_id", "b")
    raise LookupError("no Mark read button in the next reply")


def cpu_per_request(app: App, requests: list[BoltRequest], before: Callable[[int], None]) -> float:
    """Thread CPU seconds per request of ``app.dispatch`` over ``requests``; ``before(i)`` runs,
    unmeasured, ahead of each."""
    spent = 0.0
    for i, req in enumerate(requests):
        before(i)
        started = time.thread_time()
        response = app.dispatch(req)
        spent += time.thread_time() - started
        assert response.status == 200, response.status
    return spent / len(requests)


STANDIN_THREADS = ("slack-standin", "process_request_thread")
"""Name parts of the stand-in's threads (its server and its per-connection handlers): not counted."""


def background_cpu() -> float:
    """CPU seconds so far of every live thread but this one and the stand-in's (Linux thread clocks);
    a thread that ended in between is missed (the app's are long-lived: the held-request batcher)."""
    spent = 0.0
    for thread in threading.enumerate():
        if thread is threading.current_thread() or thread.ident is None:
            continue
        if any(part in thread.name for part in STANDIN_THREADS):
            continue
        try:
            spent += time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
        except (OSError, ProcessLookupError):  # it ended meanwhile
            continue
    return spent


def cpu_with_background(app: App, requests: list[BoltRequest], before: Callable[[int], None]) -> tuple[float, float]:
    """``(this thread's, the app's other threads')`` CPU seconds per request (:func:`cpu_per_request`,
    :func:`background_cpu`); the last release of ours may fall after the end (one request's of many)."""
    started = background_cpu()
    own = cpu_per_request(app, requests, before)
    return own, max(0.0, background_cpu() - started) / len(requests)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--requests", type=int, default=300, help="requests per app, case and round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--profile", choices=("next", "mark read"), help="instead: profile ours on one case")
    args = parser.parse_args(argv)
    people = [f"U0CLICK{i:03d}" for i in range(args.people)]
    with SlackStandIn() as standin, tempfile.TemporaryDirectory() as tmp:
        settings = bench_settings(standin.api_url, tmp)
        runtime = Runtime.create(settings)
        store, team = runtime.store, standin.team_id
        ours = build_app(runtime, listener_executor=Inline())
        noop = _noop_app(standin.api_url)
        for person in people:
            store.follow(team, person, TRACK)
        url = standin.response_url()

        def command(person: str) -> BoltRequest:
            return _signed(slash_command_body(f"next {TRACK}", user_id=person, team_id=team, response_url=url))

        clicks, posts = {}, {}
        for person in people:  # each person's Mark read button, from their own next reply
            first = standin.response_url(person)
            acked = ours.dispatch(_signed(slash_command_body(f"next {TRACK}", user_id=person, response_url=first)))
            # the first command of a person is answered at the response URL (their language looked up)
            reply = json.loads(acked.body) if acked.body else standin.wait_for_response(first, timeout=30).body
            element, block_id = _mark_read_button(reply["blocks"])
            posts[person] = json.loads(element["value"])["p"]
            body = block_actions_body(
                button_action(element, block_id), message_ts="1700000000.000100", response_url=url, user_id=person
            )
            clicks[person] = body
        # Made again for each app and round (not timed): Bolt keeps what a dispatch notes in the
        # request's own context, and a click dispatched again would find itself held already (until
        # 2026-12-07 the rounds after the first measured clicks that skipped their hold)
        makers: dict[str, Callable[[], list[BoltRequest]]] = {
            "next": lambda: [command(people[i % len(people)]) for i in range(args.requests)],
            "mark read": lambda: [_signed(clicks[people[i % len(people)]]) for i in range(args.requests)],
        }

        def unread(i: int) -> None:
            person = people[i % len(people)]
            store.mark_unread(team, person, [posts[person]])

        befores: dict[str, Callable[[int], None]] = {"next": lambda i: None, "mark read": unread}
        if args.profile:
            cpu_per_request(ours, makers[args.profile](), befores[args.profile])  # warm-up
            profiler = cProfile.Profile(time.thread_time)
            profiler.runcall(cpu_per_request, ours, makers[args.profile](), befores[args.profile])
            stats = pstats.Stats(profiler).sort_stats(os.environ.get("PROFILE_SORT", "cumulative"))
            stats.print_stats(int(os.environ.get("PROFILE_LINES", "40")))
            runtime.store.close()
            return 0
        load = os.getloadavg()
        ratios: dict[str, list[float]] = {case: [] for case in makers}
        thread_ratios: dict[str, list[float]] = {case: [] for case in makers}
        cpu: dict[str, list[float]] = {f"{a} {c}": [] for a in ("ours", "noop", "ours bg", "noop bg") for c in makers}
        for round_no in range(args.rounds + 1):  # round 0 warms up both apps (auth.test, caches)
            for case, make in makers.items():
                mine, mine_bg = cpu_with_background(ours, make(), befores[case])
                theirs, theirs_bg = cpu_with_background(noop, make(), lambda i: None)
                standin.reset()  # keep its record lists short
                if round_no:
                    for key, value in (("ours", mine), ("noop", theirs), ("ours bg", mine_bg), ("noop bg", theirs_bg)):
                        cpu[f"{key} {case}"].append(value)
                    ratios[case].append((mine + mine_bg) / (theirs + theirs_bg))
                    thread_ratios[case].append(mine / theirs)
        runtime.store.close()
    after = os.getloadavg()
    print(
        f"next and Mark read, in-process CPU (thread time), {args.people} people, {args.requests} requests per "
        f"app, case and round, {args.rounds} rounds; load average {load[0]:.1f} before, {after[0]:.1f} after"
    )
    ok = True
    for case, values in ratios.items():
        ms = {key: 1000 * statistics.median(cpu[f"{key} {case}"]) for key in ("ours", "noop", "ours bg", "noop bg")}
        ratio = statistics.median(values)
        ok = ok and ratio <= TARGETS[case]
        print(
            f"  {case:9}: ours {ms['ours']:.2f} + {ms['ours bg']:.2f} ms (this thread + its others), no-op "
            f"{ms['noop']:.2f} + {ms['noop bg']:.2f} ms, ratio median {ratio:.2f}x (rounds "
            f"{', '.join(f'{r:.2f}' for r in values)}; target <= {TARGETS[case]}x); this thread alone "
            f"{statistics.median(thread_ratios[case]):.2f}x"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
