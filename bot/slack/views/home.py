"""App Home (``views.publish``) and the track modal it opens (pure: a view payload out)."""

from __future__ import annotations

import marshal
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.domain.catalog import Catalog
from bot.domain.paths import TrackState
from bot.slack.i18n import t
from bot.slack.ids import is_channel_id
from bot.slack.mrkdwn import Mrkdwn, as_plain, truncate
from bot.slack.views.blocks import (
    MAX_BLOCKS_VIEW,
    Json,
    Reply,
    actions,
    button,
    context,
    divider,
    header,
    section,
    sections,
)
from bot.slack.views.catchup import home_catchup_blocks
from bot.slack.views.links import read_link, reference_lines
from bot.slack.views.messages import ActionIds, track_name
from bot.slack.views.parts import read_count
from bot.slack.views.plan import home_finished_blocks, minutes_suffix
from bot.slack.views.subscriptions import dm_status, subscription_line
from bot.slack.views.together import streak_line

if TYPE_CHECKING:
    from bot.domain.catchup import CatchUp
    from bot.store.snapshots import DmSettings, Subscription


@dataclass(frozen=True)
class HomeState:
    """What App Home shows for one person: the followed tracks' states, read posts, DM preference,
    channel digests."""

    following: Sequence[TrackState]
    read: set[str]
    """Every post id the person has read (former ids count); App Home's started tracks come from it."""
    dm: DmSettings | None
    channel_subs: Sequence[Subscription]
    lang: str = "en"
    finished: Mapping[str, datetime] = field(default_factory=dict)
    """Tracks whose essential path the person finished, and when (issue 24)."""
    picture_url: str | None = None
    """The signed URL of the person's path picture; None when no public URL is set."""
    picture_track: str | None = None
    streak_weeks: int = 0
    """The person's weekly reading streak (issue 44; :mod:`bot.domain.streaks`), shown from 1."""
    catchup: CatchUp | None = None
    """What entered the catalog since the person last read (issue 44); None: not shown."""
    started: Sequence[TrackState] = ()
    """Tracks the person started (read a step of) without following them, in catalog order
    (:func:`bot.domain.paths.started_track_states`); shown under their own heading."""


MODAL_TITLE_MAX = 24  # characters (Slack's limit)
COLON = {"en": ": ", "zh": "："}
"""A label's colon in each language (Chinese text takes the full-width one)."""


def track_modal(catalog: Catalog, track_id: str, reply: Reply, lang: str) -> dict[str, Any]:
    """A track reply as a modal (``views.open`` / ``views.update`` payload), from *Open path*;
    without *Share to channel* (no channel to share to from a modal)."""
    title = truncate(track_name(catalog, track_id, lang), MODAL_TITLE_MAX)
    return {
        "type": "modal",
        "callback_id": f"track:{track_id}",
        "title": {"type": "plain_text", "text": title},
        "close": {"type": "plain_text", "text": as_plain(t("btn.close", lang))},
        "blocks": _without_share(reply.blocks)[:100],
    }


def _without_share(blocks: list[Any]) -> list[Any]:
    """``blocks`` without their *Share to channel* buttons (an actions block left empty dropped): a
    modal has no channel to post in (QA round 14: the click raised). New dicts: blocks are kept
    answers, shared and read-only."""
    out: list[Any] = []
    for block in blocks:
        elements = block.get("elements") if block.get("type") == "actions" else None
        if elements is None:
            out.append(block)
            continue
        kept = [e for e in elements if not str(e.get("action_id") or "").startswith("share:")]
        if kept:
            out.append(block if len(kept) == len(elements) else {**block, "elements": kept})
    return out


