"""QA round 7: a button acts on what it sits beside. After ``remind p-eagle``, the reply's
*Mark read* for the reminded post sits with the sentence naming it, and the progress line's button
marks that line's next step."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import time_machine

from bot.slack.handlers import Caller, Handlers, UserInfo

ALICE = Caller("T1", "U1", "C1")
MONDAY = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


def test_each_mark_read_sits_beside_the_post_it_marks(runtime):
    h = Handlers(runtime, users_info=lambda team, user: UserInfo(tz="Europe/Berlin"))
    with time_machine.travel(MONDAY, tick=False):
        reply = h.command(ALICE, "remind p-eagle tomorrow")
    marks = []
    for block in reply.blocks:
        accessory = block.get("accessory")
        if accessory and accessory["action_id"].startswith("mark_read"):
            marks.append((block["text"]["text"], json.loads(accessory["value"])["p"]))
        for element in block.get("elements", []) if block["type"] == "actions" else []:
            assert not element["action_id"].startswith("mark_read"), block  # no button under two lines
    assert len(marks) == 2, reply.blocks
    (reminded_text, reminded), (line_text, step) = marks
    assert reminded == "p-eagle" and "I will remind you of" in reminded_text and "P-EAGLE" in reminded_text
    assert step != "p-eagle" and "next:" in line_text
    assert line_text.split("next:")[1].count("http") == 1 and step in reply.text.split("next:")[1], reply.text


def test_further_readings_count_and_minutes_say_of_how_many(runtime):
    """QA round 7: "7 further reading left (25 min) · … · not counted: 1 without a link yet" counted
    the unlinked step in the 7 but not in the minutes; the line says of how many the minutes are."""
    from bot.domain import paths

    h = Handlers(runtime, users_info=lambda team, user: UserInfo(tz="Europe/Berlin"))
    cat = runtime.holder.catalog
    track = next(t for t in cat.tracks if any(cat.post(p).minutes is None for p in paths.further(cat, t.id)))
    further = paths.further(cat, track.id)
    unknown = sum(1 for p in further if cat.post(p).minutes is None)
    h.command(ALICE, "read " + " ".join(paths.essentials(cat, track.id)))
    text = h.command(ALICE, "next").text
    assert f"{len(further)} further reading left" in text, text
    said = "1 more has no link yet" if unknown == 1 else f"{unknown} more have no link yet"  # QA round 8: wording
    assert f"(minutes for the {len(further) - unknown} with a link; {said})" in text, text
    assert "not counted: " not in text
