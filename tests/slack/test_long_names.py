"""A 180-character track name (longer than ``catalog check`` allows, as an older or hand-built
catalog may hold) renders every digest, confirm dialog, header and button within Slack's limits:
the Block Kit builders cut every text to its field's limit (``bot.slack.views.blocks``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Track
from bot.domain.paths import track_state
from bot.runtime import Runtime
from bot.slack.commands.replies import track_view
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views import messages as views
from bot.slack.views.blocks import cut
from bot.slack.views.digest import compose_channel_digest
from bot.slack.views.digest_render import RENDERER
from tests.reliability.safety import allowed_urls_of, check_reply, check_view
from tests.standin import blockkit

NAME = ("Speculative & <structured> *decoding* at scale — " * 10)[:180]
TRACK = "spec"


@dataclass(frozen=True)
class _Sub:
    id: int
    track_id: str
    cursor: int
    steps_per_week: int
    last_catalog_version: str | None


class _Holder:
    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        from bot.domain.search import Matcher
        from bot.runtime import Loaded

        self.loaded = Loaded(catalog, Matcher(catalog))


def _long_named(catalog: Catalog) -> Catalog:
    tracks = []
    for track in catalog.tracks:
        if track.id == TRACK:
            raw = track.model_dump(by_alias=True, exclude_none=True)
            raw["names"] = {"en": NAME, "zh": NAME}
            track = Track.model_validate(raw)
        tracks.append(track)
    return Catalog.build(
        manifest=catalog.manifest, posts=list(catalog.posts), tracks=tracks, orders=dict(catalog.orders)
    )


def _confirms(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for block in blocks:
        for element in block.get("elements") or []:
            if isinstance(element, dict) and "confirm" in element:
                out.append(element["confirm"])
    return out


def _strict(reply: Any) -> None:
    """The one checker, the fallback limit, and slack-sdk's models (confirm text ≤ 300)."""
    blockkit.validate_blocks(reply.blocks, surface="message")
    blockkit.validate_fallback(reply.text)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_180_character_track_name_renders_every_digest_within_slacks_limits(runtime, lang):
    catalog = _long_named(runtime.holder.catalog)
    allowed = allowed_urls_of(catalog)
    order = catalog.order(TRACK)
    confirms = []
    for cursor in (0, len(order) // 2, len(order) - 1, len(order)):
        reply = compose_channel_digest(
            catalog, _Sub(1, TRACK, cursor, 3, "2000.01.0"), {TRACK: list(order[1:])}, lang=lang
        ).reply
        _strict(reply)
        check_reply(reply, allowed)
        confirms += _confirms(reply.blocks)
    assert confirms and all(len(c["text"]["text"]) <= blockkit.CONFIRM_TEXT_MAX for c in confirms)
    if lang == "en":  # the English wording is long enough that the name does not fit whole
        assert all(c["text"]["text"].endswith("…") for c in confirms)
    for read in (set(), {order[0]}):
        dm = RENDERER.dm_digest(catalog, [TRACK, "pd"], read, lang)
        _strict(dm)
        check_reply(dm, allowed)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_180_character_track_name_renders_every_view_and_button(runtime, lang):
    catalog = _long_named(runtime.holder.catalog)
    allowed = allowed_urls_of(catalog)
    rt = Runtime(runtime.settings, runtime.store, _Holder(catalog))
    h = Handlers(rt, users_info=lambda team, user: UserInfo(locale="zh-CN" if lang == "zh" else "en-US"))
    caller = Caller("T0LONG", "U0LONG", "C0LONG")
    order = catalog.order(TRACK)
    replies = [
        track_view(h.context(caller, lang), TRACK),
        h.action(caller, "follow", {"t": TRACK, "v": f"track:{TRACK}"}),
        h.action(caller, "mark_read", {"p": order[0], "t": TRACK, "v": f"track:{TRACK}"}),
        h.action(caller, "share", {"t": TRACK, "v": f"track:{TRACK}"}),
        views.track_reply(catalog, track_state(catalog, TRACK, set(order)), lang, followed=True),
        h.command(caller, "next"),
        h.command(caller, "help"),
        h.command(caller, f"subscribe {TRACK}"),
        h.command(caller, "subscriptions"),
    ]
    for reply in replies:
        _strict(reply)
        check_reply(reply, allowed)
    headers = [b for r in replies for b in r.blocks if b["type"] == "header"]
    assert any(h_["text"]["text"].endswith("…") for h_ in headers)  # the long name was cut
    home = h.home(caller, ["C0LONG"])
    blockkit.validate_view(home)
    check_view(home, allowed, allowed_channels=["C0LONG"])


def test_a_cut_never_leaves_half_an_escape_or_an_open_link():
    text = Mrkdwn("{} <https://example.com/a|label>").format("x" * 20 + "&")  # x…x&amp; <https…>
    for limit in range(5, len(text)):
        short = cut(text, limit)
        assert len(short) <= limit and isinstance(short, Mrkdwn)
        body = str(short)
        assert body.count("<") == body.count(">"), body
        assert "&" not in body.replace("&amp;", ""), body
