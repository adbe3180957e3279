"""``dm on [weekday] [HH:MM] [zone]`` / ``dm off``: the caller's weekly DM digest."""

from __future__ import annotations

from bot.slack import grammar
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.commands.subscribe import schedule_refusal, with_note
from bot.slack.i18n import t
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
    if cmd.error or cmd.schedule is None:
        if cmd.error == "dm.unknown_part":
            return views.text_reply(t(cmd.error, lang, value=truncate(cmd.error_value or "", 100)))
        return views.text_reply(schedule_refusal(cmd, lang))
    zone = "" if cmd.schedule.timezone else (s.timezone(None)[0] or s.rt.settings.default_timezone)
    when = cmd.schedule.resolve(zone)
    store.set_dm(caller.team_id, caller.user_id, True, schedule=when)
    text = t("dm.on", lang, **views.schedule_words(when, lang))
    return views.text_reply(with_note(text, cmd, lang))
