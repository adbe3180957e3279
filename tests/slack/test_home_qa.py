"""App Home fixes from a new-user QA run, through the real handlers, store and catalog: the next
read's reading time, a progress bar counting what its label counts, and tracks read in but not
followed shown (marked so, with a *Follow track* button)."""

from __future__ import annotations

import random
import re
from typing import Any

from bot.domain import paths
from bot.domain.catalog import load_catalog
from bot.domain.catchup import reader_tracks
from bot.domain.paths import track_state
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.slack.views import home
from bot.slack.views.blocks import decode_value
from tests.evaldata import REPO
from tests.slack.test_views import assert_safe

ALICE = Caller("T1", "U1", "C1")
CATALOG = load_catalog(REPO / "catalog")
BAR = re.compile(r"([▰▱]{10})")


def handlers(runtime) -> Handlers:
    return Handlers(runtime, users_info=lambda *_: UserInfo(name="Alice"), announce=lambda *_: None)


def _sections(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in view["blocks"] if b["type"] == "section"]


def _track_section(view: dict[str, Any], name: str) -> dict[str, Any]:
    """The section of App Home that shows track ``name`` (its text starts with the bold name)."""
    found = [b for b in _sections(view) if b["text"]["text"].startswith(f"*{name}*")]
    assert len(found) == 1, [b["text"]["text"] for b in _sections(view)]
    return found[0]


def _texts(view: dict[str, Any]) -> list[str]:
    return [b["text"]["text"] for b in _sections(view)]


def _follow_buttons(view: dict[str, Any]) -> list[str]:
    """The track ids of every *Follow track* button on App Home (accessories and action rows)."""
    elements = [b["accessory"] for b in view["blocks"] if "accessory" in b]
    elements += [e for b in view["blocks"] if b["type"] == "actions" for e in b["elements"]]
    return [decode_value(e["value"])["t"] for e in elements if e.get("action_id", "").startswith("follow:")]


def test_home_read_next_shows_the_reading_time_like_every_other_view(runtime) -> None:
    """QA: "*Read next:* PTPC-FP8 … [Mark read]" had no " · N min" (the track reply has it)."""
    h = handlers(runtime)
    cat = runtime.holder.catalog
    for track in ("quant", "spec"):
        h.command(ALICE, f"follow {track}")
    h.command(ALICE, "read " + paths.essentials(cat, "quant")[0])
    for lang in ("en", "zh"):
        h.command(ALICE, f"lang {lang}")
        view = h.home(ALICE, [])
        for track in ("quant", "spec"):
            post = track_state(cat, track, runtime.store.reader_state("T1", "U1").read).next.post
            assert post.minutes is not None
            section = _track_section(view, cat.track(track).names.get(lang))
            line = next(ln for ln in section["text"]["text"].split("\n") if post.title in ln)
            # "12 min" counted, "~12 min" estimated; zh "12 分钟"
            assert re.search(rf" · ~?{post.minutes} (min|分钟)$", line), line


def test_the_home_bar_counts_the_essential_path_like_its_label(runtime) -> None:
    """QA: "▰▰▱▱▱▱▱▱▱▱ 3 of 8 essential read": the bar filled 3 of 17 steps; it fills 3 of 8 now,
    and once the essential path is read, the steps read of the whole path (as the label then says)."""
    h = handlers(runtime)
    cat = runtime.holder.catalog
    essentials = paths.essentials(cat, "spec")
    total = len(paths.track_path(cat, "spec").steps)
    assert len(essentials) == 8 and total == 17
    h.command(ALICE, "follow spec")
    h.command(ALICE, "read " + " ".join(essentials[:3]))
    text = _track_section(h.home(ALICE, []), "Speculative decoding")["text"]["text"]
    assert "3 of 8 essential read · 3 of 17 in all" in text
    assert BAR.search(text).group(1) == "▰" * 4 + "▱" * 6  # round(10 * 3 / 8); 3 of 17 was 2
    h.command(ALICE, "read " + " ".join(essentials[3:]))
    text = _track_section(h.home(ALICE, []), "Speculative decoding")["text"]["text"]
    assert "8 of 17 read" in text
    assert BAR.search(text).group(1) == "▰" * 5 + "▱" * 5  # round(10 * 8 / 17)


