"""``dm on [weekday] [HH:MM] [zone]`` / ``dm off``: the caller's weekly DM digest."""

from __future__ import annotations

from bot.domain.schedule import ScheduleParts, WeeklySchedule
from bot.slack import grammar
from bot.slack.commands.context import Context
from bot.slack.commands.plan import dm_budget
from bot.slack.commands.subscribe import schedule_refusal, sentences, with_note
from bot.slack.i18n import t
from bot.slack.mrkdwn import truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


def dm_schedule(ctx: Context, parts: ScheduleParts | None = None) -> WeeklySchedule:
    """The DM schedule for ``dm on`` with the ``parts`` typed: parts left out keep the caller's
    last DM schedule (even when the DM is off), else Monday 09:00 in :meth:`Context.timezone`."""
    last = ctx.rt.store.get_dm(ctx.caller.team_id, ctx.caller.user_id)  # kept while the DM is off
    before = WeeklySchedule(weekday=last.weekday, at_time=last.at_time, timezone=last.timezone) if last else None
    return (parts or ScheduleParts()).resolve(ctx.timezone(), fallback=before)


def dm(ctx: Context, cmd: grammar.Command) -> Reply:
    """Turn the DM digest on (parts left out: as :func:`dm_schedule` says) or off."""
    store, lang, caller = ctx.rt.store, ctx.lang, ctx.caller
    if cmd.enabled is None:
        return views.text_reply(t("dm.usage", lang))
    if cmd.enabled is False:
        store.set_dm(caller.team_id, caller.user_id, False)
        return views.text_reply(t("dm.off", lang))
    if cmd.error or cmd.schedule is None:
        if cmd.error == "dm.unknown_part":
            return views.text_reply(t(cmd.error, lang, value=truncate(cmd.error_value or "", 100)))
        return views.text_reply(schedule_refusal(cmd, lang))
    when = dm_schedule(ctx, cmd.schedule)
    store.set_dm(caller.team_id, caller.user_id, True, schedule=when)
    text = with_note(t("dm.on", lang, **views.schedule_words(when, lang)), cmd, lang)
    extra = (dm_budget(ctx, cmd), None if ctx.reader.follows() else t("dm.no_follows", lang), ctx.keep_language())
    return views.text_reply(sentences(lang, text, *filter(None, extra)))
