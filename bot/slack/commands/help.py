"""``help`` and the answer to a mistyped command (``did_you_mean``)."""

from __future__ import annotations

from bot.slack import grammar
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.i18n import t
from bot.slack.mrkdwn import truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


@command("help")
def show_help(s: Session, cmd: grammar.Command) -> Reply:
    """The grammar with examples, the track list and the catalog version."""
    return views.help_reply(s.rt.holder.catalog, s.lang)


@command("thanks")
def thanks(s: Session, cmd: grammar.Command) -> Reply:
    """``thanks`` (``谢谢``): a one-line "you're welcome" with the command for the next read."""
    return views.text_reply(t("thanks", s.lang))


@command("did_you_mean")
def did_you_mean(s: Session, cmd: grammar.Command) -> Reply:
    """The help, headed by the command the text probably meant."""
    prefix = t("didyoumean.command", s.lang, suggestion=truncate(cmd.suggestion or "", 200))
    return views.help_reply(s.rt.holder.catalog, s.lang, prefix=prefix)
