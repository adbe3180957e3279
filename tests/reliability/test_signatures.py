"""Request signatures: a forged signature, a body altered after signing, a timestamp more than
5 minutes away, missing or malformed headers are refused with 401 — nothing executed (no reply,
no Web API call), nothing stored. Bodies with non-ASCII text verify.

All through the real HTTP door (waitress + Bolt's WSGI adapter) on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import time

from tests.e2e.slack_requests import post, signed_post
from tests.reliability.conftest import SIGNING_SECRET
from tests.reliability.dbstate import snapshot
from tests.standin import event_body, signed_headers, slash_command_body
from tests.waits import PATIENCE_S

FORM = "application/x-www-form-urlencoded"


def _command(slack, text: str) -> tuple[bytes, str]:
    url = slack.standin.response_url()
    body = slash_command_body(text, team_id=slack.team, user_id=slack.user, channel_id=slack.channel, response_url=url)
    return body, url


def _forged(body: bytes) -> dict[str, str]:
    return signed_headers(body, "not-the-signing-secret", content_type=FORM)


def _altered(body: bytes) -> tuple[bytes, dict[str, str]]:
    headers = signed_headers(body, SIGNING_SECRET, content_type=FORM)
    return body.replace(b"follow+pd", b"follow+spec"), headers


def _old(body: bytes) -> dict[str, str]:
    return signed_headers(body, SIGNING_SECRET, int(time.time()) - 301, content_type=FORM)


def _future(body: bytes) -> dict[str, str]:
    return signed_headers(body, SIGNING_SECRET, int(time.time()) + 301, content_type=FORM)


def _without(*names: str):
    def make(body: bytes) -> dict[str, str]:
        headers = signed_headers(body, SIGNING_SECRET, content_type=FORM)
        return {k: v for k, v in headers.items() if k not in names}

    return make


def _malformed(signature: str):
    def make(body: bytes) -> dict[str, str]:
        headers = signed_headers(body, SIGNING_SECRET, content_type=FORM)
        headers["X-Slack-Signature"] = signature
        return headers

    return make


def _bad_timestamp(body: bytes) -> dict[str, str]:
    headers = signed_headers(body, SIGNING_SECRET, content_type=FORM)
    headers["X-Slack-Request-Timestamp"] = "yesterday"
    return headers


BAD_HEADERS = {
    "forged signature": _forged,
    "timestamp older than 5 minutes": _old,
    "timestamp more than 5 minutes ahead": _future,
    "no signature header": _without("X-Slack-Signature"),
    "no timestamp header": _without("X-Slack-Request-Timestamp"),
    "no signing headers": _without("X-Slack-Signature", "X-Slack-Request-Timestamp"),
    "empty signature": _malformed(""),
    "signature of another scheme": _malformed("v1=" + "0" * 64),
    "signature not hex": _malformed("v0=zz"),
    "timestamp not a number": _bad_timestamp,
}


def _assert_nothing_happened(slack, response_url: str, before: dict, calls_before: int) -> None:
    time.sleep(1.0)  # a lazy listener, had one started, would have answered by now
    assert slack.standin.responses(response_url) == []
    assert len(slack.standin.calls()) == calls_before
    assert snapshot(slack.runtime.store) == before


def test_badly_signed_commands_are_refused_and_change_nothing(slack):
    """Every case in BAD_HEADERS: 401, then no reply, no Web API call, no row changed."""
    before, calls = snapshot(slack.runtime.store), len(slack.standin.calls())
    urls = []
    for case, make_headers in BAD_HEADERS.items():
        body, url = _command(slack, "follow pd")
        urls.append(url)
        result = post(slack.events_url, body, make_headers(body))
        assert result.status == 401, (case, result.status, result.text)
    time.sleep(1.0)  # a lazy listener, had one started, would have answered by now
    for url in urls:
        assert slack.standin.responses(url) == []
    assert len(slack.standin.calls()) == calls
    assert snapshot(slack.runtime.store) == before
    assert slack.runtime.store.follows(slack.team, slack.user) == []


def test_a_body_altered_after_signing_is_refused(slack):
    body, url = _command(slack, "follow pd")
    altered, headers = _altered(body)
    assert altered != body
    before, calls = snapshot(slack.runtime.store), len(slack.standin.calls())
    result = post(slack.events_url, altered, headers)
    assert result.status == 401
    _assert_nothing_happened(slack, url, before, calls)


def test_a_forged_button_click_is_refused(slack):
    from tests.standin import block_actions_body

    url = slack.standin.response_url()
    action = {
        "type": "button",
        "block_id": "b",
        "action_id": "follow:0",
        "value": json.dumps({"t": "pd", "v": "track:pd"}),
        "text": {"type": "plain_text", "text": "Follow"},
    }
    body = block_actions_body(
        action,
        message_ts="1700000000.000100",
        is_ephemeral=True,
        response_url=url,
        team_id=slack.team,
        user_id=slack.user,
        channel_id=slack.channel,
    )
    before, calls = snapshot(slack.runtime.store), len(slack.standin.calls())
    assert post(slack.events_url, body, _forged(body)).status == 401
    _assert_nothing_happened(slack, url, before, calls)


def test_a_forged_uninstall_event_is_refused_and_the_real_one_still_counts(slack):
    store = slack.runtime.store
    assert slack.ask("subscribe pd monday 09:00 UTC").status == 200
    event = {"type": "app_uninstalled", "event_ts": f"{time.time():.6f}"}
    body = event_body(event, team_id=slack.team, event_id="Ev0FORGED1")
    headers = signed_headers(body, "not-the-signing-secret", content_type="application/json")
    before, calls = snapshot(store), len(slack.standin.calls())
    assert post(slack.events_url, body, headers).status == 401
    assert len(slack.standin.calls()) == calls
    time.sleep(0.5)
    assert snapshot(store) == before  # not paused, and the event id was not recorded
    assert [s.status for s in store.subscriptions(slack.team)] == ["active"]
    # The genuine delivery of that same event id is then handled.
    assert signed_post(slack.events_url, body, SIGNING_SECRET, json_body=True).status == 200
    slack.standin.wait_for(lambda: store.subscriptions(slack.team)[0].status == "paused", timeout=PATIENCE_S)


def test_non_ascii_bodies_verify(slack):
    """A command in Chinese with emoji, bidi marks and live syntax; and a JSON event whose raw
    body carries UTF-8 (Slack signs the bytes it sends)."""
    reply = slack.ask("read 稀疏注意力 DeepSeek-V3.2-Exp 🎉 \u202e <!channel> \u200fשלום").body
    assert reply["text"]
    store = slack.runtime.store
    assert store.read_posts(slack.team, slack.user)  # executed: the best match was marked read

    event = {
        "type": "app_home_opened",
        "user": slack.user,
        "channel": "D0REL1",
        "tab": "home",
        "event_ts": f"{time.time():.6f}",
        "view": {"type": "home", "blocks": [], "private_metadata": "推测解码 🎉 \u200f"},
    }
    wrapper = json.loads(event_body(event, team_id=slack.team))
    raw = json.dumps(wrapper, ensure_ascii=False).encode("utf-8")
    assert any(b > 0x7F for b in raw)
    result = signed_post(slack.events_url, raw, SIGNING_SECRET, json_body=True)
    assert result.status == 200
    slack.standin.wait_for_call("views.publish", timeout=PATIENCE_S)


def test_without_verification_the_forged_command_would_run(door_runtime, standin):
    """The protection is what makes the refusals above pass: the same forged request to an app
    built with verification off is executed."""
    from bot.doors.serve import serve_http
    from bot.slack.app import build_app
    from tests.e2e.helpers import FakeSlack

    app = build_app(door_runtime, verify_requests=False)
    door = serve_http(door_runtime, "127.0.0.1", 0, threads=2, app=app, background=True, verify_requests=False)
    try:
        slack = FakeSlack(
            door.url, standin, door_runtime, secret=SIGNING_SECRET, team="T0REL1", user="U0REL1", channel="C0REL1"
        )
        body, url = _command(slack, "follow pd")
        assert post(slack.events_url, body, _forged(body)).status == 200
        standin.wait_for_response(url, timeout=PATIENCE_S)
        assert door_runtime.store.follows(slack.team, slack.user) == ["pd"]
    finally:
        door.close()


def _verify(middleware, body: bytes, headers: dict[str, str]) -> int:
    from slack_bolt.request import BoltRequest
    from slack_bolt.response import BoltResponse

    req = BoltRequest(body=body.decode("utf-8"), headers=headers)
    passed = BoltResponse(status=200, body="passed")
    return middleware.process(req=req, resp=BoltResponse(status=200), next=lambda: passed).status


def test_the_verification_middleware_with_an_injected_clock():
    """The middleware alone (as Bolt's ``before_authorize``), on a fixed clock: a genuine
    signature passes within Slack's 5-minute window and is refused 301 s either side of it;
    timestamps that are not plain ASCII digits are refused, not raised."""
    from bot.slack.signing import SignedRequestVerification

    now = 1_800_000_000
    middleware = SignedRequestVerification(SIGNING_SECRET, clock=lambda: float(now))
    body = slash_command_body(
        "follow pd", team_id="T1", user_id="U1", channel_id="C1", response_url="https://hooks.slack.com/commands/T1/1/x"
    )
    for ts, expected in ((now, 200), (now - 300, 200), (now + 300, 200), (now - 301, 401), (now + 301, 401)):
        headers = signed_headers(body, SIGNING_SECRET, ts, content_type=FORM)
        assert _verify(middleware, body, headers) == expected, ts
    for bad in ("yesterday", "", "-1", "1.8e9", "１８００００００００", " 1800000000"):
        headers = signed_headers(body, SIGNING_SECRET, now, content_type=FORM)
        headers["X-Slack-Request-Timestamp"] = bad
        assert _verify(middleware, body, headers) == 401, bad
    assert (
        _verify(
            SignedRequestVerification("", clock=lambda: float(now)),
            body,
            signed_headers(body, SIGNING_SECRET, now, content_type=FORM),
        )
        == 401
    )
