"""Events acknowledged before a deploy are handled (issue 42): a real ``vllm-path serve`` with Slack's
Web API answering in 1 s takes a burst of signed events (App Home opens by more people than the
lazy pool has spare threads, and ``app_uninstalled`` / ``tokens_revoked``), acks every one, and gets
SIGTERM at once. Before it exits every acked open has its ``views.publish`` accepted by Slack, every
acked uninstall is stored (its ``event_id`` recorded, the installation gone) and nothing is logged
as dropped. Over HTTP (SQLite and PostgreSQL) and over Socket Mode (SQLite), where an event is
acked on arrival, before its listener runs."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from bot.store import Store
from tests.dbutil import fresh_database_url
from tests.e2e.helpers import BOT_TOKEN, SIGNING_SECRET
from tests.e2e.slack_requests import signed_post
from tests.serveproc import free_port, wait_healthy
from tests.standin import SlackStandIn, app_home_opened_event, event_body
from tests.standin.socket_mode import SocketModeStandIn
from tests.waits import PATIENCE_S

SLACK_VARS = ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET")
APP_TOKEN = "xapp-1-A0CONSOLE-1-sigtermevents"
TEAM = "T0EVSTOP"
OPENS = 60
"""People opening App Home in the burst: more than the lazy pool's spare threads (64 - 16), so
some wait in :class:`bot.slack.homes.HomePublisher`'s queue when SIGTERM comes."""
UNINSTALLS = 10
LATENCY_S = 1.0
"""Seconds Slack's Web API takes for every answer: a Home is ``users.conversations``, ``users.info``
and ``views.publish``, about 3 s, so the publishes are under way or waiting at the SIGTERM."""


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with fresh_database_url(request.param, tmp_path) as url:
        yield url


def _env(db_url: str, web: SlackStandIn, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SLACK_VARS}
    env.update(DATABASE_URL=db_url, SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_API_URL=web.api_url, LOG_LEVEL="INFO")
    env.update(more)
    return env


def _spawn(tmp_path: Path, env: dict[str, str], args: list[str]) -> tuple[subprocess.Popen[bytes], Path]:
    log_path = tmp_path / "serve.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("vllm-path")), "serve", "--pid-file", "", *args],
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return proc, log_path


def _uninstall(n: int) -> tuple[dict[str, Any], str]:
    """The ``n``-th uninstall event of the burst (``tokens_revoked`` naming the bot every other
    one) and its ``event_id``."""
    event: dict[str, Any] = (
        {"type": "app_uninstalled", "event_ts": f"{time.time():.6f}"}
        if n % 2 == 0
        else {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["U0CONSOLEBOT"]}, "event_ts": "1.0"}
    )
    return event, f"EvGONE{n:04d}"


def _stopped(proc: subprocess.Popen[bytes], log_path: Path) -> tuple[float, str]:
    """SIGTERM ``proc`` now; seconds it took to exit 0, and its log."""
    stopped_at = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=PATIENCE_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    took = time.monotonic() - stopped_at
    log = log_path.read_text()
    assert code == 0, log[-3000:]
    return took, log


def _check_everything_handled(web: SlackStandIn, db_url: str, users: list[str], log: str) -> None:
    """Every user in ``users`` had a Home accepted by Slack, every uninstall of the burst is
    stored, nothing was dropped."""
    published = {c.args.get("user_id") for c in web.calls("views.publish") if c.ok}
    missing = [u for u in users if u not in published]
    assert not missing, f"{len(missing)} acked App Home open(s) never published: {missing[:5]}\n{log[-3000:]}"
    with Store.from_url(db_url, migrate=False) as store:
        # recorded by the first delivery: a second record of the same id is refused
        again = [n for n in range(UNINSTALLS) if store.record_event(_uninstall(n)[1], TEAM)]
    assert not again, f"acked uninstall(s) not stored: {again}\n{log[-3000:]}"
    dropped = [int(n) for n in re.findall(r"(\d+) follow-up\(s\) dropped", log)]
    assert dropped and not any(dropped), log[-3000:]
    assert "Traceback" not in log, log[-3000:]


