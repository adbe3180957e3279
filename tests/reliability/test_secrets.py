"""Secrets never leak: the bot token, the signing secret, the client secret (and the tokens of
installed workspaces, which the app only learns at run time) appear in no log line, traceback,
error reply, HTTP answer or Web API argument.

End to end: the real ``vllm-path serve`` (HTTP, OAuth for many workspaces, ``LOG_LEVEL=DEBUG`` so
that every library logs all it can) runs with known fake secrets and is driven through commands,
buttons, events, the OAuth pages, forged requests, failing Web API calls, a database error (a
logged traceback and the friendly reply) and a refused catalog reload; then everything captured
— stdout, stderr, the stand-in's records of replies and Web API calls, the HTTP answers — is
searched for every secret. In process: :func:`bot.logging_setup.setup_logging` redacts
secrets and Slack-token-shaped strings in messages, arguments, tracebacks (SQLAlchemy's
``[parameters: …]`` included) and uncaught exceptions, on every handler.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store import Installation

from bot.config import Settings
from bot.logging_setup import (
    BODY_WITHHELD,
    REDACTED,
    SLACK_TOKEN_RE,
    RedactSecrets,
    redact,
    setup_logging,
)
from bot.store.crypto import TokenCipher
from tests.e2e.helpers import ack_shown
from tests.e2e.slack_requests import get, post, signed_post
from tests.reliability.catalogs import break_catalog, copy_catalog
from tests.serveproc import serve_healthy
from tests.standin import (
    SlackStandIn,
    event_body,
    signed_headers,
    slash_command_body,
)
from tests.waits import PATIENCE_S, wait_exit

CLIENT_ID = "1234567890.0987654321"


class OAuthStandIn(SlackStandIn):
    """The stand-in, also answering ``oauth.v2.access`` as Slack does: with the new workspace's
    bot token (and a user token) in the body, which slack-sdk logs at DEBUG."""

    def __init__(self, tokens: dict[str, str], **kwargs):
        super().__init__(**kwargs)
        self.tokens = tokens

    def _ok_body(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "oauth.v2.access":
            return {
                "ok": True,
                "access_token": self.tokens["oauth bot token"],
                "token_type": "bot",
                "scope": "commands,chat:write",
                "bot_user_id": "U0NEWBOT",
                "app_id": "A0SECRET",
                "team": {"id": "T0NEWTEAM", "name": "New team"},
                "enterprise": None,
                "is_enterprise_install": False,
                "authed_user": {
                    "id": "U0INSTALLER",
                    "scope": "chat:write",
                    "access_token": self.tokens["oauth user token"],
                    "token_type": "user",
                },
            }
        return super()._ok_body(method, args)


def _secrets() -> dict[str, str]:
    tag = uuid.uuid4().hex[:12]
    return {
        "signing secret": f"sigsecret{tag}0123456789abcdef",
        "bot token": f"xoxb-1111-2222-cfgbot{tag}",
        "client secret": f"clientsecret{tag}feedface",
        "installed bot token": f"xoxb-3333-4444-installed{tag}",
        "database password": f"dbpass{tag}",
        "oauth bot token": f"xoxb-5555-6666-oauthbot{tag}",
        "oauth user token": f"xoxp-7777-8888-oauthuser{tag}",
        "token encryption key": Fernet.generate_key().decode(),
    }


def _leaks(text: str, secrets: dict[str, str], token_shapes: bool = True) -> list[str]:
    """Names of the secrets found in ``text``, and (with ``token_shapes``) any Slack-token-shaped
    string (logs must not hold one, even one a user typed)."""
    found = [name for name, value in secrets.items() if value in text]
    if token_shapes:
        found += [f"token-shaped {m!r}" for m in SLACK_TOKEN_RE.findall(text)]
    return found


# --- end to end -------------------------------------------------------------------------------------


def _drive(
    url: str,
    standin: SlackStandIn,
    proc: subprocess.Popen,
    secret: str,
    catalog: Path,
    db_url: str,
    captured: list[str],
) -> None:
    """Everything that could make the app log, answer or call out; HTTP answers go to
    ``captured``."""
    events = url + "/slack/events"

    def keep(result) -> None:
        captured.append(f"{result.status} {json.dumps(result.headers)} {result.text}")

    def command(text: str, team: str = "T0SECRET", user: str = "U0SECRET") -> str:
        response_url = standin.response_url()
        body = slash_command_body(text, team_id=team, user_id=user, channel_id="C0SECRET", response_url=response_url)
        keep(ack_shown(standin, signed_post(events, body, secret), response_url))
        return response_url

    keep(get(url + "/healthz"))
    keep(get(url + "/slack/oauth_redirect?code=abc&state=forged"))
    keep(get(url + "/slack/oauth_redirect?error=access_denied"))
    # A complete OAuth install of a new workspace: its tokens arrive in oauth.v2.access's body.
    install = get(url + "/slack/install")
    keep(install)
    state = re.search(r"state=([A-Za-z0-9_-]+)", install.text).group(1)
    done = _get_with_cookie(url + f"/slack/oauth_redirect?code=code123&state={state}", f"slack-app-oauth-state={state}")
    keep(done)
    assert done.status == 200, done.text
    standin.wait_for(lambda: standin.calls("oauth.v2.access"), timeout=PATIENCE_S)
    standin.wait_for_response(command("help", team="T0NEWTEAM", user="U0INSTALLER"), timeout=PATIENCE_S)
    for text in (
        "help",
        "speculative",
        "follow pd",
        "read p-eagle",
        "next",
        "subscribe pd fri 09:00 UTC",
        "<!channel> xoxb-typed-by-a-user-0000",
        "dm on",
    ):
        standin.wait_for_response(command(text), timeout=PATIENCE_S)
    command("help", team="T0NOTINSTALLED")  # no installation: refused by authorize
    # Forged and stale requests.
    body = slash_command_body("follow pd", team_id="T0SECRET", response_url=standin.response_url())
    keep(post(events, body, signed_headers(body, "wrong-secret")))
    keep(post(events, body, signed_headers(body, secret, int(time.time()) - 3600)))
    keep(post(events, body, {"Content-Type": "application/x-www-form-urlencoded"}))
    # Failing Web API calls: users.info refused, views.publish refused.
    standin.configure(
        method_errors={
            "users.info": "invalid_auth",
            "views.publish": "token_revoked",
            "users.conversations": "ratelimited",
        }
    )
    standin.wait_for_response(command("help", user="U0SECRET3"), timeout=PATIENCE_S)
    keep(
        signed_post(
            events,
            event_body(
                {
                    "type": "app_home_opened",
                    "user": "U0SECRET2",
                    "channel": "D0SECRET",
                    "tab": "home",
                    "event_ts": f"{time.time():.6f}",
                },
                team_id="T0SECRET",
            ),
            secret,
            json_body=True,
        )
    )
    standin.wait_for_call("views.publish", timeout=PATIENCE_S)
    standin.configure(method_errors={}, server_error_every=1, fault_methods={"users.info"})
    standin.wait_for_response(command("help", user="U0SECRET4"), timeout=PATIENCE_S)
    standin.configure(server_error_every=0)
    # A database error under a command: logged with its traceback, a friendly reply.
    _rename_table(db_url, "reading_progress", "reading_progress_gone")
    try:
        reply = standin.wait_for_response(command("read p-eagle"), timeout=PATIENCE_S)
        assert "Something went wrong" in reply.body["text"]
    finally:
        _rename_table(db_url, "reading_progress_gone", "reading_progress")
    # A refused catalog reload, then an uninstall.
    break_catalog(catalog)
    proc.send_signal(signal.SIGHUP)
    keep(
        signed_post(
            events,
            event_body({"type": "app_uninstalled", "event_ts": f"{time.time():.6f}"}, team_id="T0SECRET"),
            secret,
            json_body=True,
        )
    )
    # SIGTERM (sent next) waits for the reload started by SIGHUP, so its outcome is in the log.


def _get_with_cookie(url: str, cookie: str):
    import urllib.request

    from tests.e2e.slack_requests import _open

    return _open(urllib.request.Request(url, headers={"Cookie": cookie}, method="GET"), 10.0)


def _rename_table(db_url: str, old: str, new: str) -> None:
    from sqlalchemy import create_engine

    from bot.config import sqlalchemy_url

    engine = create_engine(sqlalchemy_url(db_url))
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"ALTER TABLE {old} RENAME TO {new}")
    finally:
        engine.dispose()


def _with_password(db_url: str, password: str) -> str:
    """SQLite ignores a password in the URL; PostgreSQL (trust auth here) accepts any."""
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    if url.get_backend_name() == "sqlite":
        return db_url
    return url.set(password=password).render_as_string(hide_password=False)


@pytest.mark.slow
def test_serve_with_known_fake_secrets_leaks_none_of_them(tmp_path, db_url):
    secrets = _secrets()
    db_url = _with_password(db_url, secrets["database password"])
    catalog = copy_catalog(tmp_path / "catalog")
    from bot.store import Store

    with Store.from_url(db_url, token_cipher=TokenCipher.from_setting(secrets["token encryption key"])) as store:
        store.installation_store(CLIENT_ID).save(
            Installation(
                app_id="A0SECRET",
                team_id="T0SECRET",
                bot_token=secrets["installed bot token"],
                bot_id="B0SECRET",
                bot_user_id="U0BOTSECRET",
                bot_scopes="commands,chat:write",
                user_id="U0SECRET",
                installed_at=time.time(),
            )
        )

    captured: list[str] = []
    with OAuthStandIn(secrets, team_id="T0SECRET") as standin:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SLACK_", "DATABASE_URL", "CATALOG_DIR", "LOG_LEVEL", "TOKEN_ENCRYPTION_KEY"))
        }
        env.update(
            DATABASE_URL=db_url,
            CATALOG_DIR=str(catalog),
            SLACK_API_URL=standin.api_url,
            SLACK_SIGNING_SECRET=secrets["signing secret"],
            SLACK_BOT_TOKEN=secrets["bot token"],
            SLACK_CLIENT_ID=CLIENT_ID,
            SLACK_CLIENT_SECRET=secrets["client secret"],
            LOG_LEVEL="DEBUG",
            TOKEN_ENCRYPTION_KEY=secrets["token encryption key"],
            PYTHONFAULTHANDLER="1",
        )
        proc, url, out, readers = serve_healthy(tmp_path, env)
        try:
            _drive(url, standin, proc, secrets["signing secret"], catalog, db_url, captured)
        finally:
            proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                wait_exit(proc)
            for r in readers:
                r.join(timeout=PATIENCE_S)
        # What the app sent (arguments of its Web API calls, its replies); not Slack's answers.
        records = [json.dumps(c.args, default=str) for c in standin.calls()]
        records += [json.dumps(r.body) for r in standin.responses()]

    stdout = out.get("stdout", b"").decode("utf-8", "replace")
    stderr = out.get("stderr", b"").decode("utf-8", "replace")
    everything = {
        "stdout": stdout,
        "stderr": stderr,
        "HTTP answers": "\n".join(captured),
        "replies and Web API calls": "\n".join(records),
    }
    leaks = {
        where: _leaks(text, secrets, token_shapes=where in ("stdout", "stderr")) for where, text in everything.items()
    }
    assert not any(leaks.values()), leaks

    # The run went through the paths that could have leaked (so the search above means something).
    log = stdout + stderr
    for expected in (
        "DEBUG",
        "Traceback",
        "slash command failed",
        "invalid_auth",
        "token_revoked",
        "reload refused",
        "Invalid request signature",
    ):
        assert expected in log, f"{expected!r} not in the log"
    # Something was masked: a secret redacted, or a body that held one (slack-sdk's DEBUG line
    # with the oauth.v2.access answer) withheld whole.
    assert REDACTED in log or BODY_WITHHELD in log
    assert any(c.method == "users.info" and c.authorized for c in standin.calls())
    from bot.store import Store

    cipher = TokenCipher.from_setting(secrets["token encryption key"])
    with Store.from_url(db_url, migrate=False, token_cipher=cipher) as store:  # the install did complete
        bot = store.installation_store(CLIENT_ID).find_bot(enterprise_id=None, team_id="T0NEWTEAM")
        assert bot is not None and bot.bot_token == secrets["oauth bot token"]
        with store.engine.connect() as conn:  # and no token is in the tables in plain text
            raw = " ".join(
                str(row)
                for table in ("slack_installations", "slack_bots")
                for row in conn.exec_driver_sql(f"SELECT * FROM {table}")
            )
    assert "fernet:" in raw and _leaks(raw, secrets) == []


# --- in process: setup_logging ------------------------------------------------------------------


@pytest.fixture
def logging_with_secrets(monkeypatch):
    """setup_logging for known fake settings, capturing the root handler's stream; restores the
    logging configuration afterwards."""
    import bot.logging_setup as ls

    secrets = _secrets()
    settings = Settings(
        _env_file=None,
        slack_bot_token=secrets["bot token"],
        slack_signing_secret=secrets["signing secret"],
        slack_client_secret=secrets["client secret"],
        slack_client_id=CLIENT_ID,
        slack_app_token="xapp-1-A0SECRET-" + secrets["signing secret"],
        database_url=f"postgresql://vp:{secrets['database password']}@127.0.0.1:1/x",
    )
    secrets["app token"] = settings.slack_app_token.get_secret_value()
    root = logging.getLogger()
    saved = (
        root.handlers[:],
        root.level,
        logging.getLogRecordFactory(),
        sys.excepthook,
        threading.excepthook,
        set(ls._secrets),
        ls._installed,
    )
    stream = io.StringIO()
    root.handlers = []
    monkeypatch.setattr(ls, "_installed", False)
    setup_logging(settings, stream=stream)
    try:
        yield secrets, stream
    finally:
        root.handlers, level, factory, hook, thook, known, installed = saved
        root.setLevel(level)
        logging.setLogRecordFactory(factory)
        sys.excepthook, threading.excepthook = hook, thook
        ls._secrets.clear()
        ls._secrets.update(known)
        ls._installed = installed
        logging.captureWarnings(False)


def test_secrets_are_redacted_in_messages_args_and_tracebacks(logging_with_secrets):
    secrets, stream = logging_with_secrets
    log = logging.getLogger("bot.test")
    log.warning("token %s and secret %s", secrets["bot token"], secrets["signing secret"])
    log.error("client secret in the message: " + secrets["client secret"])
    log.info("app-level token %r; db password %s", secrets["app token"], secrets["database password"])
    log.info("a token nobody configured: xoxp-9999-8888-7777-abcdef and xoxe.xoxp-1-abc")
    try:
        raise RuntimeError(f"failed with {secrets['bot token']} / {secrets['client secret']}")
    except RuntimeError:
        log.exception("call failed")
    text = stream.getvalue()
    assert _leaks(text, secrets) == []
    assert "xoxp-9999" not in text and "xoxe.xoxp" not in text
    assert text.count(REDACTED) >= 8 and "RuntimeError" in text and "Traceback" in text


def test_a_database_error_with_a_token_in_its_parameters_is_redacted(logging_with_secrets, tmp_path):
    """SQLAlchemy puts statement parameters in the exception text; saving an installation that
    fails would print the bot token in the traceback."""
    from bot.store import Store

    secrets, stream = logging_with_secrets
    with Store.from_url(f"sqlite:///{tmp_path}/t.db") as store:
        _rename_table(f"sqlite:///{tmp_path}/t.db", "slack_bots", "slack_bots_gone")
        try:
            store.installation_store(CLIENT_ID).save(
                Installation(
                    app_id="A0",
                    team_id="T0",
                    bot_token=secrets["installed bot token"],
                    bot_id="B0",
                    bot_user_id="U0B",
                    bot_scopes="commands",
                    user_id="U0",
                    installed_at=time.time(),
                )
            )
        except Exception:
            logging.getLogger("bot.test").exception("saving the installation failed")
    text = stream.getvalue()
    assert "saving the installation failed" in text and "slack_bots" in text
    assert _leaks(text, secrets) == [], text[-2000:]


def test_handlers_added_later_and_uncaught_exceptions_are_redacted(logging_with_secrets):
    secrets, stream = logging_with_secrets
    late = io.StringIO()
    handler = logging.StreamHandler(late)  # e.g. a library's own handler, added after setup
    logging.getLogger("late").addHandler(handler)
    try:
        logging.getLogger("late").error("late handler sees %s", secrets["signing secret"])
        try:
            raise ValueError(secrets["client secret"])
        except ValueError:
            sys.excepthook(*sys.exc_info())
        thread = threading.Thread(target=lambda: (_ for _ in ()).throw(KeyError(secrets["bot token"])))
        thread.start()
        thread.join()
    finally:
        logging.getLogger("late").removeHandler(handler)
    text = stream.getvalue() + late.getvalue()
    assert "uncaught exception" in text and "KeyError" in text and "ValueError" in text
    assert _leaks(text, secrets) == []


def test_without_redaction_the_same_log_would_leak(logging_with_secrets):
    """The protection is what makes the tests above pass."""
    secrets, _ = logging_with_secrets
    stream = io.StringIO()
    plain = logging.StreamHandler(stream)
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "token %s", (secrets["bot token"],), None)
    plain.emit(record)  # a record made without the redacting factory
    assert secrets["bot token"] in stream.getvalue()
    RedactSecrets().filter(record)
    assert secrets["bot token"] not in record.getMessage()
    assert redact(f"x {secrets['client secret']} y") == f"x {REDACTED} y"


def test_settings_never_print_secrets():
    secrets = _secrets()
    settings = Settings(
        _env_file=None,
        slack_bot_token=secrets["bot token"],
        slack_signing_secret=secrets["signing secret"],
        slack_client_secret=secrets["client secret"],
    )
    shown = repr(settings) + str(settings) + json.dumps(settings.model_dump(mode="json"))
    assert _leaks(shown, secrets) == []
