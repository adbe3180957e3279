"""Free text: a track's path when the text names a track, else search results; ``search <text>``:
search results only; ``next``; and ``catch me up``."""

from __future__ import annotations

import re

from bot.domain.catchup import catch_up
from bot.domain.search.confidence import NEAR_TRACK_SCORE
from bot.slack import grammar
from bot.slack.commands import replies
from bot.slack.commands.context import Context
from bot.slack.commands.help import meant_command, mistyped_command
from bot.slack.commands.progress import not_tracks, several_tracks
from bot.slack.commands.track_lookup import typo_track
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply
from bot.slack.views.catchup import catchup_reply

NEWEST_LEAD = {"en": "latest", "zh": "最新"}
"""The word put before a ``what's new in <topic>`` topic that names no track: the search reads it as
"newest first" (:meth:`bot.domain.search.Matcher.search`) and the reply's heading shows it."""


def find(ctx: Context, cmd: grammar.Command) -> Reply:
    """``/vllm-path <text>``: the track it names (a track's name mistyped too, :func:`typo_track`:
    ``omini`` as ``multimodel`` does; QA round 8), or the posts matching it; a command's keyword
    mistyped before post or track ids (``red p-eagle``, :func:`~bot.slack.commands.help.mistyped_command`):
    the help headed by the command meant (QA round 16)."""
    if (meant := mistyped_command(ctx, cmd.arg) or _lone_command(ctx, cmd.arg)) is not None:
        return meant_command(ctx, meant)
    if ctx.find.track(cmd.arg) is None and (typo := typo_track(ctx.find, cmd.arg)) is not None:
        return replies.track_view(ctx, typo)
    return replies.query(ctx, cmd.arg)


def _lone_command(ctx: Context, text: str) -> str | None:
    """The command a lone word means when it is a near miss of one (``nxt``:
    :func:`~bot.slack.commands.replies.suggest_command`) that no post and no track answers: led with,
    never put under a refusal (QA round 17: "No post matches 'nxt' … Did you mean `next`?")."""
    words = text.split()  # a track's name first: no near-miss matching (rapidfuzz) for `speculative`
    if len(words) != 1 or ctx.find.track(text) is not None or replies.suggest_command(ctx, text) is None:
        return None
    if ctx.find.posts(text, limit=1).results:
        return None
    return grammar.near_command(text)


def search_posts(ctx: Context, cmd: grammar.Command) -> Reply:
    """``search <text>``: the posts matching the text, even when it names a track."""
    return replies.search(ctx, cmd.arg)


def newest(ctx: Context, cmd: grammar.Command) -> Reply:
    """``what's new`` / ``latest posts`` / ``最新文章``: the newest posts of the catalog; ``what's new
    in <topic>``: the newest posts of the track the topic names, else a search for the topic (QA: the
    words "what's new" found a post titled "A New Course"); a topic that names no track: the search
    for it led by :data:`NEWEST_LEAD`, which lists the posts on it newest first."""
    if not cmd.arg:
        return replies.latest(ctx)
    tid = ctx.find.track(cmd.arg) or ctx.find.topic(cmd.arg)
    if tid:
        return replies.latest(ctx, track_id=tid)
    # no track: the posts on the topic, newest first (the matcher reads the lead; QA: `latest eagle`)
    return replies.search(ctx, f"{NEWEST_LEAD[ctx.lang]} {cmd.arg}")


def next_reads(ctx: Context, cmd: grammar.Command) -> Reply:
    """``next``: the next read of each followed track; ``next <track>``: that track's (``next spec
    pd``: each one's, a word that is no track said, :func:`~bot.slack.commands.progress.several_tracks`); no track: the
    list and a did-you-mean, or the search for the text when the keyword came last (``qwen3 next``) or
    was ``progress`` (``progress bar in vllm``, ``progress on amd support``: QA round 17; ``progress spec``
    is that track's progress)."""
    if not cmd.arg.strip():
        return replies.next_reads(ctx)
    tid = ctx.find.track(cmd.arg)
    if tid is None and cmd.query is None and _typed_word(ctx) == "progress":
        return replies.query(ctx, _PROGRESS_LEAD.sub("", ctx.typed).strip())  # `progress bar in vllm` (QA round 17)
    several = several_tracks(ctx, cmd) if tid is None else None
    if several is not None and (cmd.query is None or len(several) > 1):  # `next spec pd`, as `follow` (QA)
        unknown = not_tracks(ctx, cmd)
        return replies.next_reads(ctx, notice=Mrkdwn(unknown.lstrip()) or None, track_ids=several)
    if tid is None and cmd.query:  # "qaunt next": a track's name mistyped, else a search as typed
        near = ctx.find.near_track(cmd.arg)
        if near is None or near.score < NEAR_TRACK_SCORE:
            # "qwen3 next" names the Qwen3-Next post; in "eagle next" the word "next" would only
            # lead to it too: search the topic alone unless the best post for all of it has the topic
            from bot.domain.search import normalize  # deferred: the analysis' regexes, for a search only

            top = ctx.find.posts(cmd.query, limit=1).results
            title = normalize(ctx.catalog.post(top[0].post_id).title) if top else ""
            return replies.query(ctx, cmd.query if normalize(cmd.arg) in title else cmd.arg)
        tid = near.track_id
    if tid is None:
        return views.text_reply(replies.unknown_track(ctx, cmd.arg, "next"))
    return replies.next_reads(ctx, track_ids=[tid])


_PROGRESS_LEAD = re.compile(r"^\s*(?:/?vllm-path\s+)*", re.IGNORECASE)
"""The command's own name typed before its text."""


def _typed_word(ctx: Context) -> str:
    """The first word the caller typed, case-folded (the command's own name left out)."""
    words = _PROGRESS_LEAD.sub("", ctx.typed).split()
    return words[0].casefold() if words else ""


def catch_me_up(ctx: Context, cmd: grammar.Command) -> Reply:
    """``catch me up`` / ``what did I miss`` / ``跟上进度``: the posts that entered the catalog since the
    caller last read (:meth:`bot.store.Store.reading_since`) in the tracks they follow or have
    started, with their place in the path, then the next step (:func:`bot.domain.catchup.catch_up`)."""
    since = ctx.rt.store.reading_since(ctx.caller.team_id, ctx.caller.user_id)
    return catchup_reply(ctx.catalog, catch_up(ctx.catalog, ctx.reader.follows(), ctx.reader.read(), since), ctx.lang)
