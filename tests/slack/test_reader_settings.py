"""Readers' settings (issue 15): steps per week from Slack, unsubscribe without a track, dm on
keeping the last schedule, Mark read on every step, Read first without read posts, Home's Open
path / Unfollow, the snooze confirmation without nested brackets."""

from __future__ import annotations

import json

from bot.slack.handlers import Caller, Handlers

TEAM, USER, CHANNEL = "TSET", "USET", "CSET"


def _h(runtime) -> Handlers:
    return Handlers(runtime)


def _texts(reply) -> str:
    return json.dumps(reply.blocks, ensure_ascii=False) + reply.text


def test_subscribe_with_steps_per_week_and_the_list_shows_it(runtime) -> None:
    h, me = _h(runtime), Caller(TEAM, USER, CHANNEL)
    reply = h.command(me, "subscribe spec 3 steps")
    assert "3 steps each week." in reply.text
    (sub,) = runtime.store.subscriptions(TEAM, CHANNEL)
    assert sub.steps_per_week == 3
    assert "3 steps a week" in h.command(me, "subscriptions").text
    h.command(me, "subscribe spec friday 10:00")  # steps left out: kept
    assert runtime.store.subscriptions(TEAM, CHANNEL)[0].steps_per_week == 3
    refused = h.command(me, "subscribe spec 5 steps")
    assert "1 to 3 steps a week, not 5" in refused.text
    assert runtime.store.subscriptions(TEAM, CHANNEL)[0].steps_per_week == 3


def test_unsubscribe_without_a_track_lists_this_channels_digests(runtime) -> None:
    h = _h(runtime)
    h.command(Caller(TEAM, USER, CHANNEL), "subscribe pd")
    h.command(Caller(TEAM, USER, "COTHER"), "subscribe quant")
    text = h.command(Caller(TEAM, USER, CHANNEL), "unsubscribe").text
    assert "PD disaggregated serving" in text and "Quantization" not in text and "Which track" not in text


def test_dm_on_keeps_the_last_schedule(runtime) -> None:
    h, me = _h(runtime), Caller(TEAM, USER, "D1")
    h.command(me, "dm on friday 08:30 Asia/Tokyo")
    h.command(me, "dm off")
    assert "Fridays at 08:30 (Asia/Tokyo)" in h.command(me, "dm on").text
    assert "Fridays at 10:00 (Asia/Tokyo)" in h.command(me, "dm on 10:00").text


def test_every_step_has_mark_read_and_read_first_skips_read_posts(runtime) -> None:
    h, me = _h(runtime), Caller(TEAM, USER, CHANNEL)
    order = runtime.holder.catalog.order("spec")
    reply = h.command(me, "spec")
    step_buttons = [
        json.loads(b["accessory"]["value"])["p"]
        for b in reply.blocks
        if b.get("accessory", {}).get("action_id", "").startswith("mark_read:")
    ]
    assert step_buttons == list(order)
    for pid in order[:2]:
        h.command(me, f"read {pid}")
    reply = h.command(me, "spec")
    unread_buttons = [
        json.loads(b["accessory"]["value"])["p"]
        for b in reply.blocks
        if b.get("accessory", {}).get("action_id", "").startswith("mark_unread:")
    ]
    assert unread_buttons == list(order[:2])
    detail = next(b["text"]["text"] for b in reply.blocks if "Read next" in b.get("text", {}).get("text", ""))
    assert "Read first" not in detail  # the next step's prerequisites are read by definition


def test_home_has_open_path_and_unfollow_per_followed_track(runtime) -> None:
    h, me = _h(runtime), Caller(TEAM, USER)
    h.command(me, "follow spec")
    view = h.home(me, None)
    ids = [el["action_id"].split(":")[0] for b in view["blocks"] if b["type"] == "actions" for el in b["elements"]]
    assert "open_path" in ids and "unfollow" in ids
    opened = h.action(me, "open_path", {"t": "spec", "v": "home"})
    assert opened is not None and "Speculative decoding" in _texts(opened)


def test_the_snooze_confirmation_has_no_nested_brackets(runtime) -> None:
    h, me = _h(runtime), Caller(TEAM, USER, CHANNEL)
    h.command(me, "subscribe spec monday 09:00 Europe/Berlin")
    (sub,) = runtime.store.subscriptions(TEAM, CHANNEL)
    reply = h.action(me, "snooze", {"v": f"digest:{sub.id}"})
    assert reply is not None and "09:00 Europe/Berlin)" in reply.text and "))" not in reply.text
