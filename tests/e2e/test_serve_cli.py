"""`vllm-path serve` as a real process: door selection, exit 2 without credentials, signals."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.config import DEFAULT_CATALOG_DIR, Settings
from bot.doors.serve import ConfigError, door_for
from tests.e2e.helpers import BOT_TOKEN, SIGNING_SECRET, ack_shown
from tests.e2e.slack_requests import get, signed_post, slash_command_body
from tests.serveproc import free_port
from tests.waits import PATIENCE_S, wait_exit, wait_until

SLACK_VARS = (
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "SLACK_CLIENT_ID",
    "SLACK_CLIENT_SECRET",
    "SLACK_API_URL",
)


def _settings(**values) -> Settings:
    base = {k.lower(): None for k in SLACK_VARS}
    base.update(values)
    return Settings(_env_file=None, **base)


def test_door_selection():
    assert door_for(_settings(slack_app_token="xapp-1", slack_bot_token="xoxb-1")) == "socket"
    assert door_for(_settings(slack_signing_secret="s", slack_bot_token="xoxb-1")) == "http"
    assert door_for(_settings(slack_signing_secret="s", slack_client_id="1.2", slack_client_secret="c")) == "http"
    for bad in (
        _settings(),
        _settings(slack_signing_secret="s"),
        _settings(slack_app_token="xapp-1"),
        _settings(slack_app_token="xoxb-wrong-kind", slack_bot_token="xoxb-1"),
    ):
        with pytest.raises(ConfigError):
            door_for(bad)


def test_serve_names_exactly_the_variable_its_mode_lacks():
    def first_line(settings: Settings) -> str:
        with pytest.raises(ConfigError) as raised:
            door_for(settings)
        return str(raised.value).splitlines()[0]

    oauth_only = first_line(_settings(slack_client_id="1.2", slack_client_secret="c"))
    assert oauth_only.startswith("SLACK_SIGNING_SECRET is missing") and "No Slack" not in oauth_only
    assert first_line(_settings(slack_signing_secret="s", slack_client_id="1.2")).startswith(
        "SLACK_CLIENT_SECRET is missing"
    )
    assert first_line(_settings(slack_app_token="xapp-1", slack_client_secret="c")).startswith(
        "SLACK_CLIENT_ID is missing"
    )
    token_only = first_line(_settings(slack_bot_token="xoxb-1"))
    assert "SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) is missing" in token_only
    assert first_line(_settings()) == "No Slack credentials are configured."


def test_serve_without_credentials_exits_2_and_points_to_the_console(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no .env here
    for var in SLACK_VARS:
        monkeypatch.delenv(var, raising=False)
    result = CliRunner().invoke(main, ["serve", "--port", "0"])
    assert result.exit_code == 2
    for name in (
        "SLACK_APP_TOKEN",
        "SLACK_SIGNING_SECRET",
        "SLACK_BOT_TOKEN",
        "SLACK_CLIENT_ID",
        "SLACK_CLIENT_SECRET",
        "vllm-path console",
    ):
        assert name in result.output


def test_serve_with_a_wrong_app_token_does_not_print_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in SLACK_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("SLACK_APP_TOKEN", "xoxb-secret-value-123")
    result = CliRunner().invoke(main, ["serve"])
    assert result.exit_code == 2 and "xoxb-secret-value-123" not in result.output


@pytest.mark.slow
def test_serve_process_answers_reloads_on_sighup_and_stops_on_sigterm(tmp_path, standin):
    catalog = tmp_path / "catalog"
    shutil.copytree(DEFAULT_CATALOG_DIR, catalog)
    port = free_port()
    log_path = tmp_path / "serve.log"
    env = {k: v for k, v in os.environ.items() if k not in SLACK_VARS}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path}/serve.db",
        CATALOG_DIR=str(catalog),
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SIGNING_SECRET,
        SLACK_API_URL=standin.api_url,
        LOG_LEVEL="INFO",
    )
    exe = Path(sys.executable).with_name("vllm-path")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(exe), "serve", "--port", str(port)], cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        url = f"http://127.0.0.1:{port}"

        def healthy():
            try:
                return get(url + "/healthz", timeout=1).status == 200
            except OSError:
                assert proc.poll() is None, log_path.read_text()
                return False

        wait_until(healthy, what="/healthz")
        response_url = standin.response_url()
        body = slash_command_body("speculative", response_url=response_url)
        acked = signed_post(url + "/slack/events", body, SIGNING_SECRET)
        assert ack_shown(standin, acked, response_url).status == 200
        assert standin.wait_for_response(response_url, timeout=PATIENCE_S).body["blocks"]

        proc.send_signal(signal.SIGHUP)
        wait_until(lambda: "catalog reloaded" in log_path.read_text(), what="reload log line")

        (catalog / "manifest.yaml").write_text("version: [unclosed\n")
        proc.send_signal(signal.SIGHUP)
        wait_until(lambda: "reload refused" in log_path.read_text(), what="refusal log line")
        second = standin.response_url()
        body = slash_command_body("speculative", response_url=second)
        acked = signed_post(url + "/slack/events", body, SIGNING_SECRET)
        assert ack_shown(standin, acked, second).status == 200
        assert standin.wait_for_response(second, timeout=PATIENCE_S).body["blocks"]  # last good catalog

        proc.send_signal(signal.SIGTERM)
        assert wait_exit(proc) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = log_path.read_text()
    assert SIGNING_SECRET not in text and BOT_TOKEN not in text


def test_socket_mode_door_connects_with_the_app_token_answers_and_closes(tmp_path, standin):
    import threading

    from bot.doors.serve import serve_socket_mode
    from bot.runtime import Runtime
    from tests.e2e.conftest import e2e_settings
    from tests.standin.socket_mode import SocketModeStandIn, command_payload

    stop = threading.Event()
    with SocketModeStandIn() as sm:
        standin.socket_mode = sm
        runtime = Runtime.create(
            e2e_settings(tmp_path, standin, slack_app_token="xapp-1-test", slack_signing_secret=None)
        )
        door = threading.Thread(target=serve_socket_mode, args=(runtime,), kwargs={"stop": stop}, daemon=True)
        door.start()
        sm.wait_for(lambda: sm.connections(), timeout=30)  # apps.connections.open took the app token
        eid = sm.send("slash_commands", command_payload("help", "U0SOCKET", standin.response_url()))
        sm.wait_for(lambda: eid in sm.ack_delays(), timeout=30)
        stop.set()
        door.join(timeout=30)
        assert not door.is_alive()
        assert sm.wait_for(lambda: not any(live for _, _, live in sm.connections()), timeout=10)  # closed
    assert standin.calls("apps.connections.open")[0].authorized
    runtime.store.close()


def test_oauth_install_and_redirect_paths_are_served(tmp_path, standin):
    from bot.doors.serve import serve_http
    from bot.runtime import Runtime
    from tests.e2e.conftest import e2e_settings

    runtime = Runtime.create(
        e2e_settings(
            tmp_path,
            standin,
            slack_bot_token=None,
            slack_client_id="111.222",
            slack_client_secret="oauth-client-secret",
        )
    )
    door = serve_http(runtime, "127.0.0.1", 0, background=True)
    try:
        install = get(door.url + "/slack/install")
        assert install.status in (200, 302)
        where = install.text + install.headers.get("location", "")
        assert "slack.com/oauth/v2/authorize" in where and "client_id=111.222" in where
        assert "oauth-client-secret" not in where
        redirect = get(door.url + "/slack/oauth_redirect?code=x&state=forged")
        assert redirect.status >= 400  # a state this server never issued is refused
        assert get(door.url + "/healthz").status == 200
    finally:
        door.close()
        runtime.store.close()


def test_building_the_app_with_the_token_in_the_environment_warns_of_nothing(
    tmp_path, standin, monkeypatch, caplog
) -> None:
    # Bolt reads SLACK_BOT_TOKEN itself and warns that it "will be unused" beside our client
    # (built from the same token); an operator must not be told their token is ignored.
    import logging

    from bot.runtime import Runtime
    from bot.slack.app import build_app

    monkeypatch.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
    runtime = Runtime.create(
        Settings(
            _env_file=None,
            database_url=f"sqlite:///{tmp_path}/x.db",
            slack_bot_token=BOT_TOKEN,
            slack_signing_secret=SIGNING_SECRET,
            slack_api_url=standin.api_url,
        )
    )
    try:
        with caplog.at_level(logging.INFO):
            build_app(runtime)
            logging.getLogger("slack_bolt.App").warning("some other Bolt warning")
    finally:
        runtime.store.close()
    messages = [r.getMessage() for r in caplog.records]
    assert not [m for m in messages if "will be unused" in m], messages
    assert "some other Bolt warning" in messages  # only that one notice is dropped
