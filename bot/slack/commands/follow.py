"""``follow`` / ``unfollow`` a track."""

from __future__ import annotations

from bot.domain import paths
from bot.slack import grammar
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


def _tracks_of_post(s: Session, text: str) -> tuple[str, ...]:
    """The tracks of the post ``text`` names exactly (its id or former id, or its link), else ``()``."""
    link = s.rt.holder.loaded.matcher.resolve_link(text)
    ids = [link.post_id] if link is not None and link.post_id else s.exact_post_ids(text.split())
    return s.rt.holder.catalog.tracks_of(ids[0]) if ids and len(ids) == 1 else ()


@command("follow", "unfollow")
def follow(s: Session, cmd: grammar.Command) -> Reply:
    """Follow (then show the track with its next step) or unfollow the track ``cmd.arg`` names;
    a post's id or link names the post's track (a post of several tracks gets the choice)."""
    cat = s.rt.holder.catalog
    tid = s.resolve_track(cmd.arg)
    if tid is None:  # a post's id or link: its track, or the choice of its tracks
        tracks = _tracks_of_post(s, cmd.arg)
        if len(tracks) == 1:
            tid = tracks[0]
        elif tracks:
            names = Mrkdwn(", ").join(Mrkdwn("`{}` ({})").format(x, views.track_name(cat, x, s.lang))
                                      for x in tracks)
            return views.text_reply(t("follow.post_tracks", s.lang, tracks=names, command=cmd.kind,
                                      track_id=tracks[0]))
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
