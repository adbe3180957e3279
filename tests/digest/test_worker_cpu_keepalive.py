"""A worker's Slack calls on kept-alive connections (:func:`bot.digest.clients.keep_connections_alive`,
issue 43: worker CPU per DM), against a real HTTP/1.1 server on loopback that counts connections."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.digest.clients import keep_connections_alive


class _Slack(ThreadingHTTPServer):
    """Answers every Web API call ``ok`` on HTTP/1.1 keep-alive; counts connections and calls.
    ``close_after_each``: closes each connection after its answer without saying so (a server's idle
    timeout); ``limited``: the first calls answered 429 with ``Retry-After``."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.connections = 0
        self.bodies: list[dict[str, Any]] = []
        self.close_after_each = False
        self.limited = 0
        self.lock = threading.Lock()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/api/"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Slack

    def setup(self) -> None:
        super().setup()
        with self.server.lock:
            self.server.connections += 1

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
        with self.server.lock:
            self.server.bodies.append(body)
            limited = self.server.limited > 0
            self.server.limited -= limited
        status, payload = (429, {"ok": False, "error": "ratelimited"}) if limited else (200, {"ok": True, "ts": "1.2"})
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        if limited:
            self.send_header("Retry-After", "7")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        if self.server.close_after_each:
            self.close_connection = True

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def slack() -> Iterator[_Slack]:
    server = _Slack()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


_PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


@pytest.fixture
def kept_alive(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in _PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    assert keep_connections_alive()
    try:
        yield
    finally:
        urllib.request.install_opener(None)  # type: ignore[arg-type]  # back to urllib's default


def _post(client: WebClient, n: int) -> list[str]:
    return [str(client.chat_postMessage(channel="U1", text=f"digest {i}")["ts"]) for i in range(n)]


def test_calls_of_a_thread_share_one_connection(slack: _Slack, kept_alive: None) -> None:
    client = WebClient(token="xoxb-test", base_url=slack.api_url, retry_handlers=[])
    assert _post(client, 5) == ["1.2"] * 5
    assert slack.connections == 1
    assert [b["text"] for b in slack.bodies] == [f"digest {i}" for i in range(5)]


def test_without_it_a_connection_a_call(slack: _Slack) -> None:
    urllib.request.install_opener(None)  # type: ignore[arg-type]
    _post(WebClient(token="xoxb-test", base_url=slack.api_url, retry_handlers=[]), 3)
    assert slack.connections == 3


def test_threads_keep_their_own_connections(slack: _Slack, kept_alive: None) -> None:
    client = WebClient(token="xoxb-test", base_url=slack.api_url, retry_handlers=[])
    threads = [threading.Thread(target=_post, args=(client, 4)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(slack.bodies) == 12
    assert slack.connections == 3


def test_a_connection_the_server_closed_is_not_reused(slack: _Slack, kept_alive: None) -> None:
    """No retry handler: a request sent on the closed connection would fail; each call goes once."""
    slack.close_after_each = True
    client = WebClient(token="xoxb-test", base_url=slack.api_url, retry_handlers=[])
    for _ in range(3):
        assert _post(client, 1) == ["1.2"]
        # the server's side of the close reaches the client before the next call
        threading.Event().wait(0.05)
    assert len(slack.bodies) == 3
    assert slack.connections == 3


def test_an_error_answer_is_slacks_and_the_connection_stays(slack: _Slack, kept_alive: None) -> None:
    slack.limited = 1
    client = WebClient(token="xoxb-test", base_url=slack.api_url, retry_handlers=[])
    with pytest.raises(SlackApiError) as raised:
        client.chat_postMessage(channel="U1", text="digest")
    assert raised.value.response.status_code == 429
    assert raised.value.response.headers["Retry-After"] == "7"
    assert raised.value.response["error"] == "ratelimited"
    assert _post(client, 2) == ["1.2", "1.2"]
    assert slack.connections == 1


def test_a_configured_proxy_keeps_urllibs_own_opening(monkeypatch: pytest.MonkeyPatch) -> None:
    installed: list[object] = []
    monkeypatch.setattr(urllib.request, "install_opener", installed.append)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")  # a tunnel is urllib's to open
    assert not keep_connections_alive() and installed == []
    monkeypatch.delenv("HTTPS_PROXY")
    for name in _PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    assert keep_connections_alive() and len(installed) == 1
