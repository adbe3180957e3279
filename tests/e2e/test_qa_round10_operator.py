"""QA round 10 (operator pass), through real ``vllm-path serve`` processes: a user token
(``xoxp-…``) in ``SLACK_BOT_TOKEN`` stops the start with a configuration error naming the variable
and the kind of token (never the token); in OAuth mode without ``PUBLIC_URL`` the start logs one
WARNING that the not-installed reply cannot carry the install link, and the log of such a reply
says what was sent (not "answered with the install link"), an org-wide request from an
enterprise without an installation being said "enterprise E…", not "workspace E…"."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from cryptography.fernet import Fernet

from tests.e2e.slack_requests import signed_post, slash_command_body
from tests.e2e.test_qa_round8_operator import _env, _serve_until_exit
from tests.serveproc import free_port, serve_healthy
from tests.standin import SlackStandIn
from tests.waits import PATIENCE_S, wait_exit

SIGNING_SECRET = "qa-round10-signing-secret-0123"
CLIENT_ID, CLIENT_SECRET = "1010.0101", "qa-round10-client-secret"
USER_TOKEN = "xoxp-1010-2020-qa10usertokenvalue"


def test_a_user_token_as_the_bot_token_is_a_configuration_error(tmp_path: Path) -> None:
    with SlackStandIn() as standin:  # Slack would answer: only the kind of token can be the problem
        env = _env(
            tmp_path,
            DATABASE_URL=f"sqlite:///{tmp_path}/t.db",
            SLACK_API_URL=standin.api_url,
            SLACK_SIGNING_SECRET=SIGNING_SECRET,
            SLACK_BOT_TOKEN=USER_TOKEN,
        )
        code, log = _serve_until_exit(tmp_path, env, free_port())
    assert code == 2, log
    error = log.split("error:")[-1]
    assert "SLACK_BOT_TOKEN is not a bot token but a user token (xoxp-…)" in error, log
    assert "a bot token starts with 'xoxb-'" in error and "Bot User OAuth Token" in error, log
    assert "listening" not in log and "Traceback" not in log, log
    assert USER_TOKEN not in log and "qa10usertokenvalue" not in log  # never the token


def _oauth_request(url: str, standin: SlackStandIn, **fields: str) -> str:
    """A signed ``/vllm-path help`` (``fields``: the body's) from a tenant without an installation:
    what reached the person (the ack's body and what came through ``response_url``)."""
    reply = standin.response_url()
    body = slash_command_body("help", response_url=reply, **fields)
    if fields.get("enterprise_id"):  # an org-wide install's request: the tenant is the enterprise
        body = body.replace(b"is_enterprise_install=false", b"is_enterprise_install=true")
    ack = signed_post(url + "/slack/events", body, SIGNING_SECRET)
    assert ack.status == 200, ack.text
    if not ack.text.strip():
        standin.wait_for(lambda: standin.responses(reply), timeout=PATIENCE_S)
    return " ".join([ack.text, *(p.body.get("text", "") for p in standin.responses(reply))])


def test_oauth_without_public_url_warns_at_start_and_logs_what_was_sent(tmp_path: Path) -> None:
    with SlackStandIn(oauth_client=(CLIENT_ID, CLIENT_SECRET)) as standin:
        env = _env(
            tmp_path,
            DATABASE_URL=f"sqlite:///{tmp_path}/t.db",
            SLACK_API_URL=standin.api_url,
            SLACK_SIGNING_SECRET=SIGNING_SECRET,
            SLACK_CLIENT_ID=CLIENT_ID,
            SLACK_CLIENT_SECRET=CLIENT_SECRET,
            TOKEN_ENCRYPTION_KEY=Fernet.generate_key().decode(),
        )
        proc, url, out, readers = serve_healthy(tmp_path, env, args=("--pid-file", ""))
        try:
            workspace = _oauth_request(url, standin, team_id="T0QA10NONE")
            enterprise = _oauth_request(url, standin, team_id="T0QA10ORG", enterprise_id="E0QA10NONE")
        finally:
            os.kill(proc.pid, signal.SIGTERM)
            wait_exit(proc)
            for reader in readers:
                reader.join(timeout=PATIENCE_S)
    log = out.get("stderr", b"").decode("utf-8", "replace") + out.get("stdout", b"").decode("utf-8", "replace")
    for answer in (workspace, enterprise):
        assert "not installed in this workspace" in answer and "/slack/install" not in answer, answer
    warned = [line for line in log.splitlines() if "PUBLIC_URL is not set (OAuth mode)" in line]
    assert len(warned) == 1 and "WARNING" in warned[0], log
    assert "cannot carry the install link" in warned[0], log
    assert "answered with the install link" not in log, log
    said = [line for line in log.splitlines() if "where the app is not installed" in line]
    assert any("from workspace T0QA10NONE" in line for line in said), log
    assert any("from enterprise E0QA10NONE" in line for line in said), log
    assert "workspace E0QA10NONE" not in log, log
    assert all("answered without the install link (PUBLIC_URL is not set)" in line for line in said), log
