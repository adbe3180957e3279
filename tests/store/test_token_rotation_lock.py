"""Issue 27: two processes refreshing one expiring rotating token at once. Slack invalidates a
refresh token on first use, so without a lock shared by the processes one of them gets
``invalid_refresh_token``. Each "process" here is a Store of its own (its own engine and
connections, as in another process) on one database, SQLite and PostgreSQL, against the strict
stand-in: both end with the same working token and Slack saw one refresh."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from slack_sdk import WebClient
from slack_sdk.oauth.installation_store import Installation
from slack_sdk.oauth.token_rotation import TokenRotator

from bot.store import Store
from bot.store.crypto import TokenCipher
from bot.store.db import shared_lock
from tests.standin import SlackStandIn

CLIENT_ID, CLIENT_SECRET = "111.333", "rotation-lock-client-secret"
SCOPES = ("chat:write",)
KEY = "Zm9yLXRlc3RzLW9ubHktbm90LWEtcmVhbC1rZXktMzI="  # 32 bytes, url-safe base64: a Fernet key


def _store(url: str, standin: SlackStandIn) -> Store:
    rotator = TokenRotator(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, client=WebClient(base_url=standin.api_url))
    return Store.from_url(url, client_id=CLIENT_ID, token_cipher=TokenCipher.from_setting(KEY), token_rotator=rotator)


def test_two_processes_refresh_one_expiring_token_once(store_url: str) -> None:
    with SlackStandIn(team_id="T0ROT2", token_scopes={}, oauth_client=(CLIENT_ID, CLIENT_SECRET)) as standin:
        expiring, refresh = standin.issue_rotating_token(SCOPES, expires_in_s=30)
        first, second = _store(store_url, standin), _store(store_url, standin)
        try:
            first.installation_store().save(
                Installation(
                    app_id="A0ROT",
                    team_id="T0ROT2",
                    bot_token=expiring,
                    bot_id="B0ROT",
                    bot_user_id="U0ROTBOT",
                    bot_scopes="chat:write",
                    user_id="U0ADMIN",
                    bot_refresh_token=refresh,
                    bot_token_expires_at=int(time.time()) + 30,
                    installed_at=time.time(),
                )
            )
            start = threading.Barrier(2)
            tokens: dict[str, str | None] = {}
            errors: list[BaseException] = []

            def fetch(name: str, store: Store) -> None:
                start.wait()
                try:
                    tokens[name] = store.bot_token_for("T0ROT2")
                except BaseException as exc:
                    errors.append(exc)

            threads = [threading.Thread(target=fetch, args=(n, s)) for n, s in (("a", first), ("b", second))]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert not errors, errors
            assert tokens["a"] == tokens["b"] and tokens["a"] not in (None, expiring)
            refreshes = standin.calls("oauth.v2.access")
            assert len(refreshes) == 1 and refreshes[0].ok
            answer = WebClient(token=tokens["a"], base_url=standin.api_url).chat_postMessage(
                channel="C0CONSOLE", text="works"
            )
            assert answer["ok"]
        finally:
            first.close()
            second.close()


def test_the_lock_excludes_a_second_holder(tmp_path: Path) -> None:
    """The lock itself can fail: a second holder waits until the first lets go."""
    from sqlalchemy import create_engine

    engine_a = create_engine(f"sqlite:///{tmp_path}/l.db")
    engine_b = create_engine(f"sqlite:///{tmp_path}/l.db")
    order: list[str] = []
    inside = threading.Event()

    def second() -> None:
        inside.wait(5)
        with shared_lock(engine_b, "x"):
            order.append("b")

    t = threading.Thread(target=second)
    t.start()
    with shared_lock(engine_a, "x"):
        inside.set()
        time.sleep(0.3)
        order.append("a")
    t.join(5)
    assert order == ["a", "b"]
