"""slack_sdk's installation and OAuth-state stores on the migrated tables; uninstalling a team."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from slack_sdk.oauth.installation_store import Installation

from bot.domain.schedule import WeeklySchedule
from bot.store import UNINSTALLED, Store


def _installation(team: str, user: str = "UADMIN", token: str = "xoxb-1") -> Installation:
    return Installation(
        app_id="A1",
        enterprise_id=None,
        team_id=team,
        team_name=f"Team {team}",
        bot_token=token,
        bot_id="B1",
        bot_user_id="UBOT",
        bot_scopes="commands,chat:write",
        user_id=user,
        user_token="xoxp-1",
        user_scopes="identify",
        installed_at=datetime(2026, 11, 1, 12, 0, tzinfo=UTC).timestamp(),
    )


def test_installation_store_round_trip(store: Store) -> None:
    inst = store.installation_store()
    inst.save(_installation("T1"))
    inst.save(_installation("T2", token="xoxb-2"))
    found = inst.find_installation(enterprise_id=None, team_id="T1")
    assert found is not None
    assert (found.team_id, found.bot_token, found.user_id, found.team_name) == ("T1", "xoxb-1", "UADMIN", "Team T1")
    bot = inst.find_bot(enterprise_id=None, team_id="T2")
    assert bot is not None and bot.bot_token == "xoxb-2" and bot.bot_user_id == "UBOT"
    assert inst.find_bot(enterprise_id=None, team_id="T3") is None
    # Saving the same installation again updates in place rather than duplicating.
    inst.save(_installation("T1"))
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM slack_installations WHERE team_id = 'T1'").scalar() == 1


def test_installation_store_is_scoped_by_client_id(store: Store) -> None:
    store.installation_store().save(_installation("T1"))
    other = store.installation_store("OTHER_CLIENT")
    assert other.find_bot(enterprise_id=None, team_id="T1") is None
    assert store.installation_store() is store.installation_store("CLIENT1")


def test_installation_store_needs_a_client_id(store_url: str) -> None:
    with Store.from_url(store_url, migrate=False) as store, pytest.raises(ValueError):
        store.installation_store()


def test_oauth_state_store_issue_and_consume(store: Store) -> None:
    states = store.oauth_state_store(expiration_seconds=60)
    state = states.issue()
    assert states.consume(state) is True
    assert states.consume(state) is False
    assert states.consume("never-issued") is False


def test_remove_team_deletes_tokens_and_pauses_only_that_team(store: Store) -> None:
    inst = store.installation_store()
    inst.save(_installation("T1"))
    inst.save(_installation("T2", token="xoxb-2"))
    sub1 = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    sub1b = store.subscribe("T1", "C2", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    store.pause_subscription(sub1b.id, "channel archived")
    sub2 = store.subscribe("T2", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    store.set_dm("T1", "U1", True)
    store.set_dm("T2", "U1", True)
    store.mark_read("T1", "U1", ["a"])

    removed = store.remove_installation(None, "T1")
    assert (removed.installations_deleted, removed.bots_deleted) == (1, 1)
    assert (removed.subscriptions_paused, removed.dms_paused) == (1, 1)

    assert inst.find_installation(enterprise_id=None, team_id="T1") is None
    assert inst.find_bot(enterprise_id=None, team_id="T1") is None
    assert inst.find_bot(enterprise_id=None, team_id="T2") is not None
    s1 = store.get_subscription(sub1.id)
    assert s1 is not None and (s1.status, s1.pause_reason) == ("paused", UNINSTALLED)
    assert store.get_subscription(sub1b.id).pause_reason == "channel archived"  # type: ignore[union-attr]
    assert store.get_subscription(sub2.id).active  # type: ignore[union-attr]
    assert store.get_dm("T1", "U1").pause_reason == UNINSTALLED  # type: ignore[union-attr]
    assert [d.team_id for d in store.dm_recipients()] == ["T2"]
    assert store.read_posts("T1", "U1") == {"a"}  # progress survives a reinstall

    again = store.remove_installation(None, "T1")
    assert again == type(again)(0, 0, 0, 0)

    assert len(store.resume_after_install("T1")) == 2
    assert store.get_subscription(sub1.id).active  # type: ignore[union-attr]
    assert store.get_subscription(sub1b.id).status == "paused"  # type: ignore[union-attr]
    assert [d.team_id for d in store.dm_recipients()] == ["T1", "T2"]
