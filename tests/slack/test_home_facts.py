"""App Home read from a per-person cache (:class:`bot.slack.home_facts.HomeFacts`, issue 43): the Home
drawn from what is kept is the Home drawn from the store, after the person's clicks and commands,
after a write by another connection or process, and after a write of this process outside a request."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from slack_bolt import BoltRequest
from slack_sdk import WebClient

from bot.domain import paths
from bot.domain.schedule import WeeklySchedule
from bot.runtime import Runtime
from bot.slack.app import build_app
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.slack.home_facts import HomeFacts, PersonFacts
from bot.store import Store
from tests.standin import (
    SlackStandIn,
    app_home_opened_event,
    block_actions_body,
    button_action,
    event_body,
)

ALICE = Caller("T1", "U1", "C0HOME01")
CHANNELS = ["C0HOME01"]


def _info(team: str, user: str) -> UserInfo:
    return UserInfo()


@pytest.fixture
def clocked(runtime: Runtime) -> tuple[Runtime, list[datetime]]:
    """``runtime`` on a store whose clock is the list's one time (so a kept read's time is the store's)."""
    clock = [datetime(2026, 12, 2, 9, tzinfo=UTC)]
    store = Store(runtime.store.engine, clock=lambda: clock[0])
    return Runtime(runtime.settings, store, runtime.holder), clock


def _fresh(rt: Runtime, caller: Caller = ALICE) -> dict[str, Any]:
    """The Home drawn by handlers that keep nothing yet (every fact read from the store)."""
    return Handlers(rt, users_info=_info).home(caller, CHANNELS)


def _stores(rt: Runtime, team: str, user: str) -> PersonFacts:
    store = rt.store
    return PersonFacts(store.habit_facts(team, user), store.get_dm(team, user), store.finished_paths(team, user))


def test_a_home_after_each_click_and_command_is_the_one_drawn_from_the_store(clocked) -> None:
    rt, clock = clocked
    h = Handlers(rt, users_info=_info)
    cat = rt.holder.catalog
    essentials = paths.essentials(cat, "pd")
    h.command(ALICE, "follow pd")
    steps: list[tuple[str, Any]] = [
        *[("click", ("mark_read", {"p": post, "t": "pd"})) for post in essentials],  # the last finishes pd
        ("click", ("mark_unread", {"p": essentials[0], "t": "pd"})),
        ("command", f"read {essentials[0]}"),
        ("click", ("follow", {"t": "spec", "v": "home"})),
        ("command", "dm on friday 08:30"),
        ("command", "plan 30m"),
        ("click", ("unfollow", {"t": "spec", "v": "home"})),
        ("command", "subscribe pd friday 09:00"),
        ("command", "dm off"),
    ]
    before = h.home(ALICE, CHANNELS)
    for n, (kind, what) in enumerate(steps):
        clock[0] += timedelta(days=1, minutes=n)  # every write at a time of its own
        if kind == "click":
            h.action(ALICE, what[0], what[1])
        else:
            h.command(ALICE, what)
        clock[0] += timedelta(minutes=1)
        home = h.home(ALICE, CHANNELS)
        assert home == _fresh(rt), f"step {n}: {what}"
        if what != "plan 30m":  # a budget shows on the Home only through the streak (none here)
            assert home != before, f"step {n}: {what} changed nothing"  # a real change
        before = home
        state = rt.store.reader_state("T1", "U1")
        kept = h.facts.person("T1", "U1", state.read, state.follows, state.budget)
        assert kept == _stores(rt, "T1", "U1"), f"step {n}: {what}"
    assert "finished" in json.dumps(before).lower()


def test_a_read_by_a_click_is_patched_in_not_read_again(clocked, monkeypatch: pytest.MonkeyPatch) -> None:
    rt, clock = clocked
    h = Handlers(rt, users_info=_info)
    if not h.facts.keeping:
        pytest.skip("nothing is kept on PostgreSQL")
    h.command(ALICE, "follow pd")
    h.home(ALICE, CHANNELS)
    reads: list[str] = []
    real = rt.store.habit_facts
    monkeypatch.setattr(rt.store, "habit_facts", lambda team, user: reads.append(user) or real(team, user))
    post = paths.essentials(rt.holder.catalog, "pd")[0]
    clock[0] += timedelta(hours=1)
    h.action(ALICE, "mark_read", {"p": post, "t": "pd"})
    assert h.home(ALICE, CHANNELS) == _fresh(rt)
    assert reads == ["U1"]  # the fresh handlers' read, not ours
    state = rt.store.reader_state("T1", "U1")
    kept = h.facts.person("T1", "U1", state.read, state.follows, state.budget)
    assert kept.habit.reads == {post: clock[0]}


def test_a_write_by_another_connection_shows_in_the_next_home(runtime: Runtime) -> None:
    h = Handlers(runtime, users_info=_info)
    h.command(ALICE, "follow pd")
    first = h.home(ALICE, CHANNELS)
    url = runtime.store.engine.url.render_as_string(hide_password=False)
    other = Store.from_url(url, migrate=False)  # another engine: its own connections
    try:
        other.set_dm("T1", "U1", True)
        other.subscribe("T1", "C0HOME01", "pd", WeeklySchedule(), created_by="U2")
        other.pause_plan("T1", "U1", datetime(2030, 1, 1, tzinfo=UTC))
    finally:
        other.close()
    second = h.home(ALICE, CHANNELS)
    assert second != first and second == _fresh(runtime)
    text = json.dumps(second)
    assert "dm_off" in text  # the DM is on: its button turns it off


