"""Socket Mode in time (issue 42): a real ``vllm-path serve`` with ``SLACK_APP_TOKEN`` against
Slack's two ends on loopback, the Web API (:class:`~tests.standin.SlackStandIn`) and Socket Mode
(:class:`~tests.standin.socket_mode.SocketModeStandIn`, which redelivers what is not acked).

A burst of 500 envelopes (commands answered in the ack, commands answered after it, App Home
opens) is acked once each, on the connection it came on, and handled once (past the door's
backlog a command is acked first, empty, and answered through its response URL); Slack's redeliveries
(the same envelope again, or an event again in a new envelope) are acked and not handled again;
around ``refresh_requested`` every ack goes out on the connection its envelope came on; a
connection dropped without a close frame is noticed by ping and replaced; a command acked before
a ``kill -9`` is answered by the next process; unhandled events and ``app_rate_limited`` are acked.
The timings that the acceptance names (p99 < 1 s, 0 acks over 1 s,
reopened within 10 s) are ``benchmarks/socket_mode.py``'s; here the ceilings are generous."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.helpers import BOT_TOKEN
from tests.standin import SlackStandIn
from tests.standin.socket_mode import SocketModeStandIn, command_payload, home_open_payload

SLACK_VARS = ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET")
APP_TOKEN = "xapp-1-A0CONSOLE-1-socketmodetest"


def command(standin: SlackStandIn, text: str, user: str) -> tuple[dict[str, str], str]:
    """A slash command's payload as Socket Mode carries it, and its response URL."""
    url = standin.response_url()
    return command_payload(text, user, url), url


@pytest.fixture
def slack() -> Iterator[tuple[SlackStandIn, SocketModeStandIn]]:
    with SlackStandIn() as web, SocketModeStandIn(redeliver_after_s=3.0, close_after_s=10.0) as sm:
        web.socket_mode = sm
        yield web, sm


def start_serve(tmp_path: Path, web: SlackStandIn, sm: SocketModeStandIn, name: str) -> subprocess.Popen[bytes]:
    """``vllm-path serve`` in Socket Mode on ``tmp_path``'s SQLite database, once it has opened a
    connection more (its log in ``tmp_path/<name>.log``)."""
    env = {k: v for k, v in os.environ.items() if k not in SLACK_VARS}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path}/t.db",
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_APP_TOKEN=APP_TOKEN,
        SLACK_API_URL=web.api_url,
        LOG_LEVEL="INFO",
        HELD_REPLAY_AFTER_S="1",  # one serve at a time here: no other live process to wait for
    )
    log_path = tmp_path / f"{name}.log"
    before = len(sm.connections())
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("vllm-path")), "serve", "--pid-file", ""],
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        sm.wait_for(lambda: len(sm.connections()) > before or proc.poll() is not None, timeout=90)
    except TimeoutError:
        proc.kill()
        pytest.fail("serve did not connect:\n" + log_path.read_text()[-3000:])
    assert proc.poll() is None, log_path.read_text()[-3000:]
    return proc


