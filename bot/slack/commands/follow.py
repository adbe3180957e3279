"""``follow`` / ``unfollow`` a track."""

from __future__ import annotations

from bot import paths
from bot.slack import grammar
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.i18n import t
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


@command("follow", "unfollow")
def follow(s: Session, cmd: grammar.Command) -> Reply:
    """Follow (then show the track with its next step) or unfollow the track ``cmd.arg`` names."""
    cat = s.rt.holder.catalog
    tid = s.resolve_track(cmd.arg)
    if tid is None:
        return views.text_reply(s.unknown_track(cmd.arg, cmd.kind))
    name = views.track_name(cat, tid, s.lang)
    if cmd.kind == "follow":
        if not s.follow(tid):
            return views.text_reply(t("follow.already", s.lang, track=name))
        nxt = paths.next_step(cat, tid, s.read())
        post = views.post_link(cat, nxt.post, lang=s.lang) if nxt else t("track.done", s.lang)
        return s.track_view(tid, notice=t("follow.done", s.lang, track=name, post=post))
    removed = s.unfollow(tid)
    return views.text_reply(t("unfollow.done" if removed else "unfollow.not", s.lang, track=name))
