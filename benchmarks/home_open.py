"""CPU of one App Home open, in process: ours (:func:`bot.slack.app.build_app`) against a no-op Bolt app
doing the same Slack calls (issue 43: App Home open <= 2x the no-op's).

Both apps get the same signed ``app_home_opened`` bodies through ``App.dispatch`` in this thread, their
work after the ack run in the same thread (an inline executor), so ``time.thread_time()`` of this thread
is one open's CPU: signature check, Bolt's dispatch, and what each app does. The Web API is the tests'
stand-in on loopback (its threads' CPU is not counted). Two cases, interleaved in rounds:

* ``changed``: before each open (not timed) the person clicks *Mark read* or *Mark unread* on a message
  of ours (dispatched to ours, so the post is marked read or unread again through the app, as a person
  does between two opens), so ours reads the state, renders the view and calls ``views.publish`` once
  (the channel list is kept); the no-op app calls ``views.publish`` with a fixed small view through
  Bolt's client. ``--toggle store`` marks it through the store instead (a write the app is not told of,
  which drops every person's kept App Home facts: 4.2x on 2026-12-06 at load ~6).
* ``same``: nothing changed since the person's last open: ours publishes nothing (Slack shows that view
  already); the no-op app only acks.

Run: ``.venv/bin/python benchmarks/home_open.py [--people 20] [--opens 400] [--rounds 4]``; prints the
CPU per open of each app and case, their ratios (median of the rounds) and the load average; exits 1
when the ``changed`` ratio is above 2. ``--profile`` instead profiles ours on the ``changed`` case
(cProfile, thread time, the opens only) and prints where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from clicks import Inline, cpu_per_request  # benchmarks/, this script's folder
from command_latency import SECRET, TOKEN, bench_settings
from slack_bolt import App, BoltRequest
from slack_sdk import WebClient

from bot.runtime import Runtime
from bot.slack.app import build_app
from tests.standin import (
    SlackStandIn,
    app_home_opened_event,
    block_actions_body,
    button_action,
    event_body,
    signed_headers,
)

TARGET = 2.0
VIEW = {"type": "home", "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "Home"}}]}


def _noop_app(api_url: str) -> App:
    app = App(
        signing_secret=SECRET,
        client=WebClient(token=TOKEN, base_url=api_url),
        process_before_response=True,
        listener_executor=Inline(),
        name="noop",
    )
    app.event("app_home_opened")(
        ack=lambda ack: ack(),
        lazy=[lambda event, client: client.views_publish(user_id=event["user"], view=VIEW) if event["n"] else None],
    )
    return app


def _request(person: str, changed: bool) -> BoltRequest:
    event = app_home_opened_event(person)
    event["n"] = 1 if changed else 0  # the no-op app publishes when ours has something new to publish
    body = event_body(event)
    headers = signed_headers(body, SECRET, content_type="application/json")
    return BoltRequest(body=body.decode(), headers={k.lower(): [v] for k, v in headers.items()})


def _click(person: str, kind: str, post: str, response_url: str) -> BoltRequest:
    """A click of ``person`` on a *Mark read* (``kind`` ``mark_read``) or *Mark unread* button of ``post``
    in a message of ours (answered at ``response_url``)."""
    element = {"action_id": f"{kind}:0", "value": json.dumps({"p": post, "t": "pd"}), "text": {"type": "plain_text"}}
    body = block_actions_body(
        button_action(element, "b"), message_ts="1700000000.000100", response_url=response_url, user_id=person
    )
    headers = signed_headers(body, SECRET)
    return BoltRequest(body=body.decode(), headers={k.lower(): [v] for k, v in headers.items()})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--opens", type=int, default=400, help="opens per app, case and round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--profile", action="store_true", help="instead: profile ours on the changed case")
    parser.add_argument("--toggle", choices=("click", "store"), default="click", help="how the changed case changes")
    args = parser.parse_args(argv)
    people = [f"U0HOME{i:03d}" for i in range(args.people)]
    with SlackStandIn() as standin, tempfile.TemporaryDirectory() as tmp:
        settings = bench_settings(standin.api_url, tmp)
        runtime = Runtime.create(settings)
        store, team = runtime.store, standin.team_id
        post = runtime.holder.catalog.order("pd")[0]
        ours = build_app(runtime, listener_executor=Inline())  # run_spare: publishes as on the lazy pool
        noop = _noop_app(standin.api_url)

        url = standin.response_url()
        marked = dict.fromkeys(people, False)

        def toggle(i: int) -> None:
            person = people[i % len(people)]
            if args.toggle == "store":
                (store.mark_unread if marked[person] else store.mark_read)(team, person, [post])
            else:
                response = ours.dispatch(_click(person, "mark_unread" if marked[person] else "mark_read", post, url))
                assert response.status == 200, response.status
            marked[person] = not marked[person]

        for person in people:
            store.follow(team, person, "pd")
        if args.profile:
            reqs = [_request(people[i % len(people)], True) for i in range(args.opens)]
            cpu_per_request(ours, reqs, toggle)  # warm-up
            profiler = cProfile.Profile(time.thread_time)
            for i, req in enumerate(reqs):  # the opens only, not the toggles
                toggle(i)
                profiler.enable()
                ours.dispatch(req)
                profiler.disable()
            stats = pstats.Stats(profiler).sort_stats(os.environ.get("PROFILE_SORT", "cumulative"))
            stats.print_stats(int(os.environ.get("PROFILE_LINES", "40")))
            runtime.store.close()
            return 0
        load = os.getloadavg()
        ratios: dict[str, list[float]] = {"changed": [], "same": []}
        cpu: dict[str, list[float]] = {f"{a} {c}": [] for a in ("ours", "noop") for c in ratios}
        for round_no in range(args.rounds + 1):  # round 0 warms up both apps (auth.test, channels, caches)
            for case in ("changed", "same"):
                changed = case == "changed"
                reqs = [_request(people[i % len(people)], changed) for i in range(args.opens)]
                mine = cpu_per_request(ours, reqs, toggle if changed else lambda i: None)
                theirs = cpu_per_request(noop, reqs, lambda i: None)
                if round_no:
                    cpu[f"ours {case}"].append(mine)
                    cpu[f"noop {case}"].append(theirs)
                    ratios[case].append(mine / theirs)
        publishes = len(standin.calls("views.publish"))
        runtime.store.close()
    after = os.getloadavg()
    print(
        f"App Home open, in-process CPU (thread time), {args.people} people, {args.opens} opens per app, case "
        f"and round, {args.rounds} rounds; load average {load[0]:.1f} before, {after[0]:.1f} after; "
        f"{publishes} views.publish calls in all"
    )
    for case, values in ratios.items():
        mine, theirs = statistics.median(cpu[f"ours {case}"]), statistics.median(cpu[f"noop {case}"])
        print(
            f"  {case:8}: ours {1000 * mine:.2f} ms, no-op {1000 * theirs:.2f} ms, ratio median "
            f"{statistics.median(values):.2f}x (rounds {', '.join(f'{r:.2f}' for r in values)})"
        )
    ok = statistics.median(ratios["changed"]) <= TARGET
    print(f"  target: changed ratio <= {TARGET:.0f}x: {'ok' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
