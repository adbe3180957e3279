"""Render domain results as Block Kit messages (pure: catalog + reader state in, :class:`Reply` out).

Button ``action_id`` s are ``<kind>:<n>`` (``mark_read:0``, ``follow:1`` …), unique within a message;
the data a click needs (post, track, and which view to redraw) travels in the button's ``value``.
All catalog and user text is escaped with :func:`~bot.slack.mrkdwn.esc`; links are built only from
catalog URLs.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import Block

from bot import paths
from bot.catalog import Catalog
from bot.catalog.models import Step
from bot.slack.i18n import t, weekday_name
from bot.slack.ids import is_channel_id
from bot.slack.mrkdwn import Mrkdwn, as_plain, link, truncate
from bot.slack.views import parts
from bot.slack.views.blocks import (
    Reply,
    actions,
    button,
    context,
    divider,
    header,
    make_reply,
    section,
    sections,
)

MAX_RESULTS = 5
ICON_READ, ICON_NEXT, ICON_UNREAD = ":white_check_mark:", ":arrow_right:", ":white_small_square:"


class _Ids:
    """Hands out unique action ids within one message."""

    def __init__(self) -> None:
        self._n = itertools.count()

    def __call__(self, kind: str) -> str:
        return f"{kind}:{next(self._n)}"


def track_name(catalog: Catalog, track_id: str, lang: str) -> str:
    """The track's display name in ``lang`` (plain text: :func:`t` and the builders escape it)."""
    return catalog.track(track_id).names.get(lang)


def post_link(catalog: Catalog, post_id: str, bold: bool = False) -> Mrkdwn:
    """``<url|title>`` for a post (escaped), bold when asked."""
    post = catalog.post(post_id)
    text = link(catalog.url_of(post), post.title)
    return Mrkdwn("*{}*").format(text) if bold else text


def _position_line(catalog: Catalog, post_id: str, lang: str) -> Mrkdwn:
    """"step 3 of 9 in Speculative decoding · next: X" for each of the post's tracks."""
    parts = []
    for pos in paths.positions(catalog, post_id)[:3]:
        where = t("step.position", lang, position=pos.position, of=pos.of,
                  track=track_name(catalog, pos.track_id, lang))
        after = paths.read_after(catalog, pos.track_id, post_id)
        nxt = t("step.next", lang, post=truncate(catalog.post(after[0].post).title, 80)) if after \
            else t("step.last", lang)
        parts.append(Mrkdwn("{} · {}").format(where, nxt))
    return Mrkdwn("\n").join(parts) if parts else t("search.not_in_track", lang)


def _prereq_lines(catalog: Catalog, track_id: str, step: Step, lang: str) -> list[Mrkdwn]:
    lines = []
    before = paths.read_before(catalog, track_id, step.post)
    if before:
        items = Mrkdwn(", ").join(post_link(catalog, s.post) for s in before)
        lines.append(t("track.read_first", lang, items=items))
    before_ext = [x for x in step.external_prerequisites if x.kind == "prerequisite"]
    after_ext = [x for x in step.external_prerequisites if x.kind == "follow-up"]
    if before_ext:
        lines.append(t("track.background", lang, items=Mrkdwn(", ").join(link(x.url, x.title) for x in before_ext)))
    if after_ext:
        lines.append(t("track.then", lang, items=Mrkdwn(", ").join(link(x.url, x.title) for x in after_ext)))
    return lines


# --- help --------------------------------------------------------------------------------------


def help_reply(catalog: Catalog, lang: str, prefix: str | None = None) -> Reply:
    """The help message: grammar with examples, the track list, catalog version."""
    tracks = Mrkdwn(", ").join(Mrkdwn("`{}` {}").format(tr.id, tr.names.get(lang)) for tr in catalog.tracks)
    blocks: list[Block] = [header(t("help.title", lang))]
    if prefix:
        blocks.append(section(prefix))
    blocks += [
        section(t("help.intro", lang)),
        section(t("help.commands", lang)),
        section(t("help.tracks", lang, tracks=tracks)),
        context(t("help.footer", lang, version=catalog.version)),
    ]
    return make_reply(blocks, (prefix + "\n" if prefix else "") + t("help.intro", lang))


