"""Issue 42: `vllm-path serve` starts through an incident at Slack. A real `serve` process against
the stand-in: while ``auth.test`` answers HTTP 500 (or does not answer in time) it logs one WARNING,
serves (``/healthz``, commands answered) and confirms the token in the background once Slack is
back; a definite refusal (``invalid_auth``) still stops the start with exit 2 naming SLACK_BOT_TOKEN."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import BOT_TOKEN, SIGNING_SECRET, ack_shown
from tests.e2e.slack_requests import signed_post, slash_command_body
from tests.serveproc import free_port, wait_healthy
from tests.standin import SlackStandIn
from tests.waits import PATIENCE_S, wait_exit, wait_until

COULD_NOT_CONFIRM = "Slack could not confirm the bot token at start-up"
CONFIRMED = "Slack confirmed the bot token"


class Serve:
    """A ``vllm-path serve`` process on a free port, its output in ``tmp_path/serve.log``."""

    def __init__(self, tmp_path: Path, standin: SlackStandIn):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = tmp_path / "serve.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL", "LOG_LEVEL"))}
        env.update(
            DATABASE_URL=f"sqlite:///{tmp_path}/serve.db",
            SLACK_BOT_TOKEN=BOT_TOKEN,
            SLACK_SIGNING_SECRET=SIGNING_SECRET,
            SLACK_API_URL=standin.api_url,
            LOG_LEVEL="INFO",
        )
        exe = Path(sys.executable).with_name("vllm-path")
        with open(self.log_path, "wb") as out:
            self.proc = subprocess.Popen(
                [str(exe), "serve", "--port", str(self.port), "--pid-file", ""],
                cwd=tmp_path,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_healthy(self, timeout: float = PATIENCE_S) -> None:
        wait_healthy(self.proc, self.url, timeout, log=self.log)

    def wait_for_log(self, text: str, timeout: float = PATIENCE_S) -> str:
        wait_until(lambda: text in self.log(), timeout, f"{text!r} logged")
        return self.log()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                return wait_exit(self.proc)
        return self.proc.wait()


def _warnings_about_the_token(log: str) -> list[str]:
    return [line for line in log.splitlines() if COULD_NOT_CONFIRM in line]


@pytest.mark.slow
def test_serve_starts_while_auth_test_answers_500_and_confirms_the_token_later(tmp_path, standin) -> None:
    standin.configure(server_error_every=1, fault_methods={"auth.test"})
    served = Serve(tmp_path, standin)
    try:
        served.wait_healthy()
        warned = _warnings_about_the_token(served.log())
        assert len(warned) == 1 and " WARNING " in warned[0], served.log()
        assert "internal_error" in warned[0]
        assert standin.calls("auth.test")[0].status == 500

        # A command is answered while Slack still refuses auth.test (no request waits on one).
        response_url = standin.response_url()
        body = slash_command_body("help", response_url=response_url)
        acked = signed_post(served.url + "/slack/events", body, SIGNING_SECRET)
        assert ack_shown(standin, acked, response_url).status == 200, acked.text
        assert standin.wait_for_response(response_url, timeout=PATIENCE_S).body["blocks"]
        assert all(c.status == 500 for c in standin.calls("auth.test"))  # still in the incident

        standin.configure(server_error_every=0)  # Slack is back
        log = served.wait_for_log(CONFIRMED, timeout=PATIENCE_S)
        assert log.count(CONFIRMED) == 1 and len(_warnings_about_the_token(log)) == 1
        assert "Traceback" not in log
        assert served.stop() == 0
    finally:
        served.stop()
    assert BOT_TOKEN not in served.log()


@pytest.mark.slow
def test_serve_starts_when_auth_test_times_out(tmp_path, standin) -> None:
    # Slack's client waits 10 s a call (and retries): the start-up check gives up after 5 s.
    standin.configure(latency_s=12.0)
    served = Serve(tmp_path, standin)
    try:
        served.wait_healthy(timeout=25)
        warned = _warnings_about_the_token(served.log())
        assert len(warned) == 1 and " WARNING " in warned[0], served.log()
        assert "Timeout" in warned[0] or "URLError" in warned[0], warned
    finally:
        served.stop()


@pytest.mark.slow
@pytest.mark.parametrize("error", ["invalid_auth", "token_revoked"])
def test_a_definite_refusal_still_stops_the_start_naming_the_variable(tmp_path, standin, error) -> None:
    standin.configure(method_errors={"auth.test": error})
    served = Serve(tmp_path, standin)
    try:
        code = wait_exit(served.proc)
    finally:
        served.stop()
    log = served.log()
    assert code == 2, log
    assert "SLACK_BOT_TOKEN" in log and error in log
    assert COULD_NOT_CONFIRM not in log and "Traceback" not in log
