"""The Socket Mode door: slack-sdk's built-in ``SocketModeClient`` (no dependency beyond slack-sdk)
carrying envelopes to the Bolt app, each acked on the connection it came on, at once.

Bolt's ``SocketModeHandler`` acks on the client's current connection, after its pool of ten has
dispatched the envelope, and the client swaps connections on Slack's ``disconnect`` before the acks
on their way are sent. Here: an event is acked on arrival, then dispatched; a command or a click
is dispatched first, on :data:`THREADS` threads, because its ack is Bolt's answer (the reply in the
ack, :class:`bot.slack.listeners.commands.AnswerInAck`; the request held before the ack,
:class:`bot.slack.held.HoldUntilAnswered`) and everything slow follows on the lazy pool, whose
jobs, like the events' dispatch, wait while acks are on their way (:data:`DEFER_S` at most). A
connection Slack asks to leave stays open until its acks are out (:data:`RETIRE_S` at most); a
silent one is noticed by ping (:data:`PING_INTERVAL_S`) and replaced. Slack redelivers what it
thinks unacked: an envelope seen is answered with its first ack and an event seen (``event_id``)
with an empty one, neither dispatched again."""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cachetools import TTLCache
from slack_bolt import BoltRequest
from slack_sdk.errors import SlackClientNotConnectedError
from slack_sdk.socket_mode.builtin import SocketModeClient

from bot import metrics

log = logging.getLogger(__name__)

PING_INTERVAL_S = 1.0
"""Seconds between pings; slack-sdk calls a connection stale when no pong came for more than 4
intervals, so a silent connection is replaced about 5-6 s after it fell silent."""
THREADS = 32
"""Commands and clicks dispatched at once (their ack functions touch only the database)."""
EVENT_THREADS = 2
"""Threads dispatching the events (acked on arrival)."""
DEFER_S = 2.0
"""Most seconds an acked event, and the work after an ack (the lazy pool's jobs), wait for the
commands and clicks in flight to be acked: the process's CPU goes to the acks first."""
RECEIVE_WAIT_S = 0.2
"""Seconds a connection's reader waits in one read before it looks whether to stop."""
RETIRE_S = 5.0
"""Most seconds a replaced connection stays open for the acks still on their way."""
REMEMBERED_S = 15 * 60.0
"""Seconds an envelope or event id is remembered against Slack's redeliveries (its retries come
within minutes)."""
STOP_GRACE_S = 3.0
"""Seconds a stopping door waits for the envelopes already received to be acked."""
_KIND = {"slash_commands": "command", "interactive": "action", "events_api": "event"}


class _Client(SocketModeClient):
    """slack-sdk's client whose replaced connection is closed by the door, once its acks are out,
    and whose connections wait at most :data:`RECEIVE_WAIT_S` in a read (slack-sdk's 3 s hold
    the read lock, which a close and a replacement wait for). Relies on the public ``connect``
    closing ``current_session`` when it replaces it (slack-sdk is pinned below 3.49;
    ``tests/reliability/test_socket_mode.py``'s ``refresh_requested`` test checks the acks' connections)."""

    def __init__(self, door: SocketDoor, **kwargs: Any) -> None:
        self.door = door
        self.leaving: Any = None  # the connection being replaced, while current_session is None
        super().__init__(**kwargs)

    def connect(self) -> None:
        """A new connection, as slack-sdk's; the one it replaces is left to :meth:`SocketDoor.retire`."""
        old = self.leaving = self.current_session
        self.current_session = None  # slack-sdk closes the session it replaces: not this one yet
        try:
            super().connect()
        except BaseException:
            self.current_session = old
            raise
        finally:
            self.leaving = None
        sock = getattr(self.current_session, "sock", None)
        if sock is not None:
            sock.settimeout(RECEIVE_WAIT_S)
        if old is not None and old is not self.current_session:
            threading.Thread(target=self.door.retire, args=(old,), name="socket-retire", daemon=True).start()


