"""The entry the Slack doors call: :class:`Handlers` parses a command or click, opens a request
:class:`~bot.slack.commands.context.Context` and runs the use case (:mod:`bot.slack.commands`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Any

from bot.domain.catchup import catch_up
from bot.domain.paths import started_track_states, track_state
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
from bot.slack.commands.plan import home_plan, reading_since
from bot.slack.commands.registry import run_button, run_command
from bot.slack.commands.stats import team_insights
from bot.slack.commands.unfurl import unfurls_for
from bot.slack.home_facts import HomeFacts
from bot.slack.homes import HomeCache, HomePublisher
from bot.slack.i18n import LANGS, t
from bot.slack.ids import is_conversation_id
from bot.slack.retry import SameOnCopy
from bot.slack.views.blocks import MAX_BLOCKS_MESSAGE, MAX_BLOCKS_VIEW, Reply, divider, section
from bot.slack.views.home import HomeState, home_view
from bot.slack.views.insights import insights_blocks
from bot.store import ReaderState

ANSWERED_IN_ACK = frozenset(
    {
        "query",
        "search",
        "next",
        "help",
        "did_you_mean",
        "thanks",
        "latest",
        "catchup",
        "recommend",
        "settings",
        "stop_what",
        "snooze_what",
        "digest_cli",
    }
)
"""Command kinds that only read, so their reply can go in the ack (:meth:`Handlers.answer_now`)."""
CHANNEL_KINDS = frozenset({"subscribe", "unsubscribe", "plan", "stop", "snooze"})
"""Command and button kinds that may change a channel's digest (every Home in the team lists it)."""
DM_KINDS = frozenset({"dm", "dm_on", "dm_off"})
"""Command and button kinds that change the person's DM settings (their Home shows them)."""

_FACTS_LOCK = threading.Lock()

__all__ = ["ANSWERED_IN_ACK", "Caller", "Handlers", "UserInfo", "UserInfoCache", "UsersInfo", "no_users_info"]


