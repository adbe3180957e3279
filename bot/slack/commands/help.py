"""``help``, ``thanks``, ``lang en|zh``, the answer to a mistyped command (``did_you_mean``) and a
command's usage (``usage``)."""

from __future__ import annotations

from bot.slack import grammar
from bot.slack.commands import replies
from bot.slack.commands.context import Context
from bot.slack.grammar_phrases import HELP_TOPICS
from bot.slack.i18n import LANGS, t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply

_TOPICS: tuple[frozenset[str], ...] = (
    frozenset({"remind", "reminders"}),
    frozenset({"subscribe", "unsubscribe", "subscriptions"}),
    frozenset({"follow", "unfollow"}),
    frozenset({"read", "unread"}),
)
"""Commands whose help comes together (``help reminders`` shows ``remind`` too)."""


def topic_help(lang: str, topic: str) -> Mrkdwn | None:
    """The lines of the help (``help.commands``) about the command ``topic`` names (``reminders``,
    ``dm``, ``plan``, ``提醒``: any keyword), with a pointer to the full help; ``None`` when no line is."""
    word = topic.casefold().strip()
    kind = grammar.KEYWORDS.get(word) or HELP_TOPICS.get(word)  # `help stop`, `help digest` (QA)
    if kind is None or kind == "help":
        return None
    kinds = next((group for group in _TOPICS if kind in group), frozenset({kind}))
    marks = [m for k in {*kinds, word} for m in (f"/vllm-path {k} ", f"`{k}`", f"`{k} ", f"`{k}:")]
    lines = [line for line in str(t("help.commands", lang)).splitlines() if any(m in line for m in marks)]
    if not lines:
        return None
    return Mrkdwn("\n").join([Mrkdwn(line) for line in lines] + [t("didyoumean.help", lang)])


def show_help(ctx: Context, cmd: grammar.Command) -> Reply:
    """The grammar with examples, the track list and the catalog version; ``help <command>``
    (``help reminders``): only that command's lines (:func:`topic_help`)."""
    section = topic_help(ctx.lang, cmd.arg) if cmd.arg else None
    return views.text_reply(section) if section is not None else views.help_reply(ctx.catalog, ctx.lang)


def thanks(ctx: Context, cmd: grammar.Command) -> Reply:
    """``thanks`` (``谢谢``): a one-line "you're welcome" with the command for the next read."""
    return views.text_reply(t("thanks", ctx.lang))


def did_you_mean(ctx: Context, cmd: grammar.Command) -> Reply:
    """The help, headed by the command the text probably meant; text whose first word is a known
    word (:func:`~bot.slack.commands.replies.known_word`) is a search instead (QA: ``sglang vs
    vllm`` is no ``lang vs vllm``, ``ready for production`` no ``read for production``)."""
    words = cmd.arg.split()
    if words and replies.known_word(ctx, words[0]):
        return replies.query(ctx, cmd.arg)
    prefix = t("didyoumean.command", ctx.lang, suggestion=truncate(cmd.suggestion or "", 200))
    return views.help_reply(ctx.catalog, ctx.lang, prefix=prefix)


def set_language(ctx: Context, cmd: grammar.Command) -> Reply:
    """``lang en|zh``: store the language of the caller's replies (answering in it), or say which exist."""
    if cmd.arg in LANGS:
        ctx.rt.store.set_lang(ctx.caller.team_id, ctx.caller.user_id, cmd.arg)
        return views.text_reply(t("lang.done", cmd.arg))
    return views.text_reply(t("lang.bad" if cmd.arg else "lang.now", ctx.lang))  # `lang` alone: the one in use


USAGES = {"digest": "usage.digest", "reminders": "reminders.usage"}
"""A ``usage`` command's ``arg`` (:data:`bot.slack.grammar_phrases.USAGE_WORDS`, ``cancel reminder 1``) ->
the i18n key of that command's usage line."""


def usage(ctx: Context, cmd: grammar.Command) -> Reply:
    """The usage line of the command ``cmd.arg`` names (typed with arguments that did not parse,
    ``digest spec``, ``cancel reminder 1``); an unknown one gets the help."""
    key = USAGES.get(cmd.arg)
    return views.text_reply(t(key, ctx.lang)) if key else show_help(ctx, cmd)
