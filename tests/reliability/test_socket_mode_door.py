"""The Socket Mode door in this process (:class:`bot.doors.socket_mode.SocketDoor` on the real app,
its connection a stand-in socket that records what is written): a held command is acked once its
hold is committed without keeping a dispatching thread for the wait, so a ``help`` behind it is
acked meanwhile; the acks' frames are the masked text frames RFC 6455 asks of a client; slack-sdk's
own queue gets no envelope (the door parses each once). The door against Slack's end on loopback,
in a real ``serve``: ``tests/reliability/test_socket_mode.py``."""

from __future__ import annotations

import json
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from slack_sdk import WebClient

from tests.standin import SlackStandIn
from tests.standin.socket_mode import SocketModeStandIn, command_payload
from tests.waits import PATIENCE_S, gate_flushes, wait_until

EVER = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))


class _Sock:
    """The socket of a connection: keeps every byte written."""

    def __init__(self) -> None:
        self.written = bytearray()
        self.lock = threading.Lock()

    def send(self, data: Any) -> int:
        with self.lock:
            self.written += bytes(data)
        return len(data)


class FakeConnection:
    """What the door uses of a slack-sdk connection: ``sock``, ``sock_send_lock``, ``send``,
    ``close`` (``is_active`` False: slack-sdk's reader leaves it alone)."""

    def __init__(self) -> None:
        self.sock: _Sock | None = _Sock()
        self.kept = self.sock
        self.sock_send_lock = threading.Lock()

    def send(self, text: str) -> None:
        """slack-sdk's own write of a text frame (masked with zeros here)."""
        data = text.encode()
        n = len(data)
        head = bytes([0x81, 0x80 | n]) if n < 126 else struct.pack("!BBH", 0x81, 0xFE, n)
        self.kept.send(head + b"\0\0\0\0" + data)  # type: ignore[union-attr]

    def close(self) -> None:
        self.sock = None

    def is_active(self) -> bool:
        return False

    def acks(self) -> dict[str, dict[str, Any]]:
        """The acks written so far by envelope id (their JSON), decoded as Slack would."""
        with self.kept.lock:  # type: ignore[union-attr]
            data = bytes(self.kept.written)  # type: ignore[union-attr]
        return {ack["envelope_id"]: ack for ack in map(json.loads, decode_frames(data))}


def decode_frames(data: bytes) -> list[str]:
    """The text of each client frame in ``data`` (RFC 6455 5.2); AssertionError for an unmasked,
    fragmented or non-text frame."""
    texts, at = [], 0
    while at < len(data):
        b1, b2 = data[at], data[at + 1]
        assert b1 == 0x81 and b2 & 0x80, "a final, masked text frame"
        n, at = b2 & 0x7F, at + 2
        if n == 126:
            n, at = struct.unpack("!H", data[at : at + 2])[0], at + 2
        elif n == 127:
            n, at = struct.unpack("!Q", data[at : at + 8])[0], at + 8
        mask, at = data[at : at + 4], at + 4
        texts.append(bytes(b ^ mask[i % 4] for i, b in enumerate(data[at : at + n])).decode())
        at += n
    return texts


@contextmanager
def _door(runtime: Any, **kwargs: Any) -> Iterator[tuple[Any, FakeConnection, SlackStandIn]]:
    """A :class:`SocketDoor` (``kwargs``: its options) on the real app (Web API: a stand-in), its
    current connection a :class:`FakeConnection`."""
    from bot.doors.socket_mode import SocketDoor
    from bot.slack.app import build_app

    with SlackStandIn() as web:
        app = build_app(runtime, client=WebClient(token="xoxb-door-test", base_url=web.api_url))
        door = SocketDoor(app, "xapp-1-A0-1-doortest", **kwargs)
        conn = FakeConnection()
        door.client.current_session = conn
        try:
            yield door, conn, web
        finally:
            door.stop(grace_s=1.0)
            if app.lazy_pool is not None:
                app.lazy_pool.drain(5.0)


@pytest.fixture
def door(runtime: Any) -> Iterator[tuple[Any, FakeConnection, SlackStandIn]]:
    """A door with one dispatching thread (:func:`_door`)."""
    with _door(runtime, threads=1) as made:
        yield made


@pytest.fixture
def first_door(runtime: Any) -> Iterator[tuple[Any, FakeConnection, SlackStandIn]]:
    """A door whose every command is acked first (a backlog of 0, :data:`bot.doors.socket_mode.BACKLOG`)."""
    with _door(runtime, threads=1, backlog=0) as made:
        yield made


