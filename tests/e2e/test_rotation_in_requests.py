"""Issue 42: Slack token rotation in the request path, through the real HTTP door in OAuth mode
against the strict stand-in (an expired token is refused as Slack refuses it; a refresh token
works once), on SQLite and PostgreSQL. Twenty signed slash commands arrive at once as the bot
token is due: every one is answered, and Slack saw exactly one ``oauth.v2.access`` refresh, sent
to ``SLACK_API_URL`` (the stand-in). A digest worker refreshing from another process (a Store of
its own) at the same moment shares the same lock. And an org-wide (Enterprise Grid) install saved
with a team id is found for org-wide requests (bodies without an outer ``team_id``)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store import Installation

from bot.doors.http import HttpDoor
from bot.runtime import Runtime, token_rotator
from bot.store import Store
from bot.store.crypto import TokenCipher
from tests.e2e.helpers import ack_shown
from tests.e2e.slack_requests import HttpResult, signed_post, slash_command_body
from tests.reliability.org_wide import org_wide_body
from tests.standin import SlackStandIn, app_home_opened_event
from tests.standin.scopes import default_bot_scopes
from tests.waits import PATIENCE_S

CLIENT_ID, CLIENT_SECRET = "4242.4242", "rotation-in-requests-client-secret"
SECRET = "rotation-in-requests-signing-secret-42"
TEAM, ORG, USER, CHANNEL = "T0ROT42", "E0ORG42", "U0ROT42", "C0CONSOLE"
CONCURRENT = 20
GONE = "no longer available"  # Bolt's answer when authorize finds no usable token


@dataclass
class OAuthDoor:
    """The door in OAuth mode, its runtime, the stand-in and the token encryption key."""

    door: HttpDoor
    runtime: Runtime
    standin: SlackStandIn
    key: str
    url: str


@pytest.fixture
def oauth_door(tmp_path: Path, any_migrated_db_url: str) -> Iterator[OAuthDoor]:
    from bot.doors.serve import serve_http
    from tests.e2e.conftest import e2e_settings

    key = Fernet.generate_key().decode()
    with SlackStandIn(team_id=TEAM, token_scopes={}, oauth_client=(CLIENT_ID, CLIENT_SECRET)) as standin:
        runtime = Runtime.create(
            e2e_settings(
                tmp_path,
                standin,
                database_url=any_migrated_db_url,
                slack_bot_token=None,
                slack_signing_secret=SECRET,
                slack_client_id=CLIENT_ID,
                slack_client_secret=CLIENT_SECRET,
                token_encryption_key=key,
            )
        )
        door = serve_http(runtime, "127.0.0.1", 0, threads=CONCURRENT + 4, background=True)
        try:
            yield OAuthDoor(door, runtime, standin, key, door.url + "/slack/events")
        finally:
            door.close()
            runtime.store.close()


def _install_due_token(d: OAuthDoor, *, enterprise_id: str | None = None, org_wide: bool = False) -> str:
    """Save an installation whose rotating bot token expired a minute ago; returns the token."""
    expired, refresh = d.standin.issue_rotating_token(default_bot_scopes(), expires_in_s=-60)
    d.runtime.store.installation_store().save(
        Installation(
            app_id="A0ROT",
            enterprise_id=enterprise_id,
            team_id=TEAM,
            is_enterprise_install=org_wide,
            bot_token=expired,
            bot_id="B0ROT",
            bot_user_id="U0ROTBOT",
            bot_scopes=",".join(sorted(default_bot_scopes())),
            user_id="U0ADMIN",
            bot_refresh_token=refresh,
            bot_token_expires_at=int(time.time()) - 60,
            installed_at=time.time(),
        )
    )
    return expired


def _command(
    d: OAuthDoor, text: str, *, team_id: str = TEAM, org_wide: bool = False, **fields: Any
) -> tuple[HttpResult, str]:
    """Send ``/vllm-path text`` signed (``org_wide``: ``is_enterprise_install=true``); the ack and the response URL."""
    response_url = d.standin.response_url()
    body = slash_command_body(
        text, team_id=team_id, user_id=USER, channel_id=CHANNEL, response_url=response_url, **fields
    )
    if org_wide:
        body = body.replace(b"is_enterprise_install=false", b"is_enterprise_install=true")
    return ack_shown(d.standin, signed_post(d.url, body, SECRET), response_url), response_url


def _all_at_once(work: list[Any]) -> list[Any]:
    """Run each callable of ``work`` on its own thread, released together; their results in order."""
    start = threading.Barrier(len(work))
    results: list[Any] = [None] * len(work)

    def run(i: int) -> None:
        start.wait()
        try:
            results[i] = work[i]()
        except BaseException as exc:  # reported by the assertions below
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(work))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    return results


def _answer(d: OAuthDoor, response_url: str) -> str:
    return json.dumps(d.standin.wait_for_response(response_url, timeout=PATIENCE_S).body)


def test_twenty_requests_at_a_due_token_are_all_answered_after_one_refresh(oauth_door: OAuthDoor) -> None:
    d = oauth_door
    expired = _install_due_token(d)
    results = _all_at_once([lambda: _command(d, "help") for _ in range(CONCURRENT)])
    assert not [r for r in results if isinstance(r, BaseException)], results
    assert [r[0].status for r in results] == [200] * CONCURRENT
    answers = [_answer(d, url) for _, url in results]
    assert not [a for a in answers if GONE in a], [a[:200] for a in answers if GONE in a]
    assert all("blocks" in a for a in answers)
    refreshes = d.standin.calls("oauth.v2.access")  # at SLACK_API_URL: Bolt's own client went to slack.com
    assert len(refreshes) == 1 and refreshes[0].ok, [c.response for c in refreshes]
    saved = d.runtime.store.installation_store().find_installation(enterprise_id=None, team_id=TEAM)
    assert saved is not None and saved.bot_token not in (None, expired)
    assert saved.bot_token_expires_at is not None and saved.bot_token_expires_at > time.time() + 3600
    # Every auth.test Bolt made used a token Slack accepted.
    assert all(c.ok for c in d.standin.calls("auth.test"))


def test_requests_and_another_processs_worker_refresh_a_due_token_once(oauth_door: OAuthDoor) -> None:
    d = oauth_door
    _install_due_token(d)
    settings = d.runtime.settings
    worker = Store.from_url(
        settings.database_url,
        migrate=False,
        client_id=CLIENT_ID,
        token_cipher=TokenCipher.from_setting(d.key),
        token_rotator=token_rotator(settings),
    )
    try:
        work: list[Any] = [lambda: _command(d, "help") for _ in range(8)]
        work += [lambda: worker.bot_token_for(TEAM) for _ in range(4)]
        results = _all_at_once(work)
    finally:
        worker.close()
    assert not [r for r in results if isinstance(r, BaseException)], results
    answers = [_answer(d, url) for _, url in results[:8]]
    assert not [a for a in answers if GONE in a]
    tokens = set(results[8:])
    saved = d.runtime.store.installation_store().find_installation(enterprise_id=None, team_id=TEAM)
    assert saved is not None and tokens == {saved.bot_token}
    assert len(d.standin.calls("oauth.v2.access")) == 1


def test_an_org_wide_install_saved_with_a_team_id_is_found_for_org_wide_requests(oauth_door: OAuthDoor) -> None:
    d = oauth_door
    token, _ = d.standin.issue_rotating_token(default_bot_scopes(), expires_in_s=3600)
    d.runtime.store.installation_store().save(
        Installation(
            app_id="A0ROT",
            enterprise_id=ORG,
            team_id=TEAM,  # saved with the installing workspace's id
            is_enterprise_install=True,
            bot_token=token,
            bot_id="B0ORG",
            bot_user_id="U0ROTBOT",
            bot_scopes=",".join(sorted(default_bot_scopes())),
            user_id="U0ADMIN",
            installed_at=time.time(),
        )
    )
    # An event: no outer team id, so Bolt looks up (ORG, None, is_enterprise_install=True).
    assert (
        signed_post(
            d.url,
            org_wide_body(app_home_opened_event(USER), ORG, app_id="A0ROT", bot_user="U0ROTBOT"),
            SECRET,
            json_body=True,
        ).status
        == 200
    )
    published = d.standin.wait_for_call("views.publish", timeout=PATIENCE_S)
    assert published.ok and published.args.get("user_id") == USER
    # A command from another workspace of the org: (ORG, T0OTHER, is_enterprise_install=True).
    result, response_url = _command(
        d, "help", team_id="T0OTHER", enterprise_id=ORG, enterprise_name="Org", org_wide=True
    )
    assert result.status == 200
    answer = _answer(d, response_url)
    assert GONE not in answer and "blocks" in answer
    assert all(c.ok for c in d.standin.calls("auth.test"))
