"""The table of use cases: command kind -> function, button kind -> function. One literal
mapping each, read top to bottom; a use case module registers nothing on import."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from bot.slack import grammar
from bot.slack.commands import (
    buttons,
    elsewhere,
    help,
    plan,
    progress,
    query,
    remind,
    settings,
    stats,
    subscribe,
    track_list,
)
from bot.slack.commands.context import ButtonValue, Context
from bot.slack.commands.replies import redraw
from bot.slack.commands.track_lookup import with_track_finder
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
    "snooze_what": subscribe.snooze_or_pause,
    "digest_cli": settings.digest_cli,
    "usage": help.usage,
    "my_data": settings.my_data,
    "tracks": track_list.list_tracks,
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


TRACK_COMMANDS = frozenset({"follow", "unfollow", "subscribe", "unsubscribe"})
"""Commands that read their track with the one resolver of :mod:`~bot.slack.commands.track_lookup`
(``follow kv`` is the track ``/vllm-path kv`` says it looks like; QA round 8)."""


def run_command(ctx: Context, cmd: grammar.Command) -> Reply:
    """The reply to ``cmd``; an unknown kind gets the help (the grammar makes none). A channel or
    person named where the command cannot act on one is refused first (:func:`elsewhere.refusal`)."""
    cmd = _channel_typed_here(ctx, cmd)
    if (refused := elsewhere.refusal(ctx, cmd)) is not None:
        return refused
    if cmd.kind in TRACK_COMMANDS:
        with_track_finder(ctx)
    return COMMANDS.get(cmd.kind, help.show_help)(ctx, cmd)


def run_button(ctx: Context, kind: str, value: ButtonValue) -> Reply | None:
    """The reply to a ``kind`` button (``None``: App Home); an unknown kind redraws its message."""
    fn = BUTTONS.get(kind)
    return redraw(ctx, value.v, None) if fn is None else fn(ctx, value)


def _channel_typed_here(ctx: Context, cmd: grammar.Command) -> grammar.Command:
    """``cmd`` without its :attr:`~grammar.Command.elsewhere` when the ``#name`` typed is the channel
    the command is typed in (``subscribe #general spec`` in #general), or parsed again with the name
    as its track when it is a track and no other track is named (``follow #spec``); else ``cmd``
    (QA round 9: both were refused as naming another channel)."""
    ref = cmd.elsewhere
    if ref is None or ref.kind != "channel" or ref.channel_id is not None:
        return cmd
    name = ref.ref.removeprefix("#").casefold()
    if ctx.caller.channel_name and name == ctx.caller.channel_name.casefold():
        return replace(cmd, elsewhere=None)
    keyword, _, rest = cmd.here.partition(" ")
    other_track = any(ctx.catalog.has_track(word.casefold()) for word in rest.split())
    if cmd.kind in TRACK_COMMANDS and ctx.catalog.has_track(name) and not other_track:
        return grammar.parse(f"{keyword} {name} {rest}".strip())
    return cmd
