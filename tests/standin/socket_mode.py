"""Slack's Socket Mode end on loopback: a WebSocket server (RFC 6455 on the standard library) that
behaves as Slack's does (https://docs.slack.dev/apis/events-api/using-socket-mode/).

``apps.connections.open`` on :class:`~tests.standin.server.SlackStandIn` (its ``socket_mode``
attribute set to a :class:`SocketModeStandIn`) answers :meth:`SocketModeStandIn.connect_url`. On
each connection the server sends ``hello`` (``num_connections``, ``debug_info`` with ``host`` and
``approximate_connection_time``, ``connection_info``), then the envelopes :meth:`~SocketModeStandIn.send`
is given (``envelope_id``, ``payload``, ``type``, ``accepts_response_payload``, ``retry_attempt``,
``retry_reason``), to the newest connection not told to go; answers pings; records every ack
(:class:`Ack`: envelope, connection, arrival time, payload); redelivers an envelope not acked
within ``redeliver_after_s`` (at most :data:`MAX_RETRIES` times, ``retry_reason`` ``timeout``, on
whatever connection is then live); sends ``disconnect`` (:meth:`~SocketModeStandIn.disconnect`,
then closes that connection ``close_after_s`` later); and can drop a connection without a close
frame (:meth:`~SocketModeStandIn.drop`: from then on it neither reads, writes nor answers pings,
or its socket is closed)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import itertools
import json
import socket
import socketserver
import struct
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from tests.standin.ids import CONSOLE_APP_ID
from tests.standin.requests import app_home_opened_event, event_body, slash_command_body

T = TypeVar("T")

MAX_RETRIES = 3
"""Redeliveries of an envelope not acked (Slack retries an event three times)."""
_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455's handshake constant
TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


def command_payload(text: str, user: str, response_url: str) -> dict[str, str]:
    """A ``/vllm-path text`` slash command by ``user`` as a ``slash_commands`` envelope carries it
    (the form's fields as a JSON object)."""
    return dict(parse_qsl(slash_command_body(text, user_id=user, response_url=response_url).decode()))


def home_open_payload(user: str, event_id: str) -> dict[str, Any]:
    """An ``events_api`` envelope's payload: ``user`` opened App Home (``event_id`` given)."""
    payload: dict[str, Any] = json.loads(event_body(app_home_opened_event(user), event_id=event_id))
    return payload


@dataclass(frozen=True)
class Ack:
    """An ack received: ``envelope_id``, the ``connection`` (``c1``, ``c2`` …) it came on, ``at``
    (``time.monotonic()`` s, when its frame had been read) and its ``payload`` (None when it carried none)."""

    envelope_id: str
    connection: str
    at: float
    payload: dict[str, Any] | None


@dataclass
class Envelope:
    """An envelope to deliver: ``sent_at`` (monotonic s) of its first delivery, ``deliveries``:
    ``(connection, at, retry_attempt)`` of each."""

    envelope_id: str
    kind: str
    payload: dict[str, Any]
    accepts_response_payload: bool
    sent_at: float | None = None
    deliveries: list[tuple[str, float, int]] = field(default_factory=list)


class _Conn:
    """One accepted WebSocket connection (the server side)."""

    def __init__(self, cid: str, sock: socket.socket):
        self.id = cid
        self.sock = sock
        self.opened_at = time.monotonic()
        self.leaving = False  # told to disconnect: no new envelopes
        self.dropped = False  # black-holed: nothing read or written
        self.closed = False
        self.send_lock = threading.Lock()

    def send(self, opcode: int, data: bytes) -> bool:
        """Write one unmasked frame; False when the connection is dropped or broken."""
        if self.dropped or self.closed:
            return False
        n = len(data)
        head = bytes([0x80 | opcode]) + (
            bytes([n]) if n < 126 else struct.pack("!BH", 126, n) if n < 65536 else struct.pack("!BQ", 127, n)
        )
        try:
            with self.send_lock:
                self.sock.sendall(head + data)
        except OSError:
            return False
        return True

    def send_json(self, obj: dict[str, Any]) -> bool:
        return self.send(TEXT, json.dumps(obj).encode())


class SocketModeStandIn:
    """Slack's Socket Mode server on ``127.0.0.1`` (a free port, daemon threads; thread-safe; a
    context manager, or call :meth:`close`). ``redeliver_after_s``: seconds an envelope may wait
    for its ack before Slack sends it again (None: never); ``close_after_s``: seconds from a
    ``disconnect`` message to Slack closing that connection."""

    def __init__(self, *, redeliver_after_s: float | None = 3.0, close_after_s: float = 10.0):
        self.redeliver_after_s = redeliver_after_s
        self.close_after_s = close_after_s
        self.spread = False
        """True: each envelope goes to the next live connection in turn, as Slack sends each to one
        of an app's open connections (several processes); False: to the newest."""
        self._turn = itertools.count()
        self._cond = threading.Condition()
        self._conns: list[_Conn] = []
        self._envelopes: dict[str, Envelope] = {}
        self._waiting: list[str] = []  # envelope ids with no live connection to go to yet
        self._acks: list[Ack] = []
        self._ids = itertools.count(1)
        self._closed = False
        standin = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                standin._serve(self.request)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
        self._server.daemon_threads = True
        self._server.allow_reuse_address = True
        self._server.server_bind()
        self._server.server_activate()
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        threading.Thread(target=self._redeliver_loop, name="socket-standin-retry", daemon=True).start()

    def connect_url(self) -> str:
        """What ``apps.connections.open`` answers: ``ws://127.0.0.1:PORT/link/?ticket=…&app_id=…``."""
        return f"ws://127.0.0.1:{self._server.server_address[1]}/link/?ticket={uuid.uuid4()}&app_id={CONSOLE_APP_ID}"

    # --- the test's side ------------------------------------------------------------------------

    def send(self, kind: str, payload: dict[str, Any], *, envelope_id: str | None = None) -> str:
        """Deliver an envelope of ``kind`` (``events_api``, ``slash_commands``, ``interactive``)
        with ``payload`` to the newest live connection (with :attr:`spread`, the next in turn; none
        live: the next one to open); returns its
        ``envelope_id``. Slash commands, view submissions and option loads accept a response payload.
        An ``envelope_id`` sent before is delivered again (Slack's retry: ``retry_attempt`` counts up)."""
        eid = envelope_id or str(uuid.uuid4())
        answerable = kind == "slash_commands" or payload.get("type") in ("view_submission", "block_suggestion")
        with self._cond:
            env = self._envelopes.setdefault(eid, Envelope(eid, kind, payload, answerable))
            self._deliver(env, len(env.deliveries))
        return eid

    def disconnect(self, reason: str = "refresh_requested", connection: str | None = None) -> str:
        """Send ``{"type": "disconnect", "reason": reason, "debug_info": …}`` on ``connection``
        (default the newest live one), send it no more envelopes, close it ``close_after_s``
        later. Returns the connection's id."""
        with self._cond:
            conn = self._conn(connection)
            conn.leaving = True
        conn.send_json({"type": "disconnect", "reason": reason, "debug_info": {"host": f"applink-{conn.id}"}})
        timer = threading.Timer(self.close_after_s, self._close_conn, args=(conn,))
        timer.daemon = True
        timer.start()
        return conn.id

    def drop(self, connection: str | None = None, *, abort: bool = False) -> str:
        """Black-hole ``connection`` (default the newest live one): no close frame, no pong, no
        envelope; its socket stays open. ``abort``: close its socket instead, still without a
        close frame (a crashed server). Returns its id."""
        with self._cond:
            conn = self._conn(connection)
            conn.dropped = True
            self._cond.notify_all()
        if abort:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)
        return conn.id

    def acks(self) -> list[Ack]:
        """Acks received so far, oldest first."""
        with self._cond:
            return list(self._acks)

    def envelope(self, envelope_id: str) -> Envelope:
        """The envelope sent with this id."""
        with self._cond:
            return self._envelopes[envelope_id]

    def ack_delays(self) -> dict[str, float]:
        """Seconds from each acked envelope's first delivery to its first ack."""
        with self._cond:
            out: dict[str, float] = {}
            for ack in self._acks:
                sent = self._envelopes.get(ack.envelope_id)
                if sent is not None and sent.sent_at is not None and ack.envelope_id not in out:
                    out[ack.envelope_id] = ack.at - sent.sent_at
            return out

    def connections(self) -> list[tuple[str, float, bool]]:
        """``(id, opened_at, live)`` of every connection so far, oldest first (live: open, not
        told to go, not dropped)."""
        with self._cond:
            return [(c.id, c.opened_at, self._live(c)) for c in self._conns]

    def wait_for(self, predicate: Callable[[], T], timeout: float = 10.0) -> T:
        """Wait until ``predicate()`` is truthy (checked on each change and every 50 ms) and return
        it; ``TimeoutError`` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                result = predicate()
                if result:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"socket stand-in: condition not met within {timeout} s")
                self._cond.wait(min(left, 0.05))

    def close(self) -> None:
        """Stop the server and close every connection. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._server.shutdown()
        self._server.server_close()
        for conn in list(self._conns):
            self._close_conn(conn)

    def __enter__(self) -> SocketModeStandIn:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the server's side ----------------------------------------------------------------------

    @staticmethod
    def _live(conn: _Conn) -> bool:
        return not (conn.leaving or conn.dropped or conn.closed)

    def _conn(self, cid: str | None) -> _Conn:
        """The connection ``cid``, or the newest live one (the caller holds ``_cond``)."""
        found = [c for c in self._conns if (c.id == cid if cid else self._live(c))]
        if not found:
            raise LookupError(f"no connection {cid or '(live)'}")
        return found[-1]

    def _deliver(self, env: Envelope, attempt: int) -> None:
        """Send ``env`` on the newest live connection, or keep it for the next (holds ``_cond``)."""
        live = [c for c in self._conns if self._live(c)]
        if not live:
            self._waiting.append(env.envelope_id)
            return
        conn, now = live[next(self._turn) % len(live)] if self.spread else live[-1], time.monotonic()
        env.sent_at = env.sent_at if env.sent_at is not None else now
        env.deliveries.append((conn.id, now, attempt))
        conn.send_json(
            {
                "envelope_id": env.envelope_id,
                "payload": env.payload,
                "type": env.kind,
                "accepts_response_payload": env.accepts_response_payload,
                "retry_attempt": attempt,
                "retry_reason": "timeout" if attempt else "",
            }
        )

    def _redeliver_loop(self) -> None:
        while not self._closed:
            time.sleep(0.1)
            after = self.redeliver_after_s
            if after is None:
                continue
            with self._cond:
                acked = {a.envelope_id for a in self._acks}
                now = time.monotonic()
                for env in self._envelopes.values():
                    if env.envelope_id in acked or not env.deliveries or len(env.deliveries) > MAX_RETRIES:
                        continue
                    if now - env.deliveries[-1][1] >= after:
                        self._deliver(env, len(env.deliveries))

    def _close_conn(self, conn: _Conn) -> None:
        if conn.closed:
            return
        conn.send(CLOSE, struct.pack("!H", 1000))
        with self._cond:
            conn.closed = True
            self._cond.notify_all()
        with contextlib.suppress(OSError):
            conn.sock.shutdown(socket.SHUT_RDWR)
        conn.sock.close()

    def _serve(self, sock: socket.socket) -> None:
        """One connection: the handshake, ``hello``, the waiting envelopes, then its frames."""
        reader = sock.makefile("rb")
        request = reader.readline()
        headers: dict[str, str] = {}
        while (line := reader.readline().strip()) != b"":
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if not request.startswith(b"GET /link/") or "sec-websocket-key" not in headers:
            sock.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            return
        accept = base64.b64encode(hashlib.sha1((headers["sec-websocket-key"] + _GUID).encode()).digest()).decode()
        sock.sendall(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + f"Sec-WebSocket-Accept: {accept}\r\n\r\n".encode()
        )
        with self._cond:
            conn = _Conn(f"c{next(self._ids)}", sock)
            self._conns.append(conn)
            live = sum(1 for c in self._conns if self._live(c))
            conn.send_json(
                {
                    "type": "hello",
                    "num_connections": live,
                    "debug_info": {
                        "host": f"applink-{conn.id}",
                        "build_number": 1,
                        "approximate_connection_time": 18060,
                    },
                    "connection_info": {"app_id": CONSOLE_APP_ID},
                }
            )
            waiting, self._waiting = self._waiting, []
            for eid in waiting:
                self._deliver(self._envelopes[eid], len(self._envelopes[eid].deliveries))
            self._cond.notify_all()
        try:
            self._read_frames(conn, reader)
        finally:
            self._close_conn(conn)

    def _read_frames(self, conn: _Conn, reader: Any) -> None:
        while not conn.closed:
            head = reader.read(2)
            if len(head) < 2:
                return
            opcode, n = head[0] & 0x0F, head[1] & 0x7F
            if n == 126:
                n = struct.unpack("!H", reader.read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", reader.read(8))[0]
            mask = reader.read(4) if head[1] & 0x80 else b"\0\0\0\0"
            data = reader.read(n)
            at = time.monotonic()  # the frame is in: its time, before this thread's own work on it
            data = _unmask(data, mask)
            if conn.dropped:
                continue  # a black hole: read and forgotten
            if opcode == PING:
                conn.send(PONG, data)
            elif opcode == CLOSE:
                return
            elif opcode == TEXT:
                self._on_text(conn, data, at)

    def _on_text(self, conn: _Conn, data: bytes, at: float) -> None:
        try:
            message = json.loads(data)
        except ValueError:
            return
        if not isinstance(message, dict) or not message.get("envelope_id"):
            return
        payload = message.get("payload")
        with self._cond:
            self._acks.append(
                Ack(
                    str(message["envelope_id"]),
                    conn.id,
                    at,
                    payload if isinstance(payload, dict) else None,
                )
            )
            self._cond.notify_all()


def _unmask(data: bytes, mask: bytes) -> bytes:
    """``data`` XOR the 4-byte ``mask`` repeated (RFC 6455 5.3), as one integer operation: Slack
    unmasks in native code, and a Python loop per byte here (0.2 ms per 3.5 KB ``help`` ack, 200
    of them in a burst) was measured as part of the acks' time."""
    n = len(data)
    key = int.from_bytes((mask * (n // 4 + 1))[:n], "little")
    return (int.from_bytes(data, "little") ^ key).to_bytes(n, "little")
