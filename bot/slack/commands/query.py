"""Free text: a track's path when the text names a track, else search results; ``search <text>``:
search results only; and ``next``."""

from __future__ import annotations

from bot.domain.search import normalize
from bot.slack import grammar
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply

NEAR_TRACK_SCORE = 80.0
"""How close (``Matcher.suggest_track``, 0..100) the topic of ``<topic> next`` must be to a
track's name to be read as that track mistyped (``qaunt next``: 80)."""


@command("query")
def find(s: Session, cmd: grammar.Command) -> Reply:
    """``/vllm-path <text>``: the track it names, or the posts matching it."""
    return s.query(cmd.arg)


@command("search")
def search_posts(s: Session, cmd: grammar.Command) -> Reply:
    """``search <text>``: the posts matching the text, even when it names a track (``search
    speculative`` lists posts, not the path); ``search`` alone gets the search hint."""
    return s.search(cmd.arg)


@command("latest")
def newest(s: Session, cmd: grammar.Command) -> Reply:
    """``what's new`` / ``latest posts`` / ``最新文章``: the newest posts of the catalog."""
    return s.latest()


@command("next")
def next_reads(s: Session, cmd: grammar.Command) -> Reply:
    """``next``: the next read in every followed track; ``next <track>``: that track's next step
    (followed or not); a name that matches no track gets the track list and a did-you-mean, or,
    when the keyword came last (``qwen3 next``: a post's name), the search for the whole text."""
    if not cmd.arg.strip():
        return s.next_reply()
    tid = s.resolve_track(cmd.arg)
    if tid is None and cmd.query:  # "qaunt next": a track's name mistyped, else a search as typed
        loaded = s.rt.holder.loaded
        near = loaded.matcher.suggest_track(cmd.arg)
        if near is None or near.score < NEAR_TRACK_SCORE:
            # "qwen3 next" names the Qwen3-Next post; in "eagle next" the word "next" would only
            # lead to it too: search the topic alone unless the best post for all of it has the topic
            top = loaded.matcher.search(cmd.query, limit=1).results
            title = normalize(loaded.catalog.post(top[0].post_id).title) if top else ""
            return s.query(cmd.query if normalize(cmd.arg) in title else cmd.arg)
        tid = near.track_id
    if tid is None:
        return views.text_reply(s.unknown_track(cmd.arg, "next"))
    return views.next_reply(s.rt.holder.catalog, [tid], s.read(), s.lang)
