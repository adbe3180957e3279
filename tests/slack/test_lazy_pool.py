"""The lazy listeners' pool (:class:`bot.slack.lazy.BoundedLazyPool`): its threads, the busy answer past
its bound at the dispatched request's ``response_url`` (through :class:`bot.slack.app.BotApp`), and the
drain at shutdown."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from queue import Queue
from typing import Any

import pytest
from slack_bolt import BoltRequest
from slack_bolt.authorization import AuthorizeResult

from bot import metrics
from bot.slack import lazy
from bot.slack.app import BotApp, lazy_runner
from bot.slack.i18n import t
from bot.slack.lazy import REQUEST_BODY, BoundedLazyPool
from tests.waits import PATIENCE_S


def _shed() -> float:
    return metrics.REGISTRY.get_sample_value("vllm_path_lazy_shed_total") or 0.0


@pytest.fixture
def response_url() -> Iterator[tuple[str, Queue[dict[str, Any]]]]:
    """A response URL on loopback and the queue of the JSON bodies posted to it."""
    posted: Queue[dict[str, Any]] = Queue()

    class Answers(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            posted.put(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answers)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/r", posted
    server.shutdown()
    server.server_close()


@pytest.fixture
def one_thread(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[BoundedLazyPool, threading.Event]]:
    """A pool of one thread and one waiting place, its thread held at a gate (a started job)."""
    monkeypatch.setattr(lazy, "THREADS", 1)
    monkeypatch.setattr(lazy, "QUEUE_BOUND", 1)
    pool, gate, started = BoundedLazyPool(), threading.Event(), threading.Event()
    pool.submit(lambda: (started.set(), gate.wait(30)))
    assert started.wait(5)
    yield pool, gate
    gate.set()
    pool.drain(5)


def test_jobs_run_on_the_pools_own_threads() -> None:
    pool = BoundedLazyPool()
    assert pool.submit(lambda x: (x, threading.current_thread().name), 1).result(5)[1].startswith("bolt-lazy")
    assert pool.drain(5) == 0


def test_past_the_bound_a_job_is_refused_and_the_person_told_busy(one_thread, response_url) -> None:
    pool, gate = one_thread
    url, posted = response_url
    ran: list[str] = []
    waiting = pool.submit(ran.append, "waited")
    shed = _shed()
    token = REQUEST_BODY.set({"response_url": url})
    try:
        refused = pool.submit(ran.append, "refused")
    finally:
        REQUEST_BODY.reset(token)
    assert refused.cancelled() and _shed() == shed + 1
    busy = {"response_type": "ephemeral", "replace_original": False, "text": str(t("busy"))}
    assert posted.get(timeout=PATIENCE_S) == busy
    gate.set()
    waiting.result(PATIENCE_S)
    assert ran == ["waited"]


def test_drain_drops_the_waiting_and_the_unfinished_then_refuses(one_thread) -> None:
    pool, _gate = one_thread
    waiting = pool.submit(lambda: None)
    assert pool.drain(0.1) == 2  # the job held at the gate and the one waiting for its thread
    assert waiting.cancelled()
    assert pool.submit(lambda: None).cancelled()  # no response_url: nobody to tell


def test_the_app_answers_busy_at_the_dispatched_requests_response_url(one_thread, response_url) -> None:
    """:meth:`BotApp.dispatch` gives the pool the body Bolt submits a lazy listener for."""
    pool, _gate = one_thread
    pool.submit(lambda: None)  # the one waiting place taken
    url, posted = response_url
    app = BotApp(
        signing_secret="unused",
        request_verification_enabled=False,
        authorize=lambda **_: AuthorizeResult(enterprise_id=None, team_id="T1", bot_token="xoxb-1", bot_user_id="U0"),
        process_before_response=True,
        listener_executor=pool,
        name="t",
    )
    app.handlers, app.lazy_pool = object(), pool  # type: ignore[assignment]
    app.command("/x")(ack=lambda ack: ack(), lazy=[lambda: None])
    body = f"command=%2Fx&text=&team_id=T1&user_id=U1&channel_id=C1&response_url={url}"
    response = app.dispatch(BoltRequest(body=body, headers={"content-type": ["application/x-www-form-urlencoded"]}))
    assert response.status == 200 and lazy_runner(app) is pool
    assert posted.get(timeout=PATIENCE_S)["text"] == str(t("busy"))
    assert REQUEST_BODY.get(None) is None  # set for the dispatch only


def test_past_half_the_bound_a_job_waits_for_room_instead_of_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The request thread (before the ack) waits while half the waiting places are taken; once a job
    leaves the queue the waiting one is taken, nobody told busy."""
    monkeypatch.setattr(lazy, "THREADS", 1)
    monkeypatch.setattr(lazy, "QUEUE_BOUND", 2)
    monkeypatch.setattr(lazy, "ROOM_WAIT_S", PATIENCE_S)
    pool, gate, started = BoundedLazyPool(), threading.Event(), threading.Event()
    try:
        pool.submit(lambda: (started.set(), gate.wait(PATIENCE_S)))
        assert started.wait(PATIENCE_S)
        ran: list[str] = []
        pool.submit(ran.append, "first waiting")  # one of the two places: half taken
        shed = _shed()
        third: Queue[Any] = Queue()
        submitting = threading.Thread(target=lambda: third.put(pool.submit(ran.append, "waited for room")))
        submitting.start()
        submitting.join(0.5)
        assert submitting.is_alive() and third.empty()  # a place is free, yet it waits for room
        gate.set()
        third.get(timeout=PATIENCE_S).result(PATIENCE_S)
        assert ran == ["first waiting", "waited for room"] and _shed() == shed
    finally:
        gate.set()
        pool.drain(5)


def test_drain_ends_a_wait_for_room(one_thread, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lazy, "ROOM_WAIT_S", 10 * PATIENCE_S)  # only the drain can end it in time
    pool, _gate = one_thread
    pool.submit(lambda: None)  # the one waiting place taken
    ended: Queue[Any] = Queue()
    lazy_wait = threading.Thread(target=lambda: ended.put(pool.submit(lambda: None)))
    lazy_wait.start()
    assert pool.drain(0.1) == 2
    assert ended.get(timeout=PATIENCE_S).cancelled()
