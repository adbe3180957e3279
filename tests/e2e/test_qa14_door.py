"""QA round 14 through the real HTTP door (signed requests, the Slack stand-in, the real store and
catalog): ``subscribe`` when the channel check or the announcement fails, *Open path*'s modal
(no *Share*, an expired trigger), *Remind* on a gone post or track, *Share to channel* twice, and
who may *Snooze* a channel digest."""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import replace
from typing import Any

import pytest

from tests.e2e.helpers import CHANNEL, OWNER_BYSTANDER_ADMIN, TEAM, iter_elements
from tests.standin import SlackStandIn
from tests.waits import PATIENCE_S

USERS = OWNER_BYSTANDER_ADMIN


@pytest.fixture
def standin():
    channel = {"id": CHANNEL, "name": "e2e", "is_channel": True, "is_private": False, "is_member": True}
    with SlackStandIn(team_id=TEAM, channels=[channel], users=USERS) as s:
        yield s


def _posted(standin: SlackStandIn) -> list[Any]:
    return [c for c in standin.calls("chat.postMessage") if c.args.get("channel") == CHANNEL]


def _view(call: Any) -> dict[str, Any]:
    view = call.args.get("view")
    return json.loads(view) if isinstance(view, str) else view


def _action_ids(blocks: list[dict[str, Any]]) -> list[str]:
    return [str(el.get("action_id")) for el, _ in iter_elements(blocks)]


# 1. subscribe: the channel check cannot be made, the announcement refused


@pytest.mark.parametrize(
    "faults",
    [
        {"method_errors": {"conversations.info": "ratelimited"}},
        {"server_error_every": 1, "fault_methods": frozenset({"conversations.info"})},
    ],
    ids=["ratelimited", "http-500"],
)
def test_subscribe_when_the_channel_cannot_be_checked_stores_nothing(slack, standin, runtime, faults):
    standin.configure(**faults)
    text = slack.ask("subscribe spec", timeout=60).body["text"]
    assert "Try again in a moment" in text, text
    assert "now gets" not in text and "ratelimited" not in text and "error" not in text.casefold()
    assert runtime.store.subscriptions(TEAM, CHANNEL) == []
    assert _posted(standin) == []


def test_subscribe_whose_announcement_is_refused_not_in_channel_is_undone_and_asks_for_an_invite(
    slack, standin, runtime
):
    standin.configure(method_errors={"chat.postMessage": "not_in_channel"})
    text = slack.ask("subscribe spec friday").body["text"]
    assert "/invite @vllm-path" in text and "`/vllm-path subscribe spec friday` again" in text, text
    assert "now gets" not in text
    assert runtime.store.subscriptions(TEAM, CHANNEL) == []
    standin.configure(method_errors={})
    assert "now gets" in slack.ask("subscribe spec").body["text"]  # after the invite: set up
    assert [s.track_id for s in runtime.store.subscriptions(TEAM, CHANNEL)] == ["spec"]


# 2, 3. Open path from App Home: no Share in the modal; a click without response_url; expired trigger


def _home_view(slack, standin) -> dict[str, Any]:
    slack.ask("follow spec")
    slack.open_home()
    return _view(standin.wait_for(lambda: standin.calls("views.publish")[-1:], timeout=PATIENCE_S)[0])


def _wait_log(caplog, words: str) -> list[logging.LogRecord]:
    def found() -> list[logging.LogRecord]:
        return [r for r in caplog.records if words in r.getMessage()]

    import time

    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        if hits := found():
            return hits
        time.sleep(0.05)
    raise TimeoutError(words)


def test_open_path_modal_has_no_share_and_a_share_click_in_a_modal_does_not_raise(slack, standin, caplog):
    caplog.set_level(logging.INFO)
    home = _home_view(slack, standin)
    assert slack.click_in_view(home, "open_path:").status == 200
    modal = _view(standin.wait_for_call("views.open", timeout=PATIENCE_S))
    ids = _action_ids(modal["blocks"])
    assert any(i.startswith("mark_read:") for i in ids), ids
    assert not any(i.startswith("share:") for i in ids), ids
    # an old modal (drawn before this fix) still showing Share: clicked, no response_url to answer on
    track = slack.ask("spec").body
    old_modal = {**modal, "id": "V0OLD", "blocks": track["blocks"]}
    assert slack.click_in_view(old_modal, "share:").status == 200
    _wait_log(caplog, "without a response_url")
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not [c for c in standin.calls("chat.postMessage") if c.args.get("channel") == CHANNEL]


