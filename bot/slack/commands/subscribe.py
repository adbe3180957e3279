"""The weekly digests: ``subscribe <track> [weekday] [HH:MM] [zone] [N steps] [club]``, ``unsubscribe
[track]`` and ``subscriptions`` in a channel; ``dm on [weekday] [HH:MM] [zone]`` / ``dm off``."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bot.domain.plan import channel_minutes
from bot.domain.schedule import ScheduleParts, WeeklySchedule, subscription_change, zone_label
from bot.domain.streaks import NUDGE_EVERY
from bot.domain.words import closest
from bot.slack import grammar
from bot.slack.commands import replies
from bot.slack.commands.context import CHANNEL_INVITE, CHANNEL_OK, Context
from bot.slack.commands.digest_actions import handle_digest_action
from bot.slack.commands.plan import budget_refusal, channel_budget, dm_budget
from bot.slack.commands.progress import ALL_WORDS, not_tracks, several_tracks
from bot.slack.commands.settings import language_name, snooze_what
from bot.slack.grammar_dm import PAUSE_TWO_WEEKS
from bot.slack.i18n import LANGS, day_text, join_list, t
from bot.slack.mrkdwn import Mrkdwn, esc, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply
from bot.slack.views.digest import DIGEST_DM_VIEW
from bot.store.snapshots import Subscription

CHANNEL_UNCHECKED = "unchecked"
"""A channel check's answer when ``conversations.info`` could not be asked (ratelimited, HTTP 5xx,
a timeout): nothing is stored, the person is asked to try again in a moment (QA round 14)."""

CANNOT_POST = frozenset({"not_in_channel", "channel_not_found"})
"""An announcement's refusals that mean the channel cannot get its digest: a new one is undone."""

MIN_STEPS, MAX_STEPS = 1, 3
"""Steps a channel digest may send each week (the store's check constraint)."""

_OUTCOME_KEY = {"new": "sub.done", "same": "sub.already", "resumed": "sub.resumed", "updated": "sub.updated"}
_ANNOUNCE_KEY = {"new": "announce.new", "resumed": "announce.resumed", "updated": "announce.updated"}
"""The channel's one line for each change of its digest (a "same" subscribe changes nothing)."""


def next_fire_label(schedule: WeeklySchedule, now: datetime | None = None, lang: str = "en") -> str:
    """When a weekly schedule next fires after ``now`` (default: the wall clock), as ``Monday
    7 Dec 2026 09:00 Europe/Berlin`` (local; weekday in ``lang``), by the clock's own rule."""
    fire = schedule.next_fire(now or datetime.now(UTC))
    if not fire:
        return "-"
    return f"{day_text(fire, lang)} {fire:%H:%M} {zone_label(schedule.timezone)}"


def _unknown_schedule_part(ctx: Context, text: str) -> Mrkdwn | None:
    """When the leading words name a track, the rest not understood as a schedule; else None."""
    words = text.split()
    for cut in range(len(words) - 1, 0, -1):
        if ctx.find.track(" ".join(words[:cut])):
            rest = " ".join(words[cut:])
            weekly = rest.casefold() in ("daily", "every day", "everyday", "每天", "每日")  # (QA) say why
            return t("sub.weekly_only" if weekly else "sub.bad_part", ctx.lang, value=truncate(rest, 80))
    return None


_DAY_WORDS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "daily", "weekly")
_ZH_WHEN = re.compile(r"[周星期礼拜点号每天日]")
"""Words and characters a mistyped schedule part is near (:func:`_schedule_like`)."""


def _schedule_like(ctx: Context, text: str) -> Mrkdwn | None:
    """The refusal for the words of ``text`` that name no track when they read as a schedule not
    understood (``every day``: digests are weekly; ``fridya``, ``9h``, ``周八``: a digit, near a day's
    name, a Chinese day or time word), else None: such words refuse the whole command rather than
    being said to be no track while the digest goes out on another day (QA)."""
    unknown = [w for w in text.split() if ctx.find.track(w.casefold()) is None]
    if " ".join(unknown).casefold() in ("daily", "every day", "everyday", "每天", "每日"):
        return t("sub.weekly_only", ctx.lang)
    for word in unknown:
        low = word.casefold()
        if any(c.isdigit() for c in low) or closest(low, _DAY_WORDS, 75) or _ZH_WHEN.search(low):
            return t("sub.bad_part", ctx.lang, value=truncate(word, 80))
    return None


