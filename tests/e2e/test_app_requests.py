"""Requests about the app itself, end to end through the HTTP door (signed requests, the stand-in
Slack, the real store and catalog): none gets the off-topic refusal ("the catalog is about vLLM");
what the app does gets the help, a command word whose arguments did not parse gets that command's
usage, ``stop <words>`` naming nothing gets the track list; ``dm`` with words it does not read
(``dm off 2 weeks``, ``dm on <!channel>``) changes nothing and says so, ``dm pause`` skips a week;
two budgets name the second; a non-owner changing a digest's budget or club is told "change it",
not "its schedule"."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.e2e.helpers import CHANNEL, TEAM, block_texts
from tests.standin import SlackStandIn

OFF_TOPIC = ("the catalog is about vLLM", "目录只收", "No post answers", "No post matches")
USERS = {"U0E2E": {"real_name": "Ana Lima", "display_name": "Ana"}, "U0BOB": {"display_name": "Bob"}}


@pytest.fixture
def standin():
    """The stand-in Slack with the test's channel (the app a member) and two people."""
    channel = {"id": CHANNEL, "name": "e2e", "is_channel": True, "is_private": False, "is_member": True}
    with SlackStandIn(team_id=TEAM, channels=[channel], users=USERS) as s:
        yield s


def _text(slack, words: str) -> str:
    """The reply to ``/vllm-path words`` as one string: its fallback text and its blocks."""
    body = slack.ask(words).body
    return str(body.get("text", "")) + "\n" + block_texts(body.get("blocks") or [])


@pytest.mark.parametrize(
    "words, expected",
    [
        ("what can you do", "`/vllm-path follow pd`"),
        ("how do I use this", "`/vllm-path follow pd`"),
        ("home", "then its *Home* tab"),  # QA round 18: one line on how to open App Home
        ("怎么用", "`/vllm-path follow pd`"),
        ("你能做什么", "`/vllm-path follow pd`"),
        ("cancel 1", "`/vllm-path reminders cancel 1`"),
        ("取消 1", "`/vllm-path reminders cancel 1`"),
        ("stop nosuchtrack", "No track matches “nosuchtrack”. Tracks: `agentic`"),
        ("snooze 2 weeks", "*Snooze a week*"),
        ("snooze spec", "*Snooze a week*"),
        ("pause", "What would you like to stop?"),
        ("stop all", "What would you like to stop?"),
        ("opt out", "What would you like to stop?"),
        ("pause dm", "`/vllm-path dm on` turns it on"),
        ("digest", "[weekday] [HH:MM] [time zone]` sets one up"),
        ("digest spec", "[weekday] [HH:MM] [time zone]` sets one up"),
    ],
)
def test_a_request_about_the_app_gets_help_or_usage_never_the_off_topic_refusal(slack, words, expected):
    reply = _text(slack, words)
    assert expected in reply, reply
    assert not any(refusal in reply for refusal in OFF_TOPIC), reply


def test_stop_with_a_word_the_catalog_knows_still_searches(slack):
    reply = _text(slack, "stop tokens")
    assert "stop tokens" in reply and "What would you like to stop" not in reply, reply


def test_dm_with_words_it_does_not_read_changes_nothing_and_says_what_it_accepts(slack, runtime):
    slack.ask("dm on friday 08:30")
    reply = _text(slack, "dm off 2 weeks")
    assert "I didn't understand “2 weeks”, so nothing changed." in reply, reply
    assert "`/vllm-path dm pause` skips one week" in reply, reply
    assert runtime.store.get_dm(slack.team, slack.user).enabled  # still on
    assert "I didn't understand “foo”" in _text(slack, "dm foo")
    mention = slack.ask("dm on <!channel>").body["text"]  # escaped: no @channel ping
    assert mention.startswith("I didn't understand “&lt;!channel&gt;”, so nothing changed."), mention
    assert runtime.store.get_dm(slack.team, slack.user).weekday == 4  # still friday
    paused = _text(slack, "dm pause")
    assert paused.startswith("Paused: your weekly DM of Friday "), paused
    assert runtime.store.get_dm(slack.team, slack.user).snoozed_until is not None
    assert "Your weekly DM is already paused" in _text(slack, "dm snooze")  # a second pause says so (QA)


def test_two_budgets_name_the_second_not_the_time(slack, runtime):
    reply = _text(slack, "dm on friday 08:30 30m 1h")
    assert "“1h” is a second reading time" in reply and "`/vllm-path dm on friday 08:30 30m`" in reply, reply
    assert "08:30" not in reply.split("e.g.")[0], reply
    assert runtime.store.get_dm(slack.team, slack.user) is None  # nothing set


@pytest.mark.parametrize("change", ["subscribe spec monday 30m", "subscribe spec club"])
def test_a_non_owner_changing_a_budget_or_club_is_told_change_it(slack, change):
    slack.ask("subscribe spec monday 09:00 Europe/Berlin")
    bob = replace(slack, user="U0BOB")
    reply = bob.ask(change).body["text"]
    assert reply == "Only the person who set up this digest (Ana) or a workspace admin can change it.", reply
    moved = bob.ask("subscribe spec sunday 08:00").body["text"]
    assert moved.endswith("can change its schedule."), moved
