"""Reading plans rendered (issue 24): reading times, essential paths, the ``plan`` reply. Pure."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence

from bot.domain import budget as budgets
from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Post, Track, format_day
from bot.domain.insights import MIN_READERS, shown
from bot.domain.paths import PathStep, TrackPath, TrackState
from bot.slack.i18n import join_list, level_name, t
from bot.slack.mrkdwn import Mrkdwn, as_plain, link
from bot.slack.views.blocks import MAX_BLOCKS_MESSAGE, Json, Reply, context, image, make_reply, section
from bot.slack.views.parts import count_text, memo


def pt(key: str, lang: str = "en", **values: object) -> Mrkdwn:
    """A string of the ``budget.*`` keys of the catalogs (:mod:`bot.i18n`) in ``lang``, formatted (values escaped)."""
    return t("budget." + key, lang, **values)


def minutes_label(post: Post, lang: str = "en") -> Mrkdwn:
    """A post's reading time: ``12 min`` (counted), ``~12 min`` (an estimate), ``minutes once
    linked`` for a post the blog has not published a link to yet, empty when otherwise unknown. The
    minutes of a post linked through a summary page (``source.link_kind: summary``: another
    company's article, read on yomu.fyi) are the page's, said so: ``1 min summary`` (QA round 20:
    "1 min" read as the article's length)."""
    if post.minutes is None:
        return pt("min_when_linked", lang) if post.url is None else Mrkdwn()
    key = "min" if post.minutes_source == "counted" else "min_estimate"
    return pt(key + ("_summary" if post.source.link_kind == "summary" else ""), lang, n=post.minutes)


def minutes_suffix(post: Post, lang: str = "en") -> Mrkdwn:
    """`` · 12 min`` to end a post's meta line (:func:`minutes_label`), empty when unknown."""
    minutes = minutes_label(post, lang)
    return Mrkdwn(" · {}").format(minutes) if minutes else Mrkdwn()


def step_level(step: PathStep, lang: str = "en") -> Mrkdwn:
    """The word a step's meta line shows for it: its level (``core``…) on the essential path, else
    ``further reading`` alone (QA: "_core_ · _further reading_" claimed a further-reading step was
    core to the path). Used by track replies, digests and (as text) the web page alike."""
    return level_name(step.level, lang) if step.essential else pt("further", lang)


def path_line(
    catalog: Catalog,
    state: TrackState,
    minutes_per_week: int | None,
    today: dt.date,
    lang: str = "en",
    page_url: str | None = None,
) -> Mrkdwn:
    """``Essential path: 6 steps · 84 min · at 30 min a week you finish around 29 Dec 2026``: the
    reader's unread essential steps (``state``) from ``today`` at ``minutes_per_week`` (``None``: the
    default, said so), then "see the whole path" (``page_url``) and the tracks to read first whose
    essential path is not read yet (``state.first``; once this essential path is read, as background:
    "read first" no longer holds). Memoised."""

    def build() -> Mrkdwn:
        ess = state.path.essentials
        if any(s.post.minutes for s in ess):
            line = pt("path_line", lang, steps=len(ess), minutes=state.path.essential_minutes)
        else:  # no length known yet: never a "0 min" that looks counted
            line = pt("path_steps", lang, steps=len(ess))
        left = [s.post.minutes for s in ess if not state.is_read(s)]
        if not left:
            line += pt("path_finished", lang)
        else:
            per_week = minutes_per_week or budgets.DEFAULT_MINUTES
            day = budgets.finish_day(today, budgets.weeks_to_finish(left, per_week))
            line += pt("path_finish", lang, budget=per_week, day=format_day(day, lang))
            if minutes_per_week is None:
                line += pt("path_default", lang)
            if uncounted := sum(1 for m in left if not m):  # planning counts them; say how
                line += pt("path_uncounted", lang, n=uncounted, minutes=budgets.UNKNOWN_STEP_MINUTES)
        line += Mrkdwn(" · ") + link(page_url, as_plain(pt("whole_path", lang))) if page_url else Mrkdwn()
        # A track to read first, as its essential path (QA: "Read first: Engine internals" read as all
        # 19 steps), unless that path is read already.
        if state.first:
            names = join_list(
                [
                    pt("before", lang, track=p.track.names.get(lang), track_id=p.track.id, steps=len(p.essentials))
                    for p in state.first
                ],
                lang,
            )
            label = t("ref.background" if not left else "ref.read_first", lang)  # QA round 8: "first" once done
            line += Mrkdwn("\n") + t("ref.line", lang, label=label, items=names)
        return line

    key = ("path_line", state.track_id, state.read, minutes_per_week, today, lang, page_url)
    return memo(catalog, key, build)


def plan_reply(
    tracks: Sequence[TrackPath],
    minutes_per_week: int | None,
    lang: str,
    *,
    changed_to: str,
    read: Collection[str] = (),
    mine: Sequence[str] = (),
) -> Reply:
    """The answer to ``plan …`` (``changed_to`` ``set``, ``off`` or ``show``) and the weeks each of
    ``tracks`` (every track, in catalog order) takes at it. With ``mine`` (the ids of the reader's
    followed, then started tracks) only those are listed, in that order, each with the minutes of
    its essential steps not in ``read`` (current post ids) and the weeks they take; the others are
    one line with the command that shows one (QA: the table listed all 14 tracks from scratch)."""
    per_week = minutes_per_week or budgets.DEFAULT_MINUTES
    default = pt("plan.default", lang) if minutes_per_week is None else Mrkdwn()
    key = changed_to if changed_to in ("set", "off") else "show"
    key = "set_week" if key == "set" else key  # QA round 18: in Chinese, channel digests are 每周推荐
    head = pt("plan." + key, lang, budget=per_week, default=default)
    by_id = {p.track.id: p for p in tracks}
    yours = [by_id[tid] for tid in dict.fromkeys(mine) if tid in by_id]
    if yours:
        lines = [_left_line(p, read, per_week, lang) for p in yours]
        others = len(tracks) - len(yours)
        if others:
            lines.append(pt("plan.others", lang, n=others))
    else:
        lines = [
            pt("plan.week" if w == 1 else "plan.weeks", lang, track=tr.names.get(lang), minutes=m, weeks=w)
            for tr, m, w in weeks_per_track(tracks, per_week)
        ]
    blocks = [section(head), section(Mrkdwn("\n").join(lines[:40]))]
    return make_reply(blocks, head)


def _left_line(path: TrackPath, read: Collection[str], per_week: int, lang: str) -> Mrkdwn:
    """One of the reader's tracks in the plan: the minutes and weeks of its essential steps not read."""
    left = [s for s in path.essentials if s.post.id not in read]
    name = path.track.names.get(lang)
    if not left:
        return pt("plan.track_done", lang, track=name)
    minutes = sum(s.post.minutes or 0 for s in left)
    weeks = budgets.weeks_to_finish([s.post.minutes for s in left], per_week)
    done, total = len(path.essentials) - len(left), len(path.essentials)
    key = "plan.left_week" if weeks == 1 else "plan.left_weeks"
    return pt(key, lang, track=name, minutes=minutes, weeks=weeks, done=done, total=total)


def weeks_per_track(tracks: Sequence[TrackPath], minutes_per_week: int) -> list[tuple[Track, int, int]]:
    """``(track, essential minutes, weeks to finish)`` for each of ``tracks`` at ``minutes_per_week``."""
    return [
        (
            p.track,
            p.essential_minutes,
            budgets.weeks_to_finish([s.post.minutes for s in p.essentials], minutes_per_week),
        )
        for p in tracks
    ]


def minutes_read(catalog: Catalog, read: Collection[str]) -> int:
    """Minutes of reading in the posts of ``read`` whose length is known (former ids count)."""
    ids = {pid for p in read if (pid := catalog.resolve_post_id(p))}
    return sum(catalog.post(p).minutes or 0 for p in ids)


def home_finished_blocks(
    catalog: Catalog,
    finished: Mapping[str, dt.datetime],
    read: Collection[str],
    lang: str,
    picture_url: str | None = None,
    picture_track: str | None = None,
) -> list[Json]:
    """App Home's finished tracks, minutes read, and the ``picture_url`` of ``picture_track``'s path."""
    minutes = minutes_read(catalog, read)
    names = [catalog.track(tid).names.get(lang) for tid in finished if catalog.has_track(tid)]
    if names:
        text = pt("home.finished", lang, tracks=join_list(names, lang), minutes=minutes)
    else:
        text = pt("home.none_finished", lang, minutes=minutes)
    out: list[Json] = [context(text)]
    if picture_url and picture_track and catalog.has_track(picture_track):
        alt = as_plain(pt("home.picture_alt", lang, track=catalog.track(picture_track).names.get(lang)))
        out.append(image(picture_url, alt))
    return out


def with_finished(reply: Reply, catalog: Catalog, counts: Mapping[str, int], lang: str) -> Reply:
    """The ``stats`` ``reply`` with a line of the essential paths finished (``counts``: ``{track id: readers}``)."""
    # A count under 4 readers is hidden, as in the funnel, and so is what a total minus the shown
    # parts would give away (QA: "7 (Engine internals 4, Speculative decoding <4)")
    total, parts = sum(counts.values()), sum(n for n in counts.values() if shown(n) is not None)
    # with parts hidden: at least what is shown (or the smallest count shown)
    said = count_text(shown(total)) if parts == total or total < MIN_READERS else f"{max(parts, MIN_READERS)}+"
    per = join_list(
        [
            f"{catalog.track(tid).names.get(lang)} {count_text(shown(n))}"
            for tid, n in sorted(counts.items(), key=lambda kv: -kv[1])
            if catalog.has_track(tid)
        ],
        lang,
        conjunction=False,
    )
    if total == 0:
        line = pt("stats.finished_none", lang)
    elif parts == 0:  # every count hidden: one line, not "<4 (Speculative decoding <4)"
        line = pt("stats.finished_hidden", lang, n=MIN_READERS)
    else:
        line = pt("stats.finished", lang, n=said, tracks=per or "–")
    blocks = [*reply.blocks[: MAX_BLOCKS_MESSAGE - 1], context(line)]
    return Reply(text=reply.text, blocks=blocks, response_type=reply.response_type)


def channel_finish_line(
    track_name: str, after_essentials: str, lang: str = "en", *, further_sent: bool = False, further_left: bool = True
) -> Mrkdwn:
    """A channel digest's line on finishing the essential path, then ``further`` reading or ``stop``.
    ``further_sent``: this digest already lists further reading (then "more further reading
    follows"); ``further_left``: some is still to come after it (else nothing is promised; QA: a
    digest ending the path still said "Further reading follows in the next digests")."""
    if after_essentials == "stop":
        after = pt("channel.after_stop", lang)
    elif not further_left:
        after = Mrkdwn()
    else:
        after = pt("channel.after_more_further" if further_sent else "channel.after_further", lang)
    return pt("channel.essentials_done", lang, track=track_name, after=after)


def channel_budget_intro(track_name: str, total: int, minutes_per_week: int | None, lang: str = "en") -> Mrkdwn | None:
    """A channel's first digest's introduction at its weekly budget; None without one."""
    if not minutes_per_week:
        return None
    return pt("channel.intro", lang, track=track_name, total=total, minutes=minutes_per_week)
