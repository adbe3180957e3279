"""Link unfurls through the HTTP door: a signed ``link_shared`` event -> one ``chat.unfurl`` at the
stand-in (strict: scopes, arguments, Block Kit), once per event and per link of a message."""

from __future__ import annotations

import time

import pytest

from tests.e2e.helpers import BOT_TOKEN, FakeSlack, block_texts
from tests.standin import SlackStandIn, link_shared_event
from tests.standin.blockkit import block_kit_problems
from tests.waits import PATIENCE_S

SPEC_DECODE = "https://vllm-project.github.io/2024/10/17/spec-decode.html"
NEW_HOST = "https://blog.vllm.ai/2024/10/17/spec-decode.html"
UNKNOWN_BLOG = "https://vllm-project.github.io/2099/01/01/not-a-post.html"
ELSEWHERE = "https://example.com/2024/10/17/spec-decode.html"
BLOG_HOME = "https://vllm-project.github.io/"
REDIRECTED = "https://blog.vllm.ai/2026/02/03/dsr1-gb200.html"
"""An old link the blog redirects (``redirect_from`` of the WideEP part I post)."""

SCOPES = [
    "commands",
    "chat:write",
    "im:write",
    "users:read",
    "channels:read",
    "groups:read",
    "links:read",
    "links:write",
]


@pytest.fixture
def standin():
    """A stand-in that checks scopes: the bot token has exactly the manifest's scopes."""
    with SlackStandIn(token_scopes={BOT_TOKEN: SCOPES}) as s:
        yield s


def _settle(standin: SlackStandIn, seconds: float = 1.0) -> None:
    """Give a call that should not happen the chance to happen (asserting absence)."""
    time.sleep(seconds)


def _spec_position(runtime) -> tuple[int, int, str]:
    cat = runtime.holder.catalog
    order = cat.order("spec")
    i = order.index("spec-decode")
    return i + 1, len(order), cat.post(order[i + 1]).title


def test_a_catalog_link_gets_one_unfurl_with_its_place_in_the_path(slack: FakeSlack, standin, runtime):
    started = time.monotonic()
    ack = slack.event(
        link_shared_event([SPEC_DECODE], user_id=slack.user, channel=slack.channel, message_ts="1700000000.000200"),
        event_id="EvUNFURL1",
    )
    assert ack.status == 200
    call = standin.wait_for_call("chat.unfurl", timeout=3)
    assert time.monotonic() - started < 3.0
    assert call.response == {"ok": True}
    assert call.args["channel"] == slack.channel and call.args["ts"] == "1700000000.000200"
    card = call.args["unfurls"][SPEC_DECODE]
    assert block_kit_problems(card["blocks"], "message") == []
    text = block_texts(card["blocks"])
    position, total, next_title = _spec_position(runtime)
    assert f"step {position} of {total} in Speculative decoding" in text
    assert "next: " in text and next_title[:40] in text
    assert "How Speculative Decoding Boosts vLLM Performance" in text
    labels = [el["text"]["text"] for b in card["blocks"] if b["type"] == "actions" for el in b["elements"]]
    assert labels[0] == "Mark read" and "Remind me next week" in labels
    assert any(label.startswith("Follow") for label in labels)

    # Slack's retry of the same event makes no second call
    retry = slack.event(
        link_shared_event([SPEC_DECODE], user_id=slack.user, channel=slack.channel, message_ts="1700000000.000200"),
        event_id="EvUNFURL1",
        retry_num=1,
    )
    assert retry.status == 200
    _settle(standin)
    assert len(standin.calls("chat.unfurl")) == 1


def test_unknown_urls_get_no_unfurl(slack: FakeSlack, standin):
    ack = slack.event(link_shared_event([ELSEWHERE], user_id=slack.user, channel=slack.channel))
    assert ack.status == 200
    _settle(standin)
    assert standin.calls("chat.unfurl") == []


@pytest.mark.parametrize("url", [UNKNOWN_BLOG, BLOG_HOME, "https://blog.vllm.ai/", "https://blog.vllm.ai/about/"])
def test_a_blog_page_not_in_the_catalog_is_left_to_slacks_preview(slack: FakeSlack, standin, url):
    ack = slack.event(link_shared_event([url], user_id=slack.user, channel=slack.channel))
    assert ack.status == 200
    _settle(standin)
    assert standin.calls("chat.unfurl") == []


