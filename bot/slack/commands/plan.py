"""``plan 30m`` / ``plan off`` / ``计划 30分钟``: the caller's weekly reading budget (issue 24), the
budgets of ``dm on … 30m`` and ``subscribe … 45m [then stop]``, finish lines and path lines."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.domain import budget as budgets
from bot.domain import paths
from bot.domain.related import related_choices
from bot.domain.schedule import WeeklySchedule
from bot.domain.streaks import streak
from bot.slack import grammar, i18n
from bot.slack.commands.context import Context
from bot.slack.commands.habits import kept_week, reader_streak
from bot.slack.mrkdwn import Mrkdwn, plain, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply, section
from bot.slack.views.finish import finish_reason, finish_text
from bot.slack.views.plan import path_line, plan_reply, pt
from bot.slack.views.subscriptions import day_words, dm_resumes
from bot.slack.views.together import streak_line
from bot.web.urls import path_page_url

if TYPE_CHECKING:
    from bot.store.together import HabitFacts


def _out_of_range(minutes: int, lang: str, channel: bool = False) -> Mrkdwn:
    key = "channel.range" if channel else "plan.range"  # QA round 18: a channel's digest is no "plan"
    return pt(key, lang, low=budgets.MIN_MINUTES, high=budgets.MAX_MINUTES, value=f"{minutes:,}")


def budget_refusal(cmd: grammar.Command, lang: str, channel: bool = False) -> Mrkdwn | None:
    """The refusal of a command's weekly minutes outside what a budget may be, else None (checked
    before anything is stored: ``subscribe quant monday 0m`` sets nothing up); ``channel``: the
    budget of a channel's digest (``subscribe``), named so."""
    if cmd.minutes is None or budgets.check_minutes(cmd.minutes):
        return None
    return _out_of_range(cmd.minutes, lang, channel)


def plan(s: Context, cmd: grammar.Command) -> Reply:
    """Set (``plan 30m``), reset (``plan off``) or show (``plan``) the caller's weekly budget,
    with the weeks each essential path takes at it; text that is no duration is refused."""
    store, caller, cat = s.rt.store, s.caller, s.catalog
    tracks = [paths.track_path(cat, tr.id) for tr in cat.tracks]
    if cmd.error:
        return views.text_reply(pt("plan.bad", s.lang, value=truncate(cmd.error_value or "", 100)))
    read, mine = _current_ids(s), _reader_tracks(s)
    if cmd.enabled is False:
        store.set_budget(caller.team_id, caller.user_id, None)
        return plan_reply(tracks, None, s.lang, changed_to="off", read=read, mine=mine)
    if cmd.minutes is None:
        return plan_reply(
            tracks, store.get_budget(caller.team_id, caller.user_id), s.lang, changed_to="show", read=read, mine=mine
        )
    if not budgets.check_minutes(cmd.minutes):
        return views.text_reply(_out_of_range(cmd.minutes, s.lang))
    store.set_budget(caller.team_id, caller.user_id, cmd.minutes)
    reply = plan_reply(tracks, cmd.minutes, s.lang, changed_to="set", read=read, mine=mine)
    weekday = cmd.schedule.weekday if cmd.schedule is not None else None
    return _dm_off_said(s, reply, weekday)


def _dm_off_said(s: Context, reply: Reply, weekday: int | None = None) -> Reply:
    """``reply`` (a plan just set) with a line saying the caller's weekly DM is off and how to turn it
    on, under its first block, when it is off (never turned on, or ``dm off``): the plan says DMs bring
    what fits, and none comes (QA round 16); when it is paused (``dm pause``), the line saying until
    when (``dm.snoozed``, QA round 17); else ``reply`` itself. A ``weekday`` typed with the plan
    (``plan 1h friday``, QA round 18) moves a DM that is on and not paused to that day (its time and
    zone kept) and says so; else the line is ``dm on <that day>``, the command that would do it."""
    dm = s.rt.store.get_dm(s.caller.team_id, s.caller.user_id)
    resumes = dm_resumes(dm) if dm is not None and dm.enabled else None
    line: Mrkdwn | None = None
    if dm is not None and dm.enabled and resumes is None:
        if weekday is not None:
            line = _moved_dm(s, dm, weekday)
    elif resumes is not None:  # paused: until when, so "DMs bring…" is not read as this week (QA round 17)
        line = i18n.t("dm.snoozed", s.lang, **day_words(resumes, s.lang))
        if weekday is not None:
            line = Mrkdwn("{}\n{}").format(line, _dm_day(weekday, s.lang))
    else:
        line = pt("plan.dm_off", s.lang) if weekday is None else _dm_day(weekday, s.lang)
    if line is None:
        return reply
    blocks = [*reply.blocks[:1], section(line), *reply.blocks[1:]]
    return replace(reply, text=f"{reply.text}\n{plain(line)}", blocks=blocks)


