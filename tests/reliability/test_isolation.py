"""Workspace isolation: two teams whose channel and user ids are the same see only their own
progress, follows, subscriptions, DM settings and language; an uninstall (``app_uninstalled``,
``tokens_revoked`` with bot tokens) removes that team's tokens and pauses its digests, and
touches no other team. Through the real HTTP door, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import time

import pytest
from slack_sdk.oauth.installation_store import Installation

from bot.slack.i18n import t
from tests.e2e.helpers import FakeSlack, find_button
from tests.reliability.conftest import SIGNING_SECRET
from tests.waits import PATIENCE_S

TEAM_A, TEAM_B = "T0ALPHA", "T0BRAVO"
USER, CHANNEL = "U0SAME", "C0SAME"
CLIENT_ID = "111.222"


@pytest.fixture
def teams(door, standin, door_runtime):
    def make(team: str) -> FakeSlack:
        return FakeSlack(door.url, standin, door_runtime, secret=SIGNING_SECRET, team=team, user=USER, channel=CHANNEL)

    return make(TEAM_A), make(TEAM_B)


def _install(store, team: str, token: str) -> None:
    store.installation_store(CLIENT_ID).save(
        Installation(
            app_id="A0REL",
            team_id=team,
            bot_token=token,
            bot_id=f"B{team}",
            bot_user_id=f"U{team}",
            bot_scopes="commands,chat:write",
            user_id=USER,
            installed_at=time.time(),
        )
    )


def test_two_teams_with_the_same_ids_see_only_their_own_state(teams):
    a, b = teams
    store = a.runtime.store
    a.ask("follow pd")
    a.ask("read p-eagle")
    a.ask("subscribe spec monday 09:00 UTC")
    a.ask("dm on friday 08:30 UTC")
    a.ask("lang zh")

    assert store.follows(TEAM_B, USER) == []
    assert store.read_posts(TEAM_B, USER) == set()
    assert store.subscriptions(TEAM_B) == []
    assert store.get_dm(TEAM_B, USER) is None
    assert store.get_lang(TEAM_B, USER) is None

    # What team B is told: nothing followed, no digest here, English, no progress.
    assert b.ask("next").body["text"] == t("next.none_followed")
    assert b.ask("subscriptions").body["text"] == t("subs.none")
    spec_b = b.ask("speculative").body
    assert "0 of" in str(spec_b["blocks"]) and "Follow" in str(spec_b["blocks"])
    assert "has no" in b.ask("unsubscribe spec").body["text"]
    assert [s.status for s in store.subscriptions(TEAM_A)] == ["active"]  # A's is untouched

    # Team B acts on its own; A's state is unchanged.
    b.ask("follow spec")
    b.ask("read p-eagle")
    b.ask("unread p-eagle")
    assert store.follows(TEAM_A, USER) == ["pd"]
    assert store.follows(TEAM_B, USER) == ["spec"]
    assert store.read_posts(TEAM_A, USER) != set()
    assert store.read_posts(TEAM_B, USER) == set()
    assert store.get_lang(TEAM_A, USER) == "zh"


def test_a_click_from_one_team_changes_only_that_team(teams):
    a, b = teams
    store = a.runtime.store
    reply = a.ask("pd").body
    find_button(reply["blocks"], "mark_read:")  # there is a Mark read button to click
    _, url = b.click(reply, "mark_read:")  # the same button value, clicked in team B
    b.standin.wait_for_response(url, timeout=PATIENCE_S)
    assert store.read_posts(TEAM_A, USER) == set()
    assert len(store.read_posts(TEAM_B, USER)) == 1


def test_app_home_lists_only_the_own_teams_digests(teams, standin):
    a, b = teams
    a.ask("subscribe spec monday 09:00 UTC")
    standin.channels = [{"id": CHANNEL, "name": "same", "is_channel": True, "is_member": True}]
    b.open_home()
    view = standin.wait_for_call("views.publish", timeout=PATIENCE_S).args["view"]
    assert f"<#{CHANNEL}>" not in str(view)
    a.open_home()
    view = standin.wait_for_call("views.publish", count=2, timeout=PATIENCE_S).args["view"]
    assert f"<#{CHANNEL}>" in str(view)


@pytest.mark.parametrize(
    "event",
    [
        {"type": "app_uninstalled"},
        {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UBOT"]}},
    ],
    ids=["app_uninstalled", "tokens_revoked"],
)
def test_an_uninstall_removes_that_teams_tokens_and_pauses_only_its_digests(teams, event):
    a, b = teams
    store = a.runtime.store
    _install(store, TEAM_A, "xoxb-team-a-token")
    _install(store, TEAM_B, "xoxb-team-b-token")
    a.ask("subscribe spec monday 09:00 UTC")
    a.ask("dm on")
    a.ask("follow pd")
    b.ask("subscribe spec monday 09:00 UTC")
    b.ask("dm on")

    assert a.event(dict(event, event_ts=f"{time.time():.6f}")).status == 200
    a.standin.wait_for(lambda: store.subscriptions(TEAM_A)[0].status == "paused", timeout=PATIENCE_S)

    installs = store.installation_store(CLIENT_ID)
    assert installs.find_bot(enterprise_id=None, team_id=TEAM_A) is None
    assert installs.find_installation(enterprise_id=None, team_id=TEAM_A) is None
    assert store.get_dm(TEAM_A, USER).status == "paused"
    assert store.subscriptions(TEAM_A)[0].pause_reason
    # Team B keeps its token and its digests.
    assert installs.find_bot(enterprise_id=None, team_id=TEAM_B).bot_token == "xoxb-team-b-token"
    assert [s.status for s in store.subscriptions(TEAM_B)] == ["active"]
    assert store.get_dm(TEAM_B, USER).status == "active"
    # Progress and follows survive (a reinstall picks up where it left off).
    assert store.follows(TEAM_A, USER) == ["pd"]


def test_revoking_only_user_tokens_changes_nothing(teams):
    a, _ = teams
    store = a.runtime.store
    _install(store, TEAM_A, "xoxb-team-a-token")
    a.ask("subscribe spec monday 09:00 UTC")
    assert (
        a.event(
            {"type": "tokens_revoked", "tokens": {"oauth": [USER], "bot": []}, "event_ts": f"{time.time():.6f}"}
        ).status
        == 200
    )
    time.sleep(0.6)
    assert [s.status for s in store.subscriptions(TEAM_A)] == ["active"]
    assert store.installation_store(CLIENT_ID).find_bot(enterprise_id=None, team_id=TEAM_A)