def test_a_track_read_in_but_not_followed_shows_on_home_with_a_follow_button(runtime) -> None:
    """QA: with 2 of 8 spec steps read and nothing followed, Home said "You don't follow a track yet."
    and nothing of spec; now spec shows under "Started, not followed" with its progress and next read,
    its *Follow track* button there (not again under "More tracks"), and following it moves it up."""
    h = handlers(runtime)
    cat = runtime.holder.catalog
    h.command(ALICE, "read " + " ".join(paths.essentials(cat, "spec")[:2]))
    view = h.home(ALICE, [])
    texts = _texts(view)
    assert "You don't follow a track yet; you have started the tracks below." in texts
    started = texts.index("*Started, not followed*")
    section = _track_section(view, "Speculative decoding")
    assert texts.index(section["text"]["text"]) == started + 1
    assert "2 of 8 essential read · 2 of 17 in all" in section["text"]["text"]
    assert "*Read next:*" in section["text"]["text"]
    accessory = section["accessory"]
    assert accessory["text"]["text"] == "Follow track" and accessory["action_id"].startswith("follow:")
    assert _follow_buttons(view).count("spec") == 1
    assert len(_follow_buttons(view)) == len(cat.tracks)  # every other track still offered once
    assert_safe(view["blocks"], "", surface="home")

    assert h.action(ALICE, "follow", decode_value(accessory["value"])) is None  # App Home is redrawn
    view = h.home(ALICE, [])
    texts = _texts(view)
    assert "*Started, not followed*" not in texts and not any("don't follow" in x for x in texts)
    followed = _track_section(view, "Speculative decoding")
    assert followed["accessory"]["action_id"].startswith("mark_read:")
    assert "spec" not in _follow_buttons(view)


def test_started_and_followed_tracks_together_in_chinese(runtime) -> None:
    """A reader following one track and read in another sees both: the followed one first, then the
    started one under its own heading; the "no track followed" line is gone."""
    h = handlers(runtime)
    cat = runtime.holder.catalog
    h.command(ALICE, "lang zh")
    h.command(ALICE, "follow quant")
    h.command(ALICE, "read " + paths.essentials(cat, "spec")[0])
    view = h.home(ALICE, [])
    texts = _texts(view)
    assert not any("还没有关注主题" in x for x in texts)
    quant = texts.index(_track_section(view, cat.track("quant").names.get("zh"))["text"]["text"])
    spec = texts.index(_track_section(view, cat.track("spec").names.get("zh"))["text"]["text"])
    assert quant < texts.index("*已开始阅读、未关注*") == spec - 1
    assert _track_section(view, cat.track("spec").names.get("zh"))["accessory"]["text"]["text"] == "关注主题"


def test_home_fits_with_every_track_started_and_none_followed() -> None:
    """Block Kit limits hold with every track started (a step read) and none followed, or all read."""
    firsts = {paths.track_path(CATALOG, t.id).steps[0].post_id for t in CATALOG.tracks}
    for read in (firsts, {p.id for p in CATALOG.posts}):
        for lang in ("en", "zh"):
            started = paths.started_track_states(CATALOG, read, ())
            state = home.HomeState(following=[], read=set(read), dm=None, channel_subs=[], lang=lang, started=started)
            assert len(started) == len(CATALOG.tracks)
            view = home.home_view(CATALOG, state)
            assert_safe(view["blocks"], "", surface="home")
            assert sorted(_follow_buttons(view)) == sorted(t.id for t in CATALOG.tracks)  # each once
            assert "*More tracks*" not in _texts(view) and "*更多主题*" not in _texts(view)


def test_started_tracks_are_those_the_catch_up_and_plan_call_started() -> None:
    """:func:`bot.domain.paths.started_track_states` (looked up per post read) agrees with
    :func:`bot.domain.catchup.reader_tracks` (per track) for many read sets and follows (former ids
    too, once the catalog has some: it has none today)."""
    rng = random.Random(7)
    posts = [p.id for p in CATALOG.posts]
    aliases = [a for p in CATALOG.posts for a in p.aliases]
    tracks = [t.id for t in CATALOG.tracks]
    for _ in range(200):
        read = set(rng.sample(posts, rng.randint(0, 6))) | set(
            rng.sample(aliases, min(len(aliases), rng.randint(0, 2)))
        )
        follows = rng.sample(tracks, rng.randint(0, 3))
        following = [track_state(CATALOG, tid, read) for tid in follows]
        assert len(following) == len(follows)
        got = [s.track_id for s in paths.started_track_states(CATALOG, read, follows)]
        assert got == list(reader_tracks(CATALOG, follows, read)[len(follows) :]), (read, follows)
