"""QA round 8 (operator pass), start-up errors through the real ``vllm-path`` processes: a port in
use and a database path under a file are said as what they are (not "cannot reach Slack's Web
API"), with a non-zero exit and no traceback, by ``serve``, ``scheduler`` and ``digest run-now``;
tokens sealed under a key the environment no longer names, with ``TOKEN_ENCRYPTION_KEY`` unset,
are refused by naming the unset variable, and no new key file is left behind."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store.models.installation import Installation

from bot.store import Store
from bot.store.crypto import LOCAL_KEY_FILE, TokenCipher
from tests.reliability.catalogs import copy_catalog
from tests.serveproc import free_port, spawn_serve
from tests.standin import SlackStandIn
from tests.waits import PATIENCE_S, wait_exit

SIGNING_SECRET = "qa-round8-signing-secret-0123"
CLIENT_ID, CLIENT_SECRET = "8080.0808", "qa-round8-client-secret"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a spawned ``vllm-path``: none of the caller's Slack, database or key settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SLACK_", "DATABASE_URL", "CATALOG_DIR", "LOG_LEVEL", "TOKEN_ENCRYPTION_KEY", "REDIS_URL"))
    }
    env.update(CATALOG_DIR=str(copy_catalog(tmp_path / "catalog")), LOG_LEVEL="INFO", **extra)
    return env


def _run(tmp_path: Path, env: dict[str, str], *args: str) -> tuple[int, str]:
    """Run ``vllm-path ARGS`` in ``tmp_path``; its exit code and its stdout + stderr."""
    exe = str(Path(sys.executable).with_name("vllm-path"))
    done = subprocess.run([exe, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=PATIENCE_S * 4)
    return done.returncode, done.stdout + done.stderr


def _serve_until_exit(tmp_path: Path, env: dict[str, str], port: int) -> tuple[int, str]:
    """Spawn ``vllm-path serve --port port`` (no pid file) and wait for it to exit by itself."""
    proc, _url, out, readers = spawn_serve(port, tmp_path, env, args=("--pid-file", ""))
    try:
        code = wait_exit(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for r in readers:
            r.join(timeout=PATIENCE_S)
    return code, out.get("stdout", b"").decode("utf-8", "replace") + out.get("stderr", b"").decode("utf-8", "replace")


def test_a_port_in_use_is_said_as_such_not_as_slack_out_of_reach(tmp_path: Path) -> None:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    with SlackStandIn() as standin, holder:  # Slack answers: only the port can be the problem
        env = _env(
            tmp_path,
            DATABASE_URL=f"sqlite:///{tmp_path}/t.db",
            SLACK_API_URL=standin.api_url,
            SLACK_SIGNING_SECRET=SIGNING_SECRET,
            SLACK_BOT_TOKEN="xoxb-qa-round8-bot-token",
        )
        code, log = _serve_until_exit(tmp_path, env, port)
    assert code == 2, log
    assert f"port {port} is in use: choose another with --port or stop what holds it" in log, log
    assert f"error: port {port} is in use" in log and "ListenError" not in log, log  # a usage error's words
    assert "Slack's Web API" not in log and "SLACK_API_URL" not in log.split("error:")[-1]
    assert "Traceback" not in log


def test_a_database_under_a_file_is_said_by_serve_scheduler_and_run_now(tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder\n")
    with SlackStandIn() as standin:
        env = _env(
            tmp_path,
            DATABASE_URL=f"sqlite:///{blocker}/x.db",
            SLACK_API_URL=standin.api_url,
            SLACK_SIGNING_SECRET=SIGNING_SECRET,
            SLACK_BOT_TOKEN="xoxb-qa-round8-bot-token",
        )
        outcomes = {
            "serve": _serve_until_exit(tmp_path, env, free_port()),
            "scheduler": _run(tmp_path, env, "scheduler"),
            "digest run-now": _run(tmp_path, env, "digest", "run-now"),
        }
    for command, (code, log) in outcomes.items():
        assert code != 0, (command, log)
        assert f"cannot open the database at {blocker}/x.db" in log, (command, log)
        assert f"{blocker} is a file, not a folder" in log, (command, log)
        assert "Traceback" not in log and "Slack's Web API" not in log, (command, log)


def _seal_a_token(tmp_path: Path, key: str) -> str:
    """A database at ``tmp_path/t.db`` holding one installation whose tokens are sealed under ``key``."""
    url = f"sqlite:///{tmp_path}/t.db"
    with Store.from_url(url, client_id=CLIENT_ID, token_cipher=TokenCipher.from_setting(key)) as store:
        store.installation_store().save(
            Installation(
                app_id="A0", team_id="T0QA8", bot_token="xoxb-sealed-qa8", bot_id="B0", bot_user_id="U0B", user_id="U0I"
            )
        )
        with store.engine.connect() as conn:
            raw = " ".join(str(r) for r in conn.exec_driver_sql("SELECT bot_token FROM slack_bots"))
    assert "fernet:" in raw and "xoxb-sealed-qa8" not in raw
    return url


def test_an_unset_token_key_with_sealed_tokens_names_the_variable_and_writes_no_key_file(tmp_path: Path) -> None:
    url = _seal_a_token(tmp_path, Fernet.generate_key().decode())
    with SlackStandIn(oauth_client=(CLIENT_ID, CLIENT_SECRET)) as standin:
        env = _env(
            tmp_path,
            DATABASE_URL=url,
            SLACK_API_URL=standin.api_url,
            SLACK_SIGNING_SECRET=SIGNING_SECRET,
            SLACK_CLIENT_ID=CLIENT_ID,
            SLACK_CLIENT_SECRET=CLIENT_SECRET,
        )
        code, log = _serve_until_exit(tmp_path, env, free_port())
    assert code == 2, log
    error = log.split("error:")[-1]
    assert "TOKEN_ENCRYPTION_KEY is not set and " in error and "sealed Slack token(s) are stored" in error, log
    assert "set TOKEN_ENCRYPTION_KEY to the key they were sealed with" in error
    assert "with any key in TOKEN_ENCRYPTION_KEY" not in log and "Traceback" not in log
    assert not (tmp_path / LOCAL_KEY_FILE).exists()  # no key that opens nothing is left behind
