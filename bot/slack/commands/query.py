"""Free text: a track's path when the text names a track, else search results; ``search <text>``:
search results only; and ``next``."""

from __future__ import annotations

from bot.slack import grammar
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


@command("query")
def find(s: Session, cmd: grammar.Command) -> Reply:
    """``/vllm-path <text>``: the track it names, or the posts matching it."""
    return s.query(cmd.arg)


@command("search")
def search_posts(s: Session, cmd: grammar.Command) -> Reply:
    """``search <text>``: the posts matching the text, even when it names a track (``search
    speculative`` lists posts, not the path); ``search`` alone gets the search hint."""
    return s.search(cmd.arg)


@command("next")
def next_reads(s: Session, cmd: grammar.Command) -> Reply:
    """``next``: the next read in every followed track; ``next <track>``: that track's next step
    (followed or not); a name that matches no track gets the track list and a did-you-mean, or,
    when the keyword came last (``qwen3 next``: a post's name), the search for the whole text."""
    if not cmd.arg.strip():
        return s.next_reply()
    tid = s.resolve_track(cmd.arg)
    if tid is None and cmd.query:
        return s.query(cmd.query)
    if tid is None:
        return views.text_reply(s.unknown_track(cmd.arg, "next"))
    return views.next_reply(s.rt.holder.catalog, [tid], s.read(), s.lang)
