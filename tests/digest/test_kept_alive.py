"""Digest clients on kept-alive connections (:class:`bot.digest.clients.KeptAlive`), against a
real HTTP/1.1 server that counts the connections it accepts."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot.digest.clients import KeptAlive


class _Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    connections = 0
    script: ClassVar[list[tuple[int, dict, dict]]] = []  # (status, headers, body) answered in turn
    seen: ClassVar[list[tuple[str, str, bytes]]] = []

    def setup(self) -> None:
        type(self).connections += 1
        super().setup()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).seen.append((self.path, self.headers.get("Authorization", ""), body))
        status, headers, payload = self.script.pop(0) if self.script else (200, {}, {"ok": True})
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def api():
    _Api.connections, _Api.script, _Api.seen = 0, [], []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/"
    server.shutdown()
    server.server_close()


def test_calls_share_one_connection_until_the_server_closes_it(api) -> None:
    pool = KeptAlive()
    first = pool.attach(WebClient(token="xoxb-one", base_url=api))
    second = pool.attach(WebClient(token="xoxb-two", base_url=api))  # another workspace's token
    assert first.chat_postMessage(channel="U1", text="a")["ok"]
    assert second.chat_postMessage(channel="U2", text="b")["ok"]
    assert first.auth_test()["ok"]
    assert _Api.connections == 1
    assert [(p, a) for p, a, _b in _Api.seen] == [
        ("/api/chat.postMessage", "Bearer xoxb-one"),
        ("/api/chat.postMessage", "Bearer xoxb-two"),
        ("/api/auth.test", "Bearer xoxb-one"),
    ]
    assert json.loads(_Api.seen[1][2]) == {"channel": "U2", "text": "b"}
    _Api.script = [(200, {"Connection": "close"}, {"ok": True})]  # the server ends it
    assert first.auth_test()["ok"]
    assert first.auth_test()["ok"]
    assert _Api.connections == 2


def test_errors_and_429s_reach_slack_sdk_as_from_urllib(api) -> None:
    client = KeptAlive().attach(
        WebClient(token="xoxb-one", base_url=api, retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=1)])
    )
    _Api.script = [
        (429, {"Retry-After": "0"}, {"ok": False, "error": "ratelimited"}),
        (200, {}, {"ok": True, "ts": "1.2"}),
    ]
    assert client.chat_postMessage(channel="U1", text="a")["ts"] == "1.2"  # retried after the 429
    _Api.script = [(200, {}, {"ok": False, "error": "channel_not_found"})]
    with pytest.raises(SlackApiError) as info:
        client.chat_postMessage(channel="U1", text="a")
    assert info.value.response["error"] == "channel_not_found"
    _Api.script = [(500, {}, {"ok": False, "error": "fatal_error"})]
    with pytest.raises(SlackApiError) as info:
        client.chat_postMessage(channel="U1", text="a")
    assert info.value.response.status_code == 500
    assert _Api.connections == 1 and len(_Api.seen) == 4


def test_a_refused_connection_is_a_urlerror_that_slack_sdk_retries() -> None:
    import socket
    from urllib.error import URLError

    from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    tries: list[int] = []

    class Counting(ConnectionErrorRetryHandler):
        def prepare_for_next_attempt(self, **kwargs) -> None:
            tries.append(1)
            super().prepare_for_next_attempt(**kwargs)

    client = KeptAlive().attach(
        WebClient(
            token="xoxb-one", base_url=f"http://127.0.0.1:{port}/api/", retry_handlers=[Counting(max_retry_count=2)]
        )
    )
    with pytest.raises(URLError):
        client.auth_test()
    assert len(tries) == 2
