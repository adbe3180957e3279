"""What each button does (the action id's prefix is the kind): most redraw the message they live
in; *Share* posts the track in the channel; a digest's *Snooze* and *Stop*: :mod:`.digest_actions`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Literal

from bot.domain.budget import MAX_MINUTES, MIN_MINUTES
from bot.domain.paths import track_state
from bot.slack.commands import plan, remind, replies
from bot.slack.commands.context import ButtonValue, Context
from bot.slack.commands.digest_actions import channel_subscription, digest_action
from bot.slack.commands.subscribe import dm_schedule, pause_two_weeks
from bot.slack.i18n import day_text, t
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


def _digest(kind: Literal["snooze", "stop"]) -> Callable[[Context, ButtonValue], Reply | None]:
    """A digest's ``kind`` button: on a channel digest only for who :meth:`Context.may_stop` (its
    creator or a workspace admin, *Snooze* as *Stop*); a change is announced.
    On a channel digest the answer and the announcement speak the digest's language
    (:meth:`~bot.store.Store.digest_lang`, the language of the message clicked), not the clicker's."""

    def run(ctx: Context, value: ButtonValue) -> Reply | None:
        sub = channel_subscription(ctx.rt, ctx.caller, value.v)
        lang = ctx.lang if sub is None else ctx.rt.store.digest_lang(sub)
        if sub is not None and not ctx.may_stop(sub.created_by):  # Snooze too (QA round 14)
            refusal = "sub.not_allowed" if kind == "stop" else "sub.snooze_not_allowed"
            return views.text_reply(t(refusal, lang, person=ctx.person(sub.created_by or "")))
        reply, changed = digest_action(ctx.rt, ctx.caller, kind, value.model_dump(exclude_none=True), lang=lang)
        if sub is not None and changed:  # a repeated Snooze is answered to the clicker alone (QA round 8)
            cat = ctx.catalog
            track = views.track_name(cat, sub.track_id, lang) if cat.has_track(sub.track_id) else sub.track_id
            line = t(f"announce.{kind}", lang, person=ctx.person(ctx.caller.user_id), track=track)
            ctx.announce(sub.team_id, sub.channel_id, line)
        return reply

    return run


snooze = _digest("snooze")
stop = _digest("stop")


def _post(ctx: Context, value: ButtonValue) -> str | None:
    cat = ctx.catalog
    return cat.resolve_post_id(value.p) if value.p and cat.has_post(value.p) else None


def _track(ctx: Context, value: ButtonValue) -> str | None:
    return replies.current_track(ctx, value.t) if value.t else None


def _gone(ctx: Context, value: ButtonValue) -> bool:
    """The button names a post or a track today's catalog no longer has (under any alias)."""
    return bool((value.p and _post(ctx, value) is None) or (value.t and _track(ctx, value) is None))


def _lists_posts(view: str) -> bool:
    """Whether a button's message lists posts to act on one by one (search results, next reads,
    what's new, reminders): it is drawn again with the change, not replaced by a short answer."""
    return view.startswith(("search:", "latest:")) or view in ("next", "latest", "reminders")


def _change(
    act: Callable[[Context, str], bool],
    done: str,
    already: str,
    on_post: bool,
    finish: bool = False,
    short: bool = False,
) -> Callable[[Context, ButtonValue], Reply | None]:
    """A progress or follow button: ``act`` on its post (``on_post``) or track, say ``done`` or ``already``
    (i18n keys), redraw; with ``finish``, the finish line when the post completes an essential path;
    ``short``: answer in one line with the progress (:func:`replies.progress`) instead of drawing a
    track's path again (App Home and lists of posts are still drawn again)."""

    def run(ctx: Context, value: ButtonValue) -> Reply | None:
        if _gone(ctx, value):
            return replies.outdated(ctx)
        cat, target = ctx.catalog, _post(ctx, value) if on_post else _track(ctx, value)
        notice = None
        if target:  # an old button may do it again: say it already was
            name = views.post_link(cat, target, lang=ctx.lang) if on_post else views.track_name(cat, target, ctx.lang)
            before = ctx.reader.read() if finish else set()
            # a held click's hold cancelled the post's reminders before this ran and counted them
            held = ctx.rt.store.cancelled_with_hold(ctx.caller.team_id, ctx.caller.user_id, target) if finish else None
            pending = remind.pending_of(ctx, [target]) if finish and held is None else []  # read cancels them
            acted = act(ctx, target)
            notice = t(done if acted else already, ctx.lang, **{"posts" if on_post else "track": name})
            dropped = remind.cancelled_by_read(ctx, pending) if pending else None
            if finish and acted and not pending and held != 0:  # a held click: cancelled with its hold
                dropped = remind.cancelled_with_click(ctx, target)
            if dropped is not None:
                notice = Mrkdwn("{}\n{}").format(notice, dropped)  # after a link: a line of its own (QA)
            if finish:
                notice = plan.with_finish(notice, plan.finish_notice(ctx, [target], before))
            if short and value.v != "home" and not _lists_posts(value.v):  # issue 40: one line
                tid = (_track(ctx, value) if value.t else None) or (
                    replies.main_track(ctx, [target]) if on_post else target
                )
                if tid:  # in place of a track's path or a short answer (a digest stays: actions.py)
                    answer = replies.progress(ctx, tid, notice)
                    # QA round 18: *Follow track* replaced the whole path it was under; a new answer, the path kept
                    return (
                        replace(answer, keep_original=True) if not on_post and value.v.startswith("track:") else answer
                    )
        return replies.redraw(ctx, value.v, notice, offset=value.o)

    return run


