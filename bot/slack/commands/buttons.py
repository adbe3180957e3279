"""What each button does (the action id's prefix is the kind): progress and follow buttons
redraw the message they live in; *Share* posts the track in the channel; *DM on/off* change the
DM digest; a digest's *Snooze* and *Stop* are :mod:`bot.slack.commands.digest_actions`."""

from __future__ import annotations

from collections.abc import Callable

from bot.slack.commands import plan as _plan
from bot.slack.commands.digest_actions import handle_digest_action
from bot.slack.commands.dm import dm_schedule
from bot.slack.commands.registry import button
from bot.slack.commands.session import ButtonValue, Session
from bot.slack.i18n import t
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply
from bot.store.snapshots import Subscription


def _channel_digest(s: Session, value: ButtonValue) -> Subscription | None:
    """The channel subscription a digest button names (``v`` = ``digest:<id>``), if it is of the
    caller's workspace and channel (else None: a DM digest, or one that is gone)."""
    if not value.v.startswith("digest:"):
        return None
    try:
        sub_id = int(value.v.split(":", 1)[1])
    except ValueError:
        return None
    sub = s.rt.store.get_subscription(sub_id, team=s.caller.team_id)
    if sub is None or (s.caller.channel_id and sub.channel_id != s.caller.channel_id):
        return None
    return sub


def _digest(kind: str) -> Callable[[Session, ButtonValue], Reply | None]:
    """The use case of a digest's ``kind`` button (``snooze`` or ``stop``). A channel digest's
    *Stop* is allowed to the person who set it up and to workspace admins
    (:meth:`Session.may_stop`); each change is announced in the channel in one line."""

    def run(s: Session, value: ButtonValue) -> Reply | None:
        sub = _channel_digest(s, value)
        if sub is not None and kind == "stop" and not s.may_stop(sub.created_by):
            return views.text_reply(t("sub.not_allowed", s.lang, person=s.person(sub.created_by or "")))
        reply = handle_digest_action(s.rt, s.caller, kind, value.model_dump(exclude_none=True), lang=s.lang)
        if sub is not None:
            cat = s.rt.holder.catalog
            track = views.track_name(cat, sub.track_id, s.lang) if cat.has_track(sub.track_id) \
                else sub.track_id
            s.announce(sub.team_id, sub.channel_id,
                       t(f"announce.{kind}", s.lang, person=s.person(s.caller.user_id), track=track))
        return reply

    return run


button("snooze")(_digest("snooze"))
button("stop")(_digest("stop"))


def _post(s: Session, value: ButtonValue) -> str | None:
    cat = s.rt.holder.catalog
    return cat.resolve_post_id(value.p) if value.p and cat.has_post(value.p) else None


def _track(s: Session, value: ButtonValue) -> str | None:
    return s.current_track(value.t) if value.t else None


def _gone(s: Session, value: ButtonValue) -> bool:
    """The button names a post or a track today's catalog no longer has (under any alias)."""
    return bool((value.p and _post(s, value) is None) or (value.t and _track(s, value) is None))


@button("mark_read")
def mark_read(s: Session, value: ButtonValue) -> Reply | None:
    """Mark the button's post read, then redraw."""
    if _gone(s, value):
        return s.outdated()
    pid = _post(s, value)
    notice = None
    if pid:  # an old button may mark a post read again: say it already was
        before = s.read()
        key = "read.done" if s.mark_read([pid]) else "read.already"
        notice = t(key, s.lang, posts=views.post_link(s.rt.holder.catalog, pid, lang=s.lang))
        notice = _plan.with_finish(notice, _plan.finish_notice(s, [pid], before))  # issue 24
    return s.redraw(value.v, notice, offset=value.o)


@button("mark_unread")
def mark_unread(s: Session, value: ButtonValue) -> Reply | None:
    """Mark the button's post unread, then redraw."""
    if _gone(s, value):
        return s.outdated()
    pid = _post(s, value)
    notice = None
    if pid:
        key = "unread.done" if s.mark_unread([pid]) else "unread.already"
        notice = t(key, s.lang, posts=views.post_link(s.rt.holder.catalog, pid, lang=s.lang))
    return s.redraw(value.v, notice, offset=value.o)


@button("follow")
def follow(s: Session, value: ButtonValue) -> Reply | None:
    """Follow the button's track, then redraw."""
    if _gone(s, value):
        return s.outdated()
    tid = _track(s, value)
    notice = None
    if tid:
        key = "follow.done_short" if s.follow(tid) else "follow.already"
        notice = t(key, s.lang, track=views.track_name(s.rt.holder.catalog, tid, s.lang))
    return s.redraw(value.v, notice, offset=value.o)


@button("unfollow")
def unfollow(s: Session, value: ButtonValue) -> Reply | None:
    """Unfollow the button's track, then redraw."""
    if _gone(s, value):
        return s.outdated()
    tid = _track(s, value)
    notice = None
    if tid:
        key = "unfollow.done" if s.unfollow(tid) else "unfollow.not"
        notice = t(key, s.lang, track=views.track_name(s.rt.holder.catalog, tid, s.lang))
    return s.redraw(value.v, notice, offset=value.o)


@button("share")
def share(s: Session, value: ButtonValue) -> Reply | None:
    """The track's path for everyone in the channel (no personal progress)."""
    if _gone(s, value):
        return s.outdated()
    tid = _track(s, value)
    if tid:
        return views.track_reply(s.rt.holder.catalog, tid, set(), s.lang, followed=False, shared=True)
    return s.redraw(value.v, None, offset=value.o)


@button("dm_on")
def dm_on(s: Session, value: ButtonValue) -> Reply | None:
    """Weekly DM on: the last DM schedule, else Monday 09:00 in the person's zone."""
    when = dm_schedule(s)
    s.rt.store.set_dm(s.caller.team_id, s.caller.user_id, True, schedule=when)
    return s.redraw(value.v, None, offset=value.o)


@button("dm_off")
def dm_off(s: Session, value: ButtonValue) -> Reply | None:
    """Weekly DM off."""
    s.rt.store.set_dm(s.caller.team_id, s.caller.user_id, False)
    return s.redraw(value.v, None, offset=value.o)


@button("more_results")
def more_results(s: Session, value: ButtonValue) -> Reply | None:
    """The next page of a search (``v`` = ``search:<query>``, ``o`` = the first result to show):
    replaces the message it lives in."""
    if not value.v.startswith("search:"):
        return s.redraw(value.v, None, offset=value.o)
    return s.search(value.v[len("search:"):], offset=value.o)


@button("open_path")
def open_path(s: Session, value: ButtonValue) -> Reply | None:
    """*Open path*: the path of the button's track with the reader's progress (from a search
    result it replaces the message; from App Home the listener shows it in a modal)."""
    tid = _track(s, value)
    if tid is None:
        return s.redraw(value.v, None, offset=value.o)
    return s.track_view(tid)


@button("more_steps")
def more_steps(s: Session, value: ButtonValue) -> Reply | None:
    """Another page of a long track's steps (``t`` the track, ``o`` the first step to list)."""
    tid = _track(s, value)
    if tid is None:
        return s.redraw(value.v, None, offset=value.o)
    return s.track_view(tid, offset=value.o)
