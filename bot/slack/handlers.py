"""The entry the Slack doors call: a slash command's text, a button click, App Home.

:class:`Handlers` parses (text -> :class:`bot.slack.grammar.Command`, button value ->
:class:`~bot.slack.commands.context.ButtonValue`), opens a request
:class:`~bot.slack.commands.context.Context` for the caller and runs the use case of that kind
(:mod:`bot.slack.commands`). Listeners, the console and the tests call it the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from bot.runtime import Runtime
from bot.slack import grammar
from bot.slack.commands.context import (
    Announce,
    ButtonValue,
    Caller,
    ChannelCheck,
    Context,
    NotCached,
    UserInfo,
    UserInfoCache,
    UsersInfo,
    any_channel,
    no_announce,
    no_users_info,
)
from bot.slack.commands.plan import home_plan
from bot.slack.commands.registry import run_button, run_command
from bot.slack.commands.stats import team_insights
from bot.slack.commands.unfurl import unfurls_for
from bot.slack.i18n import t
from bot.slack.ids import is_conversation_id
from bot.slack.retry import SameOnCopy
from bot.slack.views import messages as views
from bot.slack.views.blocks import MAX_BLOCKS_VIEW, Reply, divider
from bot.slack.views.home import HomeState, home_view
from bot.slack.views.insights import insights_blocks

ANSWERED_IN_ACK = frozenset({"query", "search", "next", "help", "did_you_mean", "thanks", "latest"})
"""Command kinds that only read (the catalog, the caller's reading state), so their reply can go
in the slash command's ack (:meth:`Handlers.answer_now`): nothing to repeat if it cannot."""

__all__ = ["ANSWERED_IN_ACK", "Caller", "Handlers", "UserInfo", "UserInfoCache", "UsersInfo", "no_users_info"]


@dataclass(eq=False)
class Handlers(SameOnCopy):
    """Command and action handlers bound to a :class:`Runtime` ``rt`` (store + catalog holder)
    and the Slack look-ups; one object shared by every request (its copy is itself)."""

    rt: Runtime
    users_info: UsersInfo = no_users_info
    channel_check: ChannelCheck = any_channel
    announce: Announce = no_announce

    def context(self, caller: Caller, lang: str | None = None, typed: str = "") -> Context:
        """A request :class:`Context` for ``caller`` (language looked up unless given; ``typed``:
        the command's text, which answers in Chinese when it is Chinese and no language was chosen)."""
        return Context(self.rt, caller, self.users_info, lang or "", self.channel_check, self.announce, typed)

    def command(self, caller: Caller, text: str) -> Reply:
        """Answer ``/vllm-path <text>`` for ``caller``. Never raises for bad input."""
        return self.run(caller, grammar.parse(text), text)

    def run(self, caller: Caller, cmd: grammar.Command, typed: str) -> Reply:
        """Answer the parsed command ``cmd`` (``typed``: the text it was parsed from, for the
        language) for ``caller``: how a listener answers a command parsed once."""
        ctx = self.context(caller, typed=typed)
        return _noting_cut(cmd, ctx.lang, run_command(ctx, cmd))

    def answer_now(self, caller: Caller, text: str, cmd: grammar.Command | None = None) -> Reply | None:
        """The reply to ``/vllm-path <text>`` (parsed as ``cmd`` unless given) when it can go in the
        ack: a command that only reads (:data:`ANSWERED_IN_ACK`) and needs no Web API call (the
        language is chosen or typed, or ``users.info`` remembered). ``None``, decided before the
        use case runs: answer after the ack with :meth:`run`. Raises what the store raises."""
        cmd = cmd or grammar.parse(text)
        local = self._local_users_info()
        if cmd.kind not in ANSWERED_IN_ACK or local is None:
            return None
        try:
            ctx = Context(self.rt, caller, local, channel_check=_needs_slack, announce=_needs_slack, typed=text)
        except NotCached:  # the language needs users.info: nothing has run yet
            return None
        return _noting_cut(cmd, ctx.lang, run_command(ctx, cmd))

    def _local_users_info(self) -> UsersInfo | None:
        """``users_info`` restricted to what needs no Web API call (raising :class:`NotCached`
        otherwise); ``None`` when that cannot be told (a look-up of unknown kind)."""
        if isinstance(self.users_info, UserInfoCache):
            return self.users_info.cached
        return no_users_info if self.users_info is no_users_info else None

    def action(self, caller: Caller, kind: str, data: dict[str, Any], label: str = "") -> Reply | None:
        """Handle a button click (``kind`` = the action id's prefix, ``data`` = its decoded value,
        ``label`` = the button's text: a Chinese label keeps the redraw Chinese when the reader
        chose no language). Returns the redrawn message (or an in-channel share), or ``None`` for
        App Home (the caller republishes Home)."""
        return run_button(self.context(caller, typed=label), kind, ButtonValue.parse(data))

    def unfurls(self, caller: Caller, urls: list[str]) -> dict[str, dict[str, Any]]:
        """``chat.unfurl``'s ``unfurls`` map for the links ``caller`` shared (empty: nothing of
        ours), in the sharer's language."""
        return unfurls_for(self.context(caller), urls)

    def home(self, caller: Caller, channel_ids: list[str] | None) -> dict[str, Any]:
        """The Home view for ``caller``; ``channel_ids`` are the channels they are in (``None``:
        unknown, so no channel digests are listed)."""
        store = self.rt.store
        ctx = self.context(caller)
        wanted = {c for c in channel_ids or () if is_conversation_id(c)}
        subs = [x for x in store.subscriptions(caller.team_id) if x.channel_id in wanted] if wanted else []
        state = HomeState(
            follows=ctx.reader.follows(),
            read=ctx.reader.read(),
            dm=store.get_dm(caller.team_id, caller.user_id),
            channel_subs=subs,
            lang=ctx.lang,
            **home_plan(self.rt, caller.team_id, caller.user_id, ctx.reader.follows(), ctx.reader.read()),
        )
        view = home_view(ctx.catalog, state)
        if ctx.is_admin():
            # as for the digests above, Home names only channels the person is in
            ins = team_insights(self.rt, caller.team_id)
            mine = set(channel_ids or ())
            ins = replace(ins, channels=tuple(c for c in ins.channels if c.channel_id in mine))
            extra = [b.to_dict() for b in [divider(), *insights_blocks(ctx.catalog, ins, ctx.lang)]]
            view["blocks"] = (view["blocks"] + extra)[:MAX_BLOCKS_VIEW]
        return view


def _needs_slack(*_: Any) -> Any:
    """Channel check and announcement of a reply given in the ack: they would call Slack."""
    raise NotCached("a Web API call")


def _noting_cut(cmd: grammar.Command, lang: str, reply: Reply) -> Reply:
    """``reply``, with a first line saying the command's text was cut when it was too long."""
    if not cmd.truncated:
        return reply
    notice = t("error.too_long", lang, n=grammar.MAX_TEXT)
    return Reply(
        text=str(notice) + "\n" + reply.text,
        blocks=[views.section(notice).to_dict(), *reply.blocks[:49]],
        response_type=reply.response_type,
    )
