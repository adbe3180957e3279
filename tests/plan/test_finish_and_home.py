"""The finish line, App Home's finished paths and picture, stats, and the plan command, through
the real handlers on a real database (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from bot.config import Settings
from bot.domain import paths
from bot.domain.related import related_track
from bot.runtime import Runtime
from bot.slack.handlers import Caller, Handlers, UserInfo
from tests.standin.blockkit import validate_blocks

ALICE = Caller("T1", "U1", "C1")


def handlers(runtime, admin: bool = False) -> Handlers:
    return Handlers(runtime, users_info=lambda team, user: UserInfo(is_admin=admin))


def test_plan_sets_the_budget_and_the_track_reply_says_when_you_finish(runtime) -> None:
    h = handlers(runtime)
    reply = h.command(ALICE, "plan 30m")
    validate_blocks(reply.blocks)
    assert runtime.store.get_budget("T1", "U1") == 30 and "30 min a week" in reply.text
    spec = h.command(ALICE, "spec")
    validate_blocks(spec.blocks)
    body = json.dumps(spec.blocks)
    n = len(paths.essentials(runtime.holder.catalog, "spec"))
    assert f"Essential path: {n} steps" in body and "at 30 min a week you finish around" in body
    assert "further reading" in body
    assert h.command(ALICE, "计划 1小时").blocks and runtime.store.get_budget("T1", "U1") == 60
    h.command(ALICE, "plan off")
    assert runtime.store.get_budget("T1", "U1") is None
    assert "(the default" in json.dumps(h.command(ALICE, "spec").blocks)
    assert "could not read" in h.command(ALICE, "plan soon").text
    assert "5–600" in h.command(ALICE, "plan 1000m").text


def test_dm_on_with_minutes_sets_the_budget(runtime) -> None:
    h = handlers(runtime)
    reply = h.command(Caller("T1", "U1", "D1"), "dm on friday 08:30 45m")
    assert runtime.store.get_budget("T1", "U1") == 45 and "45 min a week" in reply.text


def test_dm_on_with_minutes_out_of_range_changes_nothing(runtime) -> None:
    """(QA) ``dm on … 9999m`` turned the DM on and refused only the minutes; like ``subscribe``,
    the whole command is refused and nothing is set."""
    h = handlers(runtime)
    reply = h.command(Caller("T1", "U1", "D1"), "dm on friday 08:30 9999m")
    assert "5–600" in reply.text and "9,999 min is outside" in reply.text
    assert runtime.store.get_dm("T1", "U1") is None and runtime.store.get_budget("T1", "U1") is None


def test_marking_every_essential_step_read_gives_the_finish_message(runtime) -> None:
    h = handlers(runtime)
    cat = runtime.holder.catalog
    ess = paths.essentials(cat, "pd")
    for pid in ess[:-1]:
        assert "finished the essential path" not in h.command(ALICE, f"read {pid}").text
    reply = h.command(ALICE, f"read {ess[-1]}")
    validate_blocks(reply.blocks)
    text = json.dumps(reply.blocks)
    nxt = related_track(cat, "pd")  # QA round 19: never pd's own prerequisite (internals)
    assert nxt is not None and nxt not in cat.track("pd").before
    assert "finished the essential path of PD disaggregated serving" in text
    assert cat.track(nxt).names.en.replace("&", "&amp;") in text and f"/vllm-path {nxt}" in text  # mrkdwn-escaped
    assert "Further reading" in text
    assert set(runtime.store.finished_paths("T1", "U1")) == {"pd"}
    # once: reading it again (or more of the track) does not finish it again
    assert "finished the essential path" not in h.command(ALICE, f"read {ess[-1]}").text
    # (QA) nor unread and read again: the finish was noticed once
    h.command(ALICE, f"unread {ess[-1]}")
    assert "finished the essential path" not in h.command(ALICE, f"read {ess[-1]}").text
    # Counted in stats, but like every count of fewer than 4 readers, not as a number (QA: the
    # one finisher was shown as 1 beside a funnel that hid it).
    admin = handlers(runtime, admin=True)
    stats = json.dumps(admin.command(Caller("T1", "UADMIN", "C1"), "stats").blocks)
    assert "Essential paths finished: by fewer than 4 readers in every track" in stats
    for user in ("U2", "U3", "U4"):
        h.command(Caller("T1", user, "D1"), "read " + " ".join(ess))
    stats = json.dumps(admin.command(Caller("T1", "UADMIN", "C1"), "stats").blocks)
    assert "Essential paths finished: *4* (PD disaggregated serving 4)" in stats
    # (QA round 2) A total beside a hidden part would give the part away (7 = 4 + the hidden 3).
    spec = paths.essentials(cat, "spec")
    for user in ("U5", "U6", "U7"):
        h.command(Caller("T1", user, "D1"), "read " + " ".join(spec))
    stats = json.dumps(admin.command(Caller("T1", "UADMIN", "C1"), "stats").blocks)
    assert "Essential paths finished: *4+* (PD disaggregated serving 4, Speculative decoding &lt;4)" in stats


def test_app_home_shows_finished_paths_and_the_picture_only_with_a_public_url(any_db_url) -> None:
    for public in (None, "https://paths.example.com"):
        rt = Runtime.create(
            Settings(database_url=any_db_url, public_url=public, picture_url_secret="s3cret", _env_file=None)
        )
        try:
            h = handlers(rt)
            h.command(ALICE, "follow spec")
            for pid in paths.essentials(rt.holder.catalog, "quant"):
                h.command(ALICE, f"read {pid}")
            view = h.home(ALICE, ["C1"])
            validate_blocks(view["blocks"], "home")
            text = json.dumps(view["blocks"])
            assert "Finished paths:* Quantization" in text
            images = [b for b in view["blocks"] if b["type"] == "image"]
            if public is None:
                assert images == []
            else:
                (image,) = images
                url = urlsplit(image["image_url"])
                assert image["image_url"].startswith("https://paths.example.com/paths/spec.png?")
                assert "U1" not in image["image_url"] and parse_qs(url.query)["sig"]
            if public is None:  # (QA) a step marked unread reopens its path on Home too
                h.command(ALICE, f"unread {paths.essentials(rt.holder.catalog, 'quant')[-1]}")
                assert "Finished paths" not in json.dumps(h.home(ALICE, ["C1"])["blocks"])
        finally:
            rt.store.close()