def home_view(catalog: Catalog, state: HomeState) -> dict[str, Any]:
    """The App Home tab (``views.publish`` payload, at most 100 blocks)."""
    lang = state.lang
    finished = home_finished_blocks(catalog, state.finished, state.read, lang, state.picture_url, state.picture_track)
    blocks: list[Json] = [header(t("home.header", lang)), context(t("catalog.version", lang, version=catalog.version))]
    blocks += [*finished, *home_catchup_blocks(catalog, state.catchup, lang)]
    if (streak := streak_line(state.streak_weeks, lang)) is not None:
        blocks.append(context(streak))  # issue 44: only here and in the finish message
    blocks.append(section(t("home.following", lang)))
    started = state.started
    if not state.following:
        blocks.append(section(t("home.none_followed_started" if started else "home.none_followed", lang)))
    first = 0  # the action ids of the blocks below, numbered in order
    for track in state.following:
        drawn, used = _kept(catalog, ("followed", track.track_id, track.read, lang, first), first, track, _home_track)
        blocks += drawn
        first += used
    if started:
        blocks.append(section(t("home.started", lang)))
        for track in started:
            drawn, used = _kept(catalog, ("started", track.track_id, track.read, lang, first), first, track, _started)
            blocks += drawn
            first += used
    shown = frozenset(track.track_id for track in [*state.following, *started])
    others, used = _other_tracks(catalog, shown, lang, first)
    blocks += others
    ids = ActionIds(first + used)
    blocks += [divider(), _home_dm(state.dm, lang, ids)]  # its line names it (QA round 11: a heading said it twice)
    blocks += [divider(), section(t("home.channels", lang))]
    subs = list(state.channel_subs)
    room = MAX_BLOCKS_VIEW - len(blocks) - 1
    if not subs:
        blocks.append(section(t("home.no_channels", lang)))
    else:
        lines = [
            (Mrkdwn("<#{}> · ").format(Mrkdwn(s.channel_id)) if is_channel_id(s.channel_id) else Mrkdwn())
            + subscription_line(catalog, s, lang)
            for s in subs
        ]
        packed = sections(lines)
        if len(packed) > room:
            packed = [*packed[: room - 1], section(t("home.more", lang, n=len(subs)))]
        blocks.extend(packed)
    return {"type": "home", "blocks": blocks[:MAX_BLOCKS_VIEW]}


_Kept = dict[tuple[Any, ...], tuple[bytes, int]]
_KEPT: dict[int, tuple[weakref.ref[Catalog], _Kept]] = {}
"""id(catalog) -> (the catalog, what :func:`_kept` kept for it); gone with the catalog."""
_KEPT_MAX = 4_000
"""Drawings kept per catalog (all of them dropped when full)."""
_KEPT_LOCK = threading.Lock()


def _kept_for(catalog: Catalog) -> _Kept:
    """What :func:`_kept` keeps for ``catalog`` (under :data:`_KEPT_LOCK`)."""
    found = _KEPT.get(id(catalog))
    if found is None or found[0]() is not catalog:
        key = id(catalog)
        found = _KEPT[key] = (weakref.ref(catalog, lambda _: _KEPT.pop(key, None)), {})
    return found[1]


def _kept(
    catalog: Catalog,
    key: tuple[Any, ...],
    first: int,
    arg: Any,
    draw: Callable[[Catalog, Any, str, ActionIds], list[Json]],
) -> tuple[list[Json], int]:
    """The blocks ``draw(catalog, arg, lang, ids)`` gives (``lang`` is ``key[3]``; action ids numbered from
    ``first``) and how many action ids they use, kept per catalog and ``key``, which holds everything the
    drawing reads besides ``catalog``: new dicts each call (kept marshalled, so no caller shares them).

    Speed layer needed by ``benchmarks/home_open.py`` (a changed App Home, CPU ratio to a no-op Bolt app,
    target <= 2x): a track's part of App Home depends only on the track, the posts read, the language and
    the first action id, so people at the same place in a path, and a person's tracks that a click did not
    change, share one drawing; the "other tracks" buttons likewise (2.44x without them kept, 2.12-2.33x with)."""
    with _KEPT_LOCK:
        kept = _kept_for(catalog).get(key)
    if kept is None:
        ids = ActionIds(first)
        blocks = draw(catalog, arg, key[3], ids)
        kept = (marshal.dumps(blocks), ids.peek() - first)
        with _KEPT_LOCK:
            mine = _kept_for(catalog)
            if len(mine) >= _KEPT_MAX:
                mine.clear()
            mine[key] = kept
    found: list[Json] = marshal.loads(kept[0])
    return found, kept[1]