@pytest.mark.slow
def test_sigterm_during_a_burst_of_events_handles_every_acked_one_http(tmp_path: Path, db_url: str) -> None:
    port = free_port()
    with SlackStandIn(team_id=TEAM) as web:
        env = _env(db_url, web, SLACK_SIGNING_SECRET=SIGNING_SECRET)
        proc, log_path = _spawn(tmp_path, env, ["--port", str(port)])
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(proc, url, log=log_path.read_text)
            web.configure(latency_s=LATENCY_S)
            users = [f"U0OPEN{n:04d}" for n in range(OPENS)]
            bodies = [event_body(app_home_opened_event(u), team_id=TEAM) for u in users]
            bodies += [event_body(e, team_id=TEAM, event_id=eid) for e, eid in map(_uninstall, range(UNINSTALLS))]

            def send(body: bytes) -> int:
                return signed_post(url + "/slack/events", body, SIGNING_SECRET, json_body=True).status

            with ThreadPoolExecutor(20) as pool:
                statuses = list(pool.map(send, bodies))
            assert statuses == [200] * len(bodies)  # every event acknowledged
            took, log = _stopped(proc, log_path)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        _check_everything_handled(web, db_url, users, log)
    assert took < 10.0, f"the stop took {took:.1f} s"  # the platform's kill comes at ~30 s
    print(f"HTTP: stopped in {took:.1f} s, {OPENS} opens published (load {os.getloadavg()[0]:.1f})")


@pytest.mark.slow
def test_sigterm_during_a_burst_of_events_handles_every_acked_one_socket_mode(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path}/t.db"
    with SlackStandIn(team_id=TEAM) as web, SocketModeStandIn(redeliver_after_s=None) as sm:
        web.socket_mode = sm
        proc, log_path = _spawn(tmp_path, _env(db_url, web, SLACK_APP_TOKEN=APP_TOKEN), [])
        try:
            sm.wait_for(lambda: sm.connections() or proc.poll() is not None, timeout=PATIENCE_S)
            assert proc.poll() is None, log_path.read_text()[-3000:]
            web.configure(latency_s=LATENCY_S)
            users = [f"U0OPEN{n:04d}" for n in range(OPENS)]
            sent = [
                sm.send("events_api", json.loads(event_body(app_home_opened_event(u), team_id=TEAM))) for u in users
            ]
            for event, eid in map(_uninstall, range(UNINSTALLS)):
                sent.append(sm.send("events_api", json.loads(event_body(event, team_id=TEAM, event_id=eid))))
            sm.wait_for(lambda: set(sent) <= set(sm.ack_delays()), timeout=PATIENCE_S)  # every one acknowledged
            took, log = _stopped(proc, log_path)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        with contextlib.suppress(Exception):
            sm.close()
        _check_everything_handled(web, db_url, users, log)
    assert took < 10.0, f"the stop took {took:.1f} s"
    print(f"Socket Mode: stopped in {took:.1f} s, {OPENS} opens published (load {os.getloadavg()[0]:.1f})")


def _event_envelope(envelope_id: str, event: dict[str, Any], event_id: str) -> str:
    """An ``events_api`` envelope's frame text carrying ``event``."""
    payload = json.loads(event_body(event, event_id=event_id))
    return json.dumps({"envelope_id": envelope_id, "type": "events_api", "payload": payload})


