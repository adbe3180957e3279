"""Fixtures for end-to-end tests: a Slack stand-in, a runtime on a fresh SQLite file, and the real
HTTP door (waitress + Bolt's WSGI adapter) on a free loopback port with a known signing secret."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from bot.config import Settings
from tests.e2e.helpers import BOT_TOKEN, SIGNING_SECRET, FakeSlack
from tests.standin import SlackStandIn


def e2e_settings(tmp_path, standin: SlackStandIn, **overrides) -> Settings:
    """Settings for a test: SQLite in ``tmp_path``, Web API at the stand-in, a fake bot token and
    signing secret; nothing read from the environment or a ``.env`` file."""
    values = dict(
        database_url=f"sqlite:///{tmp_path}/t.db",
        slack_bot_token=BOT_TOKEN,
        slack_signing_secret=SIGNING_SECRET,
        slack_app_token=None,
        slack_client_id=None,
        slack_client_secret=None,
        slack_api_url=standin.api_url,
    )
    values.update(overrides)
    return Settings(_env_file=None, **values)


@pytest.fixture
def standin():
    with SlackStandIn() as s:
        yield s


@pytest.fixture
def runtime(tmp_path, standin, any_migrated_db_url):
    """The runtime behind the door: once on SQLite and once on PostgreSQL (a fresh copy of the
    session's migrated template each, ``any_migrated_db_url``)."""
    from bot.runtime import Runtime

    rt = Runtime.create(e2e_settings(tmp_path, standin, database_url=any_migrated_db_url))
    yield rt
    rt.store.close()


@pytest.fixture
def door(runtime):
    """The HTTP door serving ``build_app(runtime)`` (client built from settings, as in production)."""
    from bot.doors.serve import serve_http

    d = serve_http(runtime, "127.0.0.1", 0, threads=4, background=True)
    yield d
    d.close()


@pytest.fixture
def slack(door, standin, runtime):
    """Plays Slack: sends signed requests to the door and collects what the app sends back."""
    return FakeSlack(door.url, standin, runtime)


@contextmanager
def oauth_door(tmp_path, client_id: str, client_secret: str) -> Iterator[tuple[Any, SlackStandIn]]:
    """The real HTTP door in OAuth mode (no bot token, tokens sealed) with the Slack stand-in as
    the OAuth server (authorize URL and redirect pointed at each other): ``(door, stand-in)``."""
    from cryptography.fernet import Fernet

    from bot.doors.serve import serve_http
    from bot.runtime import Runtime

    with SlackStandIn(oauth_client=(client_id, client_secret)) as standin:
        runtime = Runtime.create(
            e2e_settings(
                tmp_path,
                standin,
                slack_bot_token=None,
                slack_client_id=client_id,
                slack_client_secret=client_secret,
                slack_authorize_url=standin.base_url + "/oauth/v2/authorize",
                token_encryption_key=Fernet.generate_key().decode(),
            )
        )
        served = serve_http(runtime, "127.0.0.1", 0, background=True)
        standin.oauth_redirect_url = served.url + "/slack/oauth_redirect"
        try:
            yield served, standin
        finally:
            served.close()
            runtime.store.close()
