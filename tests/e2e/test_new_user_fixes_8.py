"""The reader's commands, what a new user's eighth break test found (QA), end to end through the
HTTP door (signed requests, the stand-in Slack, the real store and catalog): a channel typed in
``subscribe`` / ``unsubscribe`` (plain, as the manifest's ``should_escape: false`` makes Slack send
it, or escaped) is refused privately and nothing is stored or posted; a zero-width space after a
command changes nothing; a reminder for someone else is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.e2e.helpers import CHANNEL, TEAM, USER, block_texts, reply_text, zoned_standin_fixture
from tests.waits import PATIENCE_S

_text = reply_text
MANIFEST = Path(__file__).resolve().parents[2] / "manifest.yaml"

standin = zoned_standin_fixture("Europe/Berlin")  # the test's channel, the app a member


def _posted(standin) -> list[str]:
    return [str(c.args.get("text", "")) for c in standin.calls("chat.postMessage") if c.args.get("channel") == CHANNEL]


@pytest.mark.parametrize("typed", ["subscribe #general spec", "subscribe spec to #ml-reading"])
def test_a_channel_typed_in_subscribe_is_refused_privately(slack, standin, runtime, typed):
    commands = yaml.safe_load(MANIFEST.read_text())["features"]["slash_commands"]
    assert [c["should_escape"] for c in commands if c["command"] == "/vllm-path"] == [False]  # "#general" as typed
    body = slack.ask(typed).body
    text = str(body.get("text", "")) + "\n" + block_texts(body.get("blocks") or [])
    assert body.get("response_type", "ephemeral") == "ephemeral"
    assert "itself" in text and "nothing was changed" in text and "`/vllm-path subscribe spec`" in text, text
    assert "now gets" not in text, text
    assert runtime.store.subscriptions(TEAM, CHANNEL) == []
    assert _posted(standin) == []


def test_a_channel_typed_in_unsubscribe_keeps_this_channels_digest(slack, standin, runtime):
    slack.ask("subscribe spec")
    standin.wait_for(lambda: _posted(standin), timeout=PATIENCE_S)  # the channel hears of its new digest
    before = _posted(standin)
    for typed in ("unsubscribe #general spec", "unsubscribe <#C0OTHER|general> spec"):
        text = _text(slack, typed)
        assert "Run this in" in text and "itself" in text, text
        assert [s.track_id for s in runtime.store.subscriptions(TEAM, CHANNEL)] == ["spec"], text
    slack.ask("subscriptions")  # one more round trip: any announcement would be out by now
    assert _posted(standin) == before


def test_a_zero_width_space_after_a_command_changes_nothing(slack):
    slack.ask("follow spec")
    assert _text(slack, "next\u200b") == _text(slack, "next")
    assert "No post matches" not in _text(slack, "next\u200b")


def test_a_reminder_for_someone_else_is_refused(slack, runtime):
    text = _text(slack, "remind @bob p-eagle tomorrow")
    assert "Reminders are only for yourself" in text and "not sure which post" not in text, text
    assert runtime.store.reminders(TEAM, USER) == []
