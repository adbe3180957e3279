"""The stand-in Slack refuses calls whose scope the token lacks, as Slack does, and the digest's
crash recovery works with the scopes the manifest ships (and degrades visibly without them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.config import Settings
from bot.digest.deliver import METADATA_EVENT, Deliverer, Outcome, Pacer
from bot.domain.schedule import WeeklySchedule, period_of
from bot.store import Store
from tests.digest.conftest import TEAM, make_runtime
from tests.standin import SlackStandIn
from tests.standin.scopes import (
    SCOPES_BY_EVENT,
    SCOPES_BY_METHOD,
    acceptable_scopes,
    default_bot_scopes,
    scope_refusal,
)

REPO = Path(__file__).resolve().parents[2]
FIRE = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)


def _manifest_scopes() -> set[str]:
    manifest = yaml.safe_load((REPO / "manifest.yaml").read_text(encoding="utf-8"))
    return set(manifest["oauth_config"]["scopes"]["bot"])


def test_the_settings_ask_for_exactly_the_manifests_scopes() -> None:
    assert set(default_bot_scopes()) == _manifest_scopes()
    assert set(Settings(_env_file=None).slack_scopes.split(",")) == _manifest_scopes()


def test_every_event_the_manifest_subscribes_to_has_its_scope() -> None:
    """Slack delivers an event only with its scope (issue 44: ``reaction_added`` needs ``reactions:read``)."""
    manifest = yaml.safe_load((REPO / "manifest.yaml").read_text(encoding="utf-8"))
    events = manifest["settings"]["event_subscriptions"]["bot_events"]
    assert "reaction_added" in events
    for event in events:
        needed = SCOPES_BY_EVENT.get(event, frozenset())
        assert not needed or needed & _manifest_scopes(), event


def test_every_method_the_app_calls_is_allowed_by_the_manifest() -> None:
    granted = _manifest_scopes()
    for method in (
        "chat.postMessage",
        "chat.postEphemeral",
        "chat.update",
        "users.info",
        "conversations.open",
        "users.conversations",
        "conversations.info",
    ):
        assert scope_refusal(method, granted) is None, method
    for channel_kind in ("public", "private", "im"):
        assert scope_refusal("conversations.history", granted, channel_kind) is None


def test_the_history_scope_needed_depends_on_the_conversation() -> None:
    assert acceptable_scopes("conversations.history", "im") == {"im:history"}
    assert acceptable_scopes("conversations.history", "public") == {"channels:history"}
    assert acceptable_scopes("conversations.history", "private") == {"groups:history"}
    refused = scope_refusal("conversations.history", {"chat:write", "channels:history"}, "im")
    assert refused == {
        "ok": False,
        "error": "missing_scope",
        "needed": "im:history",
        "provided": "channels:history,chat:write",
    }
    assert acceptable_scopes("views.publish") == frozenset()  # no scope needed
    assert set(SCOPES_BY_METHOD["chat.postMessage"]) == {"chat:write"}


def test_the_standin_refuses_a_call_whose_scope_the_token_lacks() -> None:
    with SlackStandIn(team_id=TEAM, scopes="commands,chat:write") as standin:
        client = WebClient(token="xoxb-test", base_url=standin.api_url)
        client.chat_postMessage(channel="C1", text="hello")
        with pytest.raises(SlackApiError) as caught:
            client.conversations_history(channel="C1")
        assert caught.value.response["error"] == "missing_scope"
        assert caught.value.response["needed"] == "channels:history"
        with pytest.raises(SlackApiError):
            client.users_info(user="U1")
        assert [c.ok for c in standin.calls()] == [True, False, False]


def _stale_claim_with_a_landed_post(db_url: str, standin: SlackStandIn, runtime) -> tuple:
    """A sender claimed 10 minutes ago, Slack accepted its post, and it died before recording."""
    store = runtime.store
    sub = store.subscribe(TEAM, "C1", "rl", WeeklySchedule.of(0, "09:00", "UTC"))
    key = (TEAM, "C1", "rl", period_of(FIRE, "UTC"))
    past = Store.from_url(db_url, migrate=False, clock=lambda: datetime.now(UTC) - timedelta(minutes=10))
    assert past.claim_delivery(*key, claimed_by="dead:1")
    past.close()
    WebClient(token="xoxb-test", base_url=standin.api_url).chat_postMessage(
        channel="C1", text="digest", metadata={"event_type": METADATA_EVENT, "event_payload": {"key": "/".join(key)}}
    )
    return sub, key


@pytest.mark.parametrize(
    "scopes, outcome, posts",
    [
        (None, Outcome.RECOVERED, 1),  # the manifest's scopes: found in history, not posted again
        ("commands,chat:write,im:write,users:read,channels:read,groups:read", Outcome.SENT, 2),
    ],
)
def test_recovery_after_a_crash_needs_the_history_scope_the_manifest_ships(
    sqlite_url, holder, scopes, outcome, posts
) -> None:
    with SlackStandIn(team_id=TEAM, scopes=scopes) as standin:
        runtime = make_runtime(sqlite_url, standin, holder)
        try:
            sub, key = _stale_claim_with_a_landed_post(sqlite_url, standin, runtime)
            d = Deliverer(runtime, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=None), stale_after_s=60)
            assert d.deliver_subscription(sub.id, FIRE).outcome is outcome
            assert len([c for c in standin.calls("chat.postMessage") if c.ok]) == posts
            assert runtime.store.delivery(*key).status == "sent"
        finally:
            runtime.store.close()
