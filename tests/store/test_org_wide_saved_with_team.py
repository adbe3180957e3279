"""Issue 42: an org-wide (Enterprise Grid) installation saved with a team id (the workspace it was
installed from) is found by every lookup Bolt makes for an org-wide request: ``team_id`` None (an
event body has no outer team id) or another workspace's id (a command from elsewhere in the org),
``is_enterprise_install`` True; by the digests' lookup of the tenant (the enterprise); and it is
removed by an org-wide uninstall. A workspace install in the same org stays its own. SQLite and
PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from slack_sdk.oauth.installation_store import Installation

from bot.domain.schedule import WeeklySchedule
from bot.store import Store

CLIENT_ID = "4242.0001"
ORG, INSTALLED_FROM, ELSEWHERE, OWN_WS = "E0GRID42", "T0FROM42", "T0ELSE42", "T0OWN42"
ORG_TOKEN, WS_TOKEN = "xoxb-org-wide-42", "xoxb-own-workspace-42"


@pytest.fixture
def store(any_migrated_db_url: str) -> Iterator[Store]:
    with Store.from_url(any_migrated_db_url, client_id=CLIENT_ID) as s:
        yield s


def _save(store: Store, *, team_id: str | None, token: str, org_wide: bool, at: float) -> None:
    store.installation_store().save(
        Installation(
            app_id="A0GRID",
            enterprise_id=ORG,
            team_id=team_id,
            is_enterprise_install=org_wide,
            bot_token=token,
            bot_id="B0GRID",
            bot_user_id="U0GRIDBOT",
            bot_scopes="commands,chat:write",
            user_id="U0ADMIN",
            installed_at=at,
        )
    )


def test_every_org_wide_lookup_finds_the_install_saved_with_a_team_id(store: Store) -> None:
    now = time.time()
    _save(store, team_id=INSTALLED_FROM, token=ORG_TOKEN, org_wide=True, at=now - 10)
    _save(store, team_id=OWN_WS, token=WS_TOKEN, org_wide=False, at=now)  # newer, but a workspace's
    installs = store.installation_store()
    for team_id in (None, INSTALLED_FROM, ELSEWHERE):
        found = installs.find_installation(enterprise_id=ORG, team_id=team_id, is_enterprise_install=True)
        assert found is not None and found.bot_token == ORG_TOKEN, team_id
        bot = installs.find_bot(enterprise_id=ORG, team_id=team_id, is_enterprise_install=True)
        assert bot is not None and bot.bot_token == ORG_TOKEN, team_id
    mine = installs.find_installation(
        enterprise_id=ORG, team_id=INSTALLED_FROM, user_id="U0ADMIN", is_enterprise_install=True
    )
    assert mine is not None and mine.bot_token == ORG_TOKEN
    assert (
        installs.find_installation(enterprise_id=ORG, team_id=None, user_id="U0OTHER", is_enterprise_install=True)
        is None
    )
    # A workspace install of the same org is still found as its own, not as the org's.
    own = installs.find_installation(enterprise_id=ORG, team_id=OWN_WS, is_enterprise_install=False)
    assert own is not None and own.bot_token == WS_TOKEN
    # The digests' lookup: the tenant of an org-wide install is the enterprise.
    assert store.bot_token_for(ORG) == ORG_TOKEN and store.bot_token_for(OWN_WS) == WS_TOKEN


def test_the_newest_org_wide_install_wins_with_or_without_a_team_id(store: Store) -> None:
    now = time.time()
    _save(store, team_id=None, token="xoxb-older-org-wide", org_wide=True, at=now - 100)
    _save(store, team_id=INSTALLED_FROM, token=ORG_TOKEN, org_wide=True, at=now)
    found = store.installation_store().find_installation(enterprise_id=ORG, team_id=None, is_enterprise_install=True)
    assert found is not None and found.bot_token == ORG_TOKEN


def test_an_org_wide_uninstall_removes_the_install_saved_with_a_team_id(store: Store) -> None:
    now = time.time()
    _save(store, team_id=INSTALLED_FROM, token=ORG_TOKEN, org_wide=True, at=now - 10)
    _save(store, team_id=OWN_WS, token=WS_TOKEN, org_wide=False, at=now)
    sub = store.subscribe(ORG, "C0ORG42", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    removed = store.remove_installation(ORG, None, True)  # app_uninstalled of an org-wide install
    assert (removed.installations_deleted, removed.bots_deleted, removed.subscriptions_paused) == (1, 1, 1)
    assert not store.get_subscription(sub.id).active
    installs = store.installation_store()
    assert installs.find_installation(enterprise_id=ORG, team_id=None, is_enterprise_install=True) is None
    assert store.bot_token_for(ORG) is None and store.bot_token_for(OWN_WS) == WS_TOKEN