def text_reply(text: str, response_type: str = "ephemeral") -> Reply:
    """A one-section reply (``text`` is mrkdwn the caller has escaped)."""
    return make_reply([section(text)], text, response_type)


# --- a track -----------------------------------------------------------------------------------


def _step_lines(catalog: Catalog, track_id: str, lang: str) -> tuple[dict[tuple[bool, bool], Mrkdwn], ...]:
    """Each step's line of the path, for every (read, next) state: ``lines[i][(read, is_next)]``."""
    out = []
    for i, step in enumerate(catalog.path(track_id), start=1):
        post = catalog.post(step.post)
        plain_link = link(catalog.url_of(post), post.title)
        level = t("level." + step.level, lang)
        variants = {}
        for done in (False, True):
            for is_next in (False, True):
                icon = ICON_READ if done else ICON_NEXT if is_next else ICON_UNREAD
                text = Mrkdwn("*{}*").format(plain_link) if is_next else plain_link
                variants[(done, is_next)] = Mrkdwn("{} {}. {} · _{}_").format(Mrkdwn(icon), i, text, level)
        out.append(variants)
    return tuple(out)


def _next_detail(catalog: Catalog, track_id: str, nxt: Step, lang: str) -> Mrkdwn:
    """The next step's section: link, position, source and date, note, what to read first."""
    track = catalog.track(track_id)
    post = catalog.post(nxt.post)
    position = catalog.order(track_id).index(nxt.post) + 1
    detail: list[str] = [t("track.next", lang, post=post_link(catalog, nxt.post)),
              Mrkdwn("_{} · {} · {}_").format(
                  t("step.position", lang, position=position, of=len(catalog.path(track_id)),
                    track=track.names.get(lang)),
                  post.source.label(), post.published.label())]
    if nxt.note:
        detail.append(nxt.note.get(lang))
    detail.extend(_prereq_lines(catalog, track_id, nxt, lang))
    return Mrkdwn("\n").join(detail)


def _track_buttons(track_id: str, nxt: Step | None, lang: str, followed: bool) -> dict[str, Any]:
    """The actions block of a personal track view: Mark read (when a step is next), Follow or
    Unfollow, Share."""
    ids = _Ids()
    view = {"v": f"track:{track_id}"}
    buttons = []
    if nxt is not None:
        buttons.append(button(t("btn.mark_read", lang), ids("mark_read"),
                              {"p": nxt.post, "t": track_id, **view}, style="primary"))
    if followed:
        buttons.append(button(t("btn.unfollow", lang), ids("unfollow"), {"t": track_id, **view}))
    else:
        buttons.append(button(t("btn.follow", lang), ids("follow"), {"t": track_id, **view}))
    buttons.append(button(t("btn.share", lang), ids("share"), {"t": track_id, **view}))
    return actions(buttons).to_dict()