def test_a_write_by_another_process_shows_in_the_next_home(runtime: Runtime) -> None:
    h = Handlers(runtime, users_info=_info)
    h.command(ALICE, "follow pd")
    h.command(ALICE, "dm on friday 08:30")
    first = h.home(ALICE, CHANNELS)
    assert "dm_off" in json.dumps(first)
    url = runtime.store.engine.url.render_as_string(hide_password=False)
    code = (
        "import sys\nfrom bot.store import Store\n"
        "s = Store.from_url(sys.argv[1], migrate=False)\ns.set_dm('T1', 'U1', False)\ns.close()\n"
    )
    subprocess.run([sys.executable, "-c", code, url], check=True, timeout=120)
    second = h.home(ALICE, CHANNELS)
    assert "dm_on" in json.dumps(second) and second == _fresh(runtime)


def test_a_write_of_this_process_outside_a_request_shows_in_the_next_home(clocked) -> None:
    rt, clock = clocked
    h = Handlers(rt, users_info=_info)
    h.command(ALICE, "follow pd")
    h.home(ALICE, CHANNELS)
    clock[0] += timedelta(hours=1)
    rt.store.mark_read("T1", "U1", [paths.essentials(rt.holder.catalog, "pd")[0]])  # as the CLI would
    rt.store.set_dm("T1", "U1", True)
    rt.store.subscribe("T1", "C0HOME01", "spec", WeeklySchedule(), created_by="U2")
    home = h.home(ALICE, CHANNELS)
    assert home == _fresh(rt) and "dm_off" in json.dumps(home)


def test_at_most_max_people_are_kept(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(HomeFacts, "MAX_PEOPLE", 3)
    h = Handlers(runtime, users_info=_info)
    for n in range(6):
        h.home(Caller("T1", f"U{n}", "C1"), CHANNELS)
    assert len(h.facts._people) <= 3


def test_nothing_is_kept_on_an_in_memory_database(tmp_path) -> None:
    with Store.from_url("sqlite://") as store:
        assert not HomeFacts(store).keeping


def test_a_read_made_by_a_click_shows_in_the_next_published_home(runtime: Runtime) -> None:
    """Through the app, as Slack sends them: Home opened, *Mark read* clicked in a message, Home opened
    again: the second ``views.publish`` shows the read (the path finished, at the top of the Home)."""
    cat = runtime.holder.catalog
    essentials = paths.essentials(cat, "pd")
    with SlackStandIn() as standin:
        client = WebClient(token="xoxb-test", base_url=standin.api_url)
        app = build_app(runtime, client=client, verify_requests=False)
        team, user = standin.team_id, "U0HOMEREAD"
        runtime.store.follow(team, user, "pd")
        runtime.store.mark_read(team, user, essentials[:-1])
        seen = 0

        def open_home() -> dict[str, Any]:
            nonlocal seen
            body = event_body(app_home_opened_event(user), team_id=team)
            headers = {"content-type": ["application/json"]}
            assert app.dispatch(BoltRequest(body=body.decode(), headers=headers)).status == 200
            calls = _wait(lambda: standin.calls("views.publish")[seen:])
            seen += len(calls)
            view: dict[str, Any] = calls[-1].args["view"]
            return view

        first = open_home()
        element = {"action_id": "mark_read:0", "value": json.dumps({"p": essentials[-1], "t": "pd"})}
        url = standin.response_url()
        click = block_actions_body(
            button_action(element, "b"), message_ts="1700000000.000100", response_url=url, user_id=user, team_id=team
        )
        headers = {"content-type": ["application/x-www-form-urlencoded"]}
        assert app.dispatch(BoltRequest(body=click.decode(), headers=headers)).status == 200
        standin.wait_for_response(url, timeout=30)
        assert set(runtime.store.read_posts(team, user)) >= set(essentials)
        second = open_home()
    name = cat.track("pd").names.en
    assert name not in json.dumps(first["blocks"][:3]) and name in json.dumps(second["blocks"][:3])


def _wait(found: Any, timeout: float = 30.0) -> Any:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = found()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError("nothing came")


def test_equal_views_have_equal_digests_and_a_change_another(runtime: Runtime) -> None:
    from bot.slack.homes import view_digest

    h = Handlers(runtime, users_info=_info)
    h.command(ALICE, "follow pd")
    one, two = h.home(ALICE, CHANNELS), _fresh(runtime)
    assert one is not two and view_digest(one) == view_digest(two)
    h.command(ALICE, f"read {paths.essentials(runtime.holder.catalog, 'pd')[0]}")
    assert view_digest(h.home(ALICE, CHANNELS)) != view_digest(one)


def test_a_write_by_another_connection_just_after_one_of_ours_shows_in_the_next_home(runtime: Runtime) -> None:
    """Another connection commits between our commit and our connection's return to the pool (where a
    look at ``data_version`` alone cannot tell its commit from ours)."""
    from sqlalchemy import event

    h = Handlers(runtime, users_info=_info)
    if not h.facts.keeping:
        pytest.skip("nothing is kept on PostgreSQL (no connection of ours to tell apart)")
    h.command(ALICE, "follow pd")
    h.home(ALICE, CHANNELS)
    url = runtime.store.engine.url.render_as_string(hide_password=False)
    other = Store.from_url(url, migrate=False)
    fired: list[bool] = []

    def theirs(_dbapi: Any, record: Any) -> None:  # before the watch's own look at the return
        if not fired and any(str(key).startswith("home_facts_") for key in record.info):
            fired.append(True)
            other.set_dm("T1", "U1", True)

    pool = runtime.store.engine.pool
    event.listen(pool, "checkin", theirs, insert=True)
    try:
        h.command(ALICE, f"read {paths.essentials(runtime.holder.catalog, 'pd')[0]}")
    finally:
        event.remove(pool, "checkin", theirs)
        other.close()
    assert fired
    home = h.home(ALICE, CHANNELS)
    assert "dm_off" in json.dumps(home) and home == _fresh(runtime)
