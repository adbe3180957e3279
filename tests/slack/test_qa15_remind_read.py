"""QA round 15: ``remind`` naming a post the reader has read set the reminder anyway ("You have
read it already; the reminder is set anyway."). It sets none and offers the next unread step of
the post's track, or says the track is read to its end."""

from __future__ import annotations

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain.catalog import load_catalog
from bot.domain.paths import track_path
from bot.slack.handlers import Caller, Handlers, UserInfo

ALICE = Caller("T1", "U1", "C1")
CATALOG = load_catalog(DEFAULT_CATALOG_DIR)
STEPS = [s.post_id for s in track_path(CATALOG, "spec").steps]


def test_a_read_post_gets_no_reminder_and_the_next_unread_step_is_offered(runtime):
    left = next(p for p in STEPS if p != "p-eagle" and CATALOG.post(p).url is not None)  # the one step unread
    runtime.store.mark_read("T1", "U1", [p for p in STEPS if p != left])
    runtime.store.follow("T1", "U1", "spec")
    h = Handlers(runtime, users_info=lambda team, user: UserInfo())
    reply = h.command(ALICE, "remind p-eagle next week")
    assert runtime.store.reminders("T1", "U1") == []
    assert "set anyway" not in reply.text and "no reminder" in reply.text
    assert f"remind {left}" in reply.text


def test_a_read_post_of_a_finished_track_says_the_track_is_done(runtime):
    runtime.store.mark_read("T1", "U1", STEPS)
    h = Handlers(runtime, users_info=lambda team, user: UserInfo())
    reply = h.command(ALICE, "提醒我 p-eagle 明天")
    assert runtime.store.reminders("T1", "U1") == []
    assert "已全部读完" in reply.text


def test_an_unread_post_is_still_reminded(runtime):
    h = Handlers(runtime, users_info=lambda team, user: UserInfo())
    h.command(ALICE, "remind p-eagle next week")
    assert [r.post_id for r in runtime.store.reminders("T1", "U1")] == ["p-eagle"]