def schedule_refusal(cmd: grammar.Command, lang: str) -> Mrkdwn:
    """The reply to a schedule the grammar refused (``cmd.error``): what was wrong, and the right
    form (``cmd.suggestion``) or the zones an abbreviation may mean where the grammar knows."""
    value, form = truncate(cmd.error_value or "", 80), truncate(cmd.suggestion or "", 200)
    choices = Mrkdwn(", ").join(cmd.error_choices)
    return t(cmd.error or "sub.bad_part", lang, value=value, tz=value, form=form, choices=choices)


def with_note(text: Mrkdwn, cmd: grammar.Command, lang: str) -> Mrkdwn:
    """``text`` followed by the grammar's note on how a zone abbreviation was read, if any."""
    return text if cmd.note is None else sentences(lang, text, t(cmd.note, lang))


def sentences(lang: str, *parts: Mrkdwn) -> Mrkdwn:
    """Sentences one after the other: a space between them in English, none in Chinese (after 。)."""
    return Mrkdwn("" if lang == "zh" else " ").join(parts)


def _refused(ctx: Context, cmd: grammar.Command) -> Mrkdwn | str | None:
    """Why ``subscribe`` cannot go ahead (not a channel, bad schedule, steps out of range), else None."""
    if not ctx.caller.channel_id or ctx.caller.channel_id.startswith("D"):
        return t("sub.not_channel", ctx.lang)
    if cmd.error or cmd.schedule is None:
        return schedule_refusal(cmd, ctx.lang)
    if cmd.steps is not None and not MIN_STEPS <= cmd.steps <= MAX_STEPS:
        return t("sub.bad_steps", ctx.lang, n=cmd.steps, min=MIN_STEPS, max=MAX_STEPS)
    return None


def _confirmation(ctx: Context, cmd: grammar.Command, old: Subscription | None, sub: Subscription) -> Mrkdwn:
    """The reply to a subscribe that went through (in the caller's language); a change is announced
    in the channel in the digest's own language (:meth:`~bot.store.Store.digest_lang`)."""
    lang, before = ctx.lang, old.schedule if old else None
    outcome = subscription_change(
        (before, old.status == "active") if old and before else None, (sub.schedule, sub.status == "active")
    )
    budget = channel_budget(ctx, sub.id, cmd, new=old is None)  # issue 24: minutes a week (steps clear them)
    now = ctx.rt.store.get_subscription(sub.id) or sub
    announce = _ANNOUNCE_KEY.get(outcome)
    if outcome == "same" and old is not None and _amount(now) != _amount(old):
        outcome, announce = "updated", "announce.changed"  # the same schedule, another amount
    track, words = views.track_name(ctx.catalog, sub.track_id, lang), views.schedule_words(sub.schedule, lang)
    text = t(_OUTCOME_KEY[outcome], lang, track=track, **words, first=next_fire_label(sub.schedule, lang=lang))
    if channel_minutes(now) is None and now.steps_per_week != 1:
        text = sentences(lang, text, t("sub.steps", lang, n=now.steps_per_week))
    was_club = bool(getattr(old, "club", False))
    club = t("sub.club_on", lang) if cmd.club else t("sub.club_off", lang) if cmd.club is False and was_club else None
    text = sentences(lang, text, *filter(None, (budget, club)))
    club_changed = cmd.club is not None and bool(cmd.club) != was_club
    if announce or club_changed:  # the channel hears of every change of its digest, a club's included
        why = _tell_channel(ctx, _announcement(ctx, cmd, now, announce, club_changed))
        if why in CANNOT_POST and old is None:  # QA round 14: saved, yet the channel never hears
            ctx.rt.store.unsubscribe(sub.team_id, sub.channel_id, sub.track_id)
            raise _CannotPost
    # The digest keeps its own language: a subscribe never changes the person's (only `lang` does).
    return with_note(text, cmd, lang)


class _CannotPost(Exception):
    """The channel refused the announcement of a new digest (the bot is not in it): undone."""


