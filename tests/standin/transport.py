"""The stand-in's HTTP side: parses Web API calls (``/api/<method>``, form or JSON) and response-URL
posts (``/response/<key>``) for :class:`~tests.standin.server.SlackStandIn` to answer."""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from tests.standin.limits import Answer
from tests.standin.records import response_key

_JSON_ARGS = ("blocks", "attachments", "view", "metadata", "unfurls", "channels")


class Answers(Protocol):
    """What the HTTP side asks of the stand-in (:class:`~tests.standin.server.SlackStandIn`)."""

    def answer_api(self, method: str, args: dict[str, Any], auth: str | None) -> Answer: ...
    def answer_authorize(self, query: Mapping[str, str]) -> tuple[int, str]: ...
    def answer_response(self, key: str, path: str, raw: bytes) -> tuple[int, str]: ...


class LoopbackServer(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` with a listen backlog of 128, not 5: dozens of clients connecting at
    once (a benchmark) would otherwise meet dropped SYNs and 1 s / 3 s retransmits."""

    request_queue_size = 128

    def shutdown(self) -> None:
        """As ``socketserver``'s, without waiting out the serving loop's poll interval (a console
        closing waited ~0.1 s): the stop is flagged, then a connection wakes the loop's select."""
        self._BaseServer__shutdown_request = True  # what BaseServer.shutdown() sets first
        host, port = self.server_address[:2]
        with contextlib.suppress(OSError), socket.create_connection((str(host), port), timeout=1):
            pass
        super().shutdown()


def parse_args(content_type: str, raw: bytes, query: str) -> dict[str, Any]:
    """Web API arguments from the query and a form or JSON body (JSON form fields decoded)."""
    args: dict[str, Any] = {k: v[-1] for k, v in parse_qs(query).items()}
    ctype = content_type.split(";")[0].strip().lower()
    if raw and ctype == "application/json":
        data = json.loads(raw.decode("utf-8"))
        if isinstance(data, dict):
            args.update(data)
    elif raw:
        args.update({k: v[-1] for k, v in parse_qs(raw.decode("utf-8"), keep_blank_values=True).items()})
    for name in _JSON_ARGS:
        value = args.get(name)
        if isinstance(value, str) and value[:1] in ("[", "{"):
            with contextlib.suppress(ValueError):
                args[name] = json.loads(value)
    return args


def handler_for(standin: Answers) -> type[BaseHTTPRequestHandler]:
    """The request handler class serving ``standin``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "SlackStandIn/1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the stand-in logs nothing
            return

        def _send(self, status: int, body: bytes, content_type: str, headers: Mapping[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _handle(self) -> None:
            parts = urlsplit(self.path)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if parts.path.startswith("/api/"):
                method = parts.path[len("/api/") :].strip("/")
                try:
                    args = parse_args(self.headers.get("Content-Type", ""), raw, parts.query)
                except ValueError:
                    self._send(200, b'{"ok": false, "error": "invalid_json"}', "application/json")
                    return
                status, headers, body = standin.answer_api(method, args, self.headers.get("Authorization"))
                self._send(status, json.dumps(body).encode(), "application/json; charset=utf-8", headers)
            elif parts.path == "/oauth/v2/authorize" and self.command == "GET":
                status, where = standin.answer_authorize({k: v[-1] for k, v in parse_qs(parts.query).items()})
                if status == 302:
                    self._send(302, b"", "text/plain", {"Location": where})
                else:
                    self._send(status, where.encode(), "text/plain")
            elif (key := response_key(parts.path)) is not None and self.command == "POST":
                try:
                    status, text = standin.answer_response(key, parts.path, raw)
                except ValueError:  # not JSON (UnicodeDecodeError is one too): Slack's answer
                    self._send(400, b"invalid_payload", "text/plain")
                    return
                self._send(status, text.encode(), "text/html")
            else:
                self._send(404, b"not found", "text/plain")

        do_POST = _handle
        do_GET = _handle

    return Handler
