"""Domain results as Block Kit messages, pure. Button ``action_id`` s are ``<kind>:<n>``, unique in a
message; what a click needs (post, track, the view to redraw) is in the button's ``value``."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Track
from bot.domain.paths import PathStep, TrackState
from bot.slack.i18n import join_list, t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views.blocks import (
    MAX_SECTION_TEXT,
    Json,
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
from bot.slack.views.links import read_link, reference_lines
from bot.slack.views.parts import memo, memo_reply, read_count
from bot.slack.views.plan import minutes_suffix, step_level
from bot.slack.views.subscriptions import day_words as day_words
from bot.slack.views.subscriptions import digest_amount as digest_amount
from bot.slack.views.subscriptions import dm_resumes as dm_resumes
from bot.slack.views.subscriptions import dm_status as dm_status  # re-exported: callers use views.*
from bot.slack.views.subscriptions import schedule_words as schedule_words
from bot.slack.views.subscriptions import subscription_line as subscription_line
from bot.slack.views.subscriptions import subscriptions_reply as subscriptions_reply

MAX_RESULTS = 5
STEPS_PER_PAGE = 20
"""Steps a track view lists at once; a longer track pages (*Show more steps* / *Earlier steps*)."""
ICON_READ, ICON_NEXT, ICON_UNREAD = ":white_check_mark:", ":arrow_right:", ":white_small_square:"


class ActionIds:
    """Hands out unique action ids within one message."""

    def __init__(self, first: int = 0) -> None:
        self._next = first

    def __call__(self, kind: str) -> str:
        n, self._next = self._next, self._next + 1
        return f"{kind}:{n}"

    def peek(self) -> int:
        """The number the next id gets."""
        return self._next


def track_name(catalog: Catalog, track_id: str, lang: str) -> str:
    """The track's display name in ``lang`` (plain text: :func:`t` and the builders escape it)."""
    return catalog.track(track_id).names.get(lang)


def post_link(catalog: Catalog, post_id: str, bold: bool = False, lang: str = "en") -> Mrkdwn:
    """:func:`bot.slack.views.links.read_link` of the post ``post_id`` (escaped mrkdwn)."""
    return read_link(catalog, catalog.post(post_id), lang, bold=bold)


def _title(track: Track, lang: str) -> str:
    """A track's header: its name in the reply's language ``lang`` (English where it has no other)."""
    return track.names.get(lang)


def _with_notice(notice: str | None, fallback: Mrkdwn) -> Mrkdwn:
    return Mrkdwn("{}\n{}").format(notice, fallback) if notice else fallback


def _step_line(catalog: Catalog, step: PathStep, icon: str, lang: str, bold: bool) -> Mrkdwn:
    """``icon n. <post> · _level_ · 12 min``: :func:`step_level` (``further reading`` off the essential
    path) and :func:`minutes_suffix`, for the reader's reply and the one shared with the channel alike."""
    text = read_link(catalog, step.post, lang, bold=bold)
    suffix = minutes_suffix(step.post, lang)
    return Mrkdwn("{} {}. {} · _{}_{}").format(Mrkdwn(icon), step.number, text, step_level(step, lang), suffix)


def _path_head(lang: str, start: int, end: int, total: int) -> list[str]:
    """ "The path:" and, on a page of a longer path, which steps it shows."""
    showing = Mrkdwn("_{}_").format(t("track.showing", lang, first=start + 1, last=end, total=total))
    return [t("track.path", lang), showing] if start or end < total else [t("track.path", lang)]


def help_reply(catalog: Catalog, lang: str, prefix: str | None = None) -> Reply:
    """The help message: grammar with examples, the track list, catalog version; the same for every
    reader of a language, so kept per ``(lang, prefix)`` for the catalog (shared: do not change it)."""
    return memo_reply(catalog, ("help", lang, prefix), lambda: _help_reply(catalog, lang, prefix))