def _tell_channel(ctx: Context, text: Mrkdwn) -> str | None:
    """Post ``text`` in the caller's channel; Slack's refusal (``not_in_channel``…), None when posted
    or nothing to post to. The Slack door's announce returns the refusal; one that returns nothing
    (no Slack: tests, the console) is taken as posted."""
    channel = ctx.caller.channel_id
    if not channel or channel.startswith("D"):
        return None
    return ctx.announce(ctx.caller.team_id, channel, text)


def _invite(ctx: Context, tid: str | None) -> Reply:
    """The reply when the bot cannot post in the channel: nothing set up, invite it, then run the
    command as typed (with its day and time) again."""
    again = " ".join(ctx.typed.replace("`", "").split())[:200] or f"subscribe {tid or ''}".strip()  # (QA)
    return views.text_reply(t("sub.invite", ctx.lang, command=again))


def _announcement(ctx: Context, cmd: grammar.Command, sub: Subscription, key: str | None, club: bool) -> Mrkdwn:
    """The channel's line on a change of ``sub`` (``key``: the change's ``announce.*`` key, if any;
    ``club``: the club was turned on or off), in the digest's language; what the digest does after
    the essential path when this command set it (``then stop``)."""
    lang = ctx.rt.store.digest_lang(sub)
    person, track = ctx.person(ctx.caller.user_id), views.track_name(ctx.catalog, sub.track_id, lang)
    words, amount = views.schedule_words(sub.schedule, lang), views.digest_amount(sub, lang)
    lines = [t(key, lang, person=person, track=track, amount=amount, **words)] if key else []
    after = getattr(sub, "after_essentials", None)
    if key and cmd.after_essentials is not None and after in ("stop", "further"):  # QA: `then stop` went unsaid
        lines.append(t("budget.channel.set_" + after, lang))
    if club:  # said with the change it came with, else on its own line naming the person
        club_key = ("announce.club_on" if cmd.club else "announce.club_off") + ("_too" if key else "")
        lines.append(t(club_key, lang, person=person, track=track))
    return sentences(lang, *lines)


def _amount(sub: Subscription) -> tuple[int, int | None, str | None]:
    """What a digest brings each week: steps, minutes (None: by steps), what comes after the essentials."""
    return sub.steps_per_week, channel_minutes(sub), getattr(sub, "after_essentials", None)


def subscribe(ctx: Context, cmd: grammar.Command) -> Reply:
    """Subscribe this channel to a track's weekly digest: parts left out keep its schedule (resuming
    a paused one), else Monday 09:00 in the person's zone; a change only for who :meth:`Context.may_stop`.
    Several tracks (``subscribe spec pd friday``): each with the same schedule, one line each (what
    was done, or why not), then the words that name no track."""
    caller = ctx.caller
    refused = _refused(ctx, cmd)
    if refused is not None or cmd.schedule is None:
        return views.text_reply(refused or schedule_refusal(cmd, ctx.lang))
    tid = ctx.find.track(cmd.arg)
    several = _several(ctx, cmd) if tid is None else []
    if several and (odd := _schedule_like(ctx, cmd.arg)) is not None:  # `subscribe spec fridya`: refused
        return views.text_reply(odd)
    if (elsewhere := _channel_without_hash(ctx, cmd, several)) is not None:
        return elsewhere
    if tid is None and not several:
        unknown = _unknown_schedule_part(ctx, cmd.arg) or replies.unknown_track(ctx, cmd.arg, "subscribe")
        return views.text_reply(unknown)
    if (bad_budget := budget_refusal(cmd, ctx.lang, channel=True)) is not None:
        return views.text_reply(bad_budget)
    check = ctx.channel_check(caller.team_id, caller.channel_id)
    if check == CHANNEL_INVITE:
        return _invite(ctx, tid)
    if check != CHANNEL_OK:  # not asked (ratelimited, 5xx): nothing stored (QA round 14)
        return views.text_reply(t("sub.check_later", ctx.lang))
    try:
        if several:
            lines = [_subscribe_one(ctx, cmd, x, named=True) for x in several]
            return views.text_reply(Mrkdwn("\n").join(lines) + not_tracks(ctx, cmd))
        assert tid is not None
        return views.text_reply(_subscribe_one(ctx, cmd, tid))
    except _CannotPost:  # the check let it through, the channel refused the announcement
        return _invite(ctx, tid)


