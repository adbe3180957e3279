"""Issue 13: a button from a message an earlier catalog drew (a track renamed, a post dropped)
answers with today's equivalent by track alias, or says plainly that the message is out of date
and keeps the message; never the generic "Something went wrong". Through the real HTTP door."""

from __future__ import annotations

import json

from bot.slack.i18n import t
from bot.slack.views.blocks import encode_value
from tests.e2e.slack_requests import signed_post
from tests.reliability.conftest import SIGNING_SECRET
from tests.standin import block_actions_body
from tests.waits import PATIENCE_S


def _click(door, standin, action_id: str, value: dict[str, str]):
    url = standin.response_url()
    action = {
        "type": "button",
        "block_id": "b1",
        "action_id": action_id,
        "text": {"type": "plain_text", "text": "x"},
        "value": encode_value(value),
    }
    body = block_actions_body(
        action,
        message_ts="1700000000.000100",
        is_ephemeral=True,
        response_url=url,
        user_id="U0OLD",
        team_id="T0OLD",
        channel_id="C0OLD",
    )
    assert signed_post(door.url + "/slack/events", body, SIGNING_SECRET).status == 200
    return standin.wait_for_response(url, timeout=PATIENCE_S).body


def test_a_button_for_a_dropped_post_says_the_message_is_out_of_date_and_keeps_it(door, standin, door_runtime) -> None:
    body = _click(door, standin, "mark_read:gone", {"p": "a-post-dropped-long-ago", "v": "track:a-track-renamed-away"})
    assert body["replace_original"] is False
    assert body["text"] == str(t("error.outdated"))
    assert str(t("error.generic")) not in json.dumps(body)
    assert door_runtime.store.read_posts("T0OLD", "U0OLD") == set()


def test_a_button_naming_a_track_by_its_former_id_acts_on_todays_track(door, standin, door_runtime) -> None:
    catalog = door_runtime.holder.catalog
    track = next(tr for tr in catalog.tracks if any(a != tr.id for a in tr.aliases))
    former = next(a for a in track.aliases if a != track.id)
    body = _click(door, standin, f"follow:{former}", {"t": former, "v": f"track:{former}"})
    assert door_runtime.store.follows("T0OLD", "U0OLD") == [track.id]
    # QA round 18: *Follow track* under a path answers in a new message, the path kept (it replaced it before)
    assert body["replace_original"] is False and str(t("error.outdated")) not in body["text"]
