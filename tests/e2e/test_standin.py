"""The Slack stand-in answers a real slack-sdk WebClient like Slack does, and injects Slack's faults."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import parse_qs

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.signature import SignatureVerifier
from slack_sdk.webhook import WebhookClient

from tests.e2e.slack_requests import get, post, signed_headers
from tests.standin import SlackStandIn, block_actions_body, event_body, slash_command_body

TOKEN = "xoxb-standin-test-token"


@pytest.fixture
def standin():
    with SlackStandIn() as s:
        yield s


@pytest.fixture
def client(standin):
    return WebClient(token=TOKEN, base_url=standin.api_url)


def test_api_url_is_joined_with_method_names_by_the_sdk(standin, client):
    client.auth_test()
    assert standin.api_url.endswith("/api/")
    (call,) = standin.calls()
    assert call.method == "auth.test"


def test_post_message_records_args_and_answers_increasing_ts(standin, client):
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "*hi*"}}]
    first = client.chat_postMessage(channel="C1", text="hi", blocks=blocks)
    second = client.chat_postMessage(channel="C1", text="again")
    assert first["ok"] and first["channel"] == "C1"
    assert float(second["ts"]) > float(first["ts"])
    calls = standin.calls("chat.postMessage")
    assert [c.args["text"] for c in calls] == ["hi", "again"]
    assert calls[0].args["blocks"] == blocks  # decoded from the form field
    assert calls[0].channel == "C1" and calls[0].ok


def test_token_is_never_recorded_only_its_presence(standin, client):
    client.chat_postMessage(channel="C1", text="x")
    WebClient(base_url=standin.api_url).api_call("api.test")
    with_token, without = standin.calls()
    assert with_token.authorized and not without.authorized
    assert with_token.token_fingerprint and len(with_token.token_fingerprint) == 8
    assert TOKEN not in repr(standin.calls()) and TOKEN not in repr(standin)


def test_plausible_bodies_for_the_methods_the_app_uses(standin, client):
    auth = client.auth_test()
    assert auth["team_id"] == standin.team_id and auth["user_id"] and auth["bot_id"]
    dm = client.conversations_open(users="U1")
    assert dm["channel"]["id"].startswith("D")
    assert client.conversations_open(users="U1")["channel"]["id"] == dm["channel"]["id"]
    view = {"type": "home", "blocks": [{"type": "divider"}]}
    published = client.views_publish(user_id="U1", view=view)
    assert published["view"]["type"] == "home" and published["view"]["id"]
    assert standin.calls("views.publish")[0].args["view"] == view
    user = client.users_info(user="U7")["user"]
    assert user["id"] == "U7" and user["tz"] == "Europe/Berlin" and user["locale"] == "en-US"
    convs = client.users_conversations()
    assert convs["channels"][0]["id"] and convs["response_metadata"]["next_cursor"] == ""
    eph = client.chat_postEphemeral(channel="C1", user="U1", text="psst")
    assert eph["message_ts"]
    upd = client.chat_update(channel="C1", ts="123.456", text="new")
    assert upd["ts"] == "123.456"
    with pytest.raises(SlackApiError) as refused:  # a method the stand-in does not serve
        client.api_call("reactions.add")
    assert refused.value.response["error"] == "unknown_method"


def test_every_kth_call_is_rate_limited_and_the_sdk_retries_after_retry_after(standin):
    standin.configure(rate_limit_every=2, retry_after_s=1)
    client = WebClient(
        token=TOKEN, base_url=standin.api_url, retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=2)]
    )
    client.chat_postMessage(channel="C1", text="one")
    started = time.monotonic()
    client.chat_postMessage(channel="C1", text="two")  # 2nd call 429, retried as 3rd
    waited = time.monotonic() - started
    statuses = [c.status for c in standin.calls("chat.postMessage")]
    assert statuses == [200, 429, 200]
    assert waited >= 1.0  # Retry-After: 1 honoured (sdk adds up to 1 s of jitter)


def test_without_a_retry_handler_a_429_surfaces_as_an_error(standin, client):
    standin.configure(rate_limit_every=1, retry_after_s=7)
    with pytest.raises(SlackApiError) as err:
        client.chat_postMessage(channel="C1", text="x")
    assert err.value.response.status_code == 429
    assert err.value.response.headers["Retry-After"] == "7"


def test_per_channel_bucket_models_one_message_per_second(standin, client):
    standin.configure(channel_rate_per_s=1.0, channel_burst=1)
    client.chat_postMessage(channel="C1", text="a")
    with pytest.raises(SlackApiError) as err:
        client.chat_postMessage(channel="C1", text="b")
    assert err.value.response.status_code == 429
    assert int(err.value.response.headers["Retry-After"]) >= 1
    client.chat_postMessage(channel="C2", text="other channel is not limited")
    client.chat_update(channel="C1", ts="1.2", text="other methods are not limited")
    time.sleep(1.05)
    client.chat_postMessage(channel="C1", text="after a second")
    assert [c.status for c in standin.calls("chat.postMessage")] == [200, 429, 200, 200]


def test_paced_sender_with_retry_handler_gets_everything_through(standin):
    standin.configure(channel_rate_per_s=4.0, channel_burst=1)
    client = WebClient(
        token=TOKEN, base_url=standin.api_url, retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=3)]
    )
    for i in range(3):
        client.chat_postMessage(channel="C1", text=str(i))
    oks = [c.args["text"] for c in standin.calls("chat.postMessage") if c.ok]
    assert oks == ["0", "1", "2"]


def test_channel_and_method_errors_come_with_http_200(standin, client):
    standin.configure(channel_errors={"C_GONE": "channel_not_found"}, method_errors={"users.info": "user_not_found"})
    with pytest.raises(SlackApiError) as err:
        client.chat_postMessage(channel="C_GONE", text="x")
    assert err.value.response.status_code == 200
    assert err.value.response["error"] == "channel_not_found"
    with pytest.raises(SlackApiError):
        client.users_info(user="U1")
    assert client.chat_postMessage(channel="C_OK", text="x")["ok"]


def test_server_errors_and_retry(standin):
    standin.configure(server_error_every=1, fault_methods={"chat.postMessage"})
    client = WebClient(token=TOKEN, base_url=standin.api_url)
    with pytest.raises(SlackApiError) as err:
        client.chat_postMessage(channel="C1", text="x")
    assert err.value.response.status_code == 500
    assert client.auth_test()["ok"]  # other methods are not counted
    standin.configure(server_error_every=2, fault_methods={"chat.postMessage"})
    retrying = WebClient(
        token=TOKEN, base_url=standin.api_url, retry_handlers=[ServerErrorRetryHandler(max_retry_count=1)]
    )
    retrying.chat_postMessage(channel="C1", text="a")
    retrying.chat_postMessage(channel="C1", text="b")
    assert [c.status for c in standin.calls("chat.postMessage")][-3:] == [200, 500, 200]


def test_latency_is_added(standin, client):
    standin.configure(latency_s=0.2)
    started = time.monotonic()
    client.auth_test()
    assert time.monotonic() - started >= 0.2


def test_configure_refuses_unknown_or_negative(standin):
    with pytest.raises(TypeError):
        standin.configure(nonsense=1)
    with pytest.raises(ValueError):
        standin.configure(latency_s=-1)


def test_response_urls_record_posts_and_allow_five(standin):
    url = standin.response_url()
    assert url != standin.response_url() and standin.response_url("x") == standin.response_url("x")
    hook = WebhookClient(url)
    for i in range(5):
        assert hook.send(text=f"r{i}", response_type="ephemeral").status_code == 200
    assert hook.send(text="sixth").status_code == 404
    posts = standin.responses(url)
    assert [p.body["text"] for p in posts[:5]] == [f"r{i}" for i in range(5)]
    assert posts[0].body["response_type"] == "ephemeral"
    assert standin.responses(standin.response_url("other")) == []


def test_wait_for_wakes_on_a_post_from_another_thread(standin):
    url = standin.response_url()
    threading.Timer(
        0.2, lambda: post(url, json.dumps({"text": "late"}).encode(), {"Content-Type": "application/json"})
    ).start()
    got = standin.wait_for_response(url, timeout=3)
    assert got.body == {"text": "late"}
    with pytest.raises(TimeoutError):
        standin.wait_for(lambda: False, timeout=0.1)


def test_a_waiter_for_one_url_is_woken_by_its_own_posts_only(standin):
    """Many clients wait at once (the latency benchmark's 50): each waits on its own URL, so a
    post to another URL neither satisfies nor wakes it, the count-th post is returned, and the
    time limit still holds."""
    mine, other = standin.response_url(), standin.response_url()

    def send(url: str, text: str) -> None:
        post(url, json.dumps({"text": text}).encode(), {"Content-Type": "application/json"})

    threading.Timer(0.05, lambda: (send(other, "not yours"), send(mine, "first"), send(mine, "second"))).start()
    assert standin.wait_for_response(mine, count=2, timeout=3).body == {"text": "second"}
    assert [p.body["text"] for p in standin.responses(mine)] == ["first", "second"]
    assert standin.wait_for_response(other, timeout=0.1).body == {"text": "not yours"}
    with pytest.raises(TimeoutError):
        standin.wait_for_response(mine, count=3, timeout=0.1)
    with pytest.raises(TimeoutError):
        standin.wait_for_response(standin.response_url(), timeout=0.1)
    assert len(standin.responses()) == 3  # every post, in arrival order
    assert standin.wait_for_response(None, count=3, timeout=0.1).body == {"text": "second"}


def test_the_five_posts_a_response_url_allows_count_again_after_reset(standin):
    url = standin.response_url()
    hook = WebhookClient(url)
    for _ in range(standin.response_url_limit):
        assert hook.send(text="x").status_code == 200
    assert hook.send(text="x").status_code == 404
    standin.reset()
    assert standin.responses(url) == []
    assert hook.send(text="x").status_code == 200


def test_reset_forgets_records_and_faults(standin, client):
    standin.configure(latency_s=0.01)
    client.auth_test()
    standin.reset()
    assert standin.calls() == [] and standin.faults.latency_s == 0


def test_unknown_path_is_404_and_close_frees_the_port():
    s = SlackStandIn()
    assert get(s.base_url + "/nope").status == 404
    s.close()
    s.close()
    with pytest.raises(OSError):
        get(s.base_url + "/nope", timeout=1)


# --- request builders ---------------------------------------------------------------------------

SLASH_FIELDS = {
    "token",
    "team_id",
    "team_domain",
    "channel_id",
    "channel_name",
    "user_id",
    "user_name",
    "command",
    "text",
    "api_app_id",
    "is_enterprise_install",
    "response_url",
    "trigger_id",
}


def test_slash_command_body_has_every_field_slack_sends():
    body = slash_command_body("speculative <b> & more", response_url="http://x/r")
    fields = {k: v[0] for k, v in parse_qs(body.decode(), keep_blank_values=True).items()}
    assert set(fields) == SLASH_FIELDS
    assert fields["command"] == "/vllm-path" and fields["text"] == "speculative <b> & more"
    grid = parse_qs(slash_command_body("x", enterprise_id="E1", enterprise_name="Grid").decode())
    assert grid["enterprise_id"] == ["E1"] and grid["enterprise_name"] == ["Grid"]


def test_block_actions_body_message_and_view_containers():
    action = {"type": "button", "action_id": "mark_read:p1", "block_id": "b1", "value": "p1"}
    body = block_actions_body(action, message={"text": "t", "blocks": []}, message_ts="1.2", response_url="http://x/r")
    payload = json.loads(parse_qs(body.decode())["payload"][0])
    assert payload["type"] == "block_actions"
    assert payload["container"] == {
        "type": "message",
        "message_ts": "1.2",
        "channel_id": "C0CONSOLE",
        "is_ephemeral": False,
    }
    assert payload["message"]["ts"] == "1.2" and payload["channel"]["id"] == "C0CONSOLE"
    assert payload["actions"][0]["action_id"] == "mark_read:p1"
    assert payload["actions"][0]["action_ts"] and payload["response_url"] == "http://x/r"
    eph = json.loads(parse_qs(block_actions_body(action, message_ts="1.3", is_ephemeral=True).decode())["payload"][0])
    assert "message" not in eph and eph["container"]["is_ephemeral"] is True
    home = json.loads(parse_qs(block_actions_body(action, view={"id": "V1", "type": "home"}).decode())["payload"][0])
    assert home["container"] == {"type": "view", "view_id": "V1"}
    assert "channel" not in home and "message" not in home and "response_url" not in home
    with pytest.raises(ValueError):
        block_actions_body(action)
    with pytest.raises(ValueError):
        block_actions_body(action, message_ts="1", view={"id": "V"})


def test_event_body_wrapper():
    wrapper = json.loads(event_body({"type": "app_home_opened", "user": "U1"}, team_id="T9", event_id="Ev1"))
    assert wrapper["type"] == "event_callback" and wrapper["team_id"] == "T9"
    assert wrapper["event_id"] == "Ev1" and wrapper["event"]["user"] == "U1"
    assert wrapper["authorizations"][0]["team_id"] == "T9"


def test_signed_headers_verify_with_slack_sdk_and_break_on_tampering():
    body = slash_command_body("x")
    headers = signed_headers(body, "s3cret")
    verifier = SignatureVerifier("s3cret")
    assert verifier.is_valid_request(body, headers)
    assert not verifier.is_valid_request(body + b"&x=1", headers)
    assert not SignatureVerifier("other").is_valid_request(body, headers)
    old = signed_headers(body, "s3cret", timestamp=int(time.time()) - 400)
    assert not verifier.is_valid_request(body, old)


def _error(call) -> str:
    with pytest.raises(SlackApiError) as refused:
        call()
    return refused.value.response["error"]


def test_it_refuses_what_slack_refuses(standin, client):
    """No token, a method it does not serve, a message with nothing in it or too long a text,
    blocks or a view the Block Kit checker refuses: Slack's error codes, nothing accepted."""
    anonymous = WebClient(base_url=standin.api_url)
    assert _error(lambda: anonymous.chat_postMessage(channel="C1", text="x")) == "not_authed"
    assert _error(lambda: client.api_call("chat.scheduleMessage")) == "unknown_method"
    with pytest.warns(UserWarning, match="text"):  # slack-sdk warns too
        assert _error(lambda: client.chat_postMessage(channel="C1")) == "no_text"
    assert _error(lambda: client.chat_postMessage(channel="C1", text="x" * 4001)) == "msg_too_long"
    too_many = [{"type": "divider"}] * 51
    assert _error(lambda: client.chat_postMessage(channel="C1", text="x", blocks=too_many)) == "invalid_blocks"
    bad_view = {"type": "home", "blocks": [{"type": "sektion"}]}
    assert _error(lambda: client.views_publish(user_id="U1", view=bad_view)) == "invalid_arguments"
    assert not any(c.ok for c in standin.calls())
    client.chat_postMessage(channel="C1", text="x" * 4000, blocks=too_many[:50])  # at the limits


def test_a_response_url_refuses_invalid_blocks_without_using_up_the_url(standin):
    url = standin.response_url()
    bad = WebhookClient(url).send_dict({"text": "x", "blocks": [{"type": "divider"}] * 51})
    assert (bad.status_code, bad.body) == (400, "invalid_blocks")
    # The verdict is remembered by the body's text: the same body is refused again, and a body
    # that differs by one block is judged on its own.
    again = WebhookClient(url).send_dict({"text": "x", "blocks": [{"type": "divider"}] * 51})
    assert (again.status_code, again.body) == (400, "invalid_blocks")
    fine = WebhookClient(standin.response_url()).send_dict({"text": "x", "blocks": [{"type": "divider"}] * 50})
    assert fine.status_code == 200
    for _ in range(standin.response_url_limit):
        assert WebhookClient(url).send_dict({"text": "ok"}).status_code == 200


def test_with_token_scopes_a_call_needs_its_scope(standin):
    scoped = SlackStandIn(token_scopes={"xoxb-writer": ["chat:write"], "xoxb-reader": ["users:read"]})
    try:
        writer = WebClient(token="xoxb-writer", base_url=scoped.api_url)
        reader = WebClient(token="xoxb-reader", base_url=scoped.api_url)
        stranger = WebClient(token="xoxb-unknown", base_url=scoped.api_url)
        assert writer.chat_postMessage(channel="C1", text="hi")["ok"]
        assert _error(lambda: reader.chat_postMessage(channel="C1", text="hi")) == "missing_scope"
        assert reader.users_info(user="U1")["ok"]
        assert _error(lambda: writer.users_info(user="U1")) == "missing_scope"
        assert _error(lambda: stranger.auth_test()) == "invalid_auth"
        assert writer.auth_test()["ok"]  # auth.test needs no scope
    finally:
        scoped.close()


def test_workspace_rate_limit_and_history(standin, client):
    """``team_rate_per_s`` caps chat.postMessage across channels (429 + Retry-After); history
    answers newest first from the accepted messages of one channel, with their metadata."""
    standin.configure(team_rate_per_s=0.5, team_burst=2)
    meta = {"event_type": "digest", "event_payload": {"k": 1}}
    client.chat_postMessage(channel="C1", text="one", metadata=meta)
    client.chat_postMessage(channel="C2", text="two")
    with pytest.raises(SlackApiError) as limited:
        client.chat_postMessage(channel="C3", text="three")
    assert limited.value.response.status_code == 429
    assert int(limited.value.response.headers["Retry-After"]) >= 1
    standin.configure(team_rate_per_s=None)
    client.chat_postMessage(channel="C1", text="four")
    history = client.conversations_history(channel="C1")["messages"]
    assert [m["text"] for m in history] == ["four", "one"]
    assert history[1]["metadata"] == meta and "metadata" not in history[0]


def test_conversations_info_answers_as_slack_does():
    """A channel the bot can see is answered with ``is_member`` / ``is_private``; an unknown id and
    a private channel the bot is not in are ``channel_not_found``; ``users.info`` answers the
    configured people (name, admin) and ``user_not_found`` for anyone else."""
    channels = [
        {"id": "C0IN", "is_private": False, "is_member": True},
        {"id": "C0OUT", "is_private": False, "is_member": False},
        {"id": "G0PRIV", "is_private": True, "is_member": False},
    ]
    users = {"U0ANA": {"real_name": "Ana Lima", "display_name": "Ana", "is_owner": True}}
    with SlackStandIn(channels=channels, users=users) as s:
        c = WebClient(token="xoxb-test", base_url=s.api_url)
        assert c.conversations_info(channel="C0IN")["channel"]["is_member"] is True
        assert c.conversations_info(channel="C0OUT")["channel"]["is_member"] is False
        for hidden in ("G0PRIV", "C0NONE"):
            with pytest.raises(SlackApiError) as err:
                c.conversations_info(channel=hidden)
            assert err.value.response["error"] == "channel_not_found"
        ana = c.users_info(user="U0ANA")["user"]
        assert (ana["profile"]["display_name"], ana["is_owner"], ana["is_admin"]) == ("Ana", True, False)
        with pytest.raises(SlackApiError) as err:
            c.users_info(user="U0NOBODY")
        assert err.value.response["error"] == "user_not_found"


def _post_raw(url: str, raw: bytes) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=raw, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read()


def test_a_response_url_refuses_what_is_not_a_json_object_every_time(standin):
    """Slack answers 400 ``invalid_payload`` to a body that is not a JSON object. The stand-in
    remembers verdicts by the body's bytes; a refused body is never remembered as fine, so the
    same bytes are refused again, and nothing is recorded."""
    url = standin.response_url()
    for raw in (b"{not json", b"{not json", b"[1, 2]", b"[1, 2]", b"\xff\xfe", b'"text"'):
        assert _post_raw(url, raw) == (400, b"invalid_payload")
    assert standin.responses() == []


def test_a_reply_posted_twice_is_recorded_twice_with_its_body(standin):
    """A body the stand-in has seen before (its verdict remembered, not parsed again on arrival)
    is still recorded, and its ``body`` reads as the JSON that was posted."""
    url = standin.response_url()
    raw = json.dumps({"text": "Read next", "blocks": [{"type": "divider"}]}).encode()
    assert _post_raw(url, raw)[0] == 200
    assert _post_raw(url, raw)[0] == 200
    posts = standin.responses()
    assert [p.body for p in posts] == [{"text": "Read next", "blocks": [{"type": "divider"}]}] * 2
    assert [p.status for p in posts] == [200, 200]


def test_a_reply_in_the_ack_is_recorded_as_the_reply_and_leaves_the_url_its_five_posts(standin):
    """Slack shows a slash command's ack body as the reply; the command's response URL can
    still take five posts afterwards."""
    url = standin.response_url()
    ack = json.dumps({"response_type": "ephemeral", "text": "in the ack"}).encode()
    assert standin.answer_ack(url, ack) == 200
    first = standin.wait_for_response(url, timeout=1)
    assert first.ack and first.status == 200 and first.body["text"] == "in the ack"
    hook = WebhookClient(url)
    assert [hook.send(text=f"r{i}").status_code for i in range(6)] == [200] * 5 + [404]
    assert [p.ack for p in standin.responses(url)] == [True] + [False] * 6


def test_a_reply_in_the_ack_is_held_to_block_kits_limits(standin):
    url = standin.response_url()
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "x"}}] * 51
    assert standin.answer_ack(url, json.dumps({"text": "t", "blocks": blocks}).encode()) == 400
    assert standin.wait_for_response(url, timeout=1).status == 400
    with pytest.raises(ValueError):
        standin.answer_ack(url, b"[1, 2]")
    assert len(standin.responses(url)) == 1
