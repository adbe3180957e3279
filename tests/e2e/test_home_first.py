"""App Home cannot crowd out commands and clicks (issues 42 and 43), through the real HTTP door with
signed requests and the stand-in recording every Web API call: opens are coalesced per person and read
from a per-person cache that a change drops; with the lazy pool saturated, Home publishes wait behind
commands and the latest one is still published."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from bot.slack import lazy
from bot.slack.i18n import t
from tests.e2e.helpers import FakeSlack, find_button

WAIT_S = 60.0
"""Ceiling of every wait (the machine may be loaded); the waits end as soon as what they wait for is seen."""


def _publishes(slack: FakeSlack, user: str | None = None) -> list[Any]:
    return [c for c in slack.standin.calls("views.publish") if c.args.get("user_id") == (user or slack.user)]


def _settled(slack: FakeSlack, door: Any) -> None:
    """Wait until no App Home publish is waiting or in flight."""
    publisher = door.app.handlers.publisher
    slack.standin.wait_for(lambda: publisher.waiting() == 0, timeout=WAIT_S)


def _mark_read_posts(view: dict[str, Any]) -> set[str]:
    blocks = json.dumps(view["blocks"])
    found = set()
    for block in view["blocks"]:
        accessory = block.get("accessory") or {}
        if str(accessory.get("action_id", "")).startswith("mark_read:"):
            found.add(json.loads(accessory["value"])["p"])
    assert found or "mark_read" not in blocks
    return found


def test_thirty_opens_by_one_person_make_at_most_three_publishes_the_last_showing_the_latest_state(
    slack, standin, door
):
    standin.configure(latency_s=0.3)
    for _ in range(15):
        assert slack.open_home().status == 200
    slack.ask("follow pd", timeout=WAIT_S)  # the state changes between the opens
    for _ in range(15):
        assert slack.open_home().status == 200
    _settled(slack, door)
    published = _publishes(slack)
    assert 1 <= len(published) <= 3, len(published)
    assert all(c.ok for c in published)
    last = published[-1].args["view"]
    assert find_button(last["blocks"], "unfollow:")[0]  # pd is followed on the Home published last
    assert json.loads(find_button(last["blocks"], "unfollow:")[0]["value"])["t"] == "pd"
    assert len(standin.calls("users.conversations")) == 1  # the channels listed once, then kept


def test_a_mark_read_after_home_was_cached_shows_on_the_next_open(slack, standin, door, runtime):
    slack.ask("follow pd", timeout=WAIT_S)
    slack.open_home()
    first = standin.wait_for_call("views.publish", timeout=WAIT_S).args["view"]
    slack.open_home()  # nothing changed: read from the cache, nothing new to publish
    _settled(slack, door)
    assert len(_publishes(slack)) == 1
    (post,) = _mark_read_posts(first)
    reply = slack.ask("pd", timeout=WAIT_S).body
    element, _ = find_button(reply["blocks"], "mark_read:")
    assert json.loads(element["value"])["p"] == post  # the message's Mark read is Home's next read
    _, url = slack.click(reply, "mark_read:")
    standin.wait_for_response(url, timeout=WAIT_S)
    assert post in runtime.store.read_posts(slack.team, slack.user)
    slack.open_home()
    second = standin.wait_for_call("views.publish", count=2, timeout=WAIT_S).args["view"]
    assert post not in _mark_read_posts(second)
    assert "1 of " in json.dumps(second["blocks"], ensure_ascii=False)  # "1 of 8 essential read · …"


@pytest.fixture
def small_pool(monkeypatch, runtime):
    """The HTTP door with a lazy pool of 2 threads, App Home allowed only when both are free."""
    from bot.doors.serve import serve_http

    monkeypatch.setattr(lazy, "THREADS", 2)
    monkeypatch.setattr(lazy, "KEPT_FOR_REPLIES", 1)
    served = serve_http(runtime, "127.0.0.1", 0, threads=8, background=True)
    yield served
    served.close()


def test_home_opens_wait_behind_commands_in_a_saturated_pool_and_the_latest_is_published(small_pool, standin, runtime):
    slack = FakeSlack(small_pool.url, standin, runtime)
    standin.configure(latency_s=0.5)  # each new person's command asks users.info first
    sent: list[str] = []

    def commands(first: int) -> None:
        def command(user: str) -> None:
            result, url = slack.command("speculative", user=user)
            assert result.status == 200
            sent.append(url)

        threads = [threading.Thread(target=command, args=(f"U0CMD{i:02d}",)) for i in range(first, first + 4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    commands(0)  # the pool busy: two running, two waiting
    openers = [f"U0HOME{i}" for i in range(3)]
    for _ in range(3):
        for user in openers:
            assert slack.open_home(user=user).status == 200
    commands(4)  # commands after the opens still go first
    replies = [standin.wait_for_response(url, timeout=WAIT_S) for url in sent]
    assert all(str(t("busy")) not in json.dumps(r.body, ensure_ascii=False) for r in replies)
    slack.standin.wait_for(lambda: small_pool.app.handlers.publisher.waiting() == 0, timeout=WAIT_S)
    for user in openers:
        assert [c.ok for c in _publishes(slack, user)] == [True]  # three opens, one publish, not lost
    answered = max(r.at for r in replies)
    assert all(c.at >= answered for c in standin.calls("users.conversations"))  # Home waited for them
