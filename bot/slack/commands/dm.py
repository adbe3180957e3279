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


def dm_schedule(s: Session, weekday: int | None, at_time: str | None, typed_zone: str | None
                ) -> tuple[WeeklySchedule | None, str | None]:
    """The DM schedule for ``dm on`` with the parts typed: parts left out keep the caller's last
    DM schedule (even when the DM is off), else Monday 09:00 in their Slack zone. Returns
    ``(schedule, None)`` or ``(None, the zone that was not understood)``."""
    last = s.rt.store.get_dm(s.caller.team_id, s.caller.user_id)
    before = WeeklySchedule(weekday=last.weekday, at_time=last.at_time, timezone=last.timezone) \
        if last is not None else None
    if typed_zone is None and before is not None:
        tz: str | None = before.timezone
        bad = None
    else:
        tz, bad = s.timezone(typed_zone)
    if tz is None:
        return None, bad
    return WeeklySchedule.of(weekday, at_time, tz, fallback=before), None


@command("dm")
def dm(s: Session, cmd: grammar.Command) -> Reply:
    """Turn the DM digest on (parts left out: the last DM schedule, else Monday 09:00 and the
    person's Slack zone) or off."""
    store, lang, caller = s.rt.store, s.lang, s.caller
    if cmd.enabled is None:
        return views.text_reply(t("dm.usage", lang))
    if cmd.enabled is False:
        store.set_dm(caller.team_id, caller.user_id, False)
        return views.text_reply(t("dm.off", lang))
    if cmd.error:
        return views.text_reply(t(cmd.error, lang, value=truncate(cmd.error_value or "", 100)))
    when, bad = dm_schedule(s, cmd.weekday, cmd.at_time, cmd.timezone)
    if when is None:
        return views.text_reply(t("sub.bad_tz", lang, tz=truncate(bad or "", 60)))
    store.set_dm(caller.team_id, caller.user_id, True, weekday=when.weekday, at_time=when.at_time,
                 timezone=when.timezone)
    return views.text_reply(t("dm.on", lang, weekday=weekday_name(when.weekday, lang),
                              time=when.at_time, tz=when.timezone))
