"""Stoplight Prism serving Slack's adapted Web API spec, and a recording proxy in front of it.

    app's WebClient --HTTP--> RecordingProxy (Python, records) --HTTP--> Prism (validates, answers)

* :class:`PrismServer` starts ``node_modules/.bin/prism mock`` on the adapted spec
  (``adapt_spec.py``) on a free loopback port, waits until it answers, stops it.
  Flags: ``-h 127.0.0.1 -p PORT`` and nothing else, deliberately:

  - no ``--dynamic``: static mode, Prism answers a valid call with the 200 response's *example*
    from Slack's spec (every one has ``"ok": true``; the adaptation guarantees it), so slack-sdk
    parses it as a success;
  - no ``--errors``: measured with Prism 5.14.2, request violations already get an error status
    without it (missing required argument -> 422, no ``Authorization`` -> 401, unsupported body
    type -> 415, unknown method -> 404), each with the reasons in the ``sl-violations`` header.
    ``--errors`` additionally turns *response* violations into a 500, and Slack's own examples
    violate Slack's own response schemas (chat.postMessage, conversations.history, ...), so every
    valid chat.postMessage would get a 500. Response violations are recorded, not failed on.

* :class:`RecordingProxy` is a small threading HTTP server that forwards every request unchanged
  to Prism and records a :class:`RecordedCall` per request: Slack method name, parsed arguments
  (form, JSON and query), headers (the ``Authorization`` value redacted), Prism's status and its
  ``sl-violations``. ``assert_all_ok()`` fails the test unless every call got 200 with no request
  violation, and (by default) every ``blocks``/``view`` argument passes :mod:`tests.standin.blockkit`.

Point slack-sdk at the proxy with ``WebClient(token="xoxb-test", base_url=proxy.base_url)``;
``base_url`` ends in ``/api/`` because slack-sdk joins it with the method name (``urljoin``).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.contract.adapt_spec import write_adapted_spec
from tests.standin import blockkit

HERE = Path(__file__).resolve().parent
PRISM_BIN = HERE / "node_modules" / ".bin" / "prism"
NOT_INSTALLED = "Node.js/Prism not installed: run `npm ci --prefix tests/contract`"

# Methods whose `blocks` go to a message, and whose `view` is a modal/Home view.
MESSAGE_METHODS = {"chat.postMessage", "chat.postEphemeral", "chat.update", "chat.scheduleMessage"}
VIEW_METHODS = {"views.publish", "views.open", "views.push", "views.update"}

_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "content-length",
    "date",
    "server",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "upgrade",
}


class PrismUnavailable(RuntimeError):
    """Node.js or the Prism CLI is missing (``npm ci --prefix tests/contract`` not run)."""


def prism_missing_reason() -> str | None:
    """Why Prism cannot run here, or None when ``node`` and ``node_modules/.bin/prism`` exist."""
    if shutil.which("node") is None or not PRISM_BIN.exists():
        return NOT_INSTALLED
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrismServer:
    """``prism mock`` on the adapted Slack spec, on 127.0.0.1 and a free port.

    >>> prism = PrismServer(workdir).start()   # blocks until Prism answers (about 3 s)
    >>> prism.base_url                          # 'http://127.0.0.1:PORT' -- Slack URLs are /api/<method>
    >>> prism.stop()
    """

    def __init__(self, workdir: Path | str, *, startup_timeout: float = 90.0):
        self.workdir = Path(workdir)
        self.startup_timeout = startup_timeout
        self.spec_path = self.workdir / "slack_web_openapi3_adapted.json"
        self.log_path = self.workdir / "prism.log"
        self.port: int | None = None
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> PrismServer:
        reason = prism_missing_reason()
        if reason:
            raise PrismUnavailable(reason)
        self.workdir.mkdir(parents=True, exist_ok=True)
        write_adapted_spec(self.spec_path)
        last_error = ""
        for _attempt in range(3):  # a free port can be taken between probe and bind: retry
            self.port = free_port()
            with open(self.log_path, "wb") as log:
                self.process = subprocess.Popen(
                    [str(PRISM_BIN), "mock", "-h", "127.0.0.1", "-p", str(self.port), str(self.spec_path)],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    cwd=HERE,
                )
            try:
                self._wait_ready()
                return self
            except RuntimeError as exc:
                last_error = str(exc)
                self.stop()
        raise RuntimeError(f"Prism did not start: {last_error}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"prism exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                conn.request("GET", "/")  # no such route: any HTTP answer (404) means ready
                conn.getresponse().read()
                conn.close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"prism not answering after {self.startup_timeout}s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@dataclass
class RecordedCall:
    """One request that went through the proxy, and Prism's verdict on it."""

    method: str  # Slack method, e.g. "chat.postMessage"
    http_method: str  # "POST" (slack-sdk always POSTs) or "GET"
    path: str  # "/api/chat.postMessage"
    content_type: str  # media type without parameters, "" when absent
    args: dict[str, Any]  # query + form fields (one value each) or the JSON body
    headers: dict[str, str]  # request headers, Authorization value redacted
    status: int  # Prism's HTTP status
    violations: list[dict[str, Any]] = field(default_factory=list)  # parsed sl-violations
    response: Any = None  # Prism's JSON answer (None if not JSON)

    @property
    def request_violations(self) -> list[dict[str, Any]]:
        """Violations about what was sent (location starts with "request")."""
        return [v for v in self.violations if (v.get("location") or [""])[0] == "request"]

    @property
    def response_violations(self) -> list[dict[str, Any]]:
        """Violations of Slack's response schemas by Slack's own examples (informational)."""
        return [v for v in self.violations if (v.get("location") or [""])[0] == "response"]

    @property
    def ok(self) -> bool:
        return self.status == 200 and not self.request_violations

    @property
    def authorized(self) -> bool:
        """True when an ``Authorization: Bearer`` header was sent."""
        return self.headers.get("authorization", "").startswith("Bearer ")

    def json_arg(self, name: str, default: Any = None) -> Any:
        """An argument that may hold JSON (blocks, view, attachments): decoded if it is a string."""
        value = self.args.get(name, default)
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                return value
        return value

    def describe(self) -> str:
        msgs = "; ".join(v.get("message", str(v)) for v in self.request_violations) or "-"
        return f"{self.http_method} {self.method} -> {self.status} ({msgs}) args={sorted(self.args)}"


