"""A click's follow-up (:mod:`bot.slack.listeners.actions`): acked in the request thread after its hold,
then run on the app's listener executor with the request's own body, without Bolt's lazy copy."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from datetime import UTC, datetime, timedelta
from typing import Any

from slack_bolt import BoltRequest
from slack_sdk import WebClient

from bot.slack.app import build_app
from bot.slack.views.blocks import encode_value
from tests.standin import SlackStandIn, block_actions_body
from tests.waits import PATIENCE_S

USER = "U0FOLLOW"


class Later(Executor):
    """Keeps every submitted job until :meth:`run_all` (the ack is sent before any runs)."""

    def __init__(self) -> None:
        self.jobs: list[Callable[[], Any]] = []
        self.threads: list[str] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.threads.append(threading.current_thread().name)
        self.jobs.append(lambda: fn(*args, **kwargs))
        return Future()

    def run_all(self) -> None:
        jobs, self.jobs = self.jobs, []
        for job in jobs:
            job()


def _mark_read_click(runtime: Any, team: str, url: str) -> tuple[BoltRequest, str]:
    """A *Mark read* click on the first post of track ``pd`` in a ``next`` reply, and that post's id."""
    post = runtime.holder.catalog.track("pd").steps[0].post
    action = {
        "type": "button",
        "block_id": "b1",
        "action_id": f"mark_read:{post}",
        "text": {"type": "plain_text", "text": "Mark read"},
        "value": encode_value({"p": post, "v": "next"}),
    }
    body = block_actions_body(action, message_ts="1700000000.000100", response_url=url, user_id=USER, team_id=team)
    return BoltRequest(body=body.decode(), headers={"content-type": "application/x-www-form-urlencoded"}), post


def test_a_click_is_held_and_acked_before_its_follow_up_runs_on_the_apps_executor(runtime) -> None:
    executor = Later()
    with SlackStandIn() as standin:
        client = WebClient(token="xoxb-test", base_url=standin.api_url)
        app = build_app(runtime, client=client, verify_requests=False, listener_executor=executor)
        team, url = standin.team_id, standin.response_url()
        runtime.store.follow(team, USER, "pd")
        request, post = _mark_read_click(runtime, team, url)
        started = datetime.now(UTC) - timedelta(minutes=1)

        response = app.dispatch(request)

        assert response.status == 200  # acked, and only then does the follow-up run
        assert len(executor.jobs) == 1 and executor.threads == [threading.current_thread().name]
        assert post in runtime.store.read_posts(team, USER)  # the change committed with the hold, before the ack
        held = runtime.store.held_requests(started, datetime.now(UTC) + timedelta(minutes=1))
        assert len(held) == 1 and post in held[0][1]  # durable before the ack: a kill now loses nothing

        executor.run_all()

        assert post in runtime.store.read_posts(team, USER)
        answer = standin.wait_for_response(url, timeout=PATIENCE_S).body
        assert answer["replace_original"] is True and answer.get("blocks")
        assert "Marked read" in str(answer["blocks"])  # answered as the click that marked it, not "already read"


def test_a_click_from_a_message_without_a_follow_up_pool_place_is_still_acked(runtime) -> None:
    """An executor that refuses (a full pool answers "busy" itself) does not fail the ack."""

    class Refusing(Executor):
        def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
            future: Future[Any] = Future()
            future.cancel()
            return future

    with SlackStandIn() as standin:
        client = WebClient(token="xoxb-test", base_url=standin.api_url)
        app = build_app(runtime, client=client, verify_requests=False, listener_executor=Refusing())
        request, post = _mark_read_click(runtime, standin.team_id, standin.response_url())
        assert app.dispatch(request).status == 200
        assert post in runtime.store.read_posts(standin.team_id, USER)  # acknowledged: stored with its hold
