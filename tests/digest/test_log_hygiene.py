"""Log hygiene over a representative flow, every logger at DEBUG: signed requests through the real
HTTP door (a command, a button-less event, a forged signature), a refused ``views.publish``, a
digest run with a missed slot. No record carries a request body, a token or a response URL;
Slack's ``response_metadata.messages`` of a refused call are kept; missed slots are logged at
WARNING with their channel ids."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.digest.clock import DigestClock
from bot.domain.schedule import WeeklySchedule
from bot.doors.serve import HttpDoor
from bot.logging_setup import setup_logging
from bot.runtime import Runtime
from bot.slack.app import build_app
from bot.store import Store
from tests.digest.conftest import TEAM, settings_for
from tests.e2e.helpers import ack_shown
from tests.e2e.slack_requests import post
from tests.standin import SlackStandIn, app_home_opened_event, event_body, signed_headers, slash_command_body
from tests.waits import PATIENCE_S

SECRET = "log-hygiene-signing-secret-0123456789"
VERIFICATION = "verification-token-LOGHYG"
MARK = "LOGMARKQZ"  # a word that only ever appears in request bodies
PUBLISH_REFUSAL = "[ERROR] must be less than 101 items [json-pointer:/view/blocks]"


class RefusingHomeStandIn(SlackStandIn):
    """Refuses ``views.publish`` as Slack does for a view it will not take: ``invalid_arguments``
    with the reasons in ``response_metadata.messages``."""

    def _decide(self, method: str, args: dict[str, Any], faults: Any):  # type: ignore[override]
        if method == "views.publish":
            return (
                200,
                {},
                {"ok": False, "error": "invalid_arguments", "response_metadata": {"messages": [PUBLISH_REFUSAL]}},
            )
        return super()._decide(method, args, faults)


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def lines(self) -> list[str]:
        fmt = logging.Formatter("%(levelname)s %(name)s: %(message)s")
        return [fmt.format(r) for r in self.records]


@pytest.fixture
def captured() -> Iterator[_Capture]:
    root = logging.getLogger()
    handler = _Capture()
    saved = {
        name: logging.getLogger(name).level for name in ("", "slack_bolt", "slack_sdk", "apscheduler", "bot", "urllib3")
    }
    root.addHandler(handler)
    for name in saved:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


def test_a_full_flow_logs_no_body_token_or_response_url(sqlite_url, holder, captured) -> None:
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    due = now - timedelta(minutes=10)  # a slot ten minutes ago: missed by a clock that was down
    with RefusingHomeStandIn(team_id=TEAM) as standin:
        settings = settings_for(sqlite_url, standin, slack_signing_secret=SECRET, log_level="DEBUG")
        setup_logging(settings)
        seeding = Store.from_url(sqlite_url, clock=lambda: now - timedelta(days=8))
        seeding.subscribe(TEAM, "CMISSED1", "spec", WeeklySchedule.of(due.weekday(), f"{due:%H:%M}", "UTC"))
        seeding.subscribe(TEAM, "CMISSED2", "pd", WeeklySchedule.of(due.weekday(), f"{due:%H:%M}", "UTC"))
        seeding.close()
        runtime = Runtime(settings, Store.from_url(sqlite_url), holder)
        runtime.record_catalog_version()
        urls = []
        try:
            app = build_app(runtime)
            with HttpDoor(runtime, app, port=0) as door:
                events = door.url + "/slack/events"
                for text in (f"speculative {MARK}", "help"):
                    url = standin.response_url()
                    urls.append(url)
                    body = slash_command_body(text, team_id=TEAM, response_url=url, token=VERIFICATION)
                    acked = post(events, body, signed_headers(body, SECRET))
                    assert ack_shown(standin, acked, url).status == 200  # a reply in the ack too
                    standin.wait_for_response(url, timeout=PATIENCE_S)
                forged_url = standin.response_url()
                urls.append(forged_url)
                forged = slash_command_body(f"next {MARK}", team_id=TEAM, response_url=forged_url, token=VERIFICATION)
                assert post(events, forged, signed_headers(forged, "not-the-secret")).status == 401
                home = event_body(app_home_opened_event("U0HOME"), team_id=TEAM, token=VERIFICATION)
                assert post(events, home, signed_headers(home, SECRET, content_type="application/json")).status == 200
                standin.wait_for_call("views.publish", timeout=PATIENCE_S)
                standin.wait_for(lambda: any(PUBLISH_REFUSAL in line for line in captured.lines()), timeout=PATIENCE_S)
            clock = DigestClock(runtime, reconcile_every_s=None, channel_interval_s=0.0, team_rate_per_s=None)
            try:
                for future in clock.catch_up():
                    future.result(timeout=60)
            finally:
                clock.shutdown()
        finally:
            runtime.store.close()
        assert len([c for c in standin.calls("chat.postMessage") if c.ok]) == 2

    lines = captured.lines()
    texts = lines + [r.exc_text or "" for r in captured.records]
    assert len(lines) > 20, "the flow should have logged at DEBUG"
    forbidden = [
        *urls,
        "xoxb-test",
        SECRET,
        VERIFICATION,
        MARK,
        "response_url=http",
        "hooks.slack.com",
        "team_domain=",
        "trigger_id",
        "'blocks'",
        '"blocks"',
    ]
    leaks = [(word, line) for line in texts for word in forbidden if word in line]
    assert not leaks, leaks[:5]
    # The refused signature was logged (by bot.slack.signing, before Bolt), without its body
    # (no line holds MARK, above); a body Bolt would log is withheld by bot.logging_setup.
    assert any("Invalid request signature" in line for line in lines)
    # A refused views.publish keeps Slack's reasons.
    refused = [r for r in captured.records if PUBLISH_REFUSAL in r.getMessage()]
    assert refused and all(r.levelno == logging.WARNING for r in refused)
    # Missed slots at WARNING, naming the channels.
    missed = [
        r.getMessage() for r in captured.records if r.levelno == logging.WARNING and "missed slot" in r.getMessage()
    ]
    assert missed and "CMISSED1" in missed[0] and "CMISSED2" in missed[0], missed
