"""Domain results as Block Kit messages, pure. Button ``action_id`` s are ``<kind>:<n>``, unique in a
message; what a click needs (post, track, the view to redraw) is in the button's ``value``."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from slack_sdk.models.blocks import Block, DividerBlock

from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Step, Track
from bot.slack.i18n import level_name, t
from bot.slack.mrkdwn import Mrkdwn, link, truncate
from bot.slack.views.blocks import Reply, actions, button, context, header, make_reply, section, sections
from bot.slack.views.links import read_link
from bot.slack.views.parts import memo, memo_reply, rendered
from bot.slack.views.plan import minutes_suffix, step_suffix
from bot.slack.views.subscriptions import digest_amount as digest_amount
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


def _title(track: Track) -> str:
    """A track's header: its English and Chinese names."""
    return f"{track.names.en} · {track.names.zh}" if track.names.zh else track.names.en


def _with_notice(notice: str | None, fallback: Mrkdwn) -> Mrkdwn:
    return Mrkdwn("{}\n{}").format(notice, fallback) if notice else fallback


def _step_line(
    catalog: Catalog, number: int, step: Step, icon: str, lang: str, bold: bool, track_id: str | None = None
) -> Mrkdwn:
    """``icon n. <post> · _level_``; with ``track_id`` (the reader's reply) also :func:`step_suffix`."""
    text = read_link(catalog, catalog.post(step.post), lang, bold=bold)
    suffix = step_suffix(catalog, track_id, step.post, lang) if track_id else Mrkdwn("")
    return Mrkdwn("{} {}. {} · _{}_{}").format(Mrkdwn(icon), number, text, level_name(step.level, lang), suffix)


def _path_head(lang: str, start: int, end: int, total: int) -> list[str]:
    """ "The path:" and, on a page of a longer path, which steps it shows."""
    showing = Mrkdwn("_{}_").format(t("track.showing", lang, first=start + 1, last=end, total=total))
    return [t("track.path", lang), showing] if start or end < total else [t("track.path", lang)]


def _prereq_lines(
    catalog: Catalog, track_id: str, step: Step, lang: str, done: Collection[str | None] = frozenset()
) -> list[Mrkdwn]:
    """What to read first (unless in ``done``), what to know first and what to read after ``step``."""
    lines = []
    before = [s for s in paths.read_before(catalog, track_id, step.post) if s.post not in done]
    if before:
        items = Mrkdwn(", ").join(post_link(catalog, s.post, lang=lang) for s in before)
        lines.append(t("track.read_first", lang, items=items))
    before_ext = [x for x in step.external_prerequisites if x.kind == "prerequisite"]
    after_ext = [x for x in step.external_prerequisites if x.kind == "follow-up"]
    if before_ext:
        lines.append(t("track.background", lang, items=Mrkdwn(", ").join(link(x.url, x.title) for x in before_ext)))
    if after_ext:
        lines.append(t("track.then", lang, items=Mrkdwn(", ").join(link(x.url, x.title) for x in after_ext)))
    return lines


def help_reply(catalog: Catalog, lang: str, prefix: str | None = None) -> Reply:
    """The help message: grammar with examples, the track list, catalog version."""
    tracks = Mrkdwn(", ").join(Mrkdwn("`{}` {}").format(tr.id, tr.names.get(lang)) for tr in catalog.tracks)
    blocks: list[Block] = [header(t("help.title", lang))]
    if prefix:
        blocks.append(section(prefix))
    blocks += [section(t("help.intro", lang)), section(t("help.commands", lang))]
    blocks += [section(t("help.tracks", lang, tracks=tracks)), context(t("help.footer", lang, version=catalog.version))]
    return make_reply(blocks, (prefix + "\n" if prefix else "") + t("help.intro", lang))


def text_reply(text: str, response_type: str = "ephemeral") -> Reply:
    """A one-section reply (``text`` is mrkdwn the caller has escaped)."""
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
    track_id: str,
    read: set[str],
    lang: str,
    *,
    followed: bool,
    notice: str | None = None,
    shared: bool = False,
    offset: int | None = None,
    path: Mrkdwn | None = None,
) -> Reply:
    """A page (:func:`step_page` of ``offset``) of a track's path with the reader's progress, the
    next step and buttons. ``notice``: escaped mrkdwn on top; ``shared=True``: the in-channel
    version; ``path``: :func:`bot.slack.views.plan.path_line`. Without a notice the reply is kept
    per reading state (:func:`~bot.slack.views.parts.memo_reply`): do not change it."""
    if shared:
        return _shared_track_reply(catalog, track_id, lang, notice, offset)
    if notice:  # a notice is one click's answer: not worth keeping
        return _personal_track_reply(catalog, track_id, read, lang, followed, notice, offset, path)
    return memo_reply(
        catalog,
        ("track", track_id, lang, frozenset(read), followed, offset, path),
        lambda: _personal_track_reply(catalog, track_id, read, lang, followed, None, offset, path),
    )