def envelope(envelope_id: str, text: str, user: str, response_url: str) -> str:
    """A ``slash_commands`` envelope's frame text."""
    return json.dumps(
        {
            "envelope_id": envelope_id,
            "type": "slash_commands",
            "accepts_response_payload": True,
            "payload": command_payload(text, user, response_url),
        }
    )


def test_a_held_command_is_acked_once_committed_and_keeps_no_thread_meanwhile(door, runtime):
    door, conn, web = door
    url = web.response_url()
    door._on_message(envelope("E-WARM", "help", "U0HELP", url))  # a person not known yet: answered later
    web.wait_for_response(url, timeout=PATIENCE_S)  # now known: the next help is answered in its ack
    wait_until(lambda: runtime.store.held_requests(*EVER) == [], what="the first help released")
    batcher = runtime.store.held_batch()
    gate, flushing = gate_flushes(batcher)
    url = web.response_url()
    door._on_message(envelope("E-SUB", "subscribe pd monday 09:00 UTC", "U0HELD", url))
    assert flushing.wait(PATIENCE_S)  # the hold is being written, and cannot finish yet
    door._on_message(envelope("E-HELP", "help", "U0HELP", web.response_url()))

    acks = wait_until(lambda: conn.acks().get("E-HELP"), what="help acked while the hold waits (one thread)")
    assert acks["payload"]["blocks"]  # the reply in the ack
    assert "E-SUB" not in conn.acks()  # not acknowledged before it is stored
    assert runtime.store.held_requests(*EVER) == []

    gate.set()
    wait_until(lambda: "E-SUB" in conn.acks(), what="the held command acked once committed")
    assert conn.acks()["E-SUB"] == {"envelope_id": "E-SUB"}
    web.wait_for_response(url, timeout=PATIENCE_S)  # answered after the ack, then released
    wait_until(lambda: runtime.store.held_requests(*EVER) == [], what="the held request released")


def test_a_redelivery_of_a_held_command_waiting_for_its_commit_is_not_acked_twice(door, runtime):
    door, conn, web = door
    batcher = runtime.store.held_batch()
    gate = threading.Event()
    flush = batcher._flush
    batcher._flush = lambda batch: (gate.wait(PATIENCE_S), flush(batch))  # type: ignore[method-assign]
    frame = envelope("E-AGAIN", "subscribe pd monday 09:00 UTC", "U0AGAIN", web.response_url())
    door._on_message(frame)
    door._on_message(frame)  # Slack again, while the first is on its way: its ack will answer both
    gate.set()
    wait_until(lambda: "E-AGAIN" in conn.acks(), what="acked")
    door._on_message(frame)  # again after the ack: the first ack again
    wait_until(lambda: len(decode_frames(bytes(conn.kept.written))) == 2, what="acked again")  # type: ignore[union-attr]


def test_past_the_backlog_a_command_is_acked_once_held_then_answered_through_its_url(first_door, runtime):
    door, conn, web = first_door
    url = web.response_url()
    door._on_message(envelope("E-KNOWN", "help", "U0FIRST", url))  # the person known: a help fits in an ack
    web.wait_for_response(url, timeout=PATIENCE_S)
    wait_until(lambda: runtime.store.held_requests(*EVER) == [], what="the first help released")
    batcher = runtime.store.held_batch()
    gate, flushing = gate_flushes(batcher)
    url = web.response_url()
    frame = envelope("E-FIRST", "help", "U0FIRST", url)
    door._on_message(frame)
    assert flushing.wait(PATIENCE_S)  # held on arrival, before any dispatch
    door._on_message(frame)  # Slack again while it is being held: the one ack to come answers both
    assert "E-FIRST" not in conn.acks() and web.responses(url) == []  # not acknowledged before it is stored
    gate.set()

    ack = wait_until(lambda: conn.acks().get("E-FIRST"), what="acked once held")
    assert ack == {"envelope_id": "E-FIRST"}  # empty: the reply follows through the response URL
    answer = web.wait_for_response(url, timeout=PATIENCE_S)
    assert answer.body.get("blocks") and answer.body.get("replace_original") is False
    wait_until(lambda: runtime.store.held_requests(*EVER) == [], what="the held request released once answered")
    door._on_message(frame)  # again after the answer: the first ack again, not answered again
    wait_until(lambda: len(decode_frames(bytes(conn.kept.written))) == 3, what="acked again")  # type: ignore[union-attr]
    assert len(web.responses(url)) == 1


