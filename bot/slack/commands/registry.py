"""The table of use cases: command kind -> function, button kind -> function. One literal
mapping each, read top to bottom; a use case module registers nothing on import."""

from __future__ import annotations

from collections.abc import Callable

from bot.slack import grammar
from bot.slack.commands import buttons, help, plan, progress, query, remind, settings, stats, subscribe
from bot.slack.commands.context import ButtonValue, Context
from bot.slack.commands.replies import redraw
from bot.slack.views.blocks import Reply

CommandFn = Callable[[Context, grammar.Command], Reply]
ButtonFn = Callable[[Context, ButtonValue], "Reply | None"]

COMMANDS: dict[str, CommandFn] = {
    "help": help.show_help,
    "thanks": help.thanks,
    "did_you_mean": help.did_you_mean,
    "query": query.find,
    "search": query.search_posts,
    "latest": query.newest,
    "next": query.next_reads,
    "catchup": query.catch_me_up,
    "read": progress.mark,
    "unread": progress.mark,
    "follow": progress.follow,
    "unfollow": progress.follow,
    "subscribe": subscribe.subscribe,
    "unsubscribe": subscribe.unsubscribe,
    "subscriptions": subscribe.list_subscriptions,
    "dm": subscribe.dm,
    "lang": help.set_language,
    "remind": remind.remind,
    "reminders": remind.reminders,
    "stats": stats.stats,
    "plan": plan.plan,
    "recommend": settings.recommend,
    "settings": settings.show_settings,
    "stop_what": settings.stop_what,
    "snooze_what": settings.snooze_what,
    "digest_cli": settings.digest_cli,
    "usage": help.usage,
}
"""Command kind (:data:`bot.slack.grammar.Kind`) -> use case."""

BUTTONS: dict[str, ButtonFn] = {
    "mark_read": buttons.mark_read,
    "mark_unread": buttons.mark_unread,
    "follow": buttons.follow,
    "unfollow": buttons.unfollow,
    "share": buttons.share,
    "dm_on": buttons.dm_on,
    "dm_off": buttons.dm_off,
    "snooze": buttons.snooze,
    "stop": buttons.stop,
    "more_results": buttons.more_results,
    "open_path": buttons.open_path,
    "more_steps": buttons.more_steps,
    "remind": remind.remind_button,
    "cancel_reminder": remind.cancel_button,
    "lower_budget": buttons.lower_budget,
    "pause_plan": buttons.pause_plan,
}
"""Button kind (the action id's prefix) -> use case."""


def run_command(ctx: Context, cmd: grammar.Command) -> Reply:
    """The reply to ``cmd``; an unknown kind gets the help (the grammar makes none)."""
    return COMMANDS.get(cmd.kind, help.show_help)(ctx, cmd)


def run_button(ctx: Context, kind: str, value: ButtonValue) -> Reply | None:
    """The reply to a ``kind`` button (``None``: App Home); an unknown kind redraws its message."""
    fn = BUTTONS.get(kind)
    return redraw(ctx, value.v, None) if fn is None else fn(ctx, value)
