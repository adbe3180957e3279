"""Issue 27: a door that hostile clients cannot block, through the real HTTP door (waitress + the
guard in :mod:`bot.doors.guard` + Bolt). Unsigned bodies of any shape get 401 and signed garbage
400, with no traceback; a huge body is refused before it is read; idle sockets do not use up the
door."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import time
from urllib.parse import urlencode, urlsplit

import psutil
import pytest

from tests.e2e.helpers import ack_shown
from tests.e2e.slack_requests import post
from tests.reliability.conftest import SIGNING_SECRET
from tests.standin import signed_headers
from tests.waits import PATIENCE_S

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"


def _events(slack) -> str:
    return slack.url + "/slack/events"


@pytest.mark.parametrize(
    ("body", "ctype"),
    [
        (b"hello", JSON),
        (b"hello", FORM),
        (b"\xff\xfe\x00bad", JSON),
        (b"[" * 10_000 + b"]" * 10_000, JSON),
        (b"payload=" + b"%5B" * 10_000, FORM),
    ],
    ids=["hello-json", "hello-form", "not-utf8", "deep-json", "deep-payload"],
)
def test_unsigned_bodies_of_any_shape_get_401_without_a_traceback(slack, caplog, body, ctype) -> None:
    answer = post(_events(slack), body, {"Content-Type": ctype})
    assert answer.status == 401
    assert "Traceback" not in caplog.text


@pytest.mark.parametrize(
    ("body", "ctype"),
    [
        (b"payload=notjson", FORM),
        (b"\xff\xfe\x00bad", FORM),
        (b"{not json", JSON),
        (b"[" * 10_000 + b"]" * 10_000, JSON),
    ],
    ids=["payload-notjson", "not-utf8", "broken-json", "deep-json"],
)
def test_signed_garbage_gets_400_without_a_traceback(slack, caplog, body, ctype) -> None:
    answer = post(_events(slack), body, _signed(body, ctype))
    assert answer.status == 400
    assert json.loads(answer.body)["error"]
    assert "Traceback" not in caplog.text


def _signed(body: bytes, ctype: str, secret: str = SIGNING_SECRET) -> dict[str, str]:
    """Slack's v0 signature headers over the raw bytes (also bytes that are not UTF-8, which
    slack-sdk's signer cannot take)."""
    ts = str(int(time.time()))
    mac = hmac.new(secret.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256).hexdigest()
    return {"Content-Type": ctype, "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": "v0=" + mac}


def test_badly_signed_non_utf8_gets_401(slack, caplog) -> None:
    body = b"\xff\xfe\x00bad"
    assert post(_events(slack), body, _signed(body, JSON, secret="not-the-secret")).status == 401
    assert "Traceback" not in caplog.text


def _raw_request(url: str, head: bytes, chunks: int, chunk: bytes) -> bytes:
    """Send ``head`` then up to ``chunks`` × ``chunk`` on one socket; return what the server answered."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(head)
        try:
            for _ in range(chunks):
                sock.sendall(chunk)
        except OSError:  # the server refused and closed: what we want
            pass
        try:
            return sock.recv(4096)
        except OSError:
            return b""


def test_a_50_mb_unsigned_body_is_refused_before_it_is_read(slack) -> None:
    size = 50 * 1024 * 1024
    rss_before = psutil.Process().memory_info().rss
    head = (
        f"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: {JSON}\r\nContent-Length: {size}\r\n\r\n"
    ).encode()
    answer = _raw_request(_events(slack), head, chunks=50, chunk=b"x" * (1024 * 1024))
    assert answer.split(b" ", 2)[1] in (b"413", b"401")
    assert psutil.Process().memory_info().rss - rss_before < 20 * 1024 * 1024


def test_idle_connections_do_not_block_a_signed_command(slack) -> None:
    parts = urlsplit(slack.url)
    idle = [socket.create_connection((parts.hostname, parts.port), timeout=5) for _ in range(200)]
    try:
        time.sleep(0.2)
        result, url = slack.command("speculative")
        assert result.status == 200
        assert ack_shown(slack.standin, result, url).status == 200
        assert slack.standin.wait_for_response(url, timeout=PATIENCE_S).body["blocks"]
    finally:
        for s in idle:
            s.close()


def test_a_signed_command_still_works_through_the_guard(slack) -> None:
    body = urlencode(
        {
            "command": "/vllm-path",
            "text": "help",
            "team_id": slack.team,
            "user_id": slack.user,
            "channel_id": slack.channel,
            "response_url": slack.standin.response_url(),
        }
    ).encode()
    answer = post(_events(slack), body, signed_headers(body, SIGNING_SECRET, content_type=FORM))
    assert answer.status == 200
