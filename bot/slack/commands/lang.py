"""``lang en|zh``: the language of the caller's replies."""

from __future__ import annotations

from bot.slack import grammar
from bot.slack.commands.context import Context
from bot.slack.i18n import LANGS, t
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


def set_language(ctx: Context, cmd: grammar.Command) -> Reply:
    """Store the language (answering in it), or say which ones exist."""
    if cmd.arg in LANGS:
        ctx.rt.store.set_lang(ctx.caller.team_id, ctx.caller.user_id, cmd.arg)
        return views.text_reply(t("lang.done", cmd.arg))
    return views.text_reply(t("lang.bad", ctx.lang))