class SocketDoor:
    """Socket Mode for Bolt ``app`` with app-level token ``app_token`` (``xapp-…``): :meth:`start`
    connects (``apps.connections.open`` through ``app.client``, so ``SLACK_API_URL`` holds) and
    returns; :meth:`stop` acks what has arrived (up to :data:`STOP_GRACE_S`) and closes.
    ``ping_interval`` in seconds, ``threads`` dispatching commands and clicks at once. Thread-safe."""

    def __init__(self, app: Any, app_token: str, *, ping_interval: float = PING_INTERVAL_S, threads: int = THREADS):
        self.app = app
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="socket-ack")
        self._events: queue.SimpleQueue[tuple[dict[str, Any], dict[str, Any]] | None] = queue.SimpleQueue()
        self._cond = threading.Condition()
        self._in_flight: dict[int, int] = {}  # id(connection) -> its commands and clicks not acked yet
        self._idle = threading.Event()  # set while _in_flight is empty (one wake-up for its waiters)
        self._idle.set()
        self._acks: TTLCache[str, str | None] = TTLCache(maxsize=100_000, ttl=REMEMBERED_S)  # None: on its way
        self._seen_events: TTLCache[str, bool] = TTLCache(maxsize=100_000, ttl=REMEMBERED_S)
        self._stopping = False
        self.client = _Client(
            self,
            app_token=app_token,
            logger=logging.getLogger("slack_sdk.socket_mode"),
            web_client=app.client,
            ping_interval=ping_interval,
            receive_buffer_size=64 * 1024,
            concurrency=1,  # slack-sdk's own listeners: none (envelopes are ours, below)
            on_message_listeners=[self._on_message],
        )
        for n in range(EVENT_THREADS):
            threading.Thread(target=self._dispatch_events, name=f"socket-event-{n}", daemon=True).start()
        pool = getattr(app, "lazy_pool", None)
        if pool is not None:  # the work after an ack waits for the acks on their way
            pool.before_job = self._wait_for_acks

    def start(self) -> SocketDoor:
        """Open the first connection (raises slack-sdk's error when Slack refuses the token)."""
        self.client.connect()
        return self

    def _on_message(self, raw: str) -> None:
        """Every text frame, in order, on the connection's reader thread: an event is acked here
        and queued; a command or a click goes to the pool, which acks it with Bolt's answer."""
        if self._stopping or '"envelope_id"' not in raw:
            return
        try:
            envelope = json.loads(raw)
        except ValueError:
            return
        if not isinstance(envelope, dict) or not isinstance(envelope.get("envelope_id"), str):
            return
        session = self.client.current_session or self.client.leaving  # the connection it came on
        envelope_id, kind = envelope["envelope_id"], str(envelope.get("type"))
        payload: dict[str, Any] = envelope["payload"] if isinstance(envelope.get("payload"), dict) else {}
        event_id = payload.get("event_id") if kind == "events_api" else None
        with self._cond:
            again = envelope_id in self._acks or (event_id and event_id in self._seen_events)
            ack = self._acks.get(envelope_id) if again else None
            if not again:
                self._acks[envelope_id] = None if kind != "events_api" else _empty_ack(envelope_id)
                if event_id:
                    self._seen_events[event_id] = True
            if not again and kind != "events_api":
                self._in_flight[id(session)] = self._in_flight.get(id(session), 0) + 1
                self._idle.clear()
        if again:  # Slack's redelivery: the first ack again, nothing handled again
            if ack is not None or kind == "events_api":
                self._send(session, ack or _empty_ack(envelope_id))
            return  # else the first delivery is still being answered: its ack goes out
        if kind == "events_api":  # nothing to answer: acked before the work
            self._send(session, _empty_ack(envelope_id))
            metrics.ACK_SECONDS.labels("event").observe(0.0)
            self._events.put((payload, envelope))
            return
        self._pool.submit(self._answer, session, payload, envelope, time.monotonic())

    def _answer(self, session: Any, payload: dict[str, Any], envelope: dict[str, Any], arrived: float) -> None:
        """Dispatch a command or a click and ack it on ``session`` with Bolt's answer."""
        envelope_id, kind = envelope["envelope_id"], str(envelope.get("type"))
        try:
            ack = self._dispatch(kind, payload, envelope)
            with self._cond:
                self._acks[envelope_id] = ack
            self._send(session, ack)
            metrics.ACK_SECONDS.labels(_KIND.get(kind, "other")).observe(time.monotonic() - arrived)
        except Exception:
            log.exception("Socket Mode envelope %s (%s) failed", envelope_id, kind)
        finally:
            with self._cond:
                left = self._in_flight.get(id(session), 1) - 1
                if left:
                    self._in_flight[id(session)] = left
                else:
                    self._in_flight.pop(id(session), None)
                    if not self._in_flight:
                        self._idle.set()
                self._cond.notify_all()

    def _wait_for_acks(self) -> None:
        """Wait until no command or click waits for its ack, :data:`DEFER_S` at most."""
        self._idle.wait(DEFER_S)

    def _dispatch_events(self) -> None:
        """Dispatch the acked events, each once no command or click waits for its ack
        (:meth:`_wait_for_acks`): an event's work never delays an ack."""
        while (item := self._events.get()) is not None:
            self._wait_for_acks()
            try:
                self._dispatch("events_api", *item)
            except Exception:
                log.exception("Socket Mode event %s failed", item[1].get("envelope_id"))

    def _dispatch(self, kind: str, payload: dict[str, Any], envelope: dict[str, Any]) -> str:
        """Bolt's answer to the envelope's payload as the ack's JSON text (an empty ack for no
        answer or a refusal: Slack would only send it again)."""
        envelope_id = envelope["envelope_id"]
        if payload.get("type") == "app_rate_limited":
            from bot.doors import unlisted

            unlisted.note_rate_limited(payload)
            return _empty_ack(envelope_id)
        body = {k: v for k, v in payload.items() if k != "token"}  # the legacy token is never stored
        headers: dict[str, Any] = {"content-type": ["application/json"]}
        if envelope.get("retry_attempt"):
            headers["x-slack-retry-num"] = [str(envelope["retry_attempt"])]
            headers["x-slack-retry-reason"] = [str(envelope.get("retry_reason") or "")]
        resp = self.app.dispatch(BoltRequest(body=json.dumps(body), headers=headers, mode="socket_mode"))
        metrics.REQUESTS.labels(_KIND.get(kind, "other"), metrics.outcome_of(resp.status)).inc()
        ack: dict[str, Any] = {"envelope_id": envelope_id}
        if resp.status == 200 and resp.body and envelope.get("accepts_response_payload"):
            ctype = (resp.headers.get("content-type") or [""])[0]
            ack["payload"] = json.loads(resp.body) if ctype.startswith("application/json") else {"text": resp.body}
        elif resp.status != 200:
            log.info("Socket Mode %s answered %d by the app: acked empty", kind, resp.status)
        return json.dumps(ack)

    def _send(self, session: Any, ack: str) -> None:
        """Send ``ack`` on ``session``; when that connection is gone, on the current one; when
        there is none, log it (Slack sends the envelope again, answered from memory)."""
        for target in (session, self.client.current_session):
            if target is None:
                continue
            try:
                target.send(ack)
                return
            except (SlackClientNotConnectedError, OSError):
                continue
        log.warning("Socket Mode: an ack could not be sent (no open connection); Slack will send it again")

    def retire(self, session: Any) -> None:
        """Close a replaced connection once its commands and clicks are acked (:data:`RETIRE_S` at most)."""
        deadline = time.monotonic() + RETIRE_S
        with self._cond:
            while self._in_flight.get(id(session)) and time.monotonic() < deadline:
                self._cond.wait(deadline - time.monotonic())
        session.close()

    def stop(self, grace_s: float = STOP_GRACE_S) -> None:
        """Take no more envelopes, ack those received (up to ``grace_s`` seconds), close. Idempotent."""
        self._stopping = True
        deadline = time.monotonic() + grace_s
        with self._cond:
            while self._in_flight and time.monotonic() < deadline:
                self._cond.wait(deadline - time.monotonic())
        self.client.close()
        self._pool.shutdown(wait=False, cancel_futures=True)
        for _ in range(EVENT_THREADS):
            self._events.put(None)


def _empty_ack(envelope_id: str) -> str:
    """The JSON text of an ack without a payload."""
    return json.dumps({"envelope_id": envelope_id})