def _dm_day(weekday: int, lang: str) -> Mrkdwn:
    """The line pointing to the weekly DM on ``weekday`` (0 = Monday): ``dm on friday``."""
    day = i18n.weekday_name(weekday, lang) if lang == "zh" else _DAY_WORDS[weekday]
    return pt("plan.dm_day", lang, weekday=i18n.weekday_name(weekday, lang), day=day)


_DAY_WORDS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
"""The weekday a ``dm on`` command names, by number (0 = Monday)."""


def _moved_dm(s: Context, dm: Any, weekday: int) -> Mrkdwn:
    """Move the caller's weekly DM (on, not paused) to ``weekday``, keeping its time and zone; the line saying so."""
    if dm.weekday != weekday:
        schedule = WeeklySchedule(weekday=weekday, at_time=dm.at_time, timezone=dm.timezone)
        s.rt.store.set_dm(s.caller.team_id, s.caller.user_id, True, schedule=schedule)
    words = {"weekday": i18n.weekday_name(weekday, s.lang), "time": dm.at_time, "tz": dm.timezone}
    return pt("plan.dm_moved" if dm.weekday != weekday else "plan.dm_same_day", s.lang, **words)


def _current_ids(s: Context) -> set[str]:
    """The caller's read posts by today's ids (a former id counts as the post it became)."""
    return {pid for p in s.reader.read() if (pid := s.catalog.resolve_post_id(p))}


def _reader_tracks(s: Context) -> list[str]:
    """The caller's followed tracks (oldest follow first), then the tracks they have started
    (:func:`~bot.domain.paths.started_tracks`, catalog order): what the plan lists first."""
    cat, read = s.catalog, s.reader.read()
    followed = [tid for tid in s.reader.follows() if cat.has_track(tid)]
    started = [tid for tid in paths.started_tracks(cat, read) if tid not in followed]
    return followed + started


def dm_budget(s: Context, cmd: grammar.Command) -> Mrkdwn | None:
    """``dm on … 30m``: store the budget that came with the DM; the sentence to add, or None."""
    if cmd.minutes is None:
        return None
    if (refused := budget_refusal(cmd, s.lang)) is not None:
        return refused
    s.rt.store.set_budget(s.caller.team_id, s.caller.user_id, cmd.minutes)
    return pt("plan.set_week", s.lang, budget=cmd.minutes)


def channel_budget(s: Context, sub_id: int, cmd: grammar.Command, new: bool = False) -> Mrkdwn | None:
    """``subscribe <track> … 45m [then stop]``: store the channel digest's budget (``… 3 steps``
    without minutes: none, the digest goes by steps; a ``new`` digest with no amount: a person's
    default pace, :data:`~bot.domain.budget.DEFAULT_MINUTES`); the sentence to add, or None."""
    if cmd.minutes is None and cmd.after_essentials is None and cmd.steps is None:
        if not new:
            return None
        # no amount asked for: a person's default pace (issue 40), said in the confirmation
        s.rt.store.set_channel_budget(sub_id, budgets.DEFAULT_MINUTES, None)
        return pt("channel.set", s.lang, budget=budgets.DEFAULT_MINUTES)
    if (refused := budget_refusal(cmd, s.lang)) is not None:
        return refused
    minutes = cmd.minutes
    if minutes is None and cmd.steps is None and (current := s.rt.store.get_subscription(sub_id)) is not None:
        minutes = current.minutes_per_week  # kept unless steps a week were asked for instead
    s.rt.store.set_channel_budget(sub_id, minutes, cmd.after_essentials)
    parts = [pt("channel.set", s.lang, budget=minutes)] if minutes else []
    if cmd.after_essentials:
        parts.append(pt("channel.set_" + cmd.after_essentials, s.lang))
    return Mrkdwn(" ").join(parts) if parts else None


def track_path_line(s: Context, track_id: str) -> Mrkdwn:
    """The caller's path line for a track reply (:func:`bot.slack.views.plan.path_line`)."""
    url = path_page_url(s.rt.settings, track_id, s.lang)
    return path_line(s.catalog, s.reader.state(track_id), s.reader.budget, s.rt.store.now().date(), s.lang, url)


