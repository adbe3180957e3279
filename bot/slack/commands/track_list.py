"""``tracks`` (``all tracks``, ``track list``, ``主题``): the catalog's tracks, one line each, with the
caller's place in the ones they follow or have started (QA round 16: ``tracks`` alone was searched,
"No post matches “tracks”", and the list came only under that refusal)."""

from __future__ import annotations

from bot.slack import grammar
from bot.slack.commands.context import Context
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply
from bot.slack.views.parts import read_count


def list_tracks(ctx: Context, cmd: grammar.Command) -> Reply:
    """Every track of the catalog in catalog order: ``• `id` name · N posts, essential path M min``,
    or the caller's count (``2 of 8 essential read · …``, :func:`~bot.slack.views.parts.read_count`)
    for a track they follow or have read in, marked *following* when followed; headed by the
    commands that open and follow one. ``cmd`` is not read (the list has no argument)."""
    lang, cat = ctx.lang, ctx.catalog
    followed = set(ctx.reader.follows())
    lines = [t("tracks.head", lang)]
    for track in cat.tracks:
        state = ctx.reader.state(track.id)
        name = track.names.get(lang)
        if state.read_count or track.id in followed:
            where = read_count(state, lang)
        else:
            where = t("tracks.size", lang, total=state.total, minutes=state.path.essential_minutes)
        line = t("tracks.line", lang, id=track.id, name=name, where=where)
        if track.id in followed:
            line = Mrkdwn("{}{}").format(line, t("tracks.following", lang))
        lines.append(line)
    return views.text_reply(Mrkdwn("\n").join(lines))