def _parse_args(query: str, content_type: str, body: bytes) -> dict[str, Any]:
    args: dict[str, Any] = {k: v[0] if len(v) == 1 else v for k, v in parse_qs(query, keep_blank_values=True).items()}
    if not body:
        return args
    if content_type == "application/json":
        try:
            parsed = json.loads(body)
        except ValueError:
            return {**args, "_raw_body": body.decode("utf-8", "replace")}
        return {**args, **parsed} if isinstance(parsed, dict) else {**args, "_json_body": parsed}
    if content_type == "application/x-www-form-urlencoded":
        form = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
        args.update({k: v[0] if len(v) == 1 else v for k, v in form.items()})
        return args
    return {**args, "_raw_body": body.decode("utf-8", "replace")[:2000]}


class _ProxyHandler(BaseHTTPRequestHandler):
    server: _ProxyHTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output quiet
        pass

    def _forward(self) -> None:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            body = self._read_chunked()
        else:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
        upstream = self.server.recorder.upstream
        fwd_headers = {
            k: v
            for k, v in self.headers.items()
            if k.lower() not in ("host", "connection", "transfer-encoding", "content-length")
        }
        fwd_headers["Content-Length"] = str(len(body))
        conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=30)
        try:
            conn.request(self.command, self.path, body=body or None, headers=fwd_headers)
            resp = conn.getresponse()
            resp_body = resp.read()
            status, resp_headers = resp.status, resp.getheaders()
        except OSError as exc:
            status, resp_headers = 502, [("Content-Type", "application/json")]
            resp_body = json.dumps({"ok": False, "error": f"proxy_upstream_error: {exc}"}).encode()
        finally:
            conn.close()
        self.server.recorder._record(
            self.command, self.path, dict(self.headers.items()), body, status, resp_headers, resp_body
        )
        self.send_response(status)
        for name, value in resp_headers:
            if name.lower() not in _HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(resp_body)))
        self.end_headers()
        self.wfile.write(resp_body)

    def _read_chunked(self) -> bytes:
        chunks = []
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks)
            chunks.append(self.rfile.read(size))
            self.rfile.readline()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward


class _ProxyHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    recorder: RecordingProxy