def _other_tracks(catalog: Catalog, follows: frozenset[str], lang: str, first: int) -> tuple[list[Json], int]:
    """App Home's "other tracks" blocks (a follow button for each track not in ``follows``, the
    tracks shown above: followed or started; none when every track is), their action ids numbered
    from ``first``, and how many ids they use (kept: :func:`_kept`)."""
    return _kept(catalog, ("others", follows, None, lang, first), first, follows, _draw_others)


def _draw_others(catalog: Catalog, follows: frozenset[str], lang: str, ids: ActionIds) -> list[Json]:
    """The blocks of :func:`_other_tracks`, drawn."""
    others = [tr for tr in catalog.tracks if tr.id not in follows]
    if not others:
        return []
    follow = as_plain(t("btn.follow", lang))
    data = [(f"{follow}{COLON[lang]}{tr.names.get(lang)}", {"t": tr.id, "v": "home"}) for tr in others]
    buttons = [button(text, ids("follow"), value) for text, value in data]
    return [
        divider(),
        section(t("home.other_tracks", lang)),
        *(actions(buttons[i : i + 5]) for i in range(0, len(buttons), 5)),
    ]


def progress_bar(state: TrackState) -> str:
    """Ten cells, filled as :func:`~bot.slack.views.parts.read_count` counts: the essential steps read
    of the essential path until it is read (QA: the bar counted every step while its label counted
    essential ones), then the steps read of the whole path."""
    if state.path.essentials and not state.essentials_done:
        done, total = state.essentials_read, len(state.path.essentials)
    else:
        done, total = state.read_count, state.total
    filled = round(10 * done / total) if total else 0
    return "▰" * filled + "▱" * (10 - filled)


def _track_text(catalog: Catalog, state: TrackState, lang: str) -> Mrkdwn:
    """A track's App Home text: its name, progress bar and count, then the next read with its reading
    time (:func:`~bot.slack.views.plan.minutes_suffix`, as in every other reply) and references, or done."""
    nxt = state.next
    line = Mrkdwn("*{}*  {} {}\n").format(
        track_name(catalog, state.track_id, lang), progress_bar(state), read_count(state, lang)
    )
    if nxt is None:
        return line + t("track.done", lang)
    post = read_link(catalog, nxt.post, lang) + minutes_suffix(nxt.post, lang)
    refs = reference_lines(catalog, nxt, lang, state.unread_first(nxt))
    return line + Mrkdwn("\n").join([t("track.next", lang, post=post), *refs])


def _started(catalog: Catalog, state: TrackState, lang: str, ids: ActionIds) -> list[Json]:
    """A track read in but not followed, on App Home: as a followed one (:func:`_track_text`), with
    a *Follow track* button."""
    data = {"t": state.track_id, "v": "home"}
    return [section(_track_text(catalog, state, lang), accessory=button(t("btn.follow", lang), ids("follow"), data))]


def _home_track(catalog: Catalog, state: TrackState, lang: str, ids: ActionIds) -> list[Json]:
    """A followed track on App Home: progress bar and next read (or done) with its references, then its buttons."""
    tid, nxt = state.track_id, state.next
    line = _track_text(catalog, state, lang)
    data = {"t": tid, "v": "home"}
    if nxt is None:
        accessory = button(t("btn.unfollow", lang), ids("unfollow"), data)
    else:
        accessory = button(t("btn.mark_read", lang), ids("mark_read"), {"p": nxt.post_id, **data}, style="primary")
    row = [button(t("btn.open_path", lang), ids("open_path"), data)]
    if nxt is not None:
        row.append(button(t("btn.unfollow", lang), ids("unfollow"), data))
    return [section(line, accessory=accessory), actions(row)]


def _home_dm(dm: DmSettings | None, lang: str, ids: ActionIds) -> Json:
    """App Home's DM setting: the schedule (and why it is paused) with DM off, or DM on."""
    if (status := dm_status(dm, lang)) is None:
        return section(t("dm.status_off", lang), accessory=button(t("btn.dm_on", lang), ids("dm_on"), {"v": "home"}))
    return section(status, accessory=button(t("btn.dm_off", lang), ids("dm_off"), {"v": "home"}))