def _several(ctx: Context, cmd: grammar.Command) -> list[str]:
    """The tracks ``cmd.arg`` names one word each among other words (``spec pd``, ``spec, pd``, and
    ``spec banana``: one track, the word that is none said after it, as for several; QA), else ``[]``."""
    return several_tracks(ctx, cmd) or []


def _named_refusal(ctx: Context, tid: str, said: Mrkdwn) -> Mrkdwn:
    """``said`` (a refusal that names no track) led by the track's name: one line of several."""
    return t("sub.several_item", ctx.lang, track=views.track_name(ctx.catalog, tid, ctx.lang), said=said)


def _subscribe_one(ctx: Context, cmd: grammar.Command, tid: str, named: bool = False) -> Mrkdwn:
    """Subscribe this channel to ``tid``'s digest as :func:`subscribe` says; the confirmation, or why
    not (led by the track's name when ``named``: one of several)."""
    caller = ctx.caller
    assert cmd.schedule is not None
    old = next((x for x in ctx.rt.store.subscriptions(caller.team_id, caller.channel_id) if x.track_id == tid), None)
    before = old.schedule if old else None
    zone = ctx.timezone() if cmd.schedule.timezone is None and before is None else ""
    wanted = cmd.schedule.resolve(zone, fallback=before)
    steps = cmd.steps or (old.steps_per_week if old else MIN_STEPS)
    budget_change = (
        (cmd.minutes is not None and cmd.minutes != getattr(old, "minutes_per_week", None))
        or (cmd.steps is not None and old is not None and channel_minutes(old) is not None)
        or (cmd.after_essentials is not None and cmd.after_essentials != getattr(old, "after_essentials", None))
        or (cmd.club is not None and cmd.club != getattr(old, "club", False))
    )
    if (
        old is not None
        and (wanted != before or steps != old.steps_per_week or budget_change)
        and not ctx.may_stop(old.created_by)
    ):  # changing a digest is as much the owner's as stopping it
        key = "sub.change_not_allowed" if wanted != before else "sub.change_it_not_allowed"  # a budget, club…
        said = t(key, ctx.lang, person=ctx.person(old.created_by or ""))
        return _named_refusal(ctx, tid, said) if named else said
    sub = ctx.rt.store.subscribe(
        caller.team_id,
        caller.channel_id,
        tid,
        wanted,
        steps_per_week=steps,
        created_by=caller.user_id,
        club=cmd.club,
        lang=ctx.lang,  # a new digest keeps the language it was set up in (an existing one keeps its own)
    )
    return _confirmation(ctx, cmd, old, sub)


def unsubscribe(ctx: Context, cmd: grammar.Command) -> Reply:
    """Remove the channel's digest of ``cmd.arg``'s track (if :meth:`Context.may_stop`); no track: list
    them; several (``unsubscribe spec pd``): each, one line each, then the words that name no track."""
    team, channel = ctx.caller.team_id, ctx.caller.channel_id
    if not cmd.arg.strip():
        return _subscriptions(ctx, ctx.rt.store.subscriptions(team, channel) if channel else [])
    if cmd.arg.casefold().strip() in ALL_WORDS:  # QA: one digest at a time, each its owner's: say how
        return views.text_reply(_unsubscribe_all(ctx))
    tid = ctx.find.track(cmd.arg)
    if tid is None and (several := _several(ctx, cmd)):
        lines = [_unsubscribe_one(ctx, x, named=True) for x in several]
        return views.text_reply(Mrkdwn("\n").join(lines) + not_tracks(ctx, cmd))
    if tid is None:
        return views.text_reply(replies.unknown_track(ctx, cmd.arg, "unsubscribe"))
    return views.text_reply(_unsubscribe_one(ctx, tid))


