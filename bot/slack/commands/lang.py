"""``lang en|zh``: the language of the caller's replies."""

from __future__ import annotations

from bot.slack import grammar
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.i18n import LANGS, t
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


@command("lang")
def set_language(s: Session, cmd: grammar.Command) -> Reply:
    """Store the language (answering in it), or say which ones exist."""
    if cmd.arg in LANGS:
        s.rt.store.set_lang(s.caller.team_id, s.caller.user_id, cmd.arg)
        return views.text_reply(t("lang.done", cmd.arg))
    return views.text_reply(t("lang.bad", s.lang))
