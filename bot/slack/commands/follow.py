"""``follow`` / ``unfollow`` a track."""

from __future__ import annotations

from bot.domain import paths
from bot.slack import grammar
from bot.slack.commands import replies
from bot.slack.commands.context import Context
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


def _tracks_of_post(ctx: Context, text: str) -> tuple[str, ...]:
    """The tracks of the post ``text`` names exactly (its id or former id, or its link), else ``()``."""
    link = ctx.find.link(text)
    ids = [link.post_id] if link is not None and link.post_id else ctx.find.exact_post_ids(text.split())
    return ctx.catalog.tracks_of(ids[0]) if ids and len(ids) == 1 else ()


def follow(ctx: Context, cmd: grammar.Command) -> Reply:
    """Follow (then show the track with its next step) or unfollow the track ``cmd.arg`` names;
    a post's id or link names the post's track (a post of several tracks gets the choice)."""
    cat = ctx.catalog
    tid = ctx.find.track(cmd.arg)
    if tid is None:  # a post's id or link: its track, or the choice of its tracks
        tracks = _tracks_of_post(ctx, cmd.arg)
        if len(tracks) == 1:
            tid = tracks[0]
        elif tracks:
            names = Mrkdwn(", ").join(Mrkdwn("`{}` ({})").format(x, views.track_name(cat, x, ctx.lang)) for x in tracks)
            return views.text_reply(
                t("follow.post_tracks", ctx.lang, tracks=names, command=cmd.kind, track_id=tracks[0])
            )
    if tid is None:
        return views.text_reply(replies.unknown_track(ctx, cmd.arg, cmd.kind))
    name = views.track_name(cat, tid, ctx.lang)
    if cmd.kind == "follow":
        if not ctx.reader.follow(tid):
            return views.text_reply(t("follow.already", ctx.lang, track=name))
        nxt = paths.next_step(cat, tid, ctx.reader.read())
        post = views.post_link(cat, nxt.post, lang=ctx.lang) if nxt else t("track.done", ctx.lang)
        return replies.track_view(ctx, tid, notice=t("follow.done", ctx.lang, track=name, post=post))
    removed = ctx.reader.unfollow(tid)
    return views.text_reply(t("unfollow.done" if removed else "unfollow.not", ctx.lang, track=name))
