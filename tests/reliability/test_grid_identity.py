"""Issue 13: one rule for "which team and which user" (Bolt's context), with the payload shapes
of Bolt's own tests for org-wide installs and Slack Connect, through the real HTTP door (signed
requests); org-wide and mismatched ``app_uninstalled``; a reinstall resumes with a note."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qs, urlencode

from slack_sdk import WebClient
from slack_sdk.oauth.installation_store import Installation

from bot.domain.schedule import WeeklySchedule
from bot.slack.installs import resume_after_install
from tests.e2e.helpers import ack_shown, find_button
from tests.e2e.slack_requests import signed_post
from tests.reliability.conftest import SIGNING_SECRET
from tests.reliability.org_wide import assert_org_wide_uninstalled, save_org_wide_install, wait_until
from tests.standin import event_body, slash_command_body
from tests.waits import PATIENCE_S

ORG, T111, T222, USER = "E111", "T111", "T222", "W111"


def _org_wide_command(text: str, response_url: str) -> bytes:
    """A slash command from an org-wide install (Bolt's test shape: enterprise_id set,
    is_enterprise_install=true)."""
    body = slash_command_body(
        text,
        team_id=T111,
        user_id=USER,
        channel_id="C111",
        response_url=response_url,
        enterprise_id=ORG,
        enterprise_name="Org",
    )
    fields = parse_qs(body.decode(), keep_blank_values=True)
    fields["is_enterprise_install"] = ["true"]
    return urlencode({k: v[0] for k, v in fields.items()}).encode()


def _org_wide_click(element: dict[str, Any], block_id: str, response_url: str) -> bytes:
    """A block_actions click in an org-wide install whose ``user.team_id`` (T222) differs from
    ``team.id`` (T111), as in Bolt's org-wide test payloads."""
    payload = {
        "type": "block_actions",
        "user": {"id": USER, "username": "reader", "name": "reader", "team_id": T222},
        "api_app_id": "A0REL",
        "token": "verification-token-unused",
        "trigger_id": "1.2.abc",
        "container": {"type": "message", "message_ts": "1700000000.000100", "channel_id": "C111", "is_ephemeral": True},
        "team": {"id": T111, "domain": "t111", "enterprise_id": ORG, "enterprise_name": "Org"},
        "enterprise": {"id": ORG, "name": "Org"},
        "is_enterprise_install": True,
        "channel": {"id": "C111", "name": "shared"},
        "state": {"values": {}},
        "response_url": response_url,
        "actions": [
            {
                "type": "button",
                "block_id": block_id,
                "action_id": element["action_id"],
                "text": element["text"],
                "value": element["value"],
                "action_ts": f"{time.time():.6f}",
            }
        ],
    }
    return urlencode({"payload": json.dumps(payload)}).encode()


def test_a_click_and_a_command_in_an_org_wide_install_keep_one_readers_progress(door, standin, door_runtime) -> None:
    url = door.url + "/slack/events"
    first_url = standin.response_url()
    acked = signed_post(url, _org_wide_command("speculative", first_url), SIGNING_SECRET)
    assert ack_shown(standin, acked, first_url).status == 200
    reply = standin.wait_for_response(first_url, timeout=PATIENCE_S).body
    element, block_id = find_button(reply["blocks"], "mark_read:")
    click_url = standin.response_url()
    assert signed_post(url, _org_wide_click(element, block_id, click_url), SIGNING_SECRET).status == 200
    standin.wait_for_response(click_url, timeout=PATIENCE_S)
    store = door_runtime.store
    read = store.read_posts(ORG, USER)
    assert len(read) == 1  # one record, under the org (the tenant of an org-wide install)
    assert store.read_posts(T111, USER) == set() and store.read_posts(T222, USER) == set()
    # The next /vllm-path speculative no longer offers the post just marked read as next.
    again_url = standin.response_url()
    ack_shown(standin, signed_post(url, _org_wide_command("speculative", again_url), SIGNING_SECRET), again_url)
    again = standin.wait_for_response(again_url, timeout=PATIENCE_S).body
    assert find_button(again["blocks"], "mark_read:")[0]["value"] != element["value"]


def _event(event: dict[str, Any], *, outer_team: str, authorization: dict[str, Any]) -> bytes:
    body = json.loads(event_body(event, team_id=outer_team))
    body["authorizations"] = [{"user_id": "U0BOT", "is_bot": True, **authorization}]
    return json.dumps(body).encode()


def test_an_uninstall_whose_outer_team_differs_from_its_authorizations_pauses_the_right_team(
    door, standin, door_runtime
) -> None:
    store = door_runtime.store
    mine = store.subscribe("T0MINE", "C0MINE", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    other = store.subscribe("T0OUTER", "C0OUTER", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    body = _event(
        {"type": "app_uninstalled", "event_ts": f"{time.time():.6f}"},
        outer_team="T0OUTER",
        authorization={"enterprise_id": None, "team_id": "T0MINE", "is_enterprise_install": False},
    )
    assert signed_post(door.url + "/slack/events", body, SIGNING_SECRET, json_body=True).status == 200
    wait_until(lambda: not store.get_subscription(mine.id).active)
    assert store.get_subscription(other.id).active


def test_an_org_wide_uninstall_cleans_up_without_an_exception(door, standin, door_runtime, caplog) -> None:
    store = door_runtime.store
    save_org_wide_install(store, ORG)
    sub = store.subscribe(ORG, "C0ORG", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    store.set_dm(ORG, USER, True)
    body = _event(
        {"type": "app_uninstalled", "event_ts": f"{time.time():.6f}"},
        outer_team=T111,
        authorization={"enterprise_id": ORG, "team_id": None, "is_enterprise_install": True},
    )
    assert signed_post(door.url + "/slack/events", body, SIGNING_SECRET, json_body=True).status == 200
    assert_org_wide_uninstalled(store, ORG, sub.id, USER)
    assert "ValueError" not in caplog.text and "failed" not in caplog.text


def test_a_reinstall_resumes_what_was_paused_for_auth_with_a_note(door_runtime, standin) -> None:
    store = door_runtime.store
    gone = store.subscribe("T0BACK", "C0BACK", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    token_err = store.subscribe("T0BACK", "C0AUTH", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    archived = store.subscribe("T0BACK", "C0ARCH", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    store.set_dm("T0BACK", "U0DM", True)
    store.remove_installation(None, "T0BACK")  # app_uninstalled: gone, the DM paused
    store.pause_subscription(token_err.id, "Slack error invalid_auth: the app's token is not valid")
    store.pause_subscription(archived.id, "Slack error is_archived: the channel is archived")

    installation = Installation(
        app_id="A0REL",
        team_id="T0BACK",
        bot_token="xoxb-back",
        bot_id="B0BACK",
        bot_user_id="U0BACKBOT",
        user_id="U0ADMIN",
        installed_at=time.time(),
    )
    client = WebClient(token="xoxb-back", base_url=standin.api_url)
    resumed = resume_after_install(door_runtime, installation, client)
    assert resumed.channels == ("C0AUTH", "C0BACK") and resumed.users == ("U0DM",)
    assert store.get_subscription(gone.id).active and store.get_subscription(token_err.id).active
    assert not store.get_subscription(archived.id).active  # not an auth problem: stays paused
    assert store.get_dm("T0BACK", "U0DM").status == "active"
    notes = {c.channel: c.args["text"] for c in standin.calls("chat.postMessage") if c.ok}
    assert set(notes) == {"C0AUTH", "C0BACK", standin.calls("conversations.open")[0].response["channel"]["id"]}
    assert all("installed again" in text and "<!" not in text and "<@" not in text for text in notes.values())