class RecordingProxy:
    """Reverse proxy to Prism that records every Slack Web API call.

    ``base_url`` (``http://127.0.0.1:PORT/api/``) is what ``WebClient(base_url=...)`` takes.
    """

    def __init__(self, upstream_base_url: str):
        self.upstream = urlsplit(upstream_base_url)
        self._calls: list[RecordedCall] = []
        self._lock = threading.Lock()
        self._server: _ProxyHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> RecordingProxy:
        self._server = _ProxyHTTPServer(("127.0.0.1", 0), _ProxyHandler)
        self._server.recorder = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="slack-proxy", kwargs={"poll_interval": 0.1}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """Give this to ``WebClient(base_url=...)`` / ``AsyncWebClient``."""
        return f"{self.root_url}/api/"

    def client(self, token: str | None = "xoxb-test", **kwargs: Any):
        """A real ``slack_sdk.WebClient`` whose calls go through this proxy."""
        from slack_sdk import WebClient

        return WebClient(token=token, base_url=self.base_url, **kwargs)

    # -- records ---------------------------------------------------------------------------
    def _record(
        self,
        http_method: str,
        raw_path: str,
        headers: dict[str, str],
        body: bytes,
        status: int,
        resp_headers: list[tuple[str, str]],
        resp_body: bytes,
    ) -> None:
        parts = urlsplit(raw_path)
        method = parts.path.rsplit("/", 1)[-1]
        # Header names are case-insensitive (urllib sends "Content-type", http.client what it is given).
        raw_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
        content_type = raw_type.split(";")[0].strip().lower()
        clean_headers = {}
        for k, v in headers.items():
            if k.lower() == "authorization":
                v = v.split(" ", 1)[0] + " <redacted>" if " " in v else "<redacted>"
            clean_headers[k.lower()] = v
        rh = {k.lower(): v for k, v in resp_headers}
        try:
            violations = json.loads(rh.get("sl-violations", "[]"))
        except ValueError:
            violations = [{"location": ["request"], "message": rh["sl-violations"]}]
        try:
            response = json.loads(resp_body) if resp_body else None
        except ValueError:
            response = None
        call = RecordedCall(
            method=method,
            http_method=http_method,
            path=parts.path,
            content_type=content_type,
            args=_parse_args(parts.query, content_type, body),
            headers=clean_headers,
            status=status,
            violations=violations,
            response=response,
        )
        with self._lock:
            self._calls.append(call)

    @property
    def calls(self) -> list[RecordedCall]:
        """Every call since the last :meth:`reset`, in order (a copy)."""
        with self._lock:
            return list(self._calls)

    def calls_to(self, method: str) -> list[RecordedCall]:
        """The calls to one Slack method, e.g. ``calls_to("chat.postMessage")``."""
        return [c for c in self.calls if c.method == method]

    def reset(self) -> None:
        with self._lock:
            self._calls.clear()

    def problems(self, *, check_blocks: bool = True) -> list[str]:
        """Human-readable reasons why :meth:`assert_all_ok` would fail (empty when all is well)."""
        out = []
        for i, call in enumerate(self.calls):
            if not call.ok:
                out.append(f"#{i} {call.describe()}")
                continue
            if not check_blocks:
                continue
            try:
                if call.method in MESSAGE_METHODS and call.args.get("blocks") is not None:
                    blockkit.validate_blocks(call.json_arg("blocks"), surface="message")
                if call.method in VIEW_METHODS and call.args.get("view") is not None:
                    blockkit.validate_view(call.json_arg("view"))
            except blockkit.BlockKitError as exc:
                out.append(f"#{i} {call.method}: Block Kit: {exc}")
        return out

    def assert_all_ok(self, *, check_blocks: bool = True, min_calls: int = 1) -> None:
        """Fail unless there were at least ``min_calls`` calls and every one got 200 from Prism
        with no request violation (and, with ``check_blocks``, valid Block Kit payloads)."""
        __tracebackhide__ = True
        calls = self.calls
        if len(calls) < min_calls:
            raise AssertionError(f"expected at least {min_calls} Slack API call(s), got {len(calls)}")
        problems = self.problems(check_blocks=check_blocks)
        if problems:
            raise AssertionError("Slack API contract violated:\n  " + "\n  ".join(problems))


# One Prism per test process, even if several conftest files import the fixtures.
_shared_prism: PrismServer | None = None
_shared_lock = threading.Lock()


def shared_prism(workdir: Path | str) -> PrismServer:
    """Start Prism once per process (later calls return the running one)."""
    global _shared_prism
    with _shared_lock:
        if _shared_prism is None or _shared_prism.process is None or _shared_prism.process.poll() is not None:
            _shared_prism = PrismServer(workdir).start()
        return _shared_prism


def stop_shared_prism() -> None:
    global _shared_prism
    with _shared_lock:
        if _shared_prism is not None:
            _shared_prism.stop()
            _shared_prism = None


def require_prism() -> bool:
    """True when a missing Prism must fail rather than skip (``SLACK_CONTRACT_REQUIRED=1``)."""
    return os.environ.get("SLACK_CONTRACT_REQUIRED", "") not in ("", "0", "false", "no")