@pytest.fixture
def serve(tmp_path: Path, slack: tuple[SlackStandIn, SocketModeStandIn]) -> Iterator[subprocess.Popen[bytes]]:
    """``vllm-path serve`` in Socket Mode, connected; at the end SIGTERM must stop it cleanly,
    with no secret and no traceback in its log."""
    proc = start_serve(tmp_path, *slack, "serve")
    try:
        yield proc
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, (tmp_path / "serve.log").read_text()[-3000:]
        text = (tmp_path / "serve.log").read_text()
        assert APP_TOKEN not in text and BOT_TOKEN not in text
        assert "Traceback" not in text, text[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def not_acked_more_than_delivered(sm: SocketModeStandIn) -> bool:
    """Every envelope was acked at most once per delivery."""
    counts: dict[str, int] = {}
    for ack in sm.acks():
        counts[ack.envelope_id] = counts.get(ack.envelope_id, 0) + 1
    return all(n <= len(sm.envelope(eid).deliveries) for eid, n in counts.items())


def acked_on_arrival_connection(sm: SocketModeStandIn) -> list[str]:
    """Envelopes whose first ack came on another connection than their first delivery."""
    first_acks: dict[str, str] = {}
    for ack in sm.acks():
        first_acks.setdefault(ack.envelope_id, ack.connection)
    return [eid for eid, conn in first_acks.items() if sm.envelope(eid).deliveries[0][0] != conn]


def test_a_burst_is_acked_once_each_and_handled_once(slack, serve):
    web, sm = slack
    for n in range(10):  # warm: each person's users.info, asked after the first ack
        payload, url = command(web, "help", f"U0HELP{n:03d}")
        sm.send("slash_commands", payload)
        web.wait_for_response(url, timeout=60)
    sent: list[str] = []
    later: list[str] = []  # response URLs of commands answered after the ack
    helps: dict[str, str] = {}  # envelope id -> response URL: answered in the ack, or acked first
    for n in range(500):
        if n % 5 == 0:
            payload, url = command(web, "subscribe pd monday 09:00 UTC", f"U0SUB{n:03d}")
            later.append(url)
            sent.append(sm.send("slash_commands", payload))
        elif n % 5 in (1, 2):
            payload, url = command(web, "help", f"U0HELP{n % 10:03d}")
            sent.append(sm.send("slash_commands", payload))
            helps[sent[-1]] = url
        else:
            sent.append(sm.send("events_api", home_open_payload(f"U0HOME{n:03d}", f"Ev{n:04d}")))
    sm.wait_for(lambda: len(sm.ack_delays()) == 510, timeout=120)

    assert acked_on_arrival_connection(sm) == []
    in_ack = {a.envelope_id for a in sm.acks() if a.envelope_id in helps and a.payload and a.payload["blocks"]}
    assert len(in_ack) < len(helps)  # past the backlog acked first (bot.doors.socket_mode.BACKLOG)
    homes = 200
    web.wait_for(lambda: len(web.calls("views.publish")) >= homes, timeout=120)
    for url in later + [url for eid, url in helps.items() if eid not in in_ack]:
        web.wait_for_response(url, timeout=120)
    time.sleep(1.0)  # a second handling would show by now
    assert len(web.calls("views.publish")) == homes  # each person's one open, published once
    assert sorted(len(web.responses(url)) for url in later) == [1] * len(later)
    # each help answered once: in its ack, or (acked first) through its response URL, with its blocks
    assert sorted((eid in in_ack) + len(web.responses(url)) for eid, url in helps.items()) == [1] * len(helps)
    assert all(post.body.get("blocks") for url in helps.values() for post in web.responses(url))
    assert not_acked_more_than_delivered(sm)  # a redelivery (a loaded machine) is acked, not handled


def test_redeliveries_are_acked_again_and_not_handled_again(slack, serve):
    web, sm = slack
    payload, url = command(web, "subscribe pd monday 09:00 UTC", "U0AGAIN")
    first = sm.send("slash_commands", payload)
    home = sm.send("events_api", home_open_payload("U0HOMEAGAIN", "EvAGAIN"))
    web.wait_for_response(url, timeout=60)
    web.wait_for_call("views.publish", timeout=60)

    sm.send("slash_commands", payload, envelope_id=first)  # Slack again: the same envelope
    sm.send("events_api", home_open_payload("U0HOMEAGAIN", "EvAGAIN"))  # the event again, in a new envelope
    sm.wait_for(lambda: len(sm.acks()) == 4, timeout=60)
    time.sleep(1.5)
    assert len(web.responses(url)) == 1 and len(web.calls("views.publish")) == 1
    assert [a.envelope_id for a in sm.acks()].count(first) == 2 and home in {a.envelope_id for a in sm.acks()}


def test_refresh_requested_acks_stay_on_their_connection(slack, serve):
    web, sm = slack
    sent = []
    for n in range(300):
        if n == 150:
            old = sm.disconnect("refresh_requested")
        sent.append(sm.send("slash_commands", command(web, "help", f"U0REF{n % 10:03d}")[0]))
    sm.wait_for(lambda: len(sm.ack_delays()) == 300, timeout=120)
    assert acked_on_arrival_connection(sm) == []
    assert {sm.envelope(eid).deliveries[0][0] for eid in sent[:150]} == {old}
    assert old not in {sm.envelope(eid).deliveries[0][0] for eid in sent[150:]}  # a new connection took them
    assert not_acked_more_than_delivered(sm)


@pytest.mark.parametrize("abort", [False, True], ids=["silent", "closed-without-close-frame"])
def test_a_dropped_connection_is_replaced_by_ping(slack, serve, abort):
    web, sm = slack
    old = sm.drop(abort=abort)
    dropped_at = time.monotonic()
    payload, url = command(web, "subscribe pd monday 09:00 UTC", "U0DROP")
    eid = sm.send("slash_commands", payload)  # waits at Slack for a live connection
    sm.wait_for(lambda: any(live and cid != old for cid, _, live in sm.connections()), timeout=30)
    reopened = next(at for cid, at, _ in sm.connections() if cid != old) - dropped_at
    assert reopened <= 15.0  # benchmarks/socket_mode.py measures it (target 10 s)
    sm.wait_for(lambda: eid in sm.ack_delays(), timeout=30)
    web.wait_for_response(url, timeout=60)


def test_a_command_acked_before_a_kill_is_answered_by_the_next_process(tmp_path, slack):
    web, sm = slack
    proc = start_serve(tmp_path, web, sm, "first")
    try:
        web.configure(latency_s=30.0)  # Slack hangs: the answer after the ack cannot go out
        payload, url = command(web, "subscribe pd monday 09:00 UTC", "U0KILLED")
        eid = sm.send("slash_commands", payload)
        sm.wait_for(lambda: eid in sm.ack_delays(), timeout=60)  # acknowledged: held in the store
        proc.kill()
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    web.configure(latency_s=0.0)
    assert web.responses(url) == []
    second = start_serve(tmp_path, web, sm, "second")
    try:
        answer = web.wait_for_response(url, timeout=90)  # answered from the store, after HELD_REPLAY_AFTER_S
        assert answer.status == 200 and "now gets a weekly" in str(answer.body.get("text")), json.dumps(answer.body)
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=30)


