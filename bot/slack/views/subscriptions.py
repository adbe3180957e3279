"""Channel subscriptions as the replies show them (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot.domain.budget import weeks_to_finish
from bot.domain.catalog import Catalog
from bot.domain.plan import channel_minutes
from bot.domain.schedule import WeeklySchedule, zone_label
from bot.slack.i18n import day_text, t, weekday_name
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views.blocks import Json, Reply, context, header, make_reply, section, sections
from bot.store.snapshots import Subscription


def dm_status(dm: Any, lang: str, now: datetime | None = None) -> Mrkdwn | None:
    """A reader's weekly DM (a :class:`bot.store.snapshots.DmSettings` or None) as said to them:
    its schedule, why it is paused, and until when it is snoozed (``dm pause``, *Snooze a week*,
    the nudge's *Pause two weeks*: ``snoozed_until`` after ``now``, aware, default the clock's now);
    None when it is off."""
    if dm is None or not getattr(dm, "enabled", False):
        return None
    status = t("dm.on", lang, **schedule_words(dm.schedule, lang))
    if getattr(dm, "status", "active") != "active":
        status += "\n" + t("dm.paused", lang, reason=dm.pause_reason or "")
    if (resumes := dm_resumes(dm, now)) is not None:
        status += "\n" + t("dm.snoozed", lang, **day_words(resumes, lang))
    return status


def dm_resumes(dm: Any, now: datetime | None = None) -> datetime | None:
    """When a snoozed weekly DM (a :class:`bot.store.snapshots.DmSettings`) next goes out: its first
    scheduled time not before ``snoozed_until`` (aware, the DM's zone); None when not snoozed at
    ``now`` (aware; default the clock's now). The sender skips every time before ``snoozed_until``."""
    until = getattr(dm, "snoozed_until", None)
    if until is None or until <= (now or datetime.now(UTC)):
        return None
    fire: datetime | None = dm.schedule.next_fire(until - timedelta(microseconds=1))
    return fire


def dm_skipped(dm: Any, now: datetime | None = None) -> datetime | None:
    """The first weekly DM a snooze skips (the DM's next scheduled time after ``now``, aware,
    default the clock's now, when it falls before ``snoozed_until``), else None."""
    until = getattr(dm, "snoozed_until", None)
    fire = dm.schedule.next_fire(now or datetime.now(UTC))
    return fire if until is not None and fire is not None and fire < until else None


def day_words(when: datetime, lang: str) -> dict[str, str]:
    """A day as the strings' ``{weekday}`` and ``{date}`` (:func:`day_text` without the weekday,
    ``7 Dec 2026`` / ``2026年12月7日``) in ``lang``, in ``when``'s zone."""
    return {"weekday": weekday_name(when.weekday(), lang), "date": day_text(when, lang, weekday=False)}


def dm_paused_text(dm: Any, lang: str, now: datetime | None = None) -> Mrkdwn:
    """The answer to ``dm pause`` and to the weekly DM's *Snooze a week* (``dm``: the snoozed
    :class:`bot.store.snapshots.DmSettings`): the DM skipped and the day the next one comes, dates
    only, in the DM's time zone; how to undo it."""
    resumes = dm_resumes(dm, now)
    skipped = dm_skipped(dm, now)
    if resumes is None:  # not snoozed after all (a snooze in the past): where the DM stands
        return dm_status(dm, lang, now) or t("dm.now_off", lang)
    if skipped is None:
        return t("dm.snoozed_reply_next", lang, **day_words(resumes, lang))
    skip = day_words(skipped.astimezone(ZoneInfo(dm.timezone)), lang)
    # the next DM's day with its weekday too, as the skipped one (QA: one date format in a sentence)
    return t("dm.snoozed_reply", lang, skipped=skip["date"], weekday=skip["weekday"], next=day_text(resumes, lang))


def schedule_words(schedule: WeeklySchedule, lang: str) -> dict[str, str]:
    """A schedule as the strings' ``{weekday}`` (in ``lang``), ``{time}`` (``HH:MM`` local) and ``{tz}``."""
    return {
        "weekday": weekday_name(schedule.weekday, lang),
        "time": schedule.at_time,
        "tz": zone_label(schedule.timezone),
    }


def digest_amount(sub: Subscription, lang: str) -> str:
    """What a channel digest brings each week, as a phrase: its minutes when planned by minutes, else its steps."""
    minutes, n = channel_minutes(sub), sub.steps_per_week
    if minutes:
        return t("sub.amount_min", lang, n=minutes)
    return t("sub.amount_steps" if n != 1 else "sub.amount_step", lang, n=n)


def subscription_line(catalog: Catalog, sub: Subscription, lang: str) -> Mrkdwn:
    """One line describing a channel subscription (schedule, progress, "reading club" when it is
    one, pause reason)."""
    name = catalog.track(sub.track_id).names.get(lang) if catalog.has_track(sub.track_id) else sub.track_id
    total = len(catalog.order(sub.track_id)) if catalog.has_track(sub.track_id) else 0
    progress = t("subs.progress", lang, sent=min(sub.cursor, total), total=total)
    n, minutes = sub.steps_per_week, channel_minutes(sub)
    words = {"track": name, **schedule_words(sub.schedule, lang), "progress": progress}
    if minutes:  # planned by minutes (issue 24): the steps count is not what it sends
        lengths = [catalog.post(p).minutes for p in catalog.essentials(sub.track_id)] if total else []
        weeks = weeks_to_finish(lengths, minutes) if lengths else 0
        weeks_words = t("pace.weeks.one" if weeks == 1 else "pace.weeks.other", lang, n=weeks)
        line = t("subs.line_minutes", lang, minutes=minutes, weeks=weeks_words, **words)
        if getattr(sub, "after_essentials", None) == "stop":
            line += t("subs.then_stop", lang)
    else:
        line = t("subs.line", lang, n=n, steps=f"{n} step" + ("s" if n != 1 else ""), **words)
    if getattr(sub, "club", False):  # QA: the list did not say which digests are reading clubs
        line += t("subs.club", lang)
    if sub.status != "active":
        line += "\n" + t("subs.paused", lang, reason=sub.pause_reason or "paused", track_id=sub.track_id)
    return line


def subscriptions_reply(
    catalog: Catalog,
    subs: Iterable[Subscription],
    lang: str,
    *,
    mine: Sequence[str] | None = None,
    owner: str | None = None,
    in_dm: bool = False,
    owners: Sequence[str] | None = None,
) -> Reply:
    """The digests of a channel, and how to stop or move one (named with the first's track).
    ``mine``: track ids of the digests the caller may stop or change (``None``: every one); when it
    is empty the hint says who may instead (``owner``, the first digest's creator's name, and
    workspace admins; QA: a reader was shown "Stop one: …" that they were not allowed to do).
    ``in_dm``: asked in a DM, which has no digests: it says digests are set up in a channel (QA: it
    suggested a ``subscribe`` that a DM refuses). ``owners``: the name of who set up each of ``subs``
    (same order); with several digests each line says who set it up, and the hint for one who may
    stop none says "who set each up" (QA round 19: one person was named for all)."""
    subs = list(subs)
    blocks: list[Json] = [header(t("subs.header", lang))]
    if not subs:
        none = t("subs.none_dm" if in_dm else "subs.none", lang)
        blocks.append(section(none))
        return make_reply(blocks, none)
    lines = [subscription_line(catalog, s, lang) for s in subs]
    several = owners is not None and len(owners) == len(subs) > 1
    if owners is not None and several:
        lines = [line + t("subs.set_by", lang, person=who) for line, who in zip(lines, owners, strict=True)]
    blocks.extend(sections(lines)[:40])
    if mine is None or mine:
        blocks.append(context(t("subs.hint", lang, track=mine[0] if mine else subs[0].track_id)))
    elif several:
        blocks.append(context(t("subs.hint_others_each", lang)))
    else:
        blocks.append(context(t("subs.hint_others", lang, person=owner or t("name.someone", lang))))
    return make_reply(blocks, Mrkdwn("\n").join(lines))
