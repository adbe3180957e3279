"""Fuzzed catalog text: titles, summaries, authors, source names, track names and descriptions,
step notes and external prerequisites full of live syntax, mrkdwn, bidi marks, emoji and Chinese.

Every view the app renders from the catalog (help, each track's path — personal and shared —,
search results, next reads, buttons' redraws, subscriptions, App Home, channel and DM digests)
stays valid Block Kit within Slack's limits, and only the catalog's URL fields ever become links.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Post, Track
from bot.domain.paths import track_state
from bot.domain.search import Matcher
from bot.runtime import Loaded, Runtime
from bot.slack.commands.replies import query, track_view
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.slack.views import messages as views
from tests.reliability.profiles import count, fuzz_settings
from tests.reliability.safety import allowed_urls_of, check_reply, check_view
from tests.reliability.strategies import hostile_text

N_TRACKS = 3
"""Tracks made hostile per example (with all their posts); the rest of the catalog stays as is."""

URLS = (
    "https://example.com/a|b",
    "https://example.com/?q=1&r=2;x=%3E",
    "https://example.com/x_y*z~`",
    "https://example.com/路径/\u202ex",
    "http://127.0.0.1:8080/",
    None,
)
"""External prerequisite URLs: odd but valid for the model (the loader's URL rule)."""


class _Holder:
    """A catalog holder serving one fixed catalog (what CatalogHolder serves after a reload)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.loaded = Loaded(catalog, Matcher(catalog))


def _usable(text: str) -> bool:
    return bool(text.strip())


def _loc(draw) -> dict:
    """A LocalizedText: hostile English, and hostile Chinese half the time."""
    out = {"en": draw(hostile_text.filter(_usable))}
    if draw(st.booleans()):
        out["zh"] = draw(hostile_text.filter(_usable))
    return out


class _Base:
    """The catalog the hostile ones derive from (short repr in Hypothesis's reports)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog

    def __repr__(self) -> str:
        return f"<catalog {self.catalog.version}>"


@st.composite
def hostile_catalogs(draw, wrapped: _Base) -> tuple[Catalog, list[str]]:
    """``wrapped.catalog`` with ``N_TRACKS`` tracks and their posts rewritten with hostile text."""
    base = wrapped.catalog
    chosen = draw(st.lists(st.sampled_from([t.id for t in base.tracks]), min_size=1, max_size=N_TRACKS, unique=True))
    post_ids = {s.post for tid in chosen for s in base.track(tid).steps}
    posts = []
    for i, post in enumerate(base.posts):
        if post.id not in post_ids:
            posts.append(post)
            continue
        raw = post.model_dump(by_alias=True, exclude_none=True)
        title = draw(hostile_text.filter(_usable))
        raw["title"] = f"{title} {i}"  # titles are unique in a valid catalog
        raw["summary"] = _loc(draw)
        raw["authors"] = draw(st.lists(hostile_text.filter(_usable), max_size=3))
        raw["tags"] = draw(st.lists(hostile_text.filter(_usable), max_size=3))
        if draw(st.booleans()):
            raw["source"] = {"kind": "company", "name": draw(hostile_text.filter(_usable))}
        posts.append(Post.model_validate(raw))
    tracks = []
    for track in base.tracks:
        if track.id not in chosen:
            tracks.append(track)
            continue
        raw = track.model_dump(by_alias=True, exclude_none=True)
        raw["names"] = {"en": draw(hostile_text.filter(_usable)), "zh": draw(hostile_text.filter(_usable))}
        raw["description"] = _loc(draw)
        raw["aliases"] = [track.id, *draw(st.lists(hostile_text.filter(_usable), max_size=3))]
        for step in raw["steps"]:
            if draw(st.booleans()):
                step["note"] = _loc(draw)
            step["external_prerequisites"] = [
                {
                    "title": draw(hostile_text.filter(_usable)),
                    "url": draw(st.sampled_from(URLS)),
                    "kind": draw(st.sampled_from(("prerequisite", "follow-up"))),
                }
                for _ in range(draw(st.integers(0, 2)))
            ]
            for ext in step["external_prerequisites"]:
                if ext["url"] is None:
                    del ext["url"]
        tracks.append(Track.model_validate(raw))
    return Catalog.build(manifest=base.manifest, posts=posts, tracks=tracks, orders=dict(base.orders)), chosen


@pytest.fixture(scope="module")
def base_catalog() -> _Base:
    """The catalog a runtime loads (``Settings().catalog_dir``), without a database: the digest
    property needs none, so it runs once rather than once per database kind (on identical,
    derandomized examples)."""
    from bot.config import Settings
    from bot.runtime import CatalogHolder

    return _Base(CatalogHolder(Settings(_env_file=None).catalog_dir).catalog)


def _no_shrink(base: settings) -> settings:
    """No shrinking: each example builds a whole catalog, so shrinking takes minutes; the
    failure message already shows the offending text."""
    return settings(base, phases=[Phase.explicit, Phase.reuse, Phase.generate])


# On SQLite only: the views' safety does not depend on the database (the store's SQL runs on both
# in its own tests), and each database kind cost ~10 s of CPU (issue 43's make test).
@pytest.mark.parametrize("module_db_url", ["sqlite"], indirect=True)
@_no_shrink(fuzz_settings(ci=15, fuzz=1_000))  # an example builds a catalog (~1.3 s): long runs are the fuzz profile
@given(data=st.data(), lang=st.sampled_from(("en", "zh")))
def test_every_view_of_a_hostile_catalog_is_safe(module_runtime, base_catalog, data, lang):
    count("hostile catalog -> every view")
    catalog, chosen = data.draw(hostile_catalogs(base_catalog))
    allowed = allowed_urls_of(catalog)
    runtime = Runtime(module_runtime.settings, module_runtime.store, _Holder(catalog))
    h = Handlers(runtime, users_info=lambda team, user: UserInfo(locale="zh-CN" if lang == "zh" else "en-US"))
    user = f"U{data.draw(st.integers(0, 10**9))}"
    caller = Caller("T0CATFUZZ", user, "C0CATFUZZ")

    check_reply(h.command(caller, "help"), allowed)
    for track in map(catalog.track, chosen):
        order = catalog.order(track.id)
        # nothing read, then the first step read (through the button), then everything read
        check_reply(track_view(h.context(caller, lang), track.id), allowed)
        check_reply(h.action(caller, "mark_read", {"p": order[0], "t": track.id, "v": f"track:{track.id}"}), allowed)
        check_reply(h.action(caller, "follow", {"t": track.id, "v": f"track:{track.id}"}), allowed)
        check_reply(
            views.track_reply(catalog, track_state(catalog, track.id, set(order)), lang, followed=True), allowed
        )
        check_reply(h.action(caller, "share", {"t": track.id, "v": f"track:{track.id}"}), allowed)
    check_reply(h.command(caller, "next"), allowed)
    hostile_posts = [catalog.post(p) for tid in chosen for p in catalog.order(tid)]
    for post in data.draw(st.lists(st.sampled_from(hostile_posts), min_size=1, max_size=3)):
        words = post.title.split()
        check_reply(query(h.context(caller, lang), " ".join(words[:3]) or post.id), allowed)
        check_reply(h.command(caller, f"read {post.id}"), allowed)
        check_reply(h.command(caller, f"unread {post.id}"), allowed)
    check_reply(h.command(caller, "subscribe " + chosen[0]), allowed)
    check_reply(h.command(caller, "subscriptions"), allowed)
    check_view(h.home(caller, ["C0CATFUZZ"]), allowed, allowed_channels=["C0CATFUZZ"])


@dataclass(frozen=True)
class _Sub:
    """What digest composition needs of a subscription."""

    id: int
    track_id: str
    cursor: int
    steps_per_week: int
    last_catalog_version: str | None


@_no_shrink(fuzz_settings(ci=12, fuzz=1_000))
@given(data=st.data(), lang=st.sampled_from(("en", "zh")))
def test_digests_of_a_hostile_catalog_are_safe(base_catalog, data, lang):
    """Channel digests at the start, middle and end of each path (announcing the steps an older
    version did not have), and a person's DM digest."""
    from bot.slack.views.digest import compose_channel_digest
    from bot.slack.views.digest_render import RENDERER

    count("hostile catalog -> digests")
    catalog, chosen = data.draw(hostile_catalogs(base_catalog))
    allowed = allowed_urls_of(catalog)
    for tid in chosen:
        order = catalog.order(tid)
        older = {tid: list(order[1:])}
        for cursor in (0, len(order) // 2, len(order) - 1, len(order)):
            sub = _Sub(1, tid, cursor, data.draw(st.integers(1, 3)), "2000.01.0")
            check_reply(compose_channel_digest(catalog, sub, older, lang=lang).reply, allowed)
    read = {catalog.order(tid)[0] for tid in chosen}
    check_reply(RENDERER.dm_digest(catalog, chosen, read, lang), allowed)
    check_reply(RENDERER.dm_digest(catalog, chosen, set(), lang), allowed)