def test_an_unhandled_event_and_a_rate_limit_notice_are_acked(tmp_path, slack, serve):
    sm = slack[1]
    mention = sm.send(
        "events_api", {"type": "event_callback", "event_id": "EvMENTION", "event": {"type": "app_mention"}}
    )
    notice = sm.send(
        "events_api",
        {"type": "app_rate_limited", "team_id": "T0CONSOLE", "minute_rate_limited": 1518467820, "api_app_id": "A0"},
    )
    sm.wait_for(lambda: {mention, notice} <= set(sm.ack_delays()), timeout=60)
    log = tmp_path / "serve.log"
    sm.wait_for(lambda: "rate-limited the events of workspace T0CONSOLE" in log.read_text(), timeout=30)


def test_the_lazy_pool_runs_its_hook_before_each_job_on_the_jobs_thread():
    import threading

    from bot.slack.lazy import BoundedLazyPool

    pool, seen = BoundedLazyPool(), []
    pool.before_job = lambda: seen.append(("hook", threading.current_thread().name))
    future = pool.submit(lambda: seen.append(("job", threading.current_thread().name)))
    future.result(timeout=30)
    assert [kind for kind, _ in seen] == ["hook", "job"] and seen[0][1] == seen[1][1] != "MainThread"
    pool.drain(1.0)
