"""Issue 25: the whole install, end to end against the stand-in: the install page's *Add to
Slack* link goes to the stand-in's authorize page, which approves and redirects back with a
one-time code and the state; the callback (with the state cookie, as the browser sends it)
exchanges the code through ``oauth.v2.access``, stores the installation with its tokens
encrypted and welcomes the installer once; a reinstall sends no second welcome; a replayed code
is refused. Also the org-wide (Enterprise Grid) install, and the stand-in's ``oauth.v2.access``
refusals as Slack words them."""

from __future__ import annotations

import html
import http.client
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from cryptography.fernet import Fernet
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.i18n import t
from tests.e2e.slack_requests import HttpResult
from tests.standin import SlackStandIn

CLIENT_ID, CLIENT_SECRET = "4242.2424", "install-walk-client-secret"
GRID = {"id": "E0GRID", "name": "Grid org"}


def fetch(url: str, cookie: str | None = None) -> HttpResult:
    """One GET without following redirects (a browser's single step)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request(
        "GET", parts.path + (f"?{parts.query}" if parts.query else ""), headers={"Cookie": cookie} if cookie else {}
    )
    resp = conn.getresponse()
    result = HttpResult(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
    conn.close()
    return result


@pytest.fixture
def grid_standin():
    with SlackStandIn(oauth_client=(CLIENT_ID, CLIENT_SECRET), enterprise=GRID) as s:
        yield s


@pytest.fixture
def walk(tmp_path, grid_standin):
    from bot.doors.serve import serve_http
    from bot.runtime import Runtime
    from tests.e2e.conftest import e2e_settings

    key = Fernet.generate_key().decode()
    runtime = Runtime.create(
        e2e_settings(
            tmp_path,
            grid_standin,
            slack_bot_token=None,
            slack_client_id=CLIENT_ID,
            slack_client_secret=CLIENT_SECRET,
            slack_authorize_url=grid_standin.base_url + "/oauth/v2/authorize",
            token_encryption_key=key,
        )
    )
    door = serve_http(runtime, "127.0.0.1", 0, background=True)
    grid_standin.oauth_redirect_url = door.url + "/slack/oauth_redirect"
    yield door, runtime, grid_standin
    door.close()
    runtime.store.close()


def install(door_url: str) -> tuple[HttpResult, str]:
    """Install page -> authorize -> callback, as a browser does; returns the callback's page and
    the code the stand-in issued."""
    page = fetch(door_url + "/slack/install")
    assert page.status == 200
    cookie = page.headers["set-cookie"].split(";", 1)[0]
    link = html.unescape(re.search(r'<a class="add" href="([^"]+)">', page.text).group(1))
    state = parse_qs(urlsplit(link).query)["state"][0]
    approved = fetch(link)
    assert approved.status == 302, approved.text
    back = approved.headers["location"]
    assert back.startswith(door_url + "/slack/oauth_redirect?")
    query = parse_qs(urlsplit(back).query)
    assert query["state"] == [state]
    return fetch(back, cookie), query["code"][0]


def welcomes(standin: SlackStandIn) -> list:
    text = str(t("install.welcome"))
    return [c for c in standin.calls("chat.postMessage") if c.args.get("text") == text]


def test_install_authorize_callback_store_and_one_welcome(walk) -> None:
    door, runtime, standin = walk
    done, code = install(door.url)
    assert done.status == 200 and "vllm-path is installed in Console" in done.text
    exchange = standin.calls("oauth.v2.access")[-1]
    assert exchange.response["ok"] and exchange.args["code"] == code
    token = exchange.response["access_token"]
    bot = runtime.store.installation_store(CLIENT_ID).find_bot(enterprise_id=GRID["id"], team_id=standin.team_id)
    assert bot is not None and bot.bot_token == token
    with runtime.store.engine.connect() as conn:
        raw = " ".join(
            str(row)
            for table in ("slack_installations", "slack_bots")
            for row in conn.exec_driver_sql(f"SELECT * FROM {table}")
        )
    assert "fernet:" in raw and token not in raw
    sent = welcomes(standin)
    assert len(sent) == 1
    opened = standin.calls("conversations.open")
    assert opened and opened[-1].args["users"] == "U0INSTALLER"
    assert sent[0].response["ok"], sent[0].response  # the new bot token was accepted with the granted scopes

    again, _ = install(door.url)  # a reinstall: the page again, no second welcome
    assert again.status == 200 and len(welcomes(standin)) == 1


def test_a_replayed_code_is_refused_with_plain_words(walk) -> None:
    door, _, _standin = walk
    page = fetch(door.url + "/slack/install")
    cookie = page.headers["set-cookie"].split(";", 1)[0]
    link = html.unescape(re.search(r'<a class="add" href="([^"]+)">', page.text).group(1))
    back = fetch(link).headers["location"]
    assert fetch(back, cookie).status == 200
    replay = fetch(back, cookie)  # the state is used up too: Bolt refuses before the exchange
    assert replay.status == 400 and "Start the installation again" in replay.text


def test_an_org_wide_install_stores_the_enterprise_and_welcomes_once(walk) -> None:
    door, runtime, standin = walk
    standin.org_wide_install = True
    done, _ = install(door.url)
    assert done.status == 200 and "Grid org" in done.text
    body = standin.calls("oauth.v2.access")[-1].response
    assert body["is_enterprise_install"] is True and body["team"] is None and body["enterprise"] == GRID
    found = runtime.store.installation_store(CLIENT_ID).find_installation(
        enterprise_id=GRID["id"], team_id=None, is_enterprise_install=True
    )
    assert found is not None and found.bot_token == body["access_token"]
    assert len(welcomes(standin)) == 1


def test_oauth_v2_access_answers_as_slack_does(grid_standin) -> None:
    standin = grid_standin
    standin.oauth_redirect_url = "https://app.example/slack/oauth_redirect"
    client = WebClient(base_url=standin.api_url)

    def code(**extra: str) -> str:
        status, where = standin.answer_authorize(
            {"client_id": CLIENT_ID, "scope": "commands,chat:write", "state": "s1", **extra}
        )
        assert status == 302 and where.startswith(extra.get("redirect_uri", standin.oauth_redirect_url) + "?")
        return parse_qs(urlsplit(where).query)["code"][0]

    body = client.oauth_v2_access(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code()).data
    assert set(body) == {
        "ok",
        "app_id",
        "authed_user",
        "scope",
        "token_type",
        "access_token",
        "bot_user_id",
        "team",
        "enterprise",
        "is_enterprise_install",
    }
    assert body["token_type"] == "bot" and body["scope"] == "chat:write,commands"
    assert body["authed_user"] == {"id": "U0INSTALLER"} and body["team"] == {"id": standin.team_id, "name": "Console"}
    assert body["enterprise"] == GRID and body["is_enterprise_install"] is False
    bot = WebClient(base_url=standin.api_url, token=body["access_token"])
    assert bot.chat_postMessage(channel="C0CONSOLE", text="hi")["ok"]
    with pytest.raises(SlackApiError, match="missing_scope"):  # only what was granted
        bot.users_info(user="U0INSTALLER")
    with_user = client.oauth_v2_access(
        client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code(user_scope="search:read")
    ).data["authed_user"]
    assert with_user["scope"] == "search:read" and with_user["token_type"] == "user"
    assert with_user["access_token"].startswith("xoxp-")
    used = code()
    for kwargs, error in (
        ({"client_secret": "wrong", "code": code()}, "bad_client_secret"),
        ({"client_secret": CLIENT_SECRET, "code": "never-issued"}, "invalid_code"),
        (
            {
                "client_secret": CLIENT_SECRET,
                "code": code(redirect_uri="https://app.example/a"),
                "redirect_uri": "https://app.example/b",
            },
            "bad_redirect_uri",
        ),
    ):
        with pytest.raises(SlackApiError) as refused:
            client.oauth_v2_access(client_id=CLIENT_ID, **kwargs)
        assert refused.value.response["error"] == error
    client.oauth_v2_access(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=used)
    with pytest.raises(SlackApiError, match="invalid_code"):  # a code works once
        client.oauth_v2_access(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=used)
    assert standin.answer_authorize({"client_id": "someone-else", "state": "s"})[0] == 400
