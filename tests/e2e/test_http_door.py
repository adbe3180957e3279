"""End to end through the HTTP door: signed requests in Slack's real formats go to waitress + Bolt's
WSGI adapter on a loopback port; the app answers through the stand-in (response URLs, Web API)."""

from __future__ import annotations

import json
import time

from tests.e2e.helpers import (
    BOT_TOKEN,
    SIGNING_SECRET,
    block_texts,
    find_button,
)
from tests.e2e.slack_requests import (
    app_home_opened_event,
    event_body,
    get,
    post,
    signed_headers,
    signed_post,
    slash_command_body,
)
from tests.waits import PATIENCE_S


def test_healthz_and_unknown_paths(door):
    ok = get(door.url + "/healthz")
    assert ok.status == 200 and ok.text == "ok"
    assert get(door.url + "/nope").status == 404
    assert get(door.url + "/slack/events").status == 404  # Slack only POSTs
    assert get(door.url + "/slack/install").status == 404  # OAuth is off with a bot token


def test_slash_command_replies_with_the_speculative_path(slack, standin):
    ack, response_url = slack.command("speculative")
    assert ack.status == 200
    reply = standin.wait_for_response(response_url, timeout=PATIENCE_S).body
    assert reply.get("response_type", "ephemeral") == "ephemeral"
    assert reply.get("replace_original") is False
    assert reply["text"]  # the plain-text fallback Slack shows in notifications
    texts = block_texts(reply["blocks"])
    assert "Speculative decoding" in texts
    assert "EAGLE" in texts  # a step of the speculative-decoding path
    action_ids = [
        el.get("action_id", "") for b in reply["blocks"] for el in b.get("elements", []) if b["type"] == "actions"
    ]
    assert any(a.startswith("mark_read:") for a in action_ids)
    assert len(set(action_ids)) == len(action_ids)
    # the bot token (never the signing secret) went to the Web API, and only as a header
    assert all(c.authorized for c in standin.calls())


def test_mark_read_click_replaces_the_ephemeral_message(slack, standin, runtime):
    reply = slack.ask("speculative").body
    element, _ = find_button(reply["blocks"], "mark_read:")
    post_id = json.loads(element["value"])["p"]
    assert post_id not in runtime.store.read_posts(slack.team, slack.user)

    ack, response_url = slack.click(reply, "mark_read:")
    assert ack.status == 200
    updated = standin.wait_for_response(response_url, timeout=PATIENCE_S).body
    assert updated["replace_original"] is True
    assert updated.get("response_type", "ephemeral") == "ephemeral"
    assert "1 of" in block_texts(updated["blocks"])  # progress redrawn
    assert post_id in runtime.store.read_posts(slack.team, slack.user)
    # the next Mark read now points at the following step
    nxt, _ = find_button(updated["blocks"], "mark_read:")
    assert json.loads(nxt["value"])["p"] != post_id


def test_follow_then_share_in_channel(slack, standin, runtime):
    reply = slack.ask("speculative").body
    element, _ = find_button(reply["blocks"], "follow:")
    track = json.loads(element["value"])["t"]
    assert runtime.holder.catalog.track(track).names.en == "Speculative decoding"
    _, url = slack.click(reply, "follow:")
    followed = standin.wait_for_response(url, timeout=PATIENCE_S).body
    assert followed["replace_original"] is False  # QA round 18: a new answer, the path it was under kept
    assert runtime.store.follows(slack.team, slack.user) == [track]
    assert len(followed["blocks"]) <= 4 and "essential read" in followed["text"]  # issue 40: a short answer
    _, url = slack.click(followed, "open_path:")  # the whole path when asked
    opened = standin.wait_for_response(url, timeout=PATIENCE_S).body
    assert opened["replace_original"] is True
    find_button(opened["blocks"], "unfollow:")

    _, url = slack.click(opened, "share:")
    shared = standin.wait_for_response(url, timeout=PATIENCE_S).body
    assert shared["response_type"] == "in_channel"
    assert shared.get("replace_original") is False
    assert "Speculative decoding" in block_texts(shared["blocks"])
    assert "mark_read:" not in block_texts(shared["blocks"])  # no personal buttons for everyone