def test_in_one_message_only_the_known_links_are_unfurled(slack: FakeSlack, standin):
    slack.event(
        link_shared_event(
            [BLOG_HOME, REDIRECTED, UNKNOWN_BLOG],
            user_id=slack.user,
            channel=slack.channel,
            message_ts="1700000000.000400",
        )
    )
    call = standin.wait_for_call("chat.unfurl", timeout=PATIENCE_S)
    assert list(call.args["unfurls"]) == [REDIRECTED]
    assert "Driving vLLM WideEP" in block_texts(call.args["unfurls"][REDIRECTED]["blocks"])
    _settle(standin)
    assert len(standin.calls("chat.unfurl")) == 1


def test_the_same_post_twice_in_a_thread_message_is_unfurled_once(slack: FakeSlack, standin):
    slack.event(
        link_shared_event(
            [SPEC_DECODE, NEW_HOST, SPEC_DECODE],
            user_id=slack.user,
            channel=slack.channel,
            thread_ts="1700000000.000001",
            message_ts="1700000000.000300",
        )
    )
    call = standin.wait_for_call("chat.unfurl", timeout=PATIENCE_S)
    assert list(call.args["unfurls"]) == [SPEC_DECODE]
    # the same message's links again (another event id) are not unfurled twice
    slack.event(
        link_shared_event([SPEC_DECODE], user_id=slack.user, channel=slack.channel, message_ts="1700000000.000300")
    )
    _settle(standin)
    assert len(standin.calls("chat.unfurl")) == 1


def test_links_in_a_dm_and_in_the_composer(slack: FakeSlack, standin):
    slack.event(link_shared_event([NEW_HOST], user_id=slack.user, channel="D0E2EDM"))
    call = standin.wait_for_call("chat.unfurl", timeout=PATIENCE_S)
    assert call.args["channel"] == "D0E2EDM"
    slack.event(
        link_shared_event([SPEC_DECODE], user_id=slack.user, source="composer", unfurl_id="C0E2E.1700000000.abc")
    )
    call = standin.wait_for_call("chat.unfurl", count=2, timeout=PATIENCE_S)
    assert call.args["unfurl_id"] == "C0E2E.1700000000.abc" and call.args["source"] == "composer"
    assert "channel" not in call.args


def test_a_click_on_the_card_answers_privately_and_marks_read(slack: FakeSlack, standin, runtime):
    slack.event(link_shared_event([SPEC_DECODE], user_id=slack.user, channel=slack.channel))
    card = standin.wait_for_call("chat.unfurl", timeout=PATIENCE_S).args["unfurls"][SPEC_DECODE]
    ack, url = slack.click({"blocks": card["blocks"]}, "mark_read:", ephemeral=False)
    assert ack.status == 200
    answer = standin.wait_for_response(url, timeout=10).body
    assert answer.get("replace_original") is False
    assert answer.get("response_type", "ephemeral") == "ephemeral"
    assert "spec-decode" in runtime.store.read_posts(slack.team, slack.user)


def test_the_standin_refuses_unfurls_without_links_write():
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    with SlackStandIn(token_scopes={"xoxb-t": ["chat:write"], "xoxb-l": ["links:write"]}) as s:
        with pytest.raises(SlackApiError) as err:
            WebClient(token="xoxb-t", base_url=s.api_url).chat_unfurl(
                channel="C1", ts="1.2", unfurls={SPEC_DECODE: {"blocks": []}}
            )
        assert err.value.response["error"] == "missing_scope"
        client = WebClient(token="xoxb-l", base_url=s.api_url)
        for kwargs, error in [
            (dict(channel="C1", unfurls={SPEC_DECODE: {"text": "x"}}), "invalid_arguments"),
            (dict(channel="C1", ts="1.2"), "missing_unfurls"),
            (dict(channel="C1", ts="1.2", unfurls={"nope": {"text": "x"}}), "cannot_unfurl_url"),
            (dict(channel="C1", ts="1.2", unfurls={SPEC_DECODE: {"blocks": [{"type": "bogus"}]}}), "invalid_blocks"),
        ]:
            with pytest.raises(SlackApiError) as err:
                client.chat_unfurl(**kwargs)
            assert err.value.response["error"] == error, kwargs
