"""Issue 27: events from an org-wide install (Enterprise Grid) carry ``enterprise_id`` and
``authorizations`` but no outer ``team_id`` (the shape of Bolt's own org-app tests). Each event the
app listens to is sent signed through the real HTTP door in that shape: it answers 200, logs no
traceback, and has its effect, keyed by the tenant (the enterprise)."""

from __future__ import annotations

import time
from typing import Any

from bot.domain.schedule import WeeklySchedule
from tests.e2e.slack_requests import signed_post
from tests.reliability.conftest import SIGNING_SECRET
from tests.reliability.org_wide import assert_org_wide_uninstalled, org_wide_body, save_org_wide_install, wait_until
from tests.standin import app_home_opened_event, link_shared_event
from tests.waits import PATIENCE_S

ORG, USER = "E0ORG1", "W0ORG1"


def _send(door, event: dict[str, Any]) -> int:
    return signed_post(door.url + "/slack/events", org_wide_body(event, ORG), SIGNING_SECRET, json_body=True).status


def _no_traceback(caplog) -> None:
    assert "Traceback" not in caplog.text and "ValueError" not in caplog.text
    assert "failed" not in caplog.text


def test_org_wide_app_uninstalled_removes_the_installation_and_pauses_digests(door, door_runtime, caplog) -> None:
    store = door_runtime.store
    save_org_wide_install(store, ORG)
    sub = store.subscribe(ORG, "C0ORG", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    store.set_dm(ORG, USER, True)
    assert _send(door, {"type": "app_uninstalled", "event_ts": f"{time.time():.6f}"}) == 200
    assert_org_wide_uninstalled(store, ORG, sub.id, USER)
    _no_traceback(caplog)


def test_org_wide_tokens_revoked_removes_the_installation(door, door_runtime, caplog) -> None:
    store = door_runtime.store
    save_org_wide_install(store, ORG)
    sub = store.subscribe(ORG, "C0ORG", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    event = {"type": "tokens_revoked", "tokens": {"bot": ["U0ORGBOT"]}, "event_ts": f"{time.time():.6f}"}
    assert _send(door, event) == 200
    wait_until(lambda: not store.get_subscription(sub.id).active)
    _no_traceback(caplog)


def test_org_wide_app_home_opened_publishes_home(door, standin, caplog) -> None:
    before = len(standin.calls("views.publish"))
    assert _send(door, app_home_opened_event(USER)) == 200
    standin.wait_for_call("views.publish", count=before + 1, timeout=PATIENCE_S)
    published = standin.calls("views.publish")[-1]
    assert published.args.get("user_id") == USER
    _no_traceback(caplog)


def test_org_wide_link_shared_unfurls_once(door, standin, caplog) -> None:
    url = "https://vllm-project.github.io/2024/10/17/spec-decode.html"
    event = link_shared_event([url], user_id=USER, channel="C0CONSOLE")
    body_status = _send(door, event)
    assert body_status == 200
    standin.wait_for_call("chat.unfurl", count=1, timeout=PATIENCE_S)
    # The same event delivered again (Slack's retry) unfurls nothing more.
    time.sleep(0.3)
    assert len(standin.calls("chat.unfurl")) == 1
    _no_traceback(caplog)