@dataclass(frozen=True)
class _TrackPage:
    """Steps ``start`` to ``end`` of ``total``, ``done`` the posts read, ``nxt`` the next step (or None)."""

    catalog: Catalog
    track_id: str
    lang: str
    done: frozenset[str]
    nxt: Step | None
    start: int
    end: int
    total: int

    @property
    def view(self) -> dict[str, str]:
        return {"v": f"track:{self.track_id}"}

    @property
    def paged(self) -> bool:
        return bool(self.start or self.end < self.total)


def _personal_track_reply(
    catalog: Catalog,
    track_id: str,
    read: Collection[str],
    lang: str,
    followed: bool,
    notice: str | None,
    offset: int | None,
    path: Mrkdwn | None = None,
) -> Reply:
    """:func:`track_reply` for the reader (progress, buttons)."""
    track = catalog.track(track_id)
    steps = catalog.path(track_id)
    done = frozenset(pid for p in read if (pid := catalog.resolve_post_id(p)))
    nxt = paths.next_step(catalog, track_id, done)
    read_count = sum(1 for s in steps if s.post in done)
    total = len(steps)
    start = step_page(total, catalog.order(track_id).index(nxt.post) if nxt else None, offset)
    page = _TrackPage(catalog, track_id, lang, done, nxt, start, min(total, start + STEPS_PER_PAGE), total)

    blocks: list[Block | dict] = [rendered(catalog, ("header", track_id), lambda: header(_title(track)))]
    blocks += [section(notice)] if notice else []
    blocks.append(
        rendered(
            catalog,
            ("progress", lang, track_id, read_count),
            lambda: context(t("track.progress", lang, read=read_count, total=total, version=catalog.version)),
        )
    )
    if path:
        blocks.append(context(path))
    blocks.append(rendered(catalog, ("description", lang, track_id), lambda: section(track.description.get(lang))))
    blocks += _step_blocks(page, steps)
    ids = ActionIds(page.end - page.start)
    blocks += _paging_blocks(page, ids)
    blocks.append(DividerBlock())
    if nxt is not None:
        unread_before = tuple(s.post for s in paths.read_before(catalog, track_id, nxt.post) if s.post not in done)
        key = ("next_detail", lang, track_id, nxt.post, unread_before)
        blocks.append(rendered(catalog, key, lambda: section(_next_detail(catalog, track_id, nxt, lang, done))))
    else:
        blocks.append(rendered(catalog, ("done", lang), lambda: section(t("track.done", lang))))
    first_id = ids.peek()
    buttons = ("buttons", lang, track_id, nxt.post if nxt else None, followed, first_id)
    blocks.append(rendered(catalog, buttons, lambda: _track_buttons(page, followed, first_id)))
    fallback = memo(
        catalog,
        ("track_fallback", lang, track_id, nxt.post if nxt else None),
        lambda: Mrkdwn("{}: {}").format(
            track.names.get(lang),
            t("track.next", lang, post=catalog.post(nxt.post).title) if nxt else t("track.done", lang),
        ),
    )
    return make_reply(blocks, _with_notice(notice, fallback), "ephemeral")


def _step_blocks(page: _TrackPage, steps: Sequence[Step]) -> list[Block | dict]:
    """The path's head and one section per listed step, each with Mark read (or Mark unread)."""
    catalog, lang, track_id = page.catalog, page.lang, page.track_id
    start, end, total = page.start, page.end, page.total

    blocks: list[Block | dict] = [
        rendered(
            catalog,
            ("path_head", lang, track_id, start, page.paged),
            lambda: section(Mrkdwn("\n").join(_path_head(lang, start, end, total))),
        )
    ]
    for i in range(start, end):
        step = steps[i]
        is_next = page.nxt is not None and step.post == page.nxt.post
        state = "read" if step.post in page.done else "next" if is_next else "unread"

        def step_section(i: int = i, step: Step = step, state: str = state) -> Block:
            icon = {"read": ICON_READ, "next": ICON_NEXT, "unread": ICON_UNREAD}[state]
            kind = "mark_unread" if state == "read" else "mark_read"
            mark = button(t("btn." + kind, lang), f"{kind}:{i - start}", {"p": step.post, "t": track_id, **page.view})
            return section(_step_line(catalog, i + 1, step, icon, lang, state == "next", track_id), accessory=mark)

        blocks.append(rendered(catalog, ("step", lang, track_id, i, state, i - start), step_section))
    if end < total:
        more = ("more_steps", lang, track_id, end)
        blocks.append(rendered(catalog, more, lambda: section(t("track.more_steps", lang, n=total - end))))
    return blocks


