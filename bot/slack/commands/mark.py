"""``read`` / ``unread``: mark posts (ids or a query) read or not, and confirm."""

from __future__ import annotations

from bot.domain.search import SearchResult
from bot.slack import grammar
from bot.slack.commands import replies
from bot.slack.commands.context import Context
from bot.slack.commands.plan import finish_notice, with_finish
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply
from bot.slack.views.search import search_reply


def _named_posts(ctx: Context, text: str) -> tuple[list[str], SearchResult | None] | Reply:
    """The posts ``text`` names (a post's link, else :meth:`Finder.resolve_posts`), or the reply to an unknown link."""
    link = ctx.find.link(text)
    if link is not None and link.status == "unknown":  # on the blog host, but not in the catalog
        return views.text_reply(t("search.unknown_link", ctx.lang, url=truncate(link.url, 300)))
    if link is not None and link.status == "post" and link.post_id:
        return [link.post_id], None
    return ctx.find.resolve_posts(text)


def _pick(ctx: Context, text: str, candidates: SearchResult, read: bool) -> Reply:
    """Several posts match about as well: the results, asking to pick (``unread``'s example: one read)."""
    done = ctx.reader.read()
    example = next((r.post_id for r in candidates.results if r.post_id in done), candidates.results[0].post_id)
    notice = t("read.pick", ctx.lang) if read else t("unread.pick", ctx.lang, example=example)
    return search_reply(ctx.catalog, text, candidates, done, ctx.lang, notice=notice)


def mark(ctx: Context, cmd: grammar.Command) -> Reply:
    """Resolve the posts (close matches let the reader pick), update progress, confirm; after
    ``read`` show the post's track (the first the reader follows, else the post's first)."""
    cat, text, read = ctx.catalog, cmd.arg, cmd.kind == "read"
    if not text.strip():
        return views.text_reply(t("read.which" if read else "unread.which", ctx.lang))
    named = _named_posts(ctx, text)
    if isinstance(named, Reply):
        return named
    post_ids, candidates = named
    if candidates is not None:
        return _pick(ctx, text, candidates, read)
    if not post_ids:
        suggestion = replies.suggest(ctx, text)
        msg = t("read.no_match", ctx.lang, query=truncate(text, 100))
        return views.text_reply(msg + (Mrkdwn("\n") + suggestion if suggestion else Mrkdwn()))
    titles = Mrkdwn(", ").join(views.post_link(cat, p, lang=ctx.lang) for p in post_ids)
    if not read:
        changed = ctx.reader.mark_unread(post_ids)
        return views.text_reply(t("unread.done" if changed else "unread.already", ctx.lang, posts=titles))
    before = ctx.reader.read()
    msg = t("read.done" if ctx.reader.mark_read(post_ids) else "read.already", ctx.lang, posts=titles)
    msg = with_finish(msg, finish_notice(ctx, post_ids, before))  # issue 24: the finish line
    tracks = cat.tracks_of(post_ids[0])
    if not tracks:
        return views.text_reply(msg)
    follows = ctx.reader.follows()  # where that leaves the reader: in a track they follow, else the post's first
    return replies.track_view(ctx, next((tid for tid in tracks if tid in follows), tracks[0]), notice=msg)
