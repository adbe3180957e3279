"""The Socket Mode door: slack-sdk's built-in ``SocketModeClient`` (no dependency beyond slack-sdk)
carrying envelopes to the Bolt app, each acked on the connection it came on, at once.

Bolt's ``SocketModeHandler`` acks on the client's current connection, after its pool of ten has
dispatched the envelope, and the client swaps connections on Slack's ``disconnect`` before the acks
on their way are sent. Here: an event is acked on arrival, then dispatched (an uninstall once
dispatched, :data:`STORED_BEFORE_ACK`; at a stop the queued ones within the grace,
:meth:`SocketDoor.finish_events`); a command or a click is dispatched first, on :data:`THREADS`
threads, because its ack is Bolt's answer (the reply in the ack,
:class:`bot.slack.listeners.commands.AnswerInAck`), except past :data:`BACKLOG` a command, held on
arrival and acked once that is committed, then dispatched like the events and answered after.
Everything slow follows on the lazy pool, whose jobs, like the events' dispatch, wait while acks are
on their way (:data:`DEFER_S` at most). A request answered after its ack is held in the store
before the ack (:class:`bot.slack.held.HoldUntilAnswered`) without its thread waiting for the
group commit: ``socket-held`` sends the acks of the holds in the order they commit, those of one
commit in one write. The reader never waits on a socket: the acks of events and redeliveries go
to ``socket-write``, all those waiting in one write. A connection Slack asks to leave stays open
until its acks are out (:data:`RETIRE_S` at most); a silent one is noticed by ping
(:data:`PING_INTERVAL_S`) and replaced. Slack redelivers what it thinks unacked: an envelope seen
is answered with its first ack and an event seen (``event_id``) with an empty one, neither
dispatched again.

Speed layer needed by ``benchmarks/socket_mode.py`` (a burst of 500, p99 ack < 1 s; profile with
``--profile``, figures in docs/reliability.md "Socket Mode in time"): a held request kept one of 32
dispatching threads for its group commit; the reader acked each event with a write of its own;
slack-sdk masked frames byte by byte and parsed every envelope again on two more threads; and the
burst's 300 commands were dispatched before their acks (:data:`BACKLOG`)."""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

from cachetools import TTLCache
from slack_bolt import BoltRequest
from slack_sdk.socket_mode.builtin import SocketModeClient

from bot import metrics
from bot.doors.socket_frames import Ack as _Ack
from bot.doors.socket_frames import empty_ack as _empty_ack
from bot.doors.socket_frames import frame as _frame
from bot.doors.socket_frames import write_all as _write_all
from bot.slack.held import ACK_WHEN_HELD, HELD
from bot.store.held_batch import HeldTicket
from bot.store.installations import tenant_of

log = logging.getLogger(__name__)

PING_INTERVAL_S = 1.0
"""Seconds between pings; slack-sdk calls a connection stale when no pong came for more than 4
intervals, so a silent connection is replaced about 5-6 s after it fell silent."""
THREADS = 8
"""Commands and clicks dispatched at once: their ack functions use the CPU and read the database,
and none waits for a hold (:data:`bot.slack.held.ACK_WHEN_HELD`), so a few threads keep the CPU
on the acks (more threads only take turns for the interpreter lock with the connection's reader)."""
EVENT_THREADS = 2
"""Threads dispatching the events (acked on arrival) and the commands acked first (:data:`BACKLOG`)."""
BACKLOG = 8
"""Commands and clicks being dispatched for their ack beyond which a slash command with a
``response_url`` is *acked first*: held in the store on arrival (one row of the next group commit,
:meth:`bot.store.held_batch.HeldBatcher.hold_later`), acked empty once that is committed, then
dispatched as the events are (after the acks on their way) and answered through its
``response_url``, even a reply that would have gone in the ack. A burst's acks then wait for no
Bolt dispatch: dispatching its 300 commands before their acks was about 4/5 of the CPU until the
last ack (``benchmarks/socket_mode.py --profile``), which a machine with both cores busy spread
over up to a second. A few at once are still answered in their ack."""
DEFER_S = 2.0
"""Most seconds an acked event, and the work after an ack (the lazy pool's jobs), wait for the
commands and clicks in flight to be acked: the process's CPU goes to the acks first."""
QUIET_S = 0.05
"""Seconds without an ack on its way after which that work goes ahead (in a burst the acks in
flight fall to none for a moment whenever the reader is behind the dispatching threads)."""
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
STORED_BEFORE_ACK = frozenset({"app_uninstalled", "tokens_revoked"})
"""Events whose effect is a write that must not be lost (the tokens forgotten, the digests paused):
dispatched before their ack, as a command is, so that what is acked is stored (over HTTP Bolt runs
their listener before answering). The others are acked on arrival: a stop finishes them
(:meth:`SocketDoor.finish_events`) or their next delivery does the same (a Home open)."""


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

    def enqueue_message(self, message: str) -> None:
        """slack-sdk's queue takes what the door does not (``hello``, ``disconnect``, which it acts
        on): an envelope is the door's alone (:meth:`SocketDoor._on_message`), not parsed again
        there by two more threads for no listener."""
        if '"envelope_id"' not in message:
            super().enqueue_message(message)


