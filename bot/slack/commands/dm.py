"""``dm on [weekday] [HH:MM] [zone]`` / ``dm off``: the caller's weekly DM digest."""

from __future__ import annotations

from bot.digest.weekly import WeeklySchedule
from bot.slack import grammar
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.i18n import t, weekday_name
from bot.slack.mrkdwn import truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


@command("dm")
def dm(s: Session, cmd: grammar.Command) -> Reply:
    """Turn the DM digest on (parts left out: Monday 09:00 and the person's Slack zone) or off."""
    store, lang, caller = s.rt.store, s.lang, s.caller
    if cmd.enabled is None:
        return views.text_reply(t("dm.usage", lang))
    if cmd.enabled is False:
        store.set_dm(caller.team_id, caller.user_id, False)
        return views.text_reply(t("dm.off", lang))
    if cmd.error:
        return views.text_reply(t(cmd.error, lang, value=truncate(cmd.error_value or "", 100)))
    tz, bad = s.timezone(cmd.timezone)
    if tz is None:
        return views.text_reply(t("sub.bad_tz", lang, tz=truncate(bad or "", 60)))
    when = WeeklySchedule.of(cmd.weekday, cmd.at_time, tz)
    store.set_dm(caller.team_id, caller.user_id, True, weekday=when.weekday, at_time=when.at_time,
                 timezone=when.timezone)
    return views.text_reply(t("dm.on", lang, weekday=weekday_name(when.weekday, lang),
                              time=when.at_time, tz=when.timezone))
