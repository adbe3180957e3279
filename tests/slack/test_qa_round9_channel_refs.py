"""QA round 9: a ``#name`` typed in a command that acts only where it is typed. The channel the
command is typed in, named as Slack sends it with ``should_escape: false`` (``#general``), is that
channel, not another; ``#spec`` in a track command with no other track named is the track."""

from __future__ import annotations

from bot.slack.handlers import Caller, Handlers, UserInfo

HERE = Caller("T1", "U1", "C1", channel_name="general")


def _handlers(runtime) -> Handlers:
    return Handlers(runtime, users_info=lambda team, user: UserInfo(tz="Europe/Berlin"))


def test_the_channel_typed_in_named_with_a_hash_is_not_refused(runtime):
    h = _handlers(runtime)
    for text in ("subscriptions #general", "subscriptions #General"):
        reply = h.command(HERE, text).text
        assert "Run this in" not in reply and "nothing was changed" not in reply, reply
    refused = h.command(HERE, "subscriptions #random").text
    assert "Run this in #random itself" in refused  # another channel is still refused


def test_a_track_typed_with_a_hash_is_the_track(runtime):
    h = _handlers(runtime)
    assert "You now follow Speculative decoding" in h.command(HERE, "follow #spec").text
    assert runtime.store.follows("T1", "U1") == ["spec"]
    assert "You no longer follow" in h.command(HERE, "unfollow #spec").text
    assert runtime.store.follows("T1", "U1") == []
    refused = h.command(HERE, "follow #banana").text  # no track: a channel named, refused as before
    assert "Following is per person" in refused and runtime.store.follows("T1", "U1") == []