def _help_reply(catalog: Catalog, lang: str, prefix: str | None) -> Reply:
    sep = "、" if lang == "zh" else ", "  # Chinese items joined by the enumeration comma
    tracks = Mrkdwn(sep).join(Mrkdwn("`{}` {}").format(tr.id, tr.names.get(lang)) for tr in catalog.tracks)
    blocks: list[Json] = [header(t("help.title", lang))]
    if prefix:
        blocks.append(section(prefix))
    blocks += [section(t("help.intro", lang)), section(t("help.commands", lang))]
    blocks += [section(t("help.tracks", lang, tracks=tracks)), context(t("help.footer", lang, version=catalog.version))]
    return make_reply(blocks, (prefix + "\n" if prefix else "") + t("help.intro", lang))


def text_reply(text: str, response_type: str = "ephemeral") -> Reply:
    """A one-section reply (``text`` is mrkdwn the caller has escaped); a text longer than a section
    holds (3,000 characters) goes in as many sections as its lines need, never cut (QA:
    ``subscribe`` of all 14 tracks lost its last lines)."""
    if len(text) > MAX_SECTION_TEXT:
        return make_reply(sections(text.split("\n")), text, response_type)
    return make_reply([section(text)], text, response_type)


def step_page(total: int, next_index: int | None, offset: int | None) -> int:
    """The first step (0-based) of the page a track view lists: the page holding ``offset``, else
    ``next_index`` (the reader's next step), else 0; clamped to the path."""
    if total <= STEPS_PER_PAGE:
        return 0
    last_page = (total - 1) // STEPS_PER_PAGE * STEPS_PER_PAGE
    if offset is None:
        offset = next_index or 0
    return max(0, min(offset // STEPS_PER_PAGE * STEPS_PER_PAGE, last_page))


def track_reply(
    catalog: Catalog,
    state: TrackState,
    lang: str,
    *,
    followed: bool,
    notice: str | None = None,
    shared: bool = False,
    offset: int | None = None,
    path: Mrkdwn | None = None,
) -> Reply:
    """A page (:func:`step_page` of ``offset``) of the reader's ``state`` of a track: the path with
    their progress, the next step and buttons. ``notice``: escaped mrkdwn on top; ``shared=True``:
    the in-channel version (no one's progress); ``path``: :func:`bot.slack.views.plan.path_line`.
    Without a notice the reply is kept per reading state (:func:`~bot.slack.views.parts.memo_reply`):
    do not change it."""
    if shared:
        return _shared_track_reply(catalog, state, lang, notice, offset)
    if notice:  # a notice is one click's answer: not worth keeping
        return _personal_track_reply(catalog, state, lang, followed, notice, offset, path)
    return memo_reply(
        catalog,
        ("track", state.track_id, lang, state.read, followed, offset, path),
        lambda: _personal_track_reply(catalog, state, lang, followed, None, offset, path),
    )


@dataclass(frozen=True)
class _TrackPage:
    """Steps ``start`` to ``end`` of the reader's ``state`` of a track."""

    catalog: Catalog
    state: TrackState
    lang: str
    start: int
    end: int

    @property
    def track_id(self) -> str:
        return self.state.track_id

    @property
    def total(self) -> int:
        return self.state.total

    @property
    def view(self) -> dict[str, str]:
        return {"v": f"track:{self.track_id}"}

    @property
    def paged(self) -> bool:
        return bool(self.start or self.end < self.total)


def _personal_track_reply(
    catalog: Catalog,
    state: TrackState,
    lang: str,
    followed: bool,
    notice: str | None,
    offset: int | None,
    path: Mrkdwn | None = None,
) -> Reply:
    """:func:`track_reply` for the reader (progress, buttons)."""
    track, nxt = state.path.track, state.next
    total = state.total
    start = step_page(total, nxt.number - 1 if nxt else None, offset)
    page = _TrackPage(catalog, state, lang, start, min(total, start + STEPS_PER_PAGE))

    blocks: list[Json] = [header(_title(track, lang))]
    blocks += [section(notice)] if notice else []
    blocks.append(context(t("track.progress", lang, count=read_count(state, lang), version=catalog.version)))
    if path:
        blocks.append(context(path))
    blocks.append(section(track.description.get(lang)))
    blocks += _step_blocks(page)
    ids = ActionIds(page.end - page.start)
    blocks += _paging_blocks(page, ids)
    blocks.append(divider())
    blocks.append(section(_next_detail(catalog, state, nxt, lang) if nxt is not None else t("track.done", lang)))
    blocks.append(_track_buttons(page, followed, ids.peek()))
    fallback = Mrkdwn("{}：{}" if lang == "zh" else "{}: {}").format(
        track.names.get(lang), t("track.next", lang, post=nxt.post.title) if nxt else t("track.done", lang)
    )
    return make_reply(blocks, _with_notice(notice, fallback), "ephemeral")


def _step_blocks(page: _TrackPage) -> list[Json]:
    """The path's head and one section per listed step, each with Mark read (or Mark unread)."""
    catalog, lang, track_id, state = page.catalog, page.lang, page.track_id, page.state
    start, end, total = page.start, page.end, page.total

    blocks: list[Json] = [section(Mrkdwn("\n").join(_path_head(lang, start, end, total)))]
    for step in state.path.steps[start:end]:
        is_next = state.next is not None and step.post_id == state.next.post_id
        mark = "read" if state.is_read(step) else "next" if is_next else "unread"
        icon = {"read": ICON_READ, "next": ICON_NEXT, "unread": ICON_UNREAD}[mark]
        kind = "mark_unread" if mark == "read" else "mark_read"
        value = {"p": step.post_id, "t": track_id, **page.view}
        accessory = button(t("btn." + kind, lang), f"{kind}:{step.number - 1 - start}", value)
        line = _step_line(catalog, step, icon, lang, mark == "next")
        blocks.append(section(line, accessory=accessory))
    if end < total:
        blocks.append(section(t("track.more_steps", lang, n=total - end)))
    return blocks


def _paging_blocks(page: _TrackPage, ids: ActionIds) -> list[Json]:
    """The Earlier steps / More steps buttons of a paged track (none when it fits one page)."""
    if not page.paged:
        return []
    row = []
    if page.start:
        earlier = {"t": page.track_id, "o": max(0, page.start - STEPS_PER_PAGE), **page.view}
        row.append(button(t("btn.earlier_steps", page.lang), ids("more_steps"), earlier))
    if page.end < page.total:
        later = {"t": page.track_id, "o": page.end, **page.view}
        row.append(button(t("btn.more_steps", page.lang), ids("more_steps"), later))
    return [actions(row)]


def _track_buttons(page: _TrackPage, followed: bool, first_id: int) -> Json:
    """Mark read and Remind (for the next step), Follow or Unfollow, Share."""
    ids, lang, view, track_id = ActionIds(first_id), page.lang, page.view, page.track_id
    row = []
    if page.state.next is not None:
        post = page.state.next.post_id
        mark = {"p": post, "t": track_id, **view}
        row.append(button(t("btn.mark_read", lang), ids("mark_read"), mark, style="primary"))
        row.append(button(t("btn.remind_next_week", lang), ids("remind"), {"p": post, "d": "next week", **view}))
    kind = "unfollow" if followed else "follow"
    row.append(button(t("btn." + kind, lang), ids(kind), {"t": track_id, **view}))
    row.append(button(t("btn.share", lang), ids("share"), {"t": track_id, **view}))
    return actions(row)


def _next_detail(catalog: Catalog, state: TrackState, nxt: PathStep, lang: str) -> Mrkdwn:
    """The next step's detail: its link, place, source, date and reading time, note and references."""
    post, name = nxt.post, state.path.track.names.get(lang)
    where = t("step.position", lang, position=nxt.number, of=state.total, track=name)
    detail: list[str] = [
        t("track.next", lang, post=read_link(catalog, post, lang)),
        Mrkdwn("_{} · {} · {}{}_").format(
            where, post.source.label(lang), post.published.display(lang), minutes_suffix(post, lang)
        ),
    ]
    if nxt.step.note:
        detail.append(nxt.step.note.get(lang))
    detail.extend(reference_lines(catalog, nxt, lang, state.unread_first(nxt)))
    if state.passed_over:  # steps without a link yet: said in one line, not offered as next
        titles = join_list((s.post.title for s in state.passed_over[:3]), lang)
        detail.append(t("track.passed_over", lang, posts=titles))
    if state.held_back:  # linked, but after a step not read yet (QA round 8: passed over unsaid)
        detail.append(t("track.held_back", lang, posts=held_back_list(catalog, state, lang)))
    return Mrkdwn("\n").join(detail)


def held_back_list(catalog: Catalog, state: TrackState, lang: str) -> Mrkdwn:
    """The first three of ``state.held_back`` as ``title (after title)``: each with the first
    unread step it comes after."""
    item = "step.after_unread"
    return join_list(
        [
            t(item, lang, post=s.post.title, first=catalog.post(state.unread_first(s)[0]).title)
            for s in state.held_back[:3]
        ],
        lang,
    )


def _shared_track_reply(
    catalog: Catalog, state: TrackState, lang: str, notice: str | None, offset: int | None
) -> Reply:
    """The in-channel :func:`track_reply`: the first page, no progress, no buttons."""
    track, steps, track_id = state.path.track, state.path.steps, state.track_id
    blocks: list[Json] = [header(_title(track, lang))]
    blocks += [section(notice)] if notice else []
    blocks += [context(t("share.footer", lang, version=catalog.version)), section(track.description.get(lang))]
    start = step_page(len(steps), None, offset)
    end = min(len(steps), start + STEPS_PER_PAGE)
    lines = _path_head(lang, start, end, len(steps)) + [
        _step_line(catalog, s, ICON_UNREAD, lang, False) for s in steps[start:end]
    ]
    more = t("track.more_steps", lang, n=len(steps) - end) if end < len(steps) else None
    tail = [more, Mrkdwn("`/vllm-path {}`").format(track_id)] if more else []
    blocks.extend(sections([*lines, *tail]))
    titles = Mrkdwn(" > ").join(s.post.title for s in steps[:5])
    colon = "：" if lang == "zh" else ": "
    fallback = Mrkdwn("{}{}{}{}").format(track.names.get(lang), colon, titles, " …" if len(steps) > 5 else "")
    return make_reply(blocks, _with_notice(notice, fallback), "in_channel")


def progress_line(catalog: Catalog, state: TrackState, lang: str) -> Mrkdwn:
    """Where a small action leaves the reader in a track, in one line: the essential path first
    (``3 of 8 essential · 25 min to go · next: <post>, 4 min``), then further reading, then done; a
    note on steps without a link (not in the minutes) right after the minutes it is about."""
    name, nxt = state.path.track.names.get(lang), state.next
    if nxt is None:
        return t("progress.all_done", lang, track=name, total=state.total)
    post = read_link(catalog, nxt.post, lang) + minutes_suffix(nxt.post, lang)
    left = len(state.path.essentials) - state.essentials_read if not state.essentials_done else state.further_left
    known = left - state.unknown_left
    minutes: int | str = state.minutes_left if known > 0 else "?"  # none left has a length: not "0 min"
    note = Mrkdwn()  # beside the total it explains, not after the next post's minutes (QA round 20)
    if state.unknown_left and known > 0:  # the count above holds them, the minutes leave them out: say of how many
        key = "progress.minutes_for_one" if state.unknown_left == 1 else "progress.minutes_for"
        note = t(key, lang, known=known, n=state.unknown_left)
    elif state.unknown_left:
        note = t("progress.minutes_unknown", lang, n=state.unknown_left)
    if not state.essentials_done:
        done, total = state.essentials_read, len(state.path.essentials)
        line = t("progress.essential", lang, track=name, done=done, total=total, minutes=minutes, note=note, post=post)
    else:
        line = t("progress.further", lang, track=name, n=state.further_left, minutes=minutes, note=note, post=post)
    if skipped := len(state.passed_over) + len(state.held_back):  # QA round 8: next past listed steps, unsaid
        line += t("progress.skipped", lang, n=skipped)
    return line


def progress_reply(catalog: Catalog, state: TrackState, notice: str, lang: str) -> Reply:
    """A small action's answer (``read``, *Mark read*, ``follow``, ``remind``): ``notice``, the
    :func:`progress_line` of ``state``, and *Mark read* for the next step and *Open path* (2 blocks;
    the whole path only when asked)."""
    line = progress_line(catalog, state, lang)
    ids, tid = ActionIds(), state.track_id
    row = []
    if state.next is not None:
        row.append(
            button(t("btn.mark_read", lang), ids("mark_read"), {"p": state.next.post_id, "t": tid, "v": "short"})
        )
    row.append(button(t("btn.open_path", lang), ids("open_path"), {"t": tid, "v": "short"}))
    text = Mrkdwn("{}\n{}").format(notice, line)
    return make_reply([section(text), actions(row)], text)


def next_reply(catalog: Catalog, states: Sequence[TrackState], lang: str, notice: str | None = None) -> Reply:
    """The reader's next read in each followed track (``states``, at most 20 shown), with its reading
    time. Without a notice the reply is kept per reading state (:func:`~bot.slack.views.parts.memo_reply`,
    as :func:`track_reply`): do not change it. A speed layer needed by ``benchmarks/clicks.py``: drawn
    every time, ``next`` was 5.1-6.6x the no-op's CPU (target <= 2x)."""
    if notice:  # one click's answer: its items are kept, not the reply
        return _next_reply(catalog, states, lang, notice)
    key = ("next", lang, tuple((state.track_id, state.read) for state in states[:20]))
    return memo_reply(catalog, key, lambda: _next_reply(catalog, states, lang, None))


def _next_reply(catalog: Catalog, states: Sequence[TrackState], lang: str, notice: str | None) -> Reply:
    """:func:`next_reply` drawn."""
    blocks: list[Json] = [header(t("next.header", lang))]
    blocks += [section(notice)] if notice else []
    if not states:
        blocks.append(section(t("next.none_followed", lang)))
        return make_reply(blocks, t("next.none_followed", lang))
    fallback = []
    for i, state in enumerate(states[:20]):
        key = ("next_item", state.track_id, state.read, lang, i)
        block, line = memo(catalog, key, functools.partial(_next_item, catalog, state, lang, i))
        blocks.append(block)
        fallback.append(line)
    return make_reply(blocks, Mrkdwn("\n").join(fallback))


def _next_item(catalog: Catalog, state: TrackState, lang: str, i: int) -> tuple[Json, Mrkdwn]:
    """The ``i``-th track's section of :func:`next_reply` (its *Mark read* ``mark_read:<i>``) and its
    line of the fallback text (kept per reading state: shared, read-only)."""
    nxt, tid = state.next, state.track_id
    if nxt is None:
        line = t("next.track_done", lang, track=track_name(catalog, tid, lang))
        return section(line), line
    line = progress_line(catalog, state, lang)  # counted as every short answer counts: essentials first
    note = Mrkdwn("\n{}").format(truncate(nxt.step.note.get(lang), 400)) if nxt.step.note else Mrkdwn()
    mark = button(t("btn.mark_read", lang), f"mark_read:{i}", {"p": nxt.post_id, "t": tid, "v": "next"})
    return section(line + note, accessory=mark), line