def _paging_blocks(page: _TrackPage, ids: ActionIds) -> list[Block | dict]:
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


def _track_buttons(page: _TrackPage, followed: bool, first_id: int) -> Block:
    """Mark read and Remind (for the next step), Follow or Unfollow, Share."""
    ids, lang, view, track_id = ActionIds(first_id), page.lang, page.view, page.track_id
    row = []
    if page.nxt is not None:
        post = page.nxt.post
        mark = {"p": post, "t": track_id, **view}
        row.append(button(t("btn.mark_read", lang), ids("mark_read"), mark, style="primary"))
        row.append(button(t("btn.remind_next_week", lang), ids("remind"), {"p": post, "d": "next week", **view}))
    kind = "unfollow" if followed else "follow"
    row.append(button(t("btn." + kind, lang), ids(kind), {"t": track_id, **view}))
    row.append(button(t("btn.share", lang), ids("share"), {"t": track_id, **view}))
    return actions(row)


def _next_detail(catalog: Catalog, track_id: str, nxt: Step, lang: str, done: Collection[str]) -> Mrkdwn:
    """The next step's detail: its link, place, source, date and reading time, note and prerequisites."""
    track = catalog.track(track_id)
    post = catalog.post(nxt.post)
    position = catalog.order(track_id).index(nxt.post) + 1
    where = t("step.position", lang, position=position, of=len(catalog.path(track_id)), track=track.names.get(lang))
    detail: list[str] = [
        t("track.next", lang, post=post_link(catalog, nxt.post, lang=lang)),
        Mrkdwn("_{} · {} · {}{}_").format(
            where, post.source.label(lang), post.published.display(lang), minutes_suffix(post, lang)
        ),
    ]
    if nxt.note:
        detail.append(nxt.note.get(lang))
    detail.extend(_prereq_lines(catalog, track_id, nxt, lang, done))
    return Mrkdwn("\n").join(detail)


def _shared_track_reply(catalog: Catalog, track_id: str, lang: str, notice: str | None, offset: int | None) -> Reply:
    """The in-channel :func:`track_reply`: the first page, no progress, no buttons."""
    track = catalog.track(track_id)
    steps = catalog.path(track_id)
    blocks: list[Block] = [header(_title(track))]
    blocks += [section(notice)] if notice else []
    blocks += [context(t("share.footer", lang, version=catalog.version)), section(track.description.get(lang))]
    start = step_page(len(steps), None, offset)
    end = min(len(steps), start + STEPS_PER_PAGE)
    lines = _path_head(lang, start, end, len(steps)) + [
        _step_line(catalog, i, s, ICON_UNREAD, lang, False) for i, s in enumerate(steps[start:end], start=start + 1)
    ]
    more = t("track.more_steps", lang, n=len(steps) - end) if end < len(steps) else None
    tail = [more, Mrkdwn("`/vllm-path {}`").format(track_id)] if more else []
    blocks.extend(sections([*lines, *tail]))
    titles = Mrkdwn(" > ").join(catalog.post(s.post).title for s in steps[:5])
    fallback = Mrkdwn("{}: {}{}").format(track.names.get(lang), titles, " …" if len(steps) > 5 else "")
    return make_reply(blocks, _with_notice(notice, fallback), "in_channel")


def next_reply(catalog: Catalog, follows: Sequence[str], read: set[str], lang: str, notice: str | None = None) -> Reply:
    """The reader's next read in each followed track, with its reading time (unknown track ids are skipped)."""
    follows = [tid for tid in follows if catalog.has_track(tid)]
    blocks: list[Block] = [header(t("next.header", lang))]
    blocks += [section(notice)] if notice else []
    if not follows:
        blocks.append(section(t("next.none_followed", lang)))
        return make_reply(blocks, t("next.none_followed", lang))
    ids = ActionIds()
    fallback = []
    for tid in follows[:20]:
        done, total = paths.progress(catalog, tid, read)
        nxt = paths.next_step(catalog, tid, read)
        name = track_name(catalog, tid, lang)
        if nxt is None:
            blocks.append(section(line := t("next.track_done", lang, track=name)))
        else:
            post = post_link(catalog, nxt.post, lang=lang)
            line = t("next.track_line", lang, track=name, read=done, total=total, post=post)
            line += minutes_suffix(catalog.post(nxt.post), lang)
            note = Mrkdwn("\n{}").format(truncate(nxt.note.get(lang), 400)) if nxt.note else Mrkdwn()
            mark = button(t("btn.mark_read", lang), ids("mark_read"), {"p": nxt.post, "t": tid, "v": "next"})
            blocks.append(section(line + note, accessory=mark))
        fallback.append(line)
    return make_reply(blocks, Mrkdwn("\n").join(fallback))
