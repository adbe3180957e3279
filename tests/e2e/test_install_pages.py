"""Issue 25: install pages admins trust, through the real HTTP door in OAuth mode: the install page
names the app, lists every scope the manifest asks for with its reason and carries Bolt's
authorize link (client id, scopes, state cookie); a forged or replayed redirect gets 400 and a
plain-words page without Bolt's internals."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from tests.e2e.slack_requests import get

REPO = Path(__file__).resolve().parents[2]


def _manifest_scopes() -> list[str]:
    return list(yaml.safe_load((REPO / "manifest.yaml").read_text())["oauth_config"]["scopes"]["bot"])


@pytest.fixture
def oauth_door(tmp_path, standin):
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
    yield door
    door.close()
    runtime.store.close()


def test_every_manifest_scope_has_a_reason() -> None:
    from bot.i18n import text

    assert all(text(f"scope.{scope}") for scope in _manifest_scopes())  # KeyError: a scope without one


def test_the_install_page_names_the_app_its_scopes_and_carries_the_authorize_link(oauth_door) -> None:
    from bot.i18n import text as reason_text

    page = get(oauth_door.url + "/slack/install")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    text = html.unescape(page.text)
    assert "<title>Install vllm-path in Slack</title>" in text and "What it stores" in text
    for scope in _manifest_scopes():
        assert f"<code>{scope}</code>: {reason_text(f'scope.{scope}')}" in text
    link = re.search(r'<a class="add" href="([^"]+)">Add to Slack</a>', page.text)
    assert link, page.text
    authorize = urlsplit(html.unescape(link.group(1)))
    query = parse_qs(authorize.query)
    assert authorize.netloc == "slack.com" and authorize.path == "/oauth/v2/authorize"
    assert query["client_id"] == ["111.222"]
    assert set(query["scope"][0].split(",")) == set(_manifest_scopes())
    assert "slack-app-oauth-state=" in page.headers.get("set-cookie", "")
    assert query["state"][0] in page.headers["set-cookie"]
    assert "oauth-client-secret" not in page.text
    assert get(oauth_door.url + "/static/site.css").status == 200


def test_a_forged_redirect_gets_400_and_plain_words(oauth_door) -> None:
    page = get(oauth_door.url + "/slack/oauth_redirect?code=x&state=forged")
    assert page.status == 400
    text = page.text
    assert "This installation link has expired" in text and "Start the installation again" in text
    for internal in ("invalid_browser", "invalid_state", "valid starting URL", "Traceback", "OAuth flow"):
        assert internal not in text


def test_a_cancelled_install_says_so(oauth_door) -> None:
    page = get(oauth_door.url + "/slack/oauth_redirect?error=access_denied&state=whatever")
    assert page.status == 403 and "cancelled" in page.text and "access_denied" not in page.text
