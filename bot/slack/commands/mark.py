"""``read`` / ``unread``: mark posts (ids or a query) read or not, and confirm."""

from __future__ import annotations

from bot.slack import grammar
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


@command("read", "unread")
def mark(s: Session, cmd: grammar.Command) -> Reply:
    """Resolve the posts (exact ids, else a clear search match; close matches let the reader
    pick), update progress, confirm; after ``read`` show the post's first track."""
    cat = s.rt.holder.catalog
    text, read = cmd.arg, cmd.kind == "read"
    if not text.strip():
        return views.text_reply(t("read.which", s.lang))
    post_ids, candidates = s.resolve_posts(text)
    if candidates is not None:  # several posts match about as well: let the reader pick
        return views.search_reply(cat, text, candidates, s.read(), s.lang, notice=t("read.pick", s.lang))
    if not post_ids:
        suggestion = s.suggest(text)
        msg = t("read.no_match", s.lang, query=truncate(text, 100))
        return views.text_reply(msg + (Mrkdwn("\n") + suggestion if suggestion else Mrkdwn()))
    titles = Mrkdwn(", ").join(views.post_link(cat, p) for p in post_ids)
    if read:
        changed = s.mark_read(post_ids)
        msg = t("read.done" if changed else "read.already", s.lang, posts=titles)
        tracks = cat.tracks_of(post_ids[0])  # where that leaves the reader in the post's first track
        if tracks:
            return s.track_view(tracks[0], notice=msg)
        return views.text_reply(msg)
    changed = s.mark_unread(post_ids)
    return views.text_reply(t("unread.done" if changed else "unread.already", s.lang, posts=titles))
