"""``subscribe <track> [weekday] [HH:MM] [zone] [N steps]`` and ``unsubscribe [track]`` in a channel."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.domain.schedule import WeeklySchedule, subscription_change, zone_label
from bot.slack import grammar
from bot.slack.commands.plan import channel_budget
from bot.slack.commands.registry import command
from bot.slack.commands.session import CHANNEL_OK, Session
from bot.slack.i18n import t, weekday_name
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply

MIN_STEPS, MAX_STEPS = 1, 3
"""Steps a channel digest may send each week (the store's check constraint)."""

_OUTCOME_KEY = {"new": "sub.done", "same": "sub.already", "resumed": "sub.resumed",
                "updated": "sub.updated"}
_ANNOUNCE_KEY = {"new": "announce.new", "resumed": "announce.resumed", "updated": "announce.updated"}
"""The channel's one line for each change of its digest (a "same" subscribe changes nothing)."""


def next_fire_label(schedule: WeeklySchedule, now: datetime | None = None, lang: str = "en") -> str:
    """When a weekly schedule next fires, as ``Monday 2026-12-07 09:00 Europe/Berlin`` (local
    time; the weekday in ``lang``): the clock's own :meth:`WeeklySchedule.next_fire`, so the
    reply and the scheduler never disagree. ``now`` defaults to the wall clock (UTC)."""
    fire = schedule.next_fire(now or datetime.now(UTC))
    if not fire:
        return "-"
    return f"{weekday_name(fire.weekday(), lang)} {fire:%Y-%m-%d %H:%M} {zone_label(schedule.timezone)}"


def _unknown_schedule_part(s: Session, text: str) -> Mrkdwn | None:
    """When the leading words name a track and the rest is not a schedule, say which words
    were not understood (instead of blaming the track)."""
    words = text.split()
    for cut in range(len(words) - 1, 0, -1):
        if s.resolve_track(" ".join(words[:cut])):
            return t("sub.bad_part", s.lang, value=truncate(" ".join(words[cut:]), 80))
    return None


def schedule_refusal(cmd: grammar.Command, lang: str) -> Mrkdwn:
    """The reply to a schedule the grammar refused (``cmd.error``): what was wrong and, where
    the grammar could tell, the command written the right way (``cmd.suggestion``) or the zones
    an ambiguous abbreviation may mean (``cmd.error_choices``)."""
    value = truncate(cmd.error_value or "", 80)
    return t(cmd.error or "sub.bad_part", lang, value=value, tz=value,
             form=truncate(cmd.suggestion or "", 200),
             choices=Mrkdwn(", ").join(cmd.error_choices))


def with_note(text: Mrkdwn, cmd: grammar.Command, lang: str) -> Mrkdwn:
    """``text`` followed by the grammar's note on how a zone abbreviation was read, if any."""
    return text if cmd.note is None else sentences(lang, text, t(cmd.note, lang))


def sentences(lang: str, *parts: Mrkdwn) -> Mrkdwn:
    """Sentences one after the other: a space between them in English, none in Chinese (a
    Chinese sentence ends with a full-width 。)."""
    return Mrkdwn("" if lang == "zh" else " ").join(parts)


@command("subscribe")
def subscribe(s: Session, cmd: grammar.Command) -> Reply:
    """Subscribe this channel to a track's weekly digest. Parts left out keep the channel's
    current schedule (so re-subscribing resumes a paused digest without moving it), else the
    defaults (:class:`WeeklySchedule`: Monday 09:00) and the person's Slack time zone. Changing
    an existing digest's schedule or steps is for those who may stop it (:meth:`Session.may_stop`)."""
    cat, lang, caller = s.rt.holder.catalog, s.lang, s.caller
    if not caller.channel_id or caller.channel_id.startswith("D"):
        return views.text_reply(t("sub.not_channel", lang))
    if cmd.error or cmd.schedule is None:
        return views.text_reply(schedule_refusal(cmd, lang))
    if cmd.steps is not None and not MIN_STEPS <= cmd.steps <= MAX_STEPS:
        return views.text_reply(t("sub.bad_steps", lang, n=cmd.steps, min=MIN_STEPS, max=MAX_STEPS))
    tid = s.resolve_track(cmd.arg)
    if tid is None:
        return views.text_reply(_unknown_schedule_part(s, cmd.arg) or s.unknown_track(cmd.arg, "subscribe"))
    if s.channel_check(caller.team_id, caller.channel_id) != CHANNEL_OK:
        return views.text_reply(t("sub.invite", lang, track_id=tid))
    existing = {x.track_id: x for x in s.rt.store.subscriptions(caller.team_id, caller.channel_id)}
    old = existing.get(tid)
    before = old.schedule if old else None
    zone = ""
    if cmd.schedule.timezone is None and before is None:
        zone = s.timezone(None)[0] or s.rt.settings.default_timezone
    wanted = cmd.schedule.resolve(zone, fallback=before)
    steps = cmd.steps or (old.steps_per_week if old else MIN_STEPS)
    if old is not None and (wanted != before or steps != old.steps_per_week) \
            and not s.may_stop(old.created_by):  # moving a digest is as much the owner's as stopping it
        return views.text_reply(t("sub.change_not_allowed", lang, person=s.person(old.created_by or "")))
    sub = s.rt.store.subscribe(caller.team_id, caller.channel_id, tid, wanted,
                               steps_per_week=steps, created_by=caller.user_id)
    outcome = subscription_change((before, old.status == "active") if old and before else None,
                                  (sub.schedule, sub.status == "active"))
    if outcome == "same" and old is not None and old.steps_per_week != sub.steps_per_week:
        outcome = "updated"
    first = next_fire_label(wanted, lang=lang)
    track = views.track_name(cat, tid, lang)
    text = t(_OUTCOME_KEY[outcome], lang, track=track, **views.schedule_words(wanted, lang), first=first)
    if sub.steps_per_week != 1:
        text = sentences(lang, text, t("sub.steps", lang, n=sub.steps_per_week))
    text = sentences(lang, text, *filter(None, (channel_budget(s, sub.id, cmd),)))  # issue 24: minutes a week
    if outcome in _ANNOUNCE_KEY:
        s.tell_channel(t(_ANNOUNCE_KEY[outcome], lang, person=s.person(caller.user_id), track=track,
                         **views.schedule_words(wanted, lang)))
    kept = s.keep_language() if outcome != "same" else None  # a subscribe that changes nothing keeps nothing
    text = with_note(text, cmd, lang)
    return views.text_reply(sentences(lang, text, kept) if kept else text)


@command("unsubscribe")
def unsubscribe(s: Session, cmd: grammar.Command) -> Reply:
    """Remove this channel's subscription to the track ``cmd.arg`` names: allowed to the person
    who set it up and to workspace admins (:meth:`Session.may_stop`); others are told who may.
    With no track, list this channel's subscriptions (the ones there are to remove)."""
    if not cmd.arg.strip():
        subs = s.rt.store.subscriptions(s.caller.team_id, s.caller.channel_id) if s.caller.channel_id else []
        return views.subscriptions_reply(s.rt.holder.catalog, subs, s.lang)
    tid = s.resolve_track(cmd.arg)
    if tid is None:
        return views.text_reply(s.unknown_track(cmd.arg, "unsubscribe"))
    name = views.track_name(s.rt.holder.catalog, tid, s.lang)
    current = next((x for x in s.rt.store.subscriptions(s.caller.team_id, s.caller.channel_id)
                    if x.track_id == tid), None)
    if current is not None and not s.may_stop(current.created_by):
        return views.text_reply(t("sub.not_allowed", s.lang, person=s.person(current.created_by or "")))
    removed = s.rt.store.unsubscribe(s.caller.team_id, s.caller.channel_id, tid)
    if removed:
        s.tell_channel(t("announce.unsub", s.lang, person=s.person(s.caller.user_id), track=name))
    return views.text_reply(t("unsub.done" if removed else "unsub.not", s.lang, track=name))