mark_read = _change(
    lambda ctx, pid: bool(ctx.reader.mark_read([pid])), "read.done", "read.already", True, finish=True, short=True
)
"""Mark the button's post read and say where that leaves the reader."""
mark_unread = _change(lambda ctx, pid: bool(ctx.reader.mark_unread([pid])), "unread.done", "unread.already", True)
"""Mark the button's post unread, then redraw."""
follow = _change(lambda ctx, tid: ctx.reader.follow(tid), "follow.done_short", "follow.already", False, short=True)
"""Follow the button's track and say the progress and next step."""
unfollow = _change(lambda ctx, tid: ctx.reader.unfollow(tid), "unfollow.done", "unfollow.not", False)
"""Unfollow the button's track, then redraw."""


def share(ctx: Context, value: ButtonValue) -> Reply | None:
    """The track's path for everyone in the channel (no personal progress)."""
    if _gone(ctx, value):
        return replies.outdated(ctx)
    tid = _track(ctx, value)
    if tid:
        everyone = track_state(ctx.catalog, tid)  # no one's progress
        return views.track_reply(ctx.catalog, everyone, ctx.lang, followed=False, shared=True)
    return replies.redraw(ctx, value.v, None, offset=value.o)


def dm_on(ctx: Context, value: ButtonValue) -> Reply | None:
    """Weekly DM on: the last DM schedule, else Monday 09:00 in the person's zone; in the language of
    the view clicked (``ctx.lang``) unless the person chose one."""
    ctx.rt.store.set_dm(ctx.caller.team_id, ctx.caller.user_id, True, schedule=dm_schedule(ctx), lang=ctx.lang)
    return replies.redraw(ctx, value.v, None, offset=value.o)


def dm_off(ctx: Context, value: ButtonValue) -> Reply | None:
    """Weekly DM off."""
    ctx.rt.store.set_dm(ctx.caller.team_id, ctx.caller.user_id, False)
    return replies.redraw(ctx, value.v, None, offset=value.o)


def more_results(ctx: Context, value: ButtonValue) -> Reply | None:
    """The next page of a search (``v`` = ``search:<query>``, ``o`` = the first result to show)."""
    return replies.redraw(ctx, value.v, None, offset=value.o)


def open_path(ctx: Context, value: ButtonValue) -> Reply | None:
    """*Open path*: the track's path with the reader's progress (from App Home, in a modal); under
    search results a new message, the results kept (QA round 19: the path replaced them)."""
    tid = _track(ctx, value)
    if not tid:
        return replies.redraw(ctx, value.v, None, offset=value.o)
    path = replies.track_view(ctx, tid)
    return replace(path, keep_original=True) if value.v.startswith("search:") else path


def more_steps(ctx: Context, value: ButtonValue) -> Reply | None:
    """Another page of a long track's steps (``t`` the track, ``o`` the first step to list)."""
    tid = _track(ctx, value)
    return replies.track_view(ctx, tid, offset=value.o) if tid else replies.redraw(ctx, value.v, None, offset=value.o)


def lower_budget(ctx: Context, value: ButtonValue) -> Reply | None:
    """The nudge's *Lower to N min a week* (issue 44; ``d`` the minutes): the reader's budget set to it."""
    minutes = int(value.d) if value.d and value.d.isdigit() else 0
    if not MIN_MINUTES <= minutes <= MAX_MINUTES:
        return replies.redraw(ctx, value.v, None)
    ctx.rt.store.set_budget(ctx.caller.team_id, ctx.caller.user_id, minutes)
    return views.text_reply(t("nudge.lowered", ctx.lang, n=minutes))


def pause_plan(ctx: Context, value: ButtonValue) -> Reply | None:
    """The nudge's *Pause two weeks* (issue 44): the plan paused (those weeks never break a streak)
    and the weekly DM snoozed until then."""
    until = pause_two_weeks(ctx)  # as `dm pause 2 weeks` (QA round 20)
    return views.text_reply(t("nudge.paused", ctx.lang, date=day_text(until.date(), ctx.lang)))
