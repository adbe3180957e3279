"""QA round 8 (operator pass), the real HTTP door in OAuth mode against the Slack stand-in, signed
requests: a command or click from a workspace without an installation (never installed, or
removed by ``tokens_revoked``) gets our words with this server's install link, in the person's
language when known, and one WARNING per workspace (no ERROR per request, not Bolt's stock "no
longer available"); reloading the used redirect link after a good install says the app is
installed, not that the link expired (a browser without that install's cookie still gets the
expired page)."""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from cryptography.fernet import Fernet

from tests.e2e.slack_requests import HttpResult, block_actions_body, event_body, signed_post, slash_command_body
from tests.e2e.test_install_walk import fetch
from tests.standin import SlackStandIn
from tests.waits import PATIENCE_S

CLIENT_ID, CLIENT_SECRET = "8181.1818", "qa-round8-installs-client-secret"
SIGNING_SECRET = "qa-round8-installs-signing-secret"
PUBLIC_URL = "https://path.example.org"
STOCK = "no longer available"
NEVER = "T0NEVER"


@pytest.fixture
def oauth(tmp_path) -> Iterator[tuple[Any, Any, SlackStandIn]]:
    """``(door, runtime, stand-in)``: the HTTP door of an OAuth app with ``PUBLIC_URL`` set."""
    from bot.doors.serve import serve_http
    from bot.runtime import Runtime
    from tests.e2e.conftest import e2e_settings

    with SlackStandIn(oauth_client=(CLIENT_ID, CLIENT_SECRET)) as standin:
        runtime = Runtime.create(
            e2e_settings(
                tmp_path,
                standin,
                slack_bot_token=None,
                slack_signing_secret=SIGNING_SECRET,
                slack_client_id=CLIENT_ID,
                slack_client_secret=CLIENT_SECRET,
                slack_authorize_url=standin.base_url + "/oauth/v2/authorize",
                token_encryption_key=Fernet.generate_key().decode(),
                public_url=PUBLIC_URL,
            )
        )
        door = serve_http(runtime, "127.0.0.1", 0, threads=4, background=True)
        standin.oauth_redirect_url = door.url + "/slack/oauth_redirect"
        try:
            yield door, runtime, standin
        finally:
            door.close()
            runtime.store.close()


def _walk(door_url: str) -> tuple[HttpResult, str, str]:
    """Install page -> authorize -> callback as a browser: the callback's page, its URL, and the
    cookies the browser holds after it (the state cookie and those the success page set)."""
    page = fetch(door_url + "/slack/install")
    assert page.status == 200
    jar = {page.headers["set-cookie"].split(";", 1)[0]}
    link = html.unescape(re.search(r'<a class="add" href="([^"]+)">', page.text).group(1))
    approved = fetch(link)
    assert approved.status == 302, approved.text
    back = approved.headers["location"]
    done = fetch(back, "; ".join(sorted(jar)))
    for header in done.headers.get("set-cookie", "").split(", "):  # http.client joins repeated headers
        if "=" in header.split(";", 1)[0]:
            jar.add(header.split(";", 1)[0])
    return done, back, "; ".join(sorted(jar))


def _words(page: HttpResult) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.text)).split())


def _command(door_url: str, standin: SlackStandIn, text: str, team: str, user: str = "U0ASK") -> str:
    """A signed ``/vllm-path text`` from ``team``: what reached the person (ack body or response_url)."""
    url = standin.response_url()
    ack = signed_post(
        door_url + "/slack/events",
        slash_command_body(text, team_id=team, user_id=user, response_url=url),
        SIGNING_SECRET,
    )
    assert ack.status == 200, ack.text
    if not ack.text.strip():  # answered through response_url, maybe after the ack (a follow-up)
        standin.wait_for(lambda: standin.responses(url), timeout=PATIENCE_S)
    posted = [p.body.get("text", "") for p in standin.responses(url)]
    return " ".join([ack.text, *posted])


def _click(door_url: str, standin: SlackStandIn, team: str) -> str:
    url = standin.response_url()
    action = {"type": "button", "action_id": "mark_read:0", "block_id": "b1", "value": json.dumps({"p": "x"})}
    body = block_actions_body(
        action, message={"text": "card", "blocks": []}, message_ts="1796639000.000100", response_url=url, team_id=team
    )
    ack = signed_post(door_url + "/slack/events", body, SIGNING_SECRET)
    assert ack.status == 200, ack.text
    return " ".join([ack.text, *[p.body.get("text", "") for p in standin.responses(url)]])


def test_a_never_installed_workspace_gets_our_words_and_the_install_link(oauth, caplog) -> None:
    door, _runtime, standin = oauth
    with caplog.at_level(logging.INFO):
        said = [_command(door.url, standin, "help", NEVER), _command(door.url, standin, "speculative", NEVER)]
        clicked = _click(door.url, standin, NEVER)
    for answer in [*said, clicked]:
        assert STOCK not in answer and "reinstall" not in answer.lower(), answer
        assert "not installed in this workspace" in answer and f"{PUBLIC_URL}/slack/install" in answer, answer
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    warned = [r for r in caplog.records if r.levelno == logging.WARNING and NEVER in r.getMessage()]
    assert len(warned) == 1, caplog.text  # once per workspace, not per request


def test_after_tokens_revoked_a_chinese_reader_is_answered_in_chinese(oauth, caplog) -> None:
    door, runtime, standin = oauth
    done, _back, _jar = _walk(door.url)
    assert done.status == 200, done.text
    team = standin.team_id
    installed = _command(door.url, standin, "help", team)  # installed: answered as usual
    assert "reading order" in installed and "not installed" not in installed, installed
    runtime.store.set_lang(team, "U0ZH", "zh")
    revoked = event_body({"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["U0BOT"]}}, team_id=team)
    assert signed_post(door.url + "/slack/events", revoked, SIGNING_SECRET, json_body=True).status == 200
    with caplog.at_level(logging.INFO):
        chinese = _command(door.url, standin, "help", team, user="U0ZH")
        english = _command(door.url, standin, "help", team, user="U0EN")
    assert "尚未安装" in chinese and f"{PUBLIC_URL}/slack/install" in chinese and STOCK not in chinese, chinese
    assert "not installed in this workspace" in english and STOCK not in english, english
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_reloading_the_used_redirect_link_says_the_app_is_installed(oauth) -> None:
    door, _runtime, _standin = oauth
    done, back, jar = _walk(door.url)
    assert done.status == 200 and "is installed in" in _words(done), done.text
    again = fetch(back, jar)  # the same browser reloads the success page's address
    words = _words(again)
    assert again.status == 200, (again.status, words)
    assert "already installed" in words and "expired" not in words, words
    assert "Open Slack" in words and again.headers["content-security-policy"] == "frame-ancestors 'none'"
    state = parse_qs(urlsplit(back).query)["state"][0]
    stranger = fetch(back, f"slack-app-oauth-state={state}")  # another browser: no install's cookie
    assert stranger.status == 400 and "expired" in _words(stranger)
