"""Slack's retries: an event delivered again (``X-Slack-Retry-Num``, same ``event_id``) or a
command / click delivered twice — one after the other or both at once — changes nothing twice.

Progress, follows and subscriptions are idempotent writes; events are de-duplicated by id
(``Store.record_event``), App Home opens by the view already shown (``bot/slack/homes.py``).
Through the real HTTP door, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from tests.e2e.slack_requests import post
from tests.reliability.conftest import SIGNING_SECRET
from tests.reliability.dbstate import snapshot
from tests.standin import (
    block_actions_body,
    event_body,
    link_shared_event,
    signed_headers,
    slash_command_body,
)


def _deliver(slack, body: bytes, *, json_body: bool = False, retry: int = 0):
    ctype = "application/json" if json_body else "application/x-www-form-urlencoded"
    headers = signed_headers(body, SIGNING_SECRET, content_type=ctype)
    if retry:
        headers["X-Slack-Retry-Num"] = str(retry)
        headers["X-Slack-Retry-Reason"] = "http_timeout"
    return post(slack.events_url, body, headers)


def _settle(slack, seconds: float = 0.6) -> None:
    """Let lazy listeners finish (they answer within milliseconds here)."""
    time.sleep(seconds)


def _command_body(slack, text: str) -> tuple[bytes, str]:
    url = slack.standin.response_url()
    return slash_command_body(
        text, team_id=slack.team, user_id=slack.user, channel_id=slack.channel, response_url=url
    ), url


@pytest.mark.parametrize(
    "text",
    ["follow pd", "read p-eagle", "subscribe pd monday 09:00 UTC", "dm on friday 08:30 UTC", "lang zh", "unfollow pd"],
)
def test_a_command_delivered_twice_changes_nothing_twice(slack, text):
    store = slack.runtime.store
    slack.ask("follow pd")  # so that unfollow has something to undo once
    body, url = _command_body(slack, text)
    assert _deliver(slack, body).status == 200
    slack.standin.wait_for_response(url, timeout=10)
    after_first = snapshot(store)
    assert _deliver(slack, body, retry=1).status == 200
    second = slack.standin.wait_for_response(url, count=2, timeout=10)
    assert snapshot(store) == after_first
    assert "Something went wrong" not in second.body["text"]  # an idempotent write, not a clash


def test_the_second_delivery_says_nothing_changed(slack):
    first = slack.ask("follow pd").body["text"]
    again = slack.ask("follow pd").body["text"]
    assert first != again and "already" in again.lower()
    assert slack.runtime.store.follows(slack.team, slack.user) == ["pd"]


@pytest.mark.parametrize("text", ["follow pd", "read p-eagle", "subscribe pd monday 09:00 UTC"])
def test_simultaneous_duplicates_write_once_and_both_get_a_reply(slack, text):
    """The retry arrives while the first delivery is still being handled."""
    store = slack.runtime.store
    body, url = _command_body(slack, text)
    results = []
    threads = [threading.Thread(target=lambda n=n: results.append(_deliver(slack, body, retry=n))) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.status for r in results] == [200] * 4
    slack.standin.wait_for_response(url, count=4, timeout=15)
    replies = slack.standin.responses(url)
    error = "Something went wrong"
    assert all(error not in r.body["text"] for r in replies), [r.body["text"] for r in replies]
    assert len(store.follows(slack.team, slack.user)) <= 1
    assert len(store.subscriptions(slack.team)) <= 1
    assert len(store.read_posts(slack.team, slack.user)) <= 1


def test_a_click_delivered_twice_marks_read_once(slack):
    store = slack.runtime.store
    reply = slack.ask("speculative").body
    from tests.e2e.helpers import find_button
    from tests.standin import button_action

    element, block_id = find_button(reply["blocks"], "mark_read:")
    url = slack.standin.response_url()
    body = block_actions_body(
        button_action(element, block_id),
        message_ts="1700000000.000100",
        is_ephemeral=True,
        response_url=url,
        user_id=slack.user,
        team_id=slack.team,
        channel_id=slack.channel,
    )
    assert _deliver(slack, body).status == 200
    slack.standin.wait_for_response(url, timeout=10)
    after_first = snapshot(store)
    assert _deliver(slack, body).status == 200
    slack.standin.wait_for_response(url, count=2, timeout=10)
    assert snapshot(store) == after_first
    assert store.read_posts(slack.team, slack.user) == {json.loads(element["value"])["p"]}


def test_app_home_opened_retried_publishes_once(slack):
    body = event_body(
        {
            "type": "app_home_opened",
            "user": slack.user,
            "channel": "D0REL1",
            "tab": "home",
            "event_ts": f"{time.time():.6f}",
        },
        team_id=slack.team,
        event_id="Ev0HOME0001",
    )
    assert _deliver(slack, body, json_body=True).status == 200
    slack.standin.wait_for_call("views.publish", timeout=10)
    for n in (1, 2, 3):
        assert _deliver(slack, body, json_body=True, retry=n).status == 200
    _settle(slack)
    assert len(slack.standin.calls("views.publish")) == 1


def test_simultaneous_event_deliveries_are_handled_once(slack):
    body = event_body(
        {
            "type": "app_home_opened",
            "user": slack.user,
            "channel": "D0REL1",
            "tab": "home",
            "event_ts": f"{time.time():.6f}",
        },
        team_id=slack.team,
        event_id="Ev0HOME0002",
    )
    threads = [
        threading.Thread(target=_deliver, args=(slack, body), kwargs={"json_body": True, "retry": n}) for n in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    slack.standin.wait_for_call("views.publish", timeout=10)
    _settle(slack)
    assert len(slack.standin.calls("views.publish")) == 1


def test_a_retried_uninstall_does_not_pause_a_team_that_reinstalled_meanwhile(slack):
    store = slack.runtime.store
    slack.ask("subscribe pd monday 09:00 UTC")
    body = event_body(
        {"type": "app_uninstalled", "event_ts": f"{time.time():.6f}"}, team_id=slack.team, event_id="Ev0UNINST01"
    )
    assert _deliver(slack, body, json_body=True).status == 200
    slack.standin.wait_for(lambda: store.subscriptions(slack.team)[0].status == "paused", timeout=10)
    assert len(store.resume_after_install(slack.team)) == 1  # reinstalled
    assert _deliver(slack, body, json_body=True, retry=1).status == 200
    _settle(slack)
    assert [s.status for s in store.subscriptions(slack.team)] == ["active"]


def test_without_deduplication_a_retry_would_unfurl_twice(slack, monkeypatch):
    """The protection is what makes the retry tests pass: with ``record_event`` forgetting ids,
    the retried event is handled again. (A retried Home open needs none: the view Slack shows already
    is not published again, ``bot/slack/homes.py``.)"""
    monkeypatch.setattr(slack.runtime.store, "record_event", lambda event_id, team: True)
    url = "https://vllm-project.github.io/2024/10/17/spec-decode.html"
    event = link_shared_event([url], user_id=slack.user, channel="C0CONSOLE")
    body = event_body(event, team_id=slack.team, event_id="Ev0LINK0003")
    _deliver(slack, body, json_body=True)
    _deliver(slack, body, json_body=True, retry=1)
    slack.standin.wait_for_call("chat.unfurl", count=2, timeout=10)
