"""Issue 13: the digest sender finds the bot token of an Enterprise Grid workspace install and of
an org-wide install (Bolt's installation-store keys), tokens are encrypted at rest, and with
token rotation on a digest due after the bot token expired is sent with a refreshed token.
Against the stand-in with scope checks on (an unknown or expired token is refused as Slack
refuses it), on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from slack_sdk.oauth.installation_store import Installation

from bot.digest.deliver import Deliverer, Outcome, Pacer
from bot.domain.schedule import WeeklySchedule
from bot.runtime import CatalogHolder, Runtime, token_rotator
from bot.store import Store
from tests.digest.conftest import settings_for
from tests.standin import SlackStandIn

FIRE = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)
CLIENT_ID, CLIENT_SECRET = "111.222", "grid-test-client-secret"
SCOPES = ("chat:write", "im:write", "users:read", "channels:read")
ORG, WS_IN_ORG, OTHER_ORG = "E0GRID1", "T0GRIDWS", "E0ORGWIDE"
WS_TOKEN, ORG_TOKEN = "xoxb-grid-workspace-token", "xoxb-org-wide-token"


def _fp(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()[:8]


@pytest.fixture
def grid_standin() -> Iterator[SlackStandIn]:
    with SlackStandIn(
        team_id=WS_IN_ORG, token_scopes={WS_TOKEN: SCOPES, ORG_TOKEN: SCOPES}, oauth_client=(CLIENT_ID, CLIENT_SECRET)
    ) as s:
        yield s


@pytest.fixture
def oauth_runtime(db_url: str, grid_standin: SlackStandIn, holder: CatalogHolder) -> Iterator[Runtime]:
    settings = settings_for(
        db_url, grid_standin, slack_bot_token=None, slack_client_id=CLIENT_ID, slack_client_secret=CLIENT_SECRET
    )
    store = Store.from_url(db_url, client_id=CLIENT_ID, token_rotator=token_rotator(settings))
    rt = Runtime(settings, store, holder)
    rt.record_catalog_version()
    try:
        yield rt
    finally:
        store.close()


def _install(
    store: Store,
    *,
    enterprise_id: str | None,
    team_id: str | None,
    token: str,
    org_wide: bool = False,
    refresh: str | None = None,
    expires_at: int | None = None,
) -> None:
    store.installation_store().save(
        Installation(
            app_id="A0GRID",
            enterprise_id=enterprise_id,
            team_id=team_id,
            bot_token=token,
            bot_id="B0GRID",
            bot_user_id="U0GRIDBOT",
            bot_scopes=",".join(SCOPES),
            user_id="U0ADMIN",
            is_enterprise_install=org_wide,
            bot_refresh_token=refresh,
            bot_token_expires_at=expires_at,
            installed_at=time.time(),
        )
    )


def _deliverer(rt: Runtime) -> Deliverer:
    return Deliverer(rt, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=None))


def test_a_grid_workspace_install_and_an_org_wide_install_each_get_their_digests(
    oauth_runtime: Runtime, grid_standin: SlackStandIn
) -> None:
    store = oauth_runtime.store
    _install(store, enterprise_id=ORG, team_id=WS_IN_ORG, token=WS_TOKEN)
    _install(store, enterprise_id=OTHER_ORG, team_id=None, token=ORG_TOKEN, org_wide=True)
    ws = store.subscribe(WS_IN_ORG, "C0WS", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    org = store.subscribe(OTHER_ORG, "C0ORG", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    store.set_dm(OTHER_ORG, "W0READER", True, schedule=WeeklySchedule.of(0, "09:00", "UTC"))
    store.follow(OTHER_ORG, "W0READER", "spec")
    d = _deliverer(oauth_runtime)
    assert d.deliver_subscription(ws.id, FIRE).outcome is Outcome.SENT
    assert d.deliver_subscription(org.id, FIRE).outcome is Outcome.SENT
    assert d.deliver_dm(OTHER_ORG, "W0READER", FIRE).outcome is Outcome.SENT
    posts = {c.channel: c for c in grid_standin.calls("chat.postMessage")}
    assert posts["C0WS"].ok and posts["C0WS"].token_fingerprint == _fp(WS_TOKEN)
    assert posts["C0ORG"].ok and posts["C0ORG"].token_fingerprint == _fp(ORG_TOKEN)
    assert [s.status for s in store.subscriptions(WS_IN_ORG) + store.subscriptions(OTHER_ORG)] == ["active", "active"]
    # Without the enterprise id (the old lookup), the Grid workspace had no token at all.
    legacy = store.installation_store().find_bot(enterprise_id=None, team_id=WS_IN_ORG)
    assert legacy is None and store.bot_token_for(WS_IN_ORG) == WS_TOKEN


def test_the_installation_tables_hold_no_token_in_plain_text(oauth_runtime: Runtime) -> None:
    store = oauth_runtime.store
    _install(
        store,
        enterprise_id=ORG,
        team_id=WS_IN_ORG,
        token=WS_TOKEN,
        refresh="xoxe-1-plain-refresh-token",
        expires_at=int(time.time()) + 3600,
    )
    with store.engine.connect() as conn:
        raw = [
            tuple(row)
            for table in ("slack_installations", "slack_bots")
            for row in conn.exec_driver_sql(f"SELECT * FROM {table}")
        ]
    text = repr(raw)
    assert len(raw) == 2 and "fernet:" in text
    # No Slack token shape (``xoxb-``, ``xoxe-`` …); a bare "xox" can occur in Fernet's base64 by chance.
    assert WS_TOKEN not in text and "plain-refresh" not in text and not re.search(r"xox[a-z]-", text)
    assert store.installation_store().find_bot(enterprise_id=ORG, team_id=WS_IN_ORG).bot_token == WS_TOKEN


def test_with_rotation_on_a_digest_after_the_expiry_is_sent_with_a_refreshed_token(
    oauth_runtime: Runtime, grid_standin: SlackStandIn
) -> None:
    store = oauth_runtime.store
    expired, refresh = grid_standin.issue_rotating_token(SCOPES, expires_in_s=-60)
    _install(
        store, enterprise_id=None, team_id="T0ROTATE", token=expired, refresh=refresh, expires_at=int(time.time()) - 60
    )
    sub = store.subscribe("T0ROTATE", "C0ROT", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    # Slack refuses the expired token (the stand-in as strictly as Slack).
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    with pytest.raises(SlackApiError, match="token_expired"):
        WebClient(token=expired, base_url=grid_standin.api_url).chat_postMessage(channel="C0ROT", text="x")

    attempt = _deliverer(oauth_runtime).deliver_subscription(sub.id, FIRE)
    assert attempt.outcome is Outcome.SENT
    refreshes = grid_standin.calls("oauth.v2.access")
    assert len(refreshes) == 1 and refreshes[0].ok
    sent = [c for c in grid_standin.calls("chat.postMessage") if c.channel == "C0ROT" and c.ok]
    assert len(sent) == 1 and sent[0].token_fingerprint != _fp(expired)
    saved = store.installation_store().find_bot(enterprise_id=None, team_id="T0ROTATE")
    assert saved is not None and saved.bot_token != expired
    assert sent[0].token_fingerprint == _fp(saved.bot_token)
    assert saved.bot_token_expires_at is not None and saved.bot_token_expires_at > time.time()
    # The next week's digest uses the saved token: no second refresh.
    assert _deliverer(oauth_runtime).deliver_subscription(sub.id, FIRE.replace(day=14)).outcome is Outcome.SENT
    assert len(grid_standin.calls("oauth.v2.access")) == 1


def test_user_not_visible_pauses_a_dm_for_good_and_not_in_channel_says_to_invite(
    runtime: Runtime, standin: SlackStandIn
) -> None:
    store = runtime.store
    store.set_dm("T0CONNECT", "U0EXTERNAL", True, schedule=WeeklySchedule.of(0, "09:00", "UTC"))
    store.follow("T0CONNECT", "U0EXTERNAL", "spec")
    standin.configure(method_errors={"chat.postMessage": "user_not_visible"})
    attempt = _deliverer(runtime).deliver_dm("T0CONNECT", "U0EXTERNAL", FIRE)
    assert attempt.outcome is Outcome.PAUSED and attempt.error == "user_not_visible"
    assert store.get_dm("T0CONNECT", "U0EXTERNAL").status == "paused"
    standin.configure(method_errors={}, channel_errors={"G0PRIVATE": "not_in_channel"})
    sub = store.subscribe("T0CONNECT", "G0PRIVATE", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    assert _deliverer(runtime).deliver_subscription(sub.id, FIRE).outcome is Outcome.PAUSED
    assert "/invite @vllm-path" in (store.get_subscription(sub.id).pause_reason or "")


def test_a_private_channel_the_bot_is_not_in_pauses_with_how_to_invite_it(db_url: str, holder: CatalogHolder) -> None:
    channels = [
        {"id": "G0PRIV", "name": "private", "is_private": True, "is_member": False},
        {"id": "C0PUB", "name": "public", "is_private": False, "is_member": True},
    ]
    with SlackStandIn(channels=channels) as standin:
        rt = Runtime(settings_for(db_url, standin), Store.from_url(db_url), holder)
        try:
            store = rt.store
            private = store.subscribe("T0ETQ", "G0PRIV", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
            public = store.subscribe("T0ETQ", "C0PUB", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
            assert _deliverer(rt).deliver_subscription(private.id, FIRE).outcome is Outcome.PAUSED
            assert _deliverer(rt).deliver_subscription(public.id, FIRE).outcome is Outcome.SENT
            reason = store.get_subscription(private.id).pause_reason or ""
            assert "not_in_channel" in reason and "/invite @vllm-path" in reason
        finally:
            rt.store.close()
