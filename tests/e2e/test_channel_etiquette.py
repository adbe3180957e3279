"""Private channels and channel etiquette, end to end through the HTTP door: ``subscribe`` checks
that the bot can post (conversations.info, answered by the stand-in as Slack does), each change
of a channel's digest is announced there in one line naming the person, and only the person who
set a digest up or a workspace admin may stop or remove it."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from tests.e2e.helpers import CHANNEL, OWNER_BYSTANDER_ADMIN
from tests.standin import SlackStandIn
from tests.waits import PATIENCE_S

PRIVATE = "G0PRIV"  # private, the bot is not a member: Slack hides it (channel_not_found)
PUBLIC_OUT = "C0OUT"  # public, the bot is not a member (no channels:join in the manifest)
UNKNOWN = "C0GONE"  # not a channel the bot can see at all

USERS = OWNER_BYSTANDER_ADMIN


@pytest.fixture
def standin():
    channels = [
        {"id": CHANNEL, "name": "e2e", "is_channel": True, "is_private": False, "is_member": True},
        {"id": PRIVATE, "name": "secret", "is_channel": True, "is_private": True, "is_member": False},
        {"id": PUBLIC_OUT, "name": "lobby", "is_channel": True, "is_private": False, "is_member": False},
    ]
    with SlackStandIn(team_id="T0E2E", channels=channels, users=USERS) as s:
        yield s


def _announcements(standin: SlackStandIn, channel: str) -> list[str]:
    return [
        c.args.get("text", "")
        for c in standin.calls("chat.postMessage")
        if c.args.get("channel") == channel and c.response.get("ok")
    ]


def _wait_announced(standin: SlackStandIn, channel: str, n: int) -> list[str]:
    def enough() -> list[str]:
        lines = _announcements(standin, channel)
        return lines if len(lines) >= n else []

    return standin.wait_for(enough, timeout=PATIENCE_S)


@pytest.mark.parametrize("channel", [PRIVATE, PUBLIC_OUT, UNKNOWN])
def test_subscribe_where_the_bot_cannot_post_asks_for_an_invite_and_stores_nothing(slack, standin, runtime, channel):
    where = replace(slack, channel=channel)
    reply = where.ask("subscribe spec monday 9am").body
    assert reply.get("response_type", "ephemeral") == "ephemeral"
    assert "/invite @vllm-path" in reply["text"]
    assert "`/vllm-path subscribe spec monday 9am` again" in reply["text"]  # (QA) as typed, day and time too
    assert "now gets" not in reply["text"]
    assert runtime.store.subscriptions(slack.team, channel) == []
    assert [c for c in standin.calls("conversations.info") if c.args.get("channel") == channel]
    assert _announcements(standin, channel) == []


def test_subscribe_after_the_invite_stores_and_announces_by_name(slack, standin, runtime):
    where = replace(slack, channel=PRIVATE)
    assert "/invite" in where.ask("subscribe spec").body["text"]
    standin.channels[1]["is_member"] = True  # someone ran /invite @vllm-path
    reply = where.ask("subscribe spec monday 09:00 Europe/Berlin").body
    assert "now gets" in reply["text"]
    [sub] = runtime.store.subscriptions(slack.team, PRIVATE)
    assert sub.status == "active"
    [line] = _wait_announced(standin, PRIVATE, 1)
    assert line == (
        "Ana subscribed this channel to the weekly Speculative decoding digest (Mondays 09:00 Europe/Berlin)."
    )
    assert "<@" not in line and "<!" not in line and "U0E2E" not in line


def test_each_change_is_one_line_and_a_same_subscribe_is_silent(slack, standin, runtime):
    slack.ask("subscribe spec monday 09:00 Europe/Berlin")
    _wait_announced(standin, CHANNEL, 1)
    slack.ask("subscribe spec monday 09:00 Europe/Berlin")  # nothing changes: no line
    slack.ask("subscribe spec friday 10:00 Europe/Berlin")
    lines = _wait_announced(standin, CHANNEL, 2)
    slack.ask("unsubscribe spec")
    lines = _wait_announced(standin, CHANNEL, 3)
    assert lines == [
        "Ana subscribed this channel to the weekly Speculative decoding digest (Mondays 09:00 Europe/Berlin).",
        "Ana moved this channel's weekly Speculative decoding digest to Fridays 10:00 Europe/Berlin.",
        "Ana unsubscribed this channel from the weekly Speculative decoding digest.",
    ]


def test_unsubscribe_by_someone_else_is_refused_and_an_admin_may(slack, standin, runtime):
    slack.ask("subscribe spec")
    bob = replace(slack, user="U0BOB")
    refused = bob.ask("unsubscribe spec").body["text"]
    assert refused == "Only the person who set up this digest (Ana) or a workspace admin can stop it."
    assert len(runtime.store.subscriptions(slack.team, CHANNEL)) == 1
    admin = replace(slack, user="U0ADM")
    assert "no longer gets" in admin.ask("unsubscribe spec").body["text"]
    assert runtime.store.subscriptions(slack.team, CHANNEL) == []
    assert _wait_announced(standin, CHANNEL, 2)[-1] == (
        "Ada unsubscribed this channel from the weekly Speculative decoding digest."
    )


def _digest_message(sub_id: int, kind: str) -> dict:
    """A digest message as it reached the channel, reduced to its *Snooze* / *Stop* button."""
    return {
        "blocks": [
            {
                "type": "actions",
                "block_id": "digest",
                "elements": [
                    {
                        "type": "button",
                        "action_id": f"{kind}:1",
                        "text": {"type": "plain_text", "text": kind},
                        "value": json.dumps({"v": f"digest:{sub_id}"}),
                    }
                ],
            }
        ]
    }


def test_stop_button_by_someone_else_is_refused_by_the_subscriber_works(slack, standin, runtime):
    slack.ask("subscribe spec")
    [sub] = runtime.store.subscriptions(slack.team, CHANNEL)
    bob = replace(slack, user="U0BOB")
    _, url = bob.click(_digest_message(sub.id, "stop"), "stop:", ephemeral=False)
    answer = standin.wait_for_response(url, timeout=PATIENCE_S).body["text"]
    assert answer == "Only the person who set up this digest (Ana) or a workspace admin can stop it."
    [still] = runtime.store.subscriptions(slack.team, CHANNEL)
    assert still.status == "active"

    _, url = slack.click(_digest_message(sub.id, "stop"), "stop:", ephemeral=False)
    standin.wait_for_response(url, timeout=PATIENCE_S)
    [stopped] = runtime.store.subscriptions(slack.team, CHANNEL)
    assert stopped.status == "paused"
    assert _wait_announced(standin, CHANNEL, 2)[-1] == (
        "Ana stopped this channel's weekly Speculative decoding digest."
    )
    listed = slack.ask("subscriptions").body
    text = json.dumps(listed)
    assert "stopped by Ana" in text and "U0E2E" not in text


def test_snooze_is_announced_and_a_failed_announcement_does_not_fail_the_command(slack, standin, runtime):
    slack.ask("subscribe spec")
    [sub] = runtime.store.subscriptions(slack.team, CHANNEL)
    admin = replace(slack, user="U0ADM")  # who set it up or an admin may snooze (QA round 14)
    _, url = admin.click(_digest_message(sub.id, "snooze"), "snooze:", ephemeral=False)
    assert "Speculative decoding" in standin.wait_for_response(url, timeout=PATIENCE_S).body["text"]
    assert _wait_announced(standin, CHANNEL, 2)[-1].startswith("Ada snoozed this channel's Speculative decoding digest")
    # the bot is removed from the channel afterwards: the post is refused, the command still answers
    standin.channels[0]["is_member"] = False
    standin.channels[0]["is_private"] = False
    reply = slack.ask("unsubscribe spec").body["text"]
    assert "no longer gets" in reply
    assert standin.wait_for(
        lambda: [
            c
            for c in standin.calls("chat.postMessage")
            if c.args.get("channel") == CHANNEL and c.response.get("error") == "not_in_channel"
        ],
        timeout=10,
    )


def test_help_says_who_may_stop_a_digest(slack):
    assert "the person who set it up, or a workspace admin" in json.dumps(slack.ask("help").body)


def test_moving_someone_elses_digest_is_refused_the_same_subscribe_is_fine_and_an_admin_may(slack, standin, runtime):
    """Changing a digest's schedule or steps is for those who may stop it; a subscribe that
    changes nothing answers anyone."""
    slack.ask("subscribe spec monday 09:00 Europe/Berlin")
    bob = replace(slack, user="U0BOB")
    refused = bob.ask("subscribe spec sunday 08:00").body["text"]
    assert refused == ("Only the person who set up this digest (Ana) or a workspace admin can change its schedule.")
    changed = "Only the person who set up this digest (Ana) or a workspace admin can change it."
    assert bob.ask("subscribe spec 2 steps").body["text"] == changed  # not its schedule (QA)
    [sub] = runtime.store.subscriptions(slack.team, CHANNEL)
    assert (sub.schedule.weekday, sub.schedule.at_time, sub.steps_per_week) == (0, "09:00", 1)
    assert "already" in bob.ask("subscribe spec").body["text"]
    admin = replace(slack, user="U0ADM")
    assert "Fridays" in admin.ask("subscribe spec friday 10:00").body["text"]
    [moved] = runtime.store.subscriptions(slack.team, CHANNEL)
    assert moved.schedule.weekday == 4


def test_a_second_snooze_of_the_same_digest_is_answered_privately_and_announced_once(slack, standin, runtime):
    """QA round 8: three clicks on one digest's Snooze posted three identical announcements."""
    slack.ask("subscribe spec")
    [sub] = runtime.store.subscriptions(slack.team, CHANNEL)
    _, url = slack.click(_digest_message(sub.id, "snooze"), "snooze:", ephemeral=False)
    standin.wait_for_response(url, timeout=PATIENCE_S)
    announced = _wait_announced(standin, CHANNEL, 2)
    admin = replace(slack, user="U0ADM")
    _, again = admin.click(_digest_message(sub.id, "snooze"), "snooze:", ephemeral=False)
    answer = standin.wait_for_response(again, timeout=PATIENCE_S).body
    assert "already snoozed" in answer["text"] and answer.get("response_type", "ephemeral") == "ephemeral"
    assert _announcements(standin, CHANNEL) == announced  # the subscribe's line and one snooze line
