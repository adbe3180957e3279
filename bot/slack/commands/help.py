"""``help``, ``thanks``, ``lang en|zh``, the answer to a mistyped command (``did_you_mean``) and a
command's usage (``usage``)."""

from __future__ import annotations

from bot.slack import grammar
from bot.slack.commands import replies
from bot.slack.commands.context import Context
from bot.slack.grammar_phrases import HELP_TOPICS, MARKUP, QUOTES
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
    (``help reminders``): only that command's lines (:func:`topic_help`); ``home``: one line saying
    how to open App Home (QA round 18: the whole help)."""
    if cmd.arg == "home":
        return views.text_reply(t("help.home", ctx.lang))
    section = topic_help(ctx.lang, cmd.arg) if cmd.arg else None
    return views.text_reply(section) if section is not None else views.help_reply(ctx.catalog, ctx.lang)


def thanks(ctx: Context, cmd: grammar.Command) -> Reply:
    """``thanks`` (``谢谢``): a one-line "you're welcome" with the command for the next read."""
    return views.text_reply(t("thanks", ctx.lang))


def did_you_mean(ctx: Context, cmd: grammar.Command) -> Reply:
    """The help, headed by the command the text probably meant; text whose first word is a known
    word (:func:`~bot.slack.commands.replies.known_word`) is a search instead (QA: ``sglang vs
    vllm`` is no ``lang vs vllm``, ``ready for production`` no ``read for production``), unless
    the rest is only post or track ids (:func:`mistyped_command`: ``reed p-eagle``)."""
    words = cmd.arg.split()
    if words and replies.known_word(ctx, words[0]) and mistyped_command(ctx, cmd.arg) is None:
        return replies.query(ctx, cmd.arg)
    return meant_command(ctx, cmd.suggestion or "")


def meant_command(ctx: Context, suggestion: str) -> Reply:
    """ "Did you mean `/vllm-path <suggestion>`?" and one line pointing at ``help`` (QA round 17: the
    whole help under it buried the one line that mattered)."""
    prefix = t("didyoumean.command", ctx.lang, suggestion=truncate(suggestion, 200))
    return views.text_reply(Mrkdwn("\n").join([prefix, t("didyoumean.help", ctx.lang)]))


_POST_KEYWORDS = frozenset({"read", "unread", "remind", "search"})
_TRACK_KEYWORDS = frozenset({"follow", "unfollow", "next", "subscribe", "unsubscribe", "search"})
"""The keywords whose argument is a post id, and those whose argument is a track id."""


def mistyped_command(ctx: Context, text: str) -> str | None:
    """The command ``text`` means when its first word is a near miss of a keyword
    (:func:`grammar.near_command`: ``red``, ``raed``, ``nxt``, even when an English word) and every
    other word is a post id or every one a track id of the catalog, for a keyword taking posts or
    tracks (``red p-eagle``: ``read p-eagle``; ``nxt spec``: ``next spec``; ``red spec``: ``read
    spec``), the first letter as typed (``text pd`` is no ``next pd``); else None (QA rounds 16 and 17:
    ``red p-eagle`` searched and led with a Red Hat post; ``red hat vllm`` stays a search)."""
    words, cat = [w.strip(QUOTES + MARKUP) for w in text.split()[1:]], ctx.catalog
    if not words or not all(words):  # one word (`speculative`): no fuzzy matching is loaded
        return None
    posts = all(cat.resolve_post_id(w) is not None for w in words)
    tracks = not posts and all(cat.has_track(w.casefold()) for w in words)
    meant = grammar.near_command(text) if posts or tracks else None
    keyword = meant.split()[0] if meant else ""
    if keyword[:1] != text.split()[0].casefold().lstrip("/")[:1]:
        return None  # `text pd` is no `next pd`: a mistyped word keeps its first letter (QA round 17)
    return meant if keyword in _POST_KEYWORDS | _TRACK_KEYWORDS else None


def set_language(ctx: Context, cmd: grammar.Command) -> Reply:
    """``lang en|zh``: store the language of the caller's replies (answering in it), or say which exist."""
    if cmd.arg in LANGS:
        ctx.rt.store.set_lang(ctx.caller.team_id, ctx.caller.user_id, cmd.arg)
        return views.text_reply(t("lang.done", cmd.arg))
    return views.text_reply(t("lang.bad" if cmd.arg else "lang.now", ctx.lang))  # `lang` alone: the one in use


USAGES = {"digest": "usage.digest", "reminders": "reminders.usage", "weekly": "usage.weekly"}
"""A ``usage`` command's ``arg`` (:data:`bot.slack.grammar_phrases.USAGE_WORDS`, ``cancel reminder 1``) ->
the i18n key of that command's usage line."""


def usage(ctx: Context, cmd: grammar.Command) -> Reply:
    """The usage line of the command ``cmd.arg`` names (typed with arguments that did not parse,
    ``digest spec``, ``cancel reminder 1``); an unknown one gets the help."""
    key = USAGES.get(cmd.arg)
    return views.text_reply(t(key, ctx.lang)) if key else show_help(ctx, cmd)
