"""An org-wide (Enterprise Grid) install in the store, and what an ``app_uninstalled`` of it must
leave behind; shared by the Grid identity and the org-wide event tests."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from slack_sdk.oauth.installation_store import Installation

from bot.store import Store
from tests.waits import wait_until

CLIENT_ID = "111.222"


def save_org_wide_install(store: Store, enterprise_id: str) -> None:
    """The installation of an org-wide app: an enterprise, no team."""
    store.installation_store(CLIENT_ID).save(
        Installation(
            app_id="A0REL",
            enterprise_id=enterprise_id,
            team_id=None,
            is_enterprise_install=True,
            bot_token="xoxb-org-wide",
            bot_id="B0ORG",
            bot_user_id="U0ORGBOT",
            bot_scopes="commands",
            user_id="U0ADMIN",
            installed_at=time.time(),
        )
    )


def assert_org_wide_uninstalled(store: Store, enterprise_id: str, subscription_id: int, dm_user: str) -> None:
    """Waits until the subscription is paused; then the reader's DM is paused too and the
    org-wide installation is gone."""
    wait_until(lambda: not store.get_subscription(subscription_id).active)
    assert store.get_dm(enterprise_id, dm_user).status == "paused"
    installations = store.installation_store(CLIENT_ID)
    assert installations.find_bot(enterprise_id=enterprise_id, team_id=None, is_enterprise_install=True) is None


def org_wide_body(event: dict[str, Any], org: str, app_id: str = "A0REL", bot_user: str = "U0ORGBOT") -> bytes:
    """An ``event_callback`` body of an org-wide install of ``org``: no outer ``team_id``."""
    return json.dumps(
        {
            "token": "verification-token-unused",
            "enterprise_id": org,
            "api_app_id": app_id,
            "event": event,
            "type": "event_callback",
            "event_id": f"Ev{uuid.uuid4().hex[:10].upper()}",
            "event_time": int(time.time()),
            "authorizations": [
                {
                    "enterprise_id": org,
                    "team_id": None,
                    "user_id": bot_user,
                    "is_bot": True,
                    "is_enterprise_install": True,
                }
            ],
            "is_ext_shared_channel": False,
            "event_context": f"4-{uuid.uuid4().hex}",
        }
    ).encode()