class SocketDoor:
    """Socket Mode for Bolt ``app`` with app-level token ``app_token`` (``xapp-…``): :meth:`start`
    connects (``apps.connections.open`` through ``app.client``, so ``SLACK_API_URL`` holds) and
    returns; :meth:`stop` acks what has arrived (up to :data:`STOP_GRACE_S`) and closes.
    ``ping_interval`` in seconds, ``threads`` dispatching commands and clicks at once, ``backlog``:
    :data:`BACKLOG`. Thread-safe."""

    def __init__(
        self,
        app: Any,
        app_token: str,
        *,
        ping_interval: float = PING_INTERVAL_S,
        threads: int = THREADS,
        backlog: int = BACKLOG,
    ):
        self.app = app
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="socket-ack")
        self._events: queue.SimpleQueue[_Later | None] = queue.SimpleQueue()  # dispatched after the acks
        self._out: queue.SimpleQueue[_Ack | None] = queue.SimpleQueue()  # acks for the writer
        self._held: queue.SimpleQueue[tuple[HeldTicket, _Ack] | None] = queue.SimpleQueue()  # acks after a hold
        self._cond = threading.Condition()
        self._in_flight: dict[int, int] = {}  # id(connection) -> its envelopes not acked yet
        self._dispatching = 0  # commands and clicks on the pool, their ack not known yet
        self._backlog = backlog
        self._idle = threading.Event()  # set while _in_flight is empty (one wake-up for its waiters)
        self._idle.set()
        self._idle_since = time.monotonic()
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
        self._event_threads = [
            threading.Thread(target=self._dispatch_events, name=f"socket-event-{n}", daemon=True)
            for n in range(EVENT_THREADS)
        ]
        for thread in self._event_threads:
            thread.start()
        self._writer = threading.Thread(target=self._write, name="socket-write", daemon=True)
        self._writer.start()
        threading.Thread(target=self._ack_held, name="socket-held", daemon=True).start()
        pool = getattr(app, "lazy_pool", None)
        if pool is not None:  # the work after an ack waits for the acks on their way
            pool.before_job = self._wait_for_acks

    def start(self) -> SocketDoor:
        """Open the first connection (raises slack-sdk's error when Slack refuses the token); meanwhile
        zoneinfo's tables are built (:func:`_warm`)."""
        threading.Thread(target=_warm, name="socket-warm", daemon=True).start()
        self.client.connect()
        return self

    def _on_message(self, raw: str) -> None:
        """Every text frame, in order, on the connection's reader thread: an event is acked (by the
        writer) and queued; a command or a click goes to the pool, which acks it with Bolt's answer;
        past :data:`BACKLOG` a command is held, acked once committed (``socket-held``) and queued."""
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
        event = payload.get("event") if kind == "events_api" else None
        on_arrival = kind == "events_api" and not (isinstance(event, dict) and event.get("type") in STORED_BEFORE_ACK)
        with self._cond:
            known = envelope_id in self._acks
            again = known or (event_id and event_id in self._seen_events)
            ack = self._acks.get(envelope_id) if again else None
            # the ack to send again now: the first one, or for an event seen in another envelope an empty one
            ack_again = ack or (_empty_ack(envelope_id) if again and kind == "events_api" and not known else None)
            if not again:
                self._acks[envelope_id] = _empty_ack(envelope_id) if on_arrival else None
                if event_id:
                    self._seen_events[event_id] = True
            first = (
                not again
                and kind == "slash_commands"
                and self._dispatching >= self._backlog
                and bool(payload.get("response_url"))
            )
            if not again or ack_again is not None:  # an ack to send: in flight
                self._in_flight[id(session)] = self._in_flight.get(id(session), 0) + 1
                self._idle.clear()
        now = time.monotonic()
        if again:  # Slack's redelivery: the first ack again, nothing handled again
            if ack_again is not None:
                self._out.put(_Ack(session, envelope_id, ack_again, None, now))
            return  # else the first delivery is still being answered: its ack goes out
        if on_arrival:  # nothing to answer: acked before the work
            self._out.put(_Ack(session, envelope_id, _empty_ack(envelope_id), "event", now))
            self._events.put(_Later(kind, payload, envelope, None))
            return
        ticket = self._hold(payload) if first else None
        if ticket is not None:  # acked first: once held, empty; answered after the acks on their way
            self._held.put((ticket, _Ack(session, envelope_id, _empty_ack(envelope_id), "command", now)))
            self._events.put(_Later(kind, payload, envelope, ticket))
            return
        with self._cond:
            self._dispatching += 1
        self._pool.submit(self._answer, session, payload, envelope, now)

    def _hold(self, payload: dict[str, Any]) -> HeldTicket | None:
        """The ticket of ``payload``'s hold (without its legacy token, as
        :class:`bot.slack.held.HoldUntilAnswered` holds a Socket Mode request), committed with the
        next batch; None when the app has no store to hold it in (then dispatched as usual)."""
        try:
            batcher = self.app.handlers.rt.store.held_batch()
        except Exception:
            log.warning("Socket Mode: no store to hold a command in; dispatched before its ack", exc_info=True)
            return None
        body = json.dumps({k: v for k, v in payload.items() if k != "token"}, separators=(",", ":"), ensure_ascii=False)
        ticket: HeldTicket = batcher.hold_later(_tenant(payload), body, "application/json")
        return ticket

    def _answer(self, session: Any, payload: dict[str, Any], envelope: dict[str, Any], arrived: float) -> None:
        """Dispatch a command or a click and have it acked on ``session`` with Bolt's answer: now,
        or once its hold is committed (by ``socket-held``)."""
        envelope_id, kind = envelope["envelope_id"], str(envelope.get("type"))
        try:
            text, ticket = self._dispatch(kind, payload, envelope)
        except Exception:
            log.exception("Socket Mode envelope %s (%s) failed", envelope_id, kind)
            self._acked([_Ack(session, envelope_id, "", None, arrived)])  # not acked: Slack sends it again
            return
        finally:
            with self._cond:
                self._dispatching -= 1
        ack = _Ack(session, envelope_id, text, _KIND.get(kind, "other"), arrived)
        if ticket is not None and not ticket.done():
            self._held.put((ticket, ack))
            return
        if ticket is not None:
            _wait_for_hold(ticket)
        self._ack([ack])

    def _ack(self, acks: list[_Ack]) -> None:
        """Remember ``acks`` against redeliveries and send them (on this thread: an ack goes out as
        soon as it is known; the thread waits for the interpreter lock after the write, not before)."""
        with self._cond:
            for ack in acks:
                self._acks[ack.envelope_id] = ack.text
        self._deliver(acks)

    def _ack_held(self) -> None:
        """``socket-held``: the acks of held requests, each once its hold is committed, in the
        order they were dispatched, those of one group commit in one write."""
        item = self._held.get()
        while item is not None:
            ticket, ack = item
            _wait_for_hold(ticket)
            ready, fetched = [ack], False
            while not fetched:  # those committed with it
                try:
                    item = self._held.get_nowait()
                except queue.Empty:
                    break
                fetched = item is None or not item[0].done()
                if not fetched:
                    ready.append(item[1])  # type: ignore[index]
            self._ack(ready)
            if not fetched:
                item = self._held.get()

    def _write(self) -> None:
        """``socket-write``: send the acks the connection's reader hands over (events, redeliveries),
        all those waiting in one write per connection: the reader never waits on a socket."""
        while (first := self._out.get()) is not None:
            batch, stop = [first], False
            while not stop:
                try:
                    more = self._out.get_nowait()
                except queue.Empty:
                    break
                stop = more is None
                if more is not None:
                    batch.append(more)
            self._deliver(batch)
            if stop:
                return

    def _deliver(self, acks: list[_Ack]) -> None:
        """Write ``acks``, those of one connection in one write (a connection gone: on the current
        one), and count them out of flight."""
        by_session: dict[int, list[_Ack]] = {}
        for ack in acks:
            by_session.setdefault(id(ack.session), []).append(ack)
        for some in by_session.values():
            self._send(some[0].session, b"".join(_frame(a.text) for a in some))
        self._acked(acks)

    def _acked(self, acks: list[_Ack]) -> None:
        """Count ``acks`` (sent, or given up) out of flight, and their times into the metrics."""
        now = time.monotonic()
        for ack in acks:
            if ack.kind is not None:
                metrics.ACK_SECONDS.labels(ack.kind).observe(now - ack.arrived)
        with self._cond:
            for ack in acks:
                left = self._in_flight.get(id(ack.session), 1) - 1
                if left:
                    self._in_flight[id(ack.session)] = left
                else:
                    self._in_flight.pop(id(ack.session), None)
            if not self._in_flight and not self._idle.is_set():
                self._idle_since = now
                self._idle.set()
            self._cond.notify_all()

    def _wait_for_acks(self) -> None:
        """Wait until no envelope has waited for its ack for :data:`QUIET_S`, :data:`DEFER_S` at most
        (not at all once stopping: no ack is to come, and the grace period is short)."""
        if self._stopping:
            return
        deadline = time.monotonic() + DEFER_S
        while (left := deadline - time.monotonic()) > 0 and self._idle.wait(left):
            quiet = QUIET_S - (time.monotonic() - self._idle_since)
            if quiet <= 0 and self._idle.is_set():
                return
            time.sleep(max(0.0, min(quiet, left)))

    def _dispatch_events(self) -> None:
        """Dispatch the acked events and the commands acked first, each once no envelope waits for
        its ack (:meth:`_wait_for_acks`): their work never delays an ack."""
        while (item := self._events.get()) is not None:
            self._wait_for_acks()
            try:
                self._dispatch(item.kind, item.payload, item.envelope, item.held)
            except Exception:
                log.exception("Socket Mode %s %s failed", item.kind, item.envelope.get("envelope_id"))

    def _dispatch(
        self, kind: str, payload: dict[str, Any], envelope: dict[str, Any], held: HeldTicket | None = None
    ) -> tuple[str, HeldTicket | None]:
        """Bolt's answer to the envelope's payload as the ack's JSON text (an empty ack for no
        answer or a refusal: Slack would only send it again), and the ticket of the request's hold
        when it is held (the ack goes once that is committed). ``held``: the hold of a command
        acked first (:data:`BACKLOG`): Bolt answers it after the ack (nothing in the ack)."""
        envelope_id = envelope["envelope_id"]
        if payload.get("type") == "app_rate_limited":
            from bot.doors import unlisted

            unlisted.note_rate_limited(payload)
            return _empty_ack(envelope_id), None
        body = {k: v for k, v in payload.items() if k != "token"}  # the legacy token is never stored
        headers: dict[str, Any] = {"content-type": ["application/json"]}
        if envelope.get("retry_attempt"):
            headers["x-slack-retry-num"] = [str(envelope["retry_attempt"])]
            headers["x-slack-retry-reason"] = [str(envelope.get("retry_reason") or "")]
        context: dict[str, Any] = {ACK_WHEN_HELD: True} if held is None else {ACK_WHEN_HELD: True, HELD: held}
        req = BoltRequest(body=body, headers=headers, context=context, mode="socket_mode")
        resp = self.app.dispatch(req)
        held = req.context.get(HELD)
        metrics.REQUESTS.labels(_KIND.get(kind, "other"), metrics.outcome_of(resp.status)).inc()
        ack = _empty_ack(envelope_id)
        if resp.status == 200 and resp.body and envelope.get("accepts_response_payload"):
            ctype = (resp.headers.get("content-type") or [""])[0]
            answer = resp.body if ctype.startswith("application/json") else json.dumps({"text": resp.body})
            ack = f'{{"envelope_id":{json.dumps(envelope_id)},"payload":{answer}}}'  # Bolt's JSON as it is
        elif resp.status != 200:
            log.info("Socket Mode %s answered %d by the app: acked empty", kind, resp.status)
        return ack, held if isinstance(held, HeldTicket) else None

    def _send(self, session: Any, data: bytes) -> None:
        """Write the frames ``data`` on ``session``; when that connection is gone, on the current
        one; when there is none, log it (Slack sends the envelopes again, answered from memory)."""
        for target in (session, self.client.current_session):
            if target is not None and _write_all(target, data):
                return
        log.warning("Socket Mode: acks could not be sent (no open connection); Slack will send them again")

    def retire(self, session: Any) -> None:
        """Close a replaced connection once its envelopes are acked (:data:`RETIRE_S` at most)."""
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
        self._held.put(None)
        self._out.put(None)

    def finish_events(self, grace_s: float) -> int:
        """After :meth:`stop`: wait up to ``grace_s`` seconds while the events acked on arrival and
        still queued are dispatched (their listeners hand their slow part to the lazy pool and the
        App Home publisher, which the caller drains next: :func:`bot.slack.app.drain_after_ack`);
        returns how many events were left undispatched (logged by the caller; a command acked
        first and left is held in the store: the next process answers it)."""
        deadline = time.monotonic() + grace_s
        for thread in self._event_threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        left = 0
        with contextlib.suppress(queue.Empty):
            while True:
                item = self._events.get_nowait()
                left += item is not None and item.held is None
        for _ in self._event_threads:
            self._events.put(None)  # the threads still dispatching end after their event
        return left


