"""slack-sdk's real WebClient against Prism serving Slack's (adapted) spec, through the recorder.

These show the harness catches what it must: a dropped required argument (422 naming it), a
missing token (401), and that the calls the app makes pass as slack-sdk sends them (POST, JSON
or form bodies, Bearer header).
"""

from __future__ import annotations

import json
import urllib.request

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

pytestmark = pytest.mark.contract

SECTION = {"type": "section", "block_id": "intro", "text": {"type": "mrkdwn", "text": "*Reading path*"}}
BUTTON_ROW = {
    "type": "actions",
    "block_id": "nav",
    "elements": [
        {"type": "button", "action_id": "next_post", "text": {"type": "plain_text", "text": "Next"}, "value": "post-2"}
    ],
}
HOME_VIEW = {"type": "home", "blocks": [SECTION, BUTTON_ROW]}


def test_webclient_base_url_points_at_the_proxy(slack_api):
    from slack_sdk.web.internal_utils import _get_url

    assert slack_api.base_url.endswith("/api/")
    assert _get_url(slack_api.base_url, "chat.postMessage") == slack_api.root_url + "/api/chat.postMessage"


def test_chat_post_message_with_channel_and_text_is_ok(slack_client, slack_api):
    resp = slack_client.chat_postMessage(channel="C0PATHCH1", text="hello", blocks=[SECTION, BUTTON_ROW])
    assert resp.status_code == 200 and resp["ok"] is True and resp["ts"]
    (call,) = slack_api.calls_to("chat.postMessage")
    assert call.http_method == "POST" and call.content_type == "application/json"
    assert call.args["channel"] == "C0PATHCH1" and call.json_arg("blocks")[0]["block_id"] == "intro"
    assert call.headers["authorization"] == "Bearer <redacted>"
    assert "xoxb-test" not in json.dumps(call.headers)
    slack_api.assert_all_ok()


def test_chat_post_message_without_channel_is_refused_with_422(slack_client, slack_api):
    """The acceptance test: if the app dropped a required argument, the suite would fail."""
    with pytest.raises(SlackApiError) as info:
        slack_client.api_call("chat.postMessage", json={"text": "no channel"})
    assert info.value.response.status_code == 422
    assert info.value.response["ok"] is False
    (call,) = slack_api.calls_to("chat.postMessage")
    assert call.status == 422
    assert any("channel" in v["message"] for v in call.request_violations), call.violations
    with pytest.raises(AssertionError, match="channel"):
        slack_api.assert_all_ok()


def test_form_encoded_call_without_required_argument_is_refused_too(slack_api):
    client = slack_api.client()
    with pytest.raises(SlackApiError) as info:
        client.api_call("chat.update", params={"channel": "C0PATHCH1", "text": "no ts"})
    assert info.value.response.status_code == 422
    (call,) = slack_api.calls
    assert call.content_type == "application/x-www-form-urlencoded"
    assert any("'ts'" in v["message"] for v in call.request_violations)


def test_call_without_a_token_gets_401(slack_api):
    client = WebClient(base_url=slack_api.base_url)  # no token: no Authorization header
    with pytest.raises(SlackApiError) as info:
        client.chat_postMessage(channel="C0PATHCH1", text="hello")
    assert info.value.response.status_code == 401
    (call,) = slack_api.calls
    assert not call.authorized and call.status == 401
    assert "authorization" not in call.headers


def test_unknown_method_gets_404(slack_client, slack_api):
    with pytest.raises(SlackApiError) as info:
        slack_client.api_call("chat.postMesage", json={"channel": "C1", "text": "typo"})
    assert info.value.response.status_code == 404
    assert slack_api.calls[0].method == "chat.postMesage"


def test_views_publish_home_tab(slack_client, slack_api):
    resp = slack_client.views_publish(user_id="U0READER1", view=HOME_VIEW)
    assert resp["ok"] is True and resp["view"]["id"]
    (call,) = slack_api.calls_to("views.publish")
    assert call.content_type == "application/json" and call.json_arg("view")["type"] == "home"
    slack_api.assert_all_ok()