def test_app_home_opened_publishes_home(slack, standin):
    result = slack.open_home()
    assert result.status == 200
    call = standin.wait_for_call("views.publish", timeout=PATIENCE_S)
    assert call.ok and call.args["user_id"] == slack.user
    view = call.args["view"]
    assert view["type"] == "home" and view["blocks"]
    assert call.authorized


def test_click_in_home_republishes_home(slack, standin, runtime):
    slack.open_home()
    view = standin.wait_for_call("views.publish", timeout=PATIENCE_S).response["view"]
    element, _ = find_button(view["blocks"], "follow:")
    track = json.loads(element["value"])["t"]
    assert slack.click_in_view(view, "follow:").status == 200
    second = standin.wait_for_call("views.publish", count=2, timeout=PATIENCE_S)
    assert track in runtime.store.follows(slack.team, slack.user)
    assert second.args["user_id"] == slack.user
    assert standin.responses() == []  # Home clicks have no response_url


def test_event_retries_are_processed_once(slack, standin):
    event = app_home_opened_event(slack.user)
    body = event_body(event, team_id=slack.team, event_id="Ev0RETRY")
    first = signed_post(slack.events_url, body, SIGNING_SECRET, json_body=True)
    standin.wait_for_call("views.publish", timeout=PATIENCE_S)
    headers = signed_headers(body, SIGNING_SECRET, content_type="application/json")
    headers.update({"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    retry = post(slack.events_url, body, headers)
    assert first.status == 200 and retry.status == 200
    time.sleep(0.5)
    assert len(standin.calls("views.publish")) == 1


def test_url_verification_challenge_is_echoed(slack):
    body = json.dumps({"token": "x", "challenge": "c-123", "type": "url_verification"}).encode()
    result = signed_post(slack.events_url, body, SIGNING_SECRET, json_body=True)
    assert result.status == 200 and "c-123" in result.text


def test_ack_comes_before_slow_work(slack, standin):
    slack.ask("help")  # warm-up: Bolt's one-time auth.test for the bot token
    standin.configure(latency_s=1.5)  # every Web API call (users.info, ...) is slow
    started = time.monotonic()
    ack, response_url = slack.command("speculative")
    acked = time.monotonic() - started
    assert ack.status == 200 and acked < 1.0
    assert standin.wait_for_response(response_url, timeout=PATIENCE_S).body["blocks"]


def test_first_request_does_not_wait_for_auth_test(slack, standin):
    standin.configure(latency_s=1.5)
    started = time.monotonic()
    ack, _ = slack.command("speculative")
    assert ack.status == 200 and time.monotonic() - started < 1.0


def test_unsigned_forged_stale_and_tampered_requests_get_401(slack, standin, door):
    url = slack.events_url
    body = slash_command_body("speculative", response_url=standin.response_url("forged"))
    assert post(url, body, {"Content-Type": "application/x-www-form-urlencoded"}).status == 401
    assert signed_post(url, body, "not-the-secret").status == 401
    stale = int(time.time()) - 301
    assert signed_post(url, body, SIGNING_SECRET, timestamp=stale).status == 401
    headers = signed_headers(body, SIGNING_SECRET)
    assert post(url, body.replace(b"speculative", b"quantization"), headers).status == 401
    bad_event = event_body(app_home_opened_event("U1"))
    assert signed_post(url, bad_event, "not-the-secret", json_body=True).status == 401
    time.sleep(0.5)
    assert standin.responses() == [] and standin.calls("views.publish") == []


def test_secrets_never_reach_the_stand_in_as_text(slack, standin):
    slack.ask("speculative")
    slack.open_home()
    standin.wait_for_call("views.publish", timeout=PATIENCE_S)
    dumped = repr(standin.calls()) + repr(standin.responses())
    assert SIGNING_SECRET not in dumped and BOT_TOKEN not in dumped


def test_open_path_on_home_opens_the_track_in_a_modal_that_redraws_in_place(slack, standin, runtime):
    slack.ask("follow spec")
    slack.open_home()
    home = standin.wait_for_call("views.publish", timeout=PATIENCE_S).response["view"]
    assert slack.click_in_view(home, "open_path:").status == 200
    opened = standin.wait_for_call("views.open", timeout=PATIENCE_S)
    assert opened.ok and opened.args["trigger_id"]
    modal = opened.response["view"]
    assert modal["type"] == "modal" and "Speculative decoding" in block_texts(modal["blocks"])
    assert slack.click_in_view(modal, "mark_read:").status == 200
    updated = standin.wait_for_call("views.update", timeout=PATIENCE_S)
    assert updated.ok and updated.args["view_id"] == modal["id"]
    assert "1 of" in block_texts(updated.args["view"]["blocks"])
    assert len(runtime.store.read_posts(slack.team, slack.user)) == 1


def _ack_message(result) -> dict:
    assert result.status == 200 and result.headers["content-type"].startswith("application/json")
    return json.loads(result.body)


def test_a_read_only_command_of_a_known_person_is_answered_in_its_ack(slack, standin):
    """Once the person's users.info is remembered, a track's path, search, next and help come
    in the HTTP answer itself: one exchange, no post to the response URL."""
    first = slack.ask("help")  # the first command of the hour asks Slack users.info first
    assert not first.ack
    for text in ("speculative", "search nixl", "next spec", "help", "sepculative"):
        result, url = slack.command(text)
        message = _ack_message(result)
        assert message["response_type"] == "ephemeral" and message["blocks"], text
        assert [(p.ack, p.status) for p in standin.responses(url)] == [(True, 200)], text


def test_a_known_persons_path_under_a_slow_slack_needs_no_web_api_call(slack, standin):
    slack.ask("help")
    standin.configure(latency_s=1.5)  # every Web API call is slow: none may be waited for
    calls = len(standin.calls())
    result, _url = slack.command("speculative")
    assert "Speculative decoding" in _ack_message(result)["text"]
    assert len(standin.calls()) == calls


def test_writes_and_a_first_command_are_answered_after_the_ack(slack, standin, runtime):
    """Writing commands (nothing to repeat if they had to wait) and a person whose language is
    not yet known get an empty ack and the reply at the response URL."""
    result, url = slack.command("speculative", user="U0FIRST")
    assert result.body == b"" and not standin.wait_for_response(url, timeout=PATIENCE_S).ack
    for text in ("follow spec", "read eagle 3.1", "subscribe spec", "lang zh"):
        result, url = slack.command(text, user="U0FIRST")
        assert result.status == 200 and result.body == b"", text
        assert not standin.wait_for_response(url, timeout=PATIENCE_S).ack, text
    assert runtime.store.follows(slack.team, "U0FIRST") == ["spec"]
    result, _ = slack.command("speculative", user="U0FIRST")
    assert "推测解码" in _ack_message(result)["text"]  # the language chosen: no users.info needed


def test_a_reply_in_the_ack_reaches_slack_through_socket_mode_as_a_message(runtime, standin):
    """Socket Mode sends the ack's JSON back as the envelope's payload (Bolt's adapter parses a
    body with the JSON content type); the reply must arrive there as a message, not as text."""
    from urllib.parse import parse_qsl

    from slack_bolt.adapter.socket_mode.internals import send_response
    from slack_bolt.request import BoltRequest
    from slack_sdk import WebClient
    from slack_sdk.socket_mode.request import SocketModeRequest

    from bot.slack.app import build_app
    from tests.standin import slash_command_body

    app = build_app(runtime, client=WebClient(token="xoxb-socket", base_url=standin.api_url), verify_requests=False)
    sent = []

    class Client:
        logger = __import__("logging").getLogger("socket-mode-test")

        def send_socket_mode_response(self, response):
            sent.append(response)

    def through_socket_mode(text: str, response_url: str = ""):
        form = slash_command_body(text, response_url=response_url or standin.response_url()).decode()
        payload = dict(parse_qsl(form))  # Socket Mode delivers the command's fields as JSON
        bolt_response = app.dispatch(BoltRequest(body=payload, mode="socket_mode"))
        send_response(
            Client(), SocketModeRequest(type="slash_commands", envelope_id="E1", payload={}), bolt_response, 0.0
        )
        return sent[-1].payload

    first = standin.response_url()
    assert through_socket_mode("help", first) is None  # empty ack: the users.info comes first
    assert not standin.wait_for_response(first, timeout=PATIENCE_S).ack
    payload = through_socket_mode("speculative")
    assert payload["response_type"] == "ephemeral" and payload["blocks"]
    assert "Speculative decoding" in payload["text"]