def track_reply(catalog: Catalog, track_id: str, read: set[str], lang: str, *, followed: bool,
                notice: str | None = None, shared: bool = False) -> Reply:
    """A track's path in order with the reader's progress (read ✓, next →), the next step with its
    note and prerequisites, and buttons Mark read / Follow (or Unfollow) / Share to channel.

    ``notice`` (escaped mrkdwn) goes on top, e.g. after a click. ``shared=True`` renders the
    in-channel version: no personal progress, no buttons. The parts that depend only on the
    catalog, the language and the next step are rendered once (:mod:`bot.slack.views.parts`).
    """
    track = catalog.track(track_id)
    steps = catalog.path(track_id)
    done: set[str] = set() if shared else {
        pid for p in read if (pid := catalog.resolve_post_id(p)) is not None}
    nxt = None if shared else paths.next_step(catalog, track_id, done)
    read_count = sum(1 for s in steps if s.post in done)

    blocks: list[Block | dict[str, Any]] = [parts.block(catalog, ("track.header", track_id), lambda: header(
        f"{track.names.en} · {track.names.zh}" if track.names.zh else track.names.en).to_dict())]
    if notice:
        blocks.append(section(notice))
    if shared:
        blocks.append(context(t("share.footer", lang, version=catalog.version)))
    else:
        blocks.append(parts.block(catalog, ("track.progress", lang, track_id, read_count), lambda: context(
            t("track.progress", lang, read=read_count, total=len(steps), version=catalog.version)).to_dict()))
    blocks.append(parts.block(catalog, ("track.description", lang, track_id),
                              lambda: section(track.description.get(lang)).to_dict()))

    variants = parts.piece(catalog, ("track.steps", lang, track_id),
                           lambda: _step_lines(catalog, track_id, lang))
    next_post = nxt.post if nxt else None
    states = tuple((step.post in done, step.post == next_post) for step in steps)

    def path_sections() -> list[dict[str, Any]]:
        lines = [t("track.path", lang)]
        lines.extend(v[state] for state, v in zip(states, variants, strict=True))
        return [b.to_dict() for b in sections(lines)[:4]]

    blocks.extend(parts.block(catalog, ("track.path", lang, track_id, states), path_sections))

    if nxt is not None:
        blocks.append(divider())
        blocks.append(parts.block(catalog, ("track.next", lang, track_id, nxt.post),
                                  lambda: section(_next_detail(catalog, track_id, nxt, lang)).to_dict()))
    elif not shared:
        blocks.append(divider())
        blocks.append(parts.block(catalog, ("track.done", lang), lambda: section(t("track.done", lang)).to_dict()))
    if not shared:
        blocks.append(parts.block(catalog, ("track.buttons", lang, track_id, next_post, followed),
                                  lambda: _track_buttons(track_id, nxt, lang, followed)))
    if shared:
        fallback = Mrkdwn("{}: {}{}").format(
            track.names.get(lang), Mrkdwn(" > ").join(catalog.post(s.post).title for s in steps[:5]),
            " …" if len(steps) > 5 else "")
    else:
        fallback = Mrkdwn("{}: {}").format(
            track.names.get(lang),
            t("track.next", lang, post=catalog.post(nxt.post).title) if nxt else t("track.done", lang))
    if notice:
        fallback = Mrkdwn("{}\n{}").format(notice, fallback)
    return make_reply(blocks, fallback, "in_channel" if shared else "ephemeral")


# --- search ------------------------------------------------------------------------------------


def search_reply(catalog: Catalog, query: str, result, read: set[str], lang: str,
                 notice: str | None = None, suggestion: str | None = None) -> Reply:
    """Up to 5 matching posts, each with its place in its tracks and what comes next.

    ``result`` is a :class:`bot.search.SearchResult`. With no results: the matcher's hint (empty
    or punctuation-only query) or "no match" plus ``suggestion`` (a did-you-mean line, escaped).
    """
    shown_query = truncate(" ".join(query.split()), 100)
    ids = _Ids()
    blocks = []
    if notice:
        blocks.append(section(notice))
    if not result.results:
        if not query.strip() or result.hint:
            blocks.append(section(t("search.empty", lang)))
        else:
            blocks.append(section(t("search.none", lang, query=shown_query)))
        if suggestion:
            blocks.append(section(suggestion))
        blocks.append(context(t("didyoumean.help", lang)))
        return make_reply(blocks, Mrkdwn("\n").join(Mrkdwn(b.text.text) for b in blocks
                                                       if getattr(b, "text", None)))

    blocks.append(section(Mrkdwn("*{}*").format(t("search.header", lang, query=shown_query))))
    if result.track is not None:
        tid = result.track.track_id
        blocks.append(context(t("search.track_hint", lang, track=track_name(catalog, tid, lang), track_id=tid)))
    done = {catalog.resolve_post_id(p) for p in read} - {None}
    fallback = ([notice] if notice else []) + [t("search.header", lang, query=shown_query)]
    for match in result.results[:MAX_RESULTS]:
        post = catalog.post(match.post_id)
        mark = ICON_READ + " " if post.id in done else ""
        text = Mrkdwn("{}*{}*\n_{} · {} · `{}`_\n{}\n{}").format(
            Mrkdwn(mark), link(catalog.url_of(post), post.title), post.source.label(),
            post.published.label(), post.id, truncate(post.summary.get(lang), 300),
            _position_line(catalog, post.id, lang))
        if post.id in done:
            accessory = button(t("btn.mark_unread", lang), ids("mark_unread"), {"p": post.id, "v": f"search:{query[:150]}"})
        else:
            accessory = button(t("btn.mark_read", lang), ids("mark_read"), {"p": post.id, "v": f"search:{query[:150]}"})
        blocks.append(section(text, accessory=accessory))
        fallback.append(Mrkdwn("• {}").format(post.title))
    blocks.append(context(t("catalog.version", lang, version=catalog.version)))
    return make_reply(blocks, Mrkdwn("\n").join(fallback))


