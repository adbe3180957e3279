"""A channel or person named in a command that acts only in the channel it is typed in, or only for
whoever types it (QA round 8: ``subscribe #general spec`` set up the current channel and said so in
it; ``remind @bob p-eagle`` was "not sure which post"). The answer says where or by whom the command
works, privately; nothing is stored and nothing is posted. Acting on another channel would need to
know the caller is a member of it: the app does not do that."""

from __future__ import annotations

import re

from bot.slack import grammar
from bot.slack.commands.context import Context
from bot.slack.commands.remind import with_post
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, esc, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply

_SLACK_CHANNEL = re.compile(r"^<#[CG][A-Z0-9]+>$")
"""A channel reference Slack draws as the channel's name (only an id: safe to send as mrkdwn); the
replies that name a channel mean to link it."""

_NO_ONE_NAMED = re.compile(r"^(?:<[@!].*|@(?:here|channel|everyone))$", re.IGNORECASE)
"""A person or group the reply must not echo (QA round 16: ``follow <@U999>`` answered "I can't
change what <@U999> follows", a mention): a Slack mention (``<@U…>``, ``<!subteam^…>``) or a
notifying word (``@here``); the reply then says "someone else" (the ``*_other`` texts)."""

_DIGEST_OF = {"follow": "subscribe", "unfollow": "unsubscribe"}
"""For a channel named in ``follow``: the channel's own command (``subscribe``)."""


def _shown(ref: str) -> Mrkdwn:
    """``ref`` as a reply shows it: Slack's own channel reference when it is one, else the typed
    text escaped (``@bob``, ``#general``: plain text, no mention)."""
    return Mrkdwn(ref) if _SLACK_CHANNEL.match(ref) else esc(ref)


def refusal(ctx: Context, cmd: grammar.Command) -> Reply | None:
    """The answer to ``cmd`` when it names a channel or person (:attr:`grammar.Command.elsewhere`), else
    None (also for the caller's own channel named as ``<#C…>``: the command goes ahead without it)."""
    ref = cmd.elsewhere
    if ref is None or (ref.channel_id is not None and ref.channel_id == ctx.caller.channel_id):
        return None
    where, lang = _shown(ref.ref), ctx.lang
    here = truncate(" ".join((cmd.here or cmd.kind).replace("`", "").split()), 200)
    other = "_other" if ref.kind == "person" and _NO_ONE_NAMED.match(ref.ref) else ""  # never a mention
    if cmd.kind == "remind":  # `remind <!here> tomorrow`: which post, too (QA round 19)
        here = truncate(" ".join(with_post(ctx, cmd.here or cmd.kind).replace("`", "").split()), 200)
        return views.text_reply(t("elsewhere.remind" + other, lang, who=where, command=here))
    if cmd.kind in _DIGEST_OF and ref.kind == "channel":
        digest = truncate(f"{_DIGEST_OF[cmd.kind]} {cmd.arg}".strip(), 200)
        return views.text_reply(t("elsewhere.follow_channel", lang, channel=where, command=here, digest=digest))
    if cmd.kind in _DIGEST_OF:
        return views.text_reply(t("elsewhere.follow" + other, lang, who=where, command=here))
    if ref.kind == "person":  # `subscribe spec for @bob`: a channel's digest is the channel's
        return views.text_reply(t("elsewhere.channel_person" + other, lang, who=where, command=here))
    return views.text_reply(t("elsewhere.channel", lang, channel=where, command=here))