def test_open_path_with_an_expired_trigger_logs_one_line_without_a_traceback(slack, standin, caplog):
    caplog.set_level(logging.INFO)
    home = _home_view(slack, standin)
    standin.configure(method_errors={"views.open": "expired_trigger_id"})
    assert slack.click_in_view(home, "open_path:").status == 200
    [line] = _wait_log(caplog, "expired_trigger_id")
    assert line.exc_info is None and "xoxb" not in line.getMessage()
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


# 4. Remind on a post or track the catalog no longer has


@pytest.mark.parametrize(
    "value",
    ['{"p":"../../etc","t":"spec","v":"track:spec"}', '{"t":"nonexistent","v":"track:nonexistent"}'],
)
def test_remind_on_a_gone_post_or_track_says_out_of_date(slack, standin, value):
    element = {"type": "button", "action_id": "remind:0", "text": {"type": "plain_text", "text": "x"}, "value": value}
    message = {"blocks": [{"type": "actions", "block_id": "b0", "elements": [element]}]}
    _, url = slack.click(message, "remind:")
    body = standin.wait_for_response(url, timeout=PATIENCE_S).body
    assert "out of date" in body["text"], body["text"]
    assert "went wrong" not in json.dumps(body)
    assert len(body.get("blocks") or []) <= 2


# 5. Share to channel clicked twice


@pytest.mark.parametrize("together", [True, False], ids=["at-once", "later"])
def test_share_clicked_twice_posts_once(slack, standin, together):
    track = slack.ask("spec").body
    urls: list[str] = []

    def click() -> None:
        urls.append(slack.click(track, "share:")[1])

    if together:
        threads = [threading.Thread(target=click) for _ in range(2)]
        [t.start() for t in threads]
        [t.join() for t in threads]
    else:
        click()
        standin.wait_for_response(urls[0], timeout=PATIENCE_S)
        click()
    answers = [standin.wait_for_response(u, timeout=PATIENCE_S).body for u in urls]
    shared = [a for a in answers if a.get("response_type") == "in_channel"]
    assert len(shared) == 1, [a.get("text") for a in answers]
    [again] = [a for a in answers if a.get("response_type") != "in_channel"]
    assert "shared this to the channel already" in again["text"]
    assert again.get("replace_original") is False


# 6. Snooze a week on a channel digest: who set it up, or an admin


def _digest_message(sub_id: int) -> dict[str, Any]:
    value = json.dumps({"v": f"digest:{sub_id}"})
    element = {"type": "button", "action_id": "snooze:1", "text": {"type": "plain_text", "text": "s"}, "value": value}
    return {"blocks": [{"type": "actions", "block_id": "digest", "elements": [element]}]}


def test_snooze_by_someone_else_is_refused_and_an_admin_may(slack, standin, runtime):
    slack.ask("subscribe spec")
    [sub] = runtime.store.subscriptions(TEAM, CHANNEL)
    announced = len([c for c in _posted(standin) if c.response.get("ok")])
    bob = replace(slack, user="U0BOB")
    _, url = bob.click(_digest_message(sub.id), "snooze:", ephemeral=False)
    answer = standin.wait_for_response(url, timeout=PATIENCE_S).body
    assert answer["text"] == "Only the person who set up this digest (Ana) or a workspace admin can snooze it."
    assert answer.get("response_type", "ephemeral") == "ephemeral"
    fire = sub.schedule.next_fire(runtime.store.now())
    assert fire is not None
    assert runtime.store.delivery(TEAM, CHANNEL, "spec", sub.schedule.period_of(fire)) is None  # not skipped
    assert len([c for c in _posted(standin) if c.response.get("ok")]) == announced  # nobody told
    admin = replace(slack, user="U0ADM")
    _, url = admin.click(_digest_message(sub.id), "snooze:", ephemeral=False)
    assert "skips its next one" in standin.wait_for_response(url, timeout=PATIENCE_S).body["text"]
    assert runtime.store.delivery(TEAM, CHANNEL, "spec", sub.schedule.period_of(fire)) is not None