def _unsubscribe_one(ctx: Context, tid: str, named: bool = False) -> Mrkdwn:
    """Remove this channel's digest of ``tid`` as :func:`unsubscribe` says; what was done, or why
    not (led by the track's name when ``named``: one of several); no digest of it here while the
    caller follows it: ``unfollow <track>`` named too."""
    team, channel = ctx.caller.team_id, ctx.caller.channel_id
    name = views.track_name(ctx.catalog, tid, ctx.lang)
    current = next((x for x in ctx.rt.store.subscriptions(team, channel) if x.track_id == tid), None)
    if current is not None and not ctx.may_stop(current.created_by):
        said = t("sub.not_allowed", ctx.lang, person=ctx.person(current.created_by or ""))
        return _named_refusal(ctx, tid, said) if named else said
    removed = ctx.rt.store.unsubscribe(team, channel, tid)
    if removed and current is not None:  # said in the digest's language
        said_in = ctx.rt.store.digest_lang(current)
        said_name = views.track_name(ctx.catalog, tid, said_in)
        ctx.tell_channel(t("announce.unsub", said_in, person=ctx.person(ctx.caller.user_id), track=said_name))
    said = t("unsub.done" if removed else "unsub.not", ctx.lang, track=name)
    if not removed and current is None and tid in ctx.reader.follows():  # QA round 21: following is what they meant
        return sentences(ctx.lang, said, t("unsub.not_but_followed", ctx.lang, track_id=tid))
    return said


def _unsubscribe_all(ctx: Context) -> Mrkdwn:
    """``unsubscribe all``: nothing stopped (one digest at a time, each its owner's to stop); the
    command for each of this channel's digests (said plainly when the caller may stop each), or
    that it has none."""
    channel = ctx.caller.channel_id
    subs = ctx.rt.store.subscriptions(ctx.caller.team_id, channel) if channel and not channel.startswith("D") else []
    if not subs:
        return t("unsub.all_none", ctx.lang)
    commands = join_list([Mrkdwn("`/vllm-path unsubscribe {}`").format(x.track_id) for x in subs], ctx.lang)
    if all(ctx.may_stop(x.created_by) for x in subs):  # all the caller's to stop: no refusal (QA)
        return t("unsub.all_yours", ctx.lang, commands=commands)
    return t("unsub.all", ctx.lang, commands=commands)


def list_subscriptions(ctx: Context, cmd: grammar.Command) -> Reply:
    """The channel's subscriptions; a pause reason ``stopped by U0123`` names the person (:meth:`Context.person`)."""
    subs = [
        replace(x, pause_reason=_named(ctx, x.pause_reason)) if x.pause_reason else x
        for x in ctx.rt.store.subscriptions(ctx.caller.team_id, ctx.caller.channel_id)
    ]
    return _subscriptions(ctx, subs)


def _subscriptions(ctx: Context, subs: list[Subscription]) -> Reply:
    """The channel's digests with a hint the caller may follow: how to stop or move one of theirs
    (:meth:`Context.may_stop`), else who may (the first digest's creator, or an admin); with several
    digests, who set up each (:meth:`Context.person`, one line each)."""
    mine = [x.track_id for x in subs if ctx.may_stop(x.created_by)]
    owner = ctx.person(subs[0].created_by or "") if subs and not mine else None
    owners = [ctx.person(x.created_by or "") for x in subs] if len(subs) > 1 else None  # QA round 19: each its own
    in_dm = (ctx.caller.channel_id or "D").startswith("D")
    return views.subscriptions_reply(ctx.catalog, subs, ctx.lang, mine=mine, owner=owner, in_dm=in_dm, owners=owners)


_BY_USER = re.compile(r"^((?:stopped|snoozed) by )([UW][A-Z0-9]{2,})$")
"""A pause reason naming a person by Slack user id (``bot.slack.commands.digest_actions``)."""


def _named(ctx: Context, reason: str) -> str:
    """``reason`` with a trailing user id replaced by the person's name."""
    m = _BY_USER.match(reason)
    return m.group(1) + ctx.person(m.group(2)) if m else reason


def dm_schedule(ctx: Context, parts: ScheduleParts | None = None) -> WeeklySchedule:
    """``dm on``'s schedule: ``parts`` left out are the last DM's (even if off), else Monday 09:00 in their zone."""
    last = ctx.rt.store.get_dm(ctx.caller.team_id, ctx.caller.user_id)  # kept while the DM is off
    before = WeeklySchedule(weekday=last.weekday, at_time=last.at_time, timezone=last.timezone) if last else None
    return (parts or ScheduleParts()).resolve(ctx.timezone(), fallback=before)