def test_a_held_help_is_answered_again_through_its_response_url(door, runtime):
    """What a process acked first and did not answer (a help held by the door) is answered by the
    next through its response URL: its reply, which could have gone in an ack, is not dropped."""
    from bot.slack.held import answer_held

    door, conn, web = door
    known = web.response_url()
    door._on_message(envelope("E-KNOWN", "help", "U0AGAINHELP", known))
    web.wait_for_response(known, timeout=PATIENCE_S)  # now known
    door._on_message(envelope("E-IN-ACK", "help", "U0AGAINHELP", web.response_url()))
    wait_until(lambda: conn.acks().get("E-IN-ACK", {}).get("payload"), what="a help that fits in an ack")
    url = web.response_url()
    body = json.dumps(command_payload("help", "U0AGAINHELP", url))
    runtime.store.held_batch().hold("T0CONSOLE", body, "application/json")
    assert answer_held(door.app, None, time.time() + 1.0) == 1
    answer = web.wait_for_response(url, timeout=PATIENCE_S)
    assert answer.body.get("blocks")
    wait_until(lambda: runtime.store.held_requests(*EVER) == [], what="released once answered")


@pytest.mark.parametrize("size", [0, 1, 3, 125, 126, 65535, 65536, 70001])
def test_an_ack_frame_is_a_masked_text_frame(size: int) -> None:
    from bot.doors.socket_mode import _frame

    text = ("é" + "x" * size)[:size] if size else ""
    data = _frame(text)
    assert (decode_frames(data) if text else []) == ([text] if text else [])
    if size >= 125:
        assert text.encode() not in data  # masked, not sent as it is (a zero mask: 1 in 2**32)


def test_slack_sdks_queue_gets_no_envelope(door) -> None:
    door, _conn, _web = door
    client = door.client
    client.enqueue_message(json.dumps({"envelope_id": "E1", "type": "events_api", "payload": {}}))
    assert client.message_queue.empty()  # the door's alone: not parsed again by slack-sdk's threads
    client.enqueue_message(json.dumps({"type": "disconnect", "reason": "refresh_requested"}))
    assert client.message_queue.qsize() == 1  # slack-sdk acts on a disconnect


def _open_raw(sm: SocketModeStandIn) -> Any:
    """A WebSocket connection to the stand-in (the handshake by hand), its ``hello`` read: a
    buffered reader of the server's frames."""
    import socket
    from urllib.parse import urlsplit

    url = urlsplit(sm.connect_url())
    sock = socket.create_connection((url.hostname, url.port), timeout=PATIENCE_S)
    sock.sendall(
        f"GET {url.path}?{url.query} HTTP/1.1\r\nHost: {url.netloc}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    reader = sock.makefile("rb")
    while reader.readline().strip():
        pass
    assert json.loads(_read_text(reader))["type"] == "hello"
    return sock, reader


def _read_text(reader: Any) -> str:
    """The next (unmasked, server's) text frame's text."""
    b1, b2 = reader.read(2)
    n = b2 & 0x7F
    if n == 126:
        n = struct.unpack("!H", reader.read(2))[0]
    elif n == 127:
        n = struct.unpack("!Q", reader.read(8))[0]
    assert b1 & 0x0F == 0x1, "a text frame"
    return str(reader.read(n).decode())


def test_the_stand_in_spreads_envelopes_over_connections_when_asked() -> None:
    """``benchmarks/socket_mode.py --processes 2`` relies on it: each envelope to the next live
    connection in turn (Slack sends each to one of an app's connections); by default the newest."""
    with SocketModeStandIn(redeliver_after_s=None) as sm:
        (a, ra), (b, rb) = _open_raw(sm), _open_raw(sm)
        try:
            newest = [sm.send("events_api", {"event_id": f"Ev{n}"}) for n in range(2)]
            assert [json.loads(_read_text(rb))["envelope_id"] for _ in newest] == newest  # both on b
            sm.spread = True
            spread = [sm.send("events_api", {"event_id": f"EvS{n}"}) for n in range(4)]
            got_a = [json.loads(_read_text(ra))["envelope_id"] for _ in range(2)]
            got_b = [json.loads(_read_text(rb))["envelope_id"] for _ in range(2)]
            assert sorted(got_a + got_b) == sorted(spread)
            assert set(got_a) in ({spread[0], spread[2]}, {spread[1], spread[3]})  # in turn
        finally:
            for reader, sock in ((ra, a), (rb, b)):
                reader.close()
                sock.close()