def finish_notice(s: Context, post_ids: list[str], before: set[str]) -> Mrkdwn | None:
    """After ``read``: the finish message of each essential path the posts completed since ``before``
    for the first time (recorded in the store: unread and read again finishes nothing new), else None.
    The store's finished paths are read only when a path was finished for the first time (issue 43:
    a query on every *Mark read* click was a fifth of its CPU)."""
    cat, store, caller = s.catalog, s.rt.store, s.caller
    now_read = s.reader.read()
    texts = []
    for tid in dict.fromkeys(t for p in post_ids for t in cat.tracks_of(p)):
        if paths.essentials_done(cat, tid, now_read) and not paths.essentials_done(cat, tid, before):
            minutes = paths.total_minutes(cat, paths.essentials(cat, tid))[0]
            if store.record_finished(caller.team_id, caller.user_id, tid, minutes):
                finished = set(store.finished_paths(caller.team_id, caller.user_id))  # this one recorded too
                state = paths.track_state(cat, tid, now_read)
                chosen = next_choice(s, tid, finished)
                why = finish_reason(chosen[1], chosen[2], s.lang) if chosen else None
                texts.append(finish_text(cat, state, s.lang, chosen[0] if chosen else None, why))
    if texts and (line := streak_line(reader_streak(s).weeks, s.lang)) is not None:
        texts.append(line)  # issue 44: the reader's streak, in their own reply only
    return Mrkdwn("\n\n").join(texts) if texts else None


def next_after_finish(s: Context, track_id: str, finished: Collection[str]) -> str | None:
    """The track to read after finishing ``track_id``'s essential path: what the finish message
    offers and ``recommend`` then recommends (QA: the two disagreed), :func:`next_choice`'s track;
    None when there is none."""
    chosen = next_choice(s, track_id, finished)
    return chosen[0] if chosen else None


def next_choice(s: Context, track_id: str, finished: Collection[str]) -> tuple[str, str, int] | None:
    """:func:`next_after_finish` with why it was chosen: ``(track id, reason, count)``. A track naming
    ``track_id`` as read-first (``after``), else the first track the caller follows whose essential
    path is not all read (``follow``), else :func:`~bot.domain.related.related_choice`'s ``linked`` or ``shared`` track;
    never ``track_id``'s own read-first tracks (QA round 19: finishing a path offered its
    prerequisite), ``track_id`` or a ``finished`` one (ids recorded in the store); None when none is left."""
    choices = related_choices(s.catalog, track_id, finished)
    after = [c for c in choices if c[1] == "after"]
    if after:
        return after[0]
    own = set(s.catalog.track(track_id).before)
    mine = [tid for tid in unfinished_follows(s) if tid != track_id and tid not in finished and tid not in own]
    return (mine[0], "follow", 0) if mine else next(iter(choices), None)


def unfinished_follows(s: Context) -> list[str]:
    """The tracks the caller follows (in the catalog, in follow order) whose essential path is not all read."""
    cat, read = s.catalog, s.reader.read()
    return [tid for tid in s.reader.follows() if cat.has_track(tid) and not paths.essentials_done(cat, tid, read)]


def with_finish(msg: Mrkdwn, finish: Mrkdwn | None) -> Mrkdwn:
    """``msg`` followed by the finish message, when there is one."""
    return msg if finish is None else Mrkdwn("{}\n\n{}").format(msg, finish)


def home_plan(
    rt: Any,
    team: str,
    user: str,
    follows: list[str],
    read: set[str],
    facts: HabitFacts | None = None,
    recorded: dict[str, datetime] | None = None,
) -> dict[str, Any]:
    """App Home's plan fields (:class:`bot.slack.views.home.HomeState`): the finished paths whose
    essential steps are all still read (a step marked unread reopens its path) and, with
    ``PUBLIC_URL``, the picture URL of the first followed track not finished (else the first); the
    weekly streak (issue 44) from ``facts`` and the finishes from ``recorded`` (None: read from the store)."""
    from bot.pictures import signed_url

    cat = rt.holder.catalog
    finished = {
        tid: at
        for tid, at in (rt.store.finished_paths(team, user) if recorded is None else recorded).items()
        if cat.has_track(tid) and paths.essentials_done(cat, tid, read)
    }
    followed = [tid for tid in follows if cat.has_track(tid)]
    track = next((tid for tid in followed if tid not in finished), followed[0] if followed else None)
    url = signed_url(rt.settings, cat, track, read) if track else None
    facts = facts or rt.store.habit_facts(team, user)  # issue 44: the streak, shown on Home
    budget = facts.budget or budgets.DEFAULT_MINUTES
    now, zone = rt.store.now(), facts.timezone  # issue 44 QA: weeks start on Monday in the reader's zone
    weeks = streak(cat, facts.reads, facts.follows, budget, facts.pauses, now, plan=kept_week(cat), zone=zone).weeks
    return {"finished": finished, "picture_url": url, "picture_track": track if url else None, "streak_weeks": weeks}


def reading_since(facts: HabitFacts) -> datetime | None:
    """:meth:`bot.store.Store.reading_since` from a reader's ``facts`` (no query): their last read
    (UTC), else their first follow; None when they did neither."""
    if facts.reads:
        return max(facts.reads.values())
    return min(facts.follows.values(), default=None)