def dm(ctx: Context, cmd: grammar.Command) -> Reply:
    """Turn the DM digest on (parts left out: as :func:`dm_schedule` says) or off, or its catch-up line."""
    store, lang, caller = ctx.rt.store, ctx.lang, ctx.caller
    if cmd.catchup is not None:  # on while the DM itself is off: say so (QA)
        store.set_dm_catchup(caller.team_id, caller.user_id, cmd.catchup)
        said = t("dm.catchup_on" if cmd.catchup else "dm.catchup_off", lang)
        was = store.get_dm(caller.team_id, caller.user_id)
        off = cmd.catchup and (was is None or not was.enabled)
        return views.text_reply(sentences(lang, said, t("dm.catchup_dm_off", lang)) if off else said)
    if cmd.error in ("dm.extra", "dm.pause_length"):  # nothing changed (QA: `dm off 2 weeks` dropped them)
        return views.text_reply(t(cmd.error, lang, value=truncate(cmd.error_value or "", 100)))
    if cmd.enabled is None and cmd.arg in ("pause", PAUSE_TWO_WEEKS):
        return _pause_dm(ctx, two_weeks=cmd.arg == PAUSE_TWO_WEEKS)
    if cmd.enabled is None and cmd.arg == "resume":
        return _resume_dm(ctx)
    if cmd.enabled is None:  # `dm` alone: where it stands (QA), then how to change it
        now = store.get_dm(caller.team_id, caller.user_id)
        status = views.dm_status(now, lang) or t("dm.now_off", lang)
        catchup = t("dm.catchup_on" if now is not None and now.catchup else "dm.catchup_off", lang)
        return views.text_reply(sentences(lang, status, catchup, t("dm.usage", lang)))
    if cmd.enabled is False:  # a second `dm off` says it was off already (QA)
        was = store.get_dm(caller.team_id, caller.user_id)
        store.set_dm(caller.team_id, caller.user_id, False)
        return views.text_reply(t("dm.off" if was is not None and was.enabled else "dm.already_off", lang))
    if cmd.error or cmd.schedule is None:
        if cmd.error == "dm.unknown_part":
            return views.text_reply(t(cmd.error, lang, value=truncate(cmd.error_value or "", 100)))
        return views.text_reply(schedule_refusal(cmd, lang))
    if (bad_budget := budget_refusal(cmd, lang)) is not None:  # refused whole, as subscribe does
        return views.text_reply(bad_budget)
    when = dm_schedule(ctx, cmd.schedule)
    was = store.get_dm(caller.team_id, caller.user_id)
    store.set_dm(caller.team_id, caller.user_id, True, schedule=when, lang=lang)  # the DM's language (QA)
    text = with_note(t("dm.on", lang, **views.schedule_words(when, lang)), cmd, lang)
    switched = None  # QA: an English `dm on` after `私信 开` changed the DM's language unsaid
    if was is not None and was.lang in LANGS and was.lang != lang and ctx.reader.chosen_lang not in LANGS:
        switched = t("dm.lang_switched", lang, language=language_name(lang, lang), before=language_name(was.lang, lang))
    no_follows = None if ctx.reader.follows() else t("dm.no_follows", lang)
    extra = (dm_budget(ctx, cmd), no_follows, switched or ctx.later_language())
    return views.text_reply(sentences(lang, text, *filter(None, extra)))


def _pause_dm(ctx: Context, two_weeks: bool = False) -> Reply:
    """``dm pause`` / ``pause dm``: the weekly DM skips a week, as its *Snooze a week* button does
    (:func:`~bot.slack.commands.digest_actions.handle_digest_action`); ``two_weeks`` (``dm pause 2
    weeks``, ``暂停两周``): as the catch-up DM's *Pause two weeks* (:func:`pause_two_weeks`; QA round
    20); a DM that is off: nothing to pause; one paused already as long or longer: until when (QA: a
    second ``dm pause`` repeated "Paused: …")."""
    store = ctx.rt.store
    now = store.get_dm(ctx.caller.team_id, ctx.caller.user_id)
    if now is None or not now.enabled:
        return views.text_reply(t("dm.pause_off", ctx.lang))
    resumes = views.dm_resumes(now, store.now())
    if resumes is not None and (not two_weeks or resumes >= store.now() + PAUSE_TWO_WEEKS_FOR):
        return views.text_reply(t("dm.pause_already", ctx.lang, **views.day_words(resumes, ctx.lang)))
    if two_weeks:
        pause_two_weeks(ctx)
        after = store.get_dm(ctx.caller.team_id, ctx.caller.user_id)
        fire = views.dm_resumes(after, store.now()) if after is not None else None
        words = views.day_words(fire, ctx.lang) if fire is not None else {"weekday": "", "date": ""}
        return views.text_reply(t("dm.paused_two_weeks", ctx.lang, **words))
    return handle_digest_action(ctx.rt, ctx.caller, "snooze", {"v": DIGEST_DM_VIEW}, ctx.lang)