@dataclass(eq=False)
class Handlers(SameOnCopy):
    """Handlers bound to a :class:`Runtime` ``rt`` and the Slack look-ups; shared by every request.
    ``homes``: what each person's App Home shows (:meth:`_changed` drops what a command or click changed);
    ``facts``: what App Home reads from the store, kept per person (:class:`HomeFacts`: the writes of
    :meth:`run` and :meth:`action` update it); ``publisher``: publishes App Home (set by
    :func:`bot.slack.app.build_app`)."""

    rt: Runtime
    users_info: UsersInfo = no_users_info
    channel_check: ChannelCheck = any_channel
    announce: Announce = no_announce
    homes: HomeCache = field(default_factory=HomeCache)
    publisher: HomePublisher | None = None
    _facts: HomeFacts | None = field(default=None, init=False, repr=False)

    @property
    def facts(self) -> HomeFacts:
        """What App Home reads from the store, kept per person (made on first use, on ``rt.store``)."""
        if self._facts is None:
            with _FACTS_LOCK:
                if self._facts is None:
                    self._facts = HomeFacts(self.rt.store)
        return self._facts

    def context(self, caller: Caller, lang: str | None = None, typed: str = "") -> Context:
        """A request :class:`Context` for ``caller`` (``typed``: the command's text, for the language)."""
        return Context(self.rt, caller, self.users_info, lang or "", self.channel_check, self.announce, typed)

    def command(self, caller: Caller, text: str) -> Reply:
        """Answer ``/vllm-path <text>`` for ``caller``. Never raises for bad input."""
        return self.run(caller, grammar.parse(text), text)

    def run(self, caller: Caller, cmd: grammar.Command, typed: str) -> Reply:
        """Answer the parsed command ``cmd`` (parsed from ``typed``) for ``caller``."""
        with self.facts.request(caller.team_id, caller.user_id):
            ctx = self.context(caller, typed=typed)
            try:
                return _noting_cut(cmd, ctx.lang, run_command(ctx, cmd))
            finally:
                self._changed(caller, cmd.kind)

    def answer_now(self, caller: Caller, text: str, cmd: grammar.Command | None = None) -> Reply | None:
        """The reply to ``/vllm-path <text>`` when it can go in the ack (:data:`ANSWERED_IN_ACK`, no Web
        API call), else ``None`` before anything runs. Raises what the store raises."""
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
        """``users_info`` without Web API calls (else :class:`NotCached`); ``None``: cannot be told."""
        if isinstance(self.users_info, UserInfoCache):
            return self.users_info.cached
        return no_users_info if self.users_info is no_users_info else None

    def action(self, caller: Caller, kind: str, data: dict[str, Any], label: str = "") -> Reply | None:
        """A click's answer (``kind``: the action id's prefix; ``label``: the text); ``None``: App Home."""
        with self.facts.request(caller.team_id, caller.user_id):
            try:
                return run_button(self.context(caller, typed=label), kind, ButtonValue.parse(data))
            finally:
                self._changed(caller, kind)

    def _changed(self, caller: Caller, kind: str) -> None:
        """A command or click of ``kind`` ran: the App Home of everyone in the team differs when it may have
        changed a channel's digest, the caller's when their DM settings (their reading state is compared)."""
        if kind in CHANNEL_KINDS or kind in DM_KINDS:
            self.homes.changed(caller.team_id, None if kind in CHANNEL_KINDS else caller.user_id)

    def unfurls(self, caller: Caller, urls: list[str]) -> dict[str, dict[str, Any]]:
        """``chat.unfurl``'s ``unfurls`` map for the links ``caller`` shared, in their language."""
        return unfurls_for(self.context(caller), urls)

    def home(self, caller: Caller, channel_ids: list[str] | None, reader: ReaderState | None = None) -> dict[str, Any]:
        """The Home view for ``caller`` in ``channel_ids`` (``None``: unknown, no digests listed);
        ``reader``: the caller's :class:`~bot.store.reader.ReaderState` when read for this open already
        (None: read here). Raises what the store raises."""
        team, user = caller.team_id, caller.user_id
        reader = self.rt.store.reader_state(team, user) if reader is None else reader
        ctx = self.context(caller, lang=self._home_lang(caller, reader.lang))
        cat = ctx.catalog
        wanted = {c for c in channel_ids or () if is_conversation_id(c)}
        subs = [x for x in self.facts.subscriptions(team) if x.channel_id in wanted] if wanted else []
        follows, read = list(reader.follows), set(reader.read)
        # kept per person (HomeFacts): the streak's facts, when the person last read (catch-up), DM, finished
        facts = self.facts.person(team, user, read, follows, reader.budget)
        habit = facts.habit
        state = HomeState(
            following=[track_state(cat, tid, read) for tid in follows if cat.has_track(tid)],
            read=read,
            dm=facts.dm,
            channel_subs=subs,
            lang=ctx.lang,
            **home_plan(self.rt, team, user, follows, read, habit, facts.finished),
            catchup=catch_up(cat, follows, read, reading_since(habit)),
            started=started_track_states(cat, read, follows),
        )
        view = home_view(cat, state)
        if ctx.is_admin():
            ins = team_insights(self.rt, caller.team_id)
            mine = set(channel_ids or ())
            ins = replace(ins, channels=tuple(c for c in ins.channels if c.channel_id in mine))
            extra = [divider(), *insights_blocks(ctx.catalog, ins, ctx.lang)]
            view["blocks"] = (view["blocks"] + extra)[:MAX_BLOCKS_VIEW]
        return view

    def _home_lang(self, caller: Caller, chosen: str | None) -> str:
        """App Home's language: ``chosen`` (``/vllm-path lang``) when set, else the Slack locale's
        (zh* -> zh, else en), as :class:`~bot.slack.commands.context.Context` decides without typed text."""
        if chosen in LANGS:
            return chosen
        locale = (self.users_info(caller.team_id, caller.user_id).locale or "").lower()
        return "zh" if locale.startswith("zh") else "en"


def _needs_slack(*_: Any) -> Any:
    """Channel check and announcement of a reply given in the ack: they would call Slack."""
    raise NotCached("a Web API call")


def _noting_cut(cmd: grammar.Command, lang: str, reply: Reply) -> Reply:
    """``reply``, with a first line saying the command's text was cut when it was too long."""
    if not cmd.truncated:
        return reply
    notice = t("error.too_long", lang, n=grammar.MAX_TEXT)
    blocks = [section(notice), *reply.blocks[: MAX_BLOCKS_MESSAGE - 1]]
    return Reply(text=str(notice) + "\n" + reply.text, blocks=blocks, response_type=reply.response_type)
