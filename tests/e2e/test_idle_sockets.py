"""Issue 42: a real command is answered while more than 1,000 idle connections are open. A real
``vllm-path serve`` (HTTP door, waitress) started with the usual soft limit of 1,024 open files,
1,100 idle TCP connections to it (never closed by the door: ``--idle-timeout 3600``), then a signed
slash command: it must be acked and answered, not left behind the idle ones."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.e2e.helpers import BOT_TOKEN, SIGNING_SECRET, ack_shown
from tests.e2e.slack_requests import post, signed_headers, slash_command_body
from tests.serveproc import serve_healthy
from tests.standin import SlackStandIn
from tests.waits import PATIENCE_S, wait_exit

IDLE = 1100
CHILD_SOFT_LIMIT = 1024
"""The soft ``RLIMIT_NOFILE`` many systems start a process with: ``serve`` must raise its own."""


def _low_soft_limit() -> None:
    """In the child, before ``serve`` starts: the usual soft limit, the hard one kept."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (CHILD_SOFT_LIMIT, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


def _env(tmp_path: Path, standin: SlackStandIn) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL", "LOG_LEVEL"))}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path}/serve.db",
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SIGNING_SECRET,
        SLACK_API_URL=standin.api_url,
        LOG_LEVEL="INFO",
    )
    return env


def _stop(proc: subprocess.Popen[bytes], out: dict[str, bytes], readers: list[threading.Thread]) -> str:
    """SIGTERM ``proc`` (killed when it has not exited within :data:`PATIENCE_S`) and return its output."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            wait_exit(proc)
    for reader in readers:
        reader.join(PATIENCE_S)
    return (out.get("stdout", b"") + out.get("stderr", b"")).decode("utf-8", "replace")


@pytest.fixture
def many_files():
    """Raise this process's soft open-file limit to hold the idle sockets (restored after)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = IDLE + 500
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"the hard open-file limit ({hard}) is below {wanted}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.slow
def test_a_command_is_answered_with_more_than_1000_idle_connections_open(
    tmp_path: Path, standin: SlackStandIn, many_files
) -> None:
    args = ("--idle-timeout", "3600", "--pid-file", "")
    proc, url, out, readers = serve_healthy(tmp_path, _env(tmp_path, standin), args, preexec_fn=_low_soft_limit)
    port = int(url.rsplit(":", 1)[1])
    idle: list[socket.socket] = []
    try:
        for _ in range(IDLE):
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S))

        response_url = standin.response_url()
        body = slash_command_body("help", response_url=response_url)
        started = time.monotonic()
        acked = post(url + "/slack/events", body, signed_headers(body, SIGNING_SECRET), timeout=PATIENCE_S)
        took = time.monotonic() - started
        assert ack_shown(standin, acked, response_url).status == 200, acked.text
        assert standin.wait_for_response(response_url, timeout=PATIENCE_S).body["blocks"]
        assert proc.poll() is None
        # The idle connections were held, not dropped to make room: each still open.
        for sock in idle[:: IDLE // 10]:
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.recv(1)
    finally:
        for sock in idle:
            sock.close()
        log = _stop(proc, out, readers)
    assert proc.returncode == 0, log[-3000:]
    assert "Traceback" not in log, log[-3000:]
    print(f"command acked in {took:.2f} s with {IDLE} idle connections open (load {os.getloadavg()[0]:.1f})")


@pytest.mark.slow
def test_a_connection_limit_above_the_open_file_limit_is_lowered_with_a_warning(
    tmp_path: Path, standin: SlackStandIn
) -> None:
    def hard_limit_1024() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (CHILD_SOFT_LIMIT, CHILD_SOFT_LIMIT))

    args = ("--connection-limit", "100000", "--pid-file", "")
    proc, _url, out, readers = serve_healthy(tmp_path, _env(tmp_path, standin), args, preexec_fn=hard_limit_1024)
    log = _stop(proc, out, readers)
    assert proc.returncode == 0, log[-3000:]
    warned = [line for line in log.splitlines() if "the open-file limit allows" in line]
    assert len(warned) == 1 and "WARNING" in warned[0], log[-3000:]
    assert "allows 924 connections, not 100000: at most 924" in warned[0]