class _Later(NamedTuple):
    """An envelope acked before its dispatch (:meth:`SocketDoor._dispatch_events`): an event, or a
    command acked first with its ``held`` ticket (None for an event)."""

    kind: str
    payload: dict[str, Any]
    envelope: dict[str, Any]
    held: HeldTicket | None


def _wait_for_hold(ticket: HeldTicket) -> None:
    """Wait until ``ticket``'s hold is committed; when it failed (the database is down) log it:
    the ack still goes, and the answer after it says what failed."""
    try:
        ticket.wait()
    except Exception:
        log.warning("request not held: the store refused it", exc_info=True)


def _warm() -> None:
    """Build what the first commands after a start would each build before their ack: zoneinfo's
    zone tables (parsing a ``subscribe … UTC``: about 20 ms of CPU, before the ack of the first one)."""
    from bot.domain.words import canonical_zone

    canonical_zone("UTC")


def _tenant(payload: dict[str, Any]) -> str:
    """The tenant id a command's ``payload`` names (:func:`bot.store.installations.tenant_of`), "" for none."""
    try:
        org_wide = payload.get("is_enterprise_install") in (True, "true")
        return tenant_of(payload.get("enterprise_id") or None, payload.get("team_id") or None, org_wide)
    except ValueError:
        return ""
