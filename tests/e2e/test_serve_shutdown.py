"""Issue 27: clean handovers. SIGTERM to a real `vllm-path serve` process with hundreds of
follow-ups waiting on a slow Slack: it stops accepting, answers what has arrived, drops what
cannot finish within the grace period (logged with the count) and exits in under 10 s. Under
plain load no request that had arrived is reset."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.e2e.helpers import BOT_TOKEN, SIGNING_SECRET
from tests.e2e.slack_requests import get, signed_post, slash_command_body
from tests.serveproc import free_port, wait_healthy
from tests.standin import SlackStandIn

SLACK_VARS = (
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "SLACK_CLIENT_ID",
    "SLACK_CLIENT_SECRET",
    "SLACK_API_URL",
)


def _start(tmp_path: Path, standin: SlackStandIn) -> tuple[subprocess.Popen[bytes], str, Path]:
    port = free_port()
    log_path = tmp_path / "serve.log"
    env = {k: v for k, v in os.environ.items() if k not in SLACK_VARS}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path}/serve.db",
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SIGNING_SECRET,
        SLACK_API_URL=standin.api_url,
        LOG_LEVEL="INFO",
    )
    exe = Path(sys.executable).with_name("vllm-path")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(exe), "serve", "--port", str(port), "--pid-file", ""],
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    wait_healthy(proc, url, log=log_path.read_text)
    return proc, url, log_path


def _command(url: str, standin: SlackStandIn, n: int) -> int:
    # A different person each time: their first command of the hour needs users.info (slow).
    body = slash_command_body("follow pd", user_id=f"U0SIG{n:04d}", response_url=standin.response_url())
    return signed_post(url + "/slack/events", body, SIGNING_SECRET).status


@pytest.mark.slow
def test_sigterm_with_replies_waiting_on_a_slow_slack_exits_within_10_s(tmp_path: Path) -> None:
    with SlackStandIn() as standin:
        proc, url, log_path = _start(tmp_path, standin)
        try:
            standin.configure(latency_s=3.0)
            with ThreadPoolExecutor(25) as pool:
                statuses = list(pool.map(lambda n: _command(url, standin, n), range(250)))
            assert statuses.count(200) == 250  # every ack answered at once
            started = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=20) == 0
            took = time.monotonic() - started
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    text = log_path.read_text()
    assert took < 10, f"stopped after {took:.1f} s"
    dropped = re.search(r"(\d+) follow-up\(s\) could not finish", text)
    assert dropped and int(dropped.group(1)) > 0, text[-2000:]
    assert "Traceback" not in text


@pytest.mark.slow
def test_under_plain_load_sigterm_resets_no_request_that_had_arrived(tmp_path: Path) -> None:
    with SlackStandIn() as standin:
        proc, url, _ = _start(tmp_path, standin)
        results: list[str] = []

        def hit(n: int) -> None:
            try:
                status = get(url + "/healthz", timeout=5).status
                results.append("ok" if status == 200 else f"status {status}")
            except OSError as exc:
                reason = getattr(exc, "reason", exc)  # urllib wraps the socket's error
                # Refused after the door closed: the request never arrived.
                results.append("refused" if isinstance(reason, ConnectionRefusedError) else type(reason).__name__)

        try:
            with ThreadPoolExecutor(16) as pool:
                futures = [pool.submit(hit, n) for n in range(2000)]
                time.sleep(0.3)
                proc.send_signal(signal.SIGTERM)
                for f in futures:
                    f.result()
            assert proc.wait(timeout=20) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    bad = [r for r in results if r not in ("ok", "refused")]
    assert results.count("ok") > 0
    # A handshake the kernel completed in the instant between the filter and the close (the
    # client's ACK already sent, its request not yet read) can still be reset: one request of the
    # 2,000 in 2 of 10 runs on a loaded 2-core machine. More than that is a door dropping requests.
    assert len(bad) <= 1, f"{len(bad)} requests reset or failed: {sorted(set(bad))}"


def test_a_listener_that_refuses_new_connections_keeps_its_queue_and_completes_no_handshake() -> None:
    from bot.doors.http import refuse_new_connections

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        port = listener.getsockname()[1]
        queued = socket.create_connection(("127.0.0.1", port), timeout=2)
        assert refuse_new_connections(listener)
        with pytest.raises(TimeoutError):  # the SYN is dropped: no connection to reset later
            socket.create_connection(("127.0.0.1", port), timeout=0.3)
        accepted, _ = listener.accept()  # what had arrived is still there
        accepted.close()
        queued.close()
    with pytest.raises(ConnectionRefusedError):  # closed: a retry is refused
        socket.create_connection(("127.0.0.1", port), timeout=2)