# --- next across followed tracks -----------------------------------------------------------------


def next_reply(catalog: Catalog, follows: Sequence[str], read: set[str], lang: str,
               notice: str | None = None) -> Reply:
    """The reader's next read in each followed track (unknown track ids are skipped)."""
    follows = [tid for tid in follows if catalog.has_track(tid)]
    blocks: list[Block] = [header(t("next.header", lang))]
    if notice:
        blocks.append(section(notice))
    if not follows:
        blocks.append(section(t("next.none_followed", lang)))
        return make_reply(blocks, t("next.none_followed", lang))
    ids = _Ids()
    fallback = []
    for tid in follows[:20]:
        done, total = paths.progress(catalog, tid, read)
        nxt = paths.next_step(catalog, tid, read)
        name = track_name(catalog, tid, lang)
        if nxt is None:
            line = t("next.track_done", lang, track=name)
            blocks.append(section(line))
        else:
            line = t("next.track_line", lang, track=name, read=done, total=total,
                     post=post_link(catalog, nxt.post))
            note = Mrkdwn("\n{}").format(truncate(nxt.note.get(lang), 400)) if nxt.note else Mrkdwn()
            blocks.append(section(line + note, accessory=button(
                t("btn.mark_read", lang), ids("mark_read"), {"p": nxt.post, "t": tid, "v": "next"})))
        fallback.append(line)
    return make_reply(blocks, Mrkdwn("\n").join(fallback))


# --- subscriptions -------------------------------------------------------------------------------


def subscription_line(catalog: Catalog, sub, lang: str) -> Mrkdwn:
    """One line describing a channel subscription (schedule, progress, pause reason)."""
    name = track_name(catalog, sub.track_id, lang) if catalog.has_track(sub.track_id) else sub.track_id
    total = len(catalog.order(sub.track_id)) if catalog.has_track(sub.track_id) else 0
    progress = t("subs.progress", lang, sent=min(sub.cursor, total), total=total)
    line = t("subs.line", lang, track=name, weekday=weekday_name(sub.weekday, lang), time=sub.at_time,
             tz=sub.timezone, n=sub.steps_per_week,
             steps=f"{sub.steps_per_week} step" + ("s" if sub.steps_per_week != 1 else ""), progress=progress)
    if sub.status != "active":
        line += "\n" + t("subs.paused", lang, reason=sub.pause_reason or "paused", track_id=sub.track_id)
    return line


def subscriptions_reply(catalog: Catalog, subs: Iterable, lang: str) -> Reply:
    """The digests of a channel."""
    subs = list(subs)
    blocks: list[Block] = [header(t("subs.header", lang))]
    if not subs:
        blocks.append(section(t("subs.none", lang)))
        return make_reply(blocks, t("subs.none", lang))
    lines = [subscription_line(catalog, s, lang) for s in subs]
    blocks.extend(sections(lines)[:40])
    return make_reply(blocks, Mrkdwn("\n").join(lines))