@pytest.mark.parametrize("kind", ["app_uninstalled", "tokens_revoked"])
def test_socket_mode_acks_an_uninstall_only_once_it_is_stored(runtime: Any, kind: str) -> None:
    """The door in this process on the real app, its connection recording the acks: an uninstall's
    write is held at a gate, and its envelope is not acked until the write is through (a Home open
    beside it is acked on arrival); a redelivery meanwhile is not acked apart, nor handled again."""
    import threading

    from slack_sdk import WebClient

    from bot.doors.socket_mode import SocketDoor
    from bot.slack.app import build_app
    from tests.reliability.test_socket_mode_door import FakeConnection
    from tests.waits import wait_until

    with SlackStandIn() as web:
        app = build_app(runtime, client=WebClient(token="xoxb-door-test", base_url=web.api_url))
        door = SocketDoor(app, "xapp-1-A0-1-doortest", threads=1)
        conn = FakeConnection()
        door.client.current_session = conn
        store = runtime.store
        gate, writing, removals = threading.Event(), threading.Event(), []
        remove = store.remove_installation

        def gated(*args: Any, **kwargs: Any) -> Any:
            writing.set()
            assert gate.wait(PATIENCE_S)
            removals.append(args)
            return remove(*args, **kwargs)

        store.remove_installation = gated
        try:
            event, _ = _uninstall(0 if kind == "app_uninstalled" else 1)
            frame = _event_envelope("E-GONE", event, "EvGONEGATE")
            door._on_message(frame)
            assert writing.wait(PATIENCE_S)
            door._on_message(frame)  # Slack again while it is written: the first ack answers both
            door._on_message(_event_envelope("E-OPEN", app_home_opened_event("U0OPENBESIDE"), "EvOPENBESIDE"))
            wait_until(lambda: "E-OPEN" in conn.acks(), what="the Home open acked on arrival")
            assert "E-GONE" not in conn.acks()  # not acknowledged before it is stored
            gate.set()
            wait_until(lambda: "E-GONE" in conn.acks(), what="the uninstall acked once stored")
            assert len(removals) == 1 and not store.record_event("EvGONEGATE", web.team_id)
        finally:
            gate.set()
            store.remove_installation = remove
            door.stop(grace_s=1.0)
            door.finish_events(1.0)
            if app.lazy_pool is not None:
                app.lazy_pool.drain(5.0)


def test_a_draining_pool_runs_the_jobs_waiting_for_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job acknowledged and waiting for a thread when the stop comes runs within the grace (it was
    cancelled at once: an unfurl or a ✅ check acked and never done)."""
    import threading

    from bot.slack import lazy

    monkeypatch.setattr(lazy, "THREADS", 1)
    pool = lazy.BoundedLazyPool()
    gate, ran = threading.Event(), []
    pool.submit(lambda: (gate.wait(PATIENCE_S), ran.append("first")))
    waiting = pool.submit(lambda: ran.append("waiting"))
    threading.Timer(0.2, gate.set).start()
    assert pool.drain(PATIENCE_S) == 0
    assert ran == ["first", "waiting"] and waiting.done() and not waiting.cancelled()


def test_a_stopping_publisher_publishes_every_home_waiting_for_a_spare_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """App Home opens wait while the lazy pool has no spare thread; at the stop
    (:func:`bot.slack.app.drain_after_ack`'s :meth:`~bot.slack.homes.HomePublisher.finish`) each is
    published once, on the publisher's own threads, and none is left."""
    import threading

    from bot.slack import lazy
    from bot.slack.commands.context import Caller
    from bot.slack.homes import HomePublisher

    monkeypatch.setattr(lazy, "THREADS", lazy.KEPT_FOR_REPLIES)  # no thread is ever spare
    pool = lazy.BoundedLazyPool()
    published: list[str] = []
    lock = threading.Lock()

    def publish(caller: Caller, token: str | None) -> None:
        time.sleep(0.05)  # Slack
        with lock:
            published.append(caller.user_id)

    publisher = HomePublisher(publish, pool)
    users = [f"U0WAIT{n:03d}" for n in range(30)]
    for user in users:
        publisher.open(Caller(team_id=TEAM, user_id=user), None)
    assert publisher.waiting() == len(users) and published == []  # nothing ran: no spare thread
    assert publisher.finish(PATIENCE_S, threads=8) == 0
    assert sorted(published) == users
    assert pool.drain(1.0) == 0