PAUSE_TWO_WEEKS_FOR = NUDGE_EVERY - timedelta(minutes=1)
"""How long *Pause two weeks* and ``dm pause 2 weeks`` pause: a fortnight less a minute (the next
nudge may come once it is over)."""


def pause_two_weeks(ctx: Context) -> datetime:
    """The caller's plan paused (those weeks never break a streak) and their weekly DM snoozed for
    :data:`PAUSE_TWO_WEEKS_FOR` from the store's now; returns when both end (aware UTC)."""
    store, team, user = ctx.rt.store, ctx.caller.team_id, ctx.caller.user_id
    until: datetime = store.now() + PAUSE_TWO_WEEKS_FOR
    store.pause_plan(team, user, until)
    store.snooze_dm(team, user, until)
    return until


def _resume_dm(ctx: Context) -> Reply:
    """``dm resume`` / ``dm unpause`` / ``dm unsnooze`` / ``私信 恢复``: a snooze (``dm pause``, the DM's
    *Snooze a week*, the nudge's *Pause two weeks*) ended now; the reply names the next DM's day."""
    store, team, user, lang = ctx.rt.store, ctx.caller.team_id, ctx.caller.user_id, ctx.lang
    now = store.get_dm(team, user)
    if now is None or not now.enabled:
        return views.text_reply(t("dm.resume_off", lang))
    if views.dm_resumes(now, store.now()) is None:
        return views.text_reply(t("dm.resume_none", lang))
    store.snooze_dm(team, user, None)
    fire = now.schedule.next_fire(store.now())
    assert fire is not None  # a weekly schedule always fires again
    return views.text_reply(t("dm.resumed", lang, **views.day_words(fire, lang)))


_TO_CHANNEL = re.compile(r"(?:^|\s)(?:to|into)\s+(?:the\s+)?(?P<name>[a-z][a-z0-9._-]*)$", re.IGNORECASE)
"""``… to general`` at the end of a subscribe's words: a channel named without its ``#``."""


def _channel_without_hash(ctx: Context, cmd: grammar.Command, several: list[str]) -> Reply | None:
    """The refusal of ``subscribe spec to general`` (QA round 9: it set up the current channel and
    said "“to general” is not a track"), as for ``subscribe spec to #general``; None when the words
    after ``to`` name a track or the channel typed in."""
    found = _TO_CHANNEL.search(cmd.arg) if several else None
    if found is None or ctx.find.track(found["name"].casefold()) is not None:
        return None
    if found["name"].casefold() == ctx.caller.channel_name.casefold():
        return None
    here = truncate(f"subscribe {cmd.arg[: found.start()].strip()}", 200)
    return views.text_reply(t("elsewhere.channel", ctx.lang, channel=esc("#" + found["name"]), command=here))


_PAUSE_A_WEEK = frozenset({"暂停一周"})
"""``pause a week`` as :data:`~bot.slack.grammar_phrases.SNOOZE` reads it (the one length the
grammar does not send to ``dm pause``: it also names a channel digest's *Snooze a week* button)."""


def snooze_or_pause(ctx: Context, cmd: grammar.Command) -> Reply:
    """``snooze …`` / ``暂停一周`` (the typed words in ``cmd.query``): ``暂停一周`` from someone whose
    weekly DM is on, where no channel digest is (a DM, a channel without one), is ``dm pause``: the
    DM skips a week (QA round 21: it only named the digest's button and the DM kept coming); else
    :func:`~bot.slack.commands.settings.snooze_what` (the button, a length refused, ``unsnooze``)."""
    if (cmd.query or "").strip() in _PAUSE_A_WEEK:
        store, team, channel = ctx.rt.store, ctx.caller.team_id, ctx.caller.channel_id
        now = store.get_dm(team, ctx.caller.user_id)
        digests = store.subscriptions(team, channel) if channel and not channel.startswith("D") else []
        if now is not None and now.enabled and not digests:
            return _pause_dm(ctx)
    return snooze_what(ctx, cmd)
