"""``read`` / ``unread``: mark posts (ids or a query) read or not, and confirm."""

from __future__ import annotations

from bot.slack import grammar
from bot.slack.commands.plan import finish_notice, with_finish
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply
from bot.slack.views.search import search_reply


@command("read", "unread")
def mark(s: Session, cmd: grammar.Command) -> Reply:
    """Resolve the posts (a link to a catalog post in any form :func:`bot.domain.search.resolve_link`
    reads; exact ids; else a clear search match, close matches letting the reader pick), update
    progress, confirm; after ``read`` show the post's track: the first the reader follows, else
    the post's first. A link on the blog host that
    no catalog post has says the post is not in the catalog yet."""
    cat = s.rt.holder.catalog
    text, read = cmd.arg, cmd.kind == "read"
    if not text.strip():
        return views.text_reply(t("read.which" if read else "unread.which", s.lang))
    link = s.rt.holder.loaded.matcher.resolve_link(text)
    if link is not None and link.status == "unknown":  # on the blog host, but not in the catalog
        return views.text_reply(t("search.unknown_link", s.lang, url=truncate(link.url, 300)))
    if link is not None and link.status == "post" and link.post_id:
        post_ids, candidates = [link.post_id], None
    else:
        post_ids, candidates = s.resolve_posts(text)
    if candidates is not None:  # several posts match about as well: let the reader pick
        done = s.read()  # unread: the example is a post the reader has read, when one matches
        example = next((r.post_id for r in candidates.results if r.post_id in done),
                       candidates.results[0].post_id)
        notice = t("read.pick", s.lang) if read else t("unread.pick", s.lang, example=example)
        return search_reply(cat, text, candidates, s.read(), s.lang, notice=notice)
    if not post_ids:
        suggestion = s.suggest(text)
        msg = t("read.no_match", s.lang, query=truncate(text, 100))
        return views.text_reply(msg + (Mrkdwn("\n") + suggestion if suggestion else Mrkdwn()))
    titles = Mrkdwn(", ").join(views.post_link(cat, p, lang=s.lang) for p in post_ids)
    if read:
        before = s.read()
        changed = s.mark_read(post_ids)
        msg = t("read.done" if changed else "read.already", s.lang, posts=titles)
        msg = with_finish(msg, finish_notice(s, post_ids, before))  # issue 24: the finish line
        tracks = cat.tracks_of(post_ids[0])
        if tracks:  # where that leaves the reader: in a track they follow, else the post's first
            follows = s.follows()
            followed = [tid for tid in tracks if tid in follows]
            return s.track_view((followed or tracks)[0], notice=msg)
        return views.text_reply(msg)
    changed = s.mark_unread(post_ids)
    return views.text_reply(t("unread.done" if changed else "unread.already", s.lang, posts=titles))