def test_views_publish_without_user_id_is_refused(slack_client, slack_api):
    with pytest.raises(SlackApiError) as info:
        slack_client.api_call("views.publish", json={"view": HOME_VIEW})
    assert info.value.response.status_code == 422
    assert "user_id" in slack_api.calls[0].describe()


def test_conversations_open_form_encoded(slack_client, slack_api):
    resp = slack_client.conversations_open(users="U0READER1")
    assert resp["ok"] is True and resp["channel"]["id"]
    (call,) = slack_api.calls_to("conversations.open")
    assert call.content_type == "application/x-www-form-urlencoded" and call.args == {"users": "U0READER1"}
    slack_api.assert_all_ok()


def test_chat_update(slack_client, slack_api):
    resp = slack_client.chat_update(channel="C0PATHCH1", ts="1700000000.000100", text="updated", blocks=[SECTION])
    assert resp["ok"] is True
    slack_api.assert_all_ok()


def test_chat_post_ephemeral(slack_client, slack_api):
    resp = slack_client.chat_postEphemeral(channel="C0PATHCH1", user="U0READER1", text="only you")
    assert resp["ok"] is True
    slack_api.assert_all_ok()


def test_chat_post_ephemeral_without_user_is_refused(slack_client, slack_api):
    with pytest.raises(SlackApiError):
        slack_client.api_call("chat.postEphemeral", json={"channel": "C0PATHCH1", "text": "who?"})
    assert any("'user'" in v["message"] for v in slack_api.calls[0].request_violations)


def test_auth_test_declared_get_is_posted(slack_client, slack_api):
    resp = slack_client.auth_test()
    assert resp["ok"] is True and resp["user_id"]
    (call,) = slack_api.calls_to("auth.test")
    assert call.http_method == "POST"
    slack_api.assert_all_ok()


def test_users_info_with_boolean_sent_as_1(slack_client, slack_api):
    resp = slack_client.users_info(user="U0READER1", include_locale=True)
    assert resp["ok"] is True and resp["user"]["id"]
    (call,) = slack_api.calls_to("users.info")
    assert call.http_method == "POST" and call.args == {"user": "U0READER1", "include_locale": "1"}
    slack_api.assert_all_ok()


def test_conversations_info(slack_client, slack_api):
    resp = slack_client.conversations_info(channel="C0PATHCH1")
    assert resp["ok"] is True
    slack_api.assert_all_ok()


def test_wrong_argument_type_is_refused(slack_client, slack_api):
    with pytest.raises(SlackApiError) as info:
        slack_client.api_call("chat.postMessage", json={"channel": "C1", "text": "x", "unfurl_links": "no"})
    assert info.value.response.status_code == 422
    assert "unfurl_links" in slack_api.calls[0].describe()


def test_assert_all_ok_also_checks_block_kit(slack_client, slack_api):
    """Prism cannot see inside `blocks` (the spec has no Block Kit schema); the recorder can."""
    too_long = {"type": "header", "text": {"type": "plain_text", "text": "x" * 151}}
    slack_client.api_call("chat.postMessage", json={"channel": "C1", "text": "x", "blocks": [too_long]})
    assert slack_api.calls[0].status == 200
    with pytest.raises(AssertionError, match="header"):
        slack_api.assert_all_ok()
    slack_api.assert_all_ok(check_blocks=False)


def test_assert_all_ok_requires_at_least_one_call(slack_api):
    with pytest.raises(AssertionError, match="at least 1"):
        slack_api.assert_all_ok()


def test_prism_alone_answers_on_slack_paths(prism):
    req = urllib.request.Request(
        prism + "/api/api.test", data=b"", method="POST", headers={"Authorization": "Bearer xoxb-test"}
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.status == 200 and json.load(resp)["ok"] is True