@dataclass(frozen=True)
class HomeState:
    """What App Home shows for one person: follows, read posts, DM preference, channel digests."""

    follows: Sequence[str]
    read: set[str]
    dm: object | None
    channel_subs: Sequence[object]
    lang: str = "en"


def home_view(catalog: Catalog, state: HomeState) -> dict:
    """The App Home tab (``views.publish`` payload): followed tracks with progress and next read,
    the other tracks to follow, the DM setting, and digests of the person's channels; at most 100
    blocks however much has been read."""
    from bot.slack.views.blocks import MAX_BLOCKS_VIEW, to_dicts

    lang = state.lang
    ids = _Ids()
    blocks = [header(t("home.header", lang)), context(t("catalog.version", lang, version=catalog.version)),
              section(t("home.following", lang))]
    follows = [tid for tid in state.follows if catalog.has_track(tid)]
    if not follows:
        blocks.append(section(t("home.none_followed", lang)))
    for tid in follows:
        done, total = paths.progress(catalog, tid, state.read)
        nxt = paths.next_step(catalog, tid, state.read)
        filled = round(10 * done / total) if total else 0
        bar = "▰" * filled + "▱" * (10 - filled)
        line = Mrkdwn("*{}*  {} {}/{}\n").format(track_name(catalog, tid, lang), bar, done, total)
        if nxt is None:
            line += t("track.done", lang)
            accessory = button(t("btn.unfollow", lang), ids("unfollow"), {"t": tid, "v": "home"})
        else:
            line += t("track.next", lang, post=post_link(catalog, nxt.post))
            accessory = button(t("btn.mark_read", lang), ids("mark_read"), {"p": nxt.post, "t": tid, "v": "home"},
                               style="primary")
        blocks.append(section(line, accessory=accessory))
    others = [tr for tr in catalog.tracks if tr.id not in follows]
    if others:
        blocks.append(divider())
        blocks.append(section(t("home.other_tracks", lang)))
        for start in range(0, len(others), 5):
            blocks.append(actions([button(f"{as_plain(t('btn.follow', lang))}: {tr.names.get(lang)}", ids("follow"),
                                          {"t": tr.id, "v": "home"}) for tr in others[start:start + 5]]))
    blocks.append(divider())
    blocks.append(section(t("home.dm", lang)))
    dm = state.dm
    if dm is not None and getattr(dm, "enabled", False):
        status = t("dm.on", lang, weekday=weekday_name(dm.weekday, lang), time=dm.at_time, tz=dm.timezone)
        if getattr(dm, "status", "active") != "active":
            status += "\n" + t("dm.paused", lang, reason=dm.pause_reason or "")
        blocks.append(section(status, accessory=button(t("btn.dm_off", lang), ids("dm_off"), {"v": "home"})))
    else:
        blocks.append(section(t("dm.status_off", lang),
                              accessory=button(t("btn.dm_on", lang), ids("dm_on"), {"v": "home"})))
    blocks.append(divider())
    blocks.append(section(t("home.channels", lang)))
    subs = list(state.channel_subs)
    room = MAX_BLOCKS_VIEW - len(blocks) - 1
    if not subs:
        blocks.append(section(t("home.no_channels", lang)))
    else:
        lines = [(Mrkdwn("<#{}> · ").format(Mrkdwn(s.channel_id)) if is_channel_id(s.channel_id)
                  else Mrkdwn()) + subscription_line(catalog, s, lang) for s in subs]
        packed = sections(lines)
        if len(packed) > room:
            packed = packed[:room - 1] + [section(t("home.more", lang, n=len(subs)))]
        blocks.extend(packed)
    return {"type": "home", "blocks": to_dicts(blocks, MAX_BLOCKS_VIEW)}
