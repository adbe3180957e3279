"""A channel or person named in a command that acts only in the channel it is typed in, or only for
whoever types it (QA round 8: ``subscribe #general spec`` set up the current channel and said so in
it; ``remind @bob p-eagle`` was "not sure which post"). The answer says where or by whom the command
works, privately; nothing is stored and nothing is posted. Acting on another channel would need to
know the caller is a member of it: the app does not do that."""

from __future__ import annotations

import re

from bot.slack import grammar
from bot.slack.commands.context import Context
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, esc, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply

_SLACK_REF = re.compile(r"^(?:<#[CG][A-Z0-9]+>|<@[UW][A-Z0-9]+>|<!subteam\^[A-Z0-9]+>)$")
"""A reference Slack draws as the channel's or person's name (only ids: safe to send as mrkdwn)."""

_DIGEST_OF = {"follow": "subscribe", "unfollow": "unsubscribe"}
"""For a channel named in ``follow``: the channel's own command (``subscribe``)."""


def _shown(ref: str) -> Mrkdwn:
    """``ref`` as a reply shows it: Slack's own reference when it is one, else the typed text escaped."""
    return Mrkdwn(ref) if _SLACK_REF.match(ref) else esc(ref)


def refusal(ctx: Context, cmd: grammar.Command) -> Reply | None:
    """The answer to ``cmd`` when it names a channel or person (:attr:`grammar.Command.elsewhere`), else
    None (also for the caller's own channel named as ``<#C…>``: the command goes ahead without it)."""
    ref = cmd.elsewhere
    if ref is None or (ref.channel_id is not None and ref.channel_id == ctx.caller.channel_id):
        return None
    where, lang = _shown(ref.ref), ctx.lang
    here = truncate(" ".join((cmd.here or cmd.kind).replace("`", "").split()), 200)
    if cmd.kind == "remind":
        return views.text_reply(t("elsewhere.remind", lang, who=where, command=here))
    if cmd.kind in _DIGEST_OF and ref.kind == "channel":
        digest = truncate(f"{_DIGEST_OF[cmd.kind]} {cmd.arg}".strip(), 200)
        return views.text_reply(t("elsewhere.follow_channel", lang, channel=where, command=here, digest=digest))
    if cmd.kind in _DIGEST_OF:
        return views.text_reply(t("elsewhere.follow", lang, who=where, command=here))
    if ref.kind == "person":  # `subscribe spec for @bob`: a channel's digest is the channel's
        return views.text_reply(t("elsewhere.channel_person", lang, who=where, command=here))
    return views.text_reply(t("elsewhere.channel", lang, channel=where, command=here))
