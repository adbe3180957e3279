"""The caller's progress: ``read`` / ``unread`` posts (ids, a link or a query), ``follow`` / ``unfollow`` tracks."""

from __future__ import annotations

from bot.domain.search import SearchResult
from bot.slack import grammar
from bot.slack.commands import replies
from bot.slack.commands.context import Context
from bot.slack.commands.plan import finish_notice, with_finish
from bot.slack.commands.remind import cancelled_by_read, pending_of
from bot.slack.i18n import join_list, t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply
from bot.slack.views.search import search_reply


def _named_posts(ctx: Context, text: str) -> tuple[list[str], SearchResult | None] | Reply:
    """The posts ``text`` names (a post's link, else :meth:`Finder.resolve_posts`), or the reply to an unknown link."""
    link = ctx.find.link(text)
    if link is not None and link.status in ("unknown", "home"):  # on the blog host, but not a catalog post
        return views.text_reply(t(f"search.{link.status}_link", ctx.lang, url=truncate(link.url, 300)))
    if link is not None and link.status == "post" and link.post_id:
        return [link.post_id], None
    return ctx.find.resolve_posts(text)


def _pick(ctx: Context, text: str, candidates: SearchResult, read: bool) -> Reply:
    """Several posts match about as well: the results, asking to pick (``unread``'s example: one read);
    ``read <track>`` (``read spec``) says the words name a track and how to see its path or next read."""
    done = ctx.reader.read()
    example = next((r.post_id for r in candidates.results if r.post_id in done), candidates.results[0].post_id)
    notice = t("read.pick", ctx.lang) if read else t("unread.pick", ctx.lang, example=example)
    if read and (tid := replies.current_track(ctx, text.strip())) is not None:  # `read spec`: a track (QA round 18)
        notice = t(
            "read.track", ctx.lang, query=text.strip(), track=views.track_name(ctx.catalog, tid, ctx.lang), track_id=tid
        )
    return search_reply(ctx.catalog, text, candidates, done, ctx.lang, notice=notice)


def mark(ctx: Context, cmd: grammar.Command) -> Reply:
    """Resolve the posts (close matches let the reader pick), update progress, confirm; after
    ``read`` say where that leaves the reader in the track most of the posts are in (:func:`replies.main_track`)."""
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

    def titles(ids: list[str]) -> Mrkdwn:
        return join_list([views.post_link(cat, p, lang=ctx.lang) for p in ids], ctx.lang)

    if not read:  # the same progress line as ``read`` (QA: ``unread`` gave none)
        changed = ctx.reader.mark_unread(post_ids)
        msg = t("unread.done" if changed else "unread.already", ctx.lang, posts=titles(post_ids))
        tid = replies.main_track(ctx, post_ids)
        return replies.progress(ctx, tid, msg) if tid else views.text_reply(msg)
    before, pending = ctx.reader.read(), pending_of(ctx, post_ids)
    newly = ctx.reader.mark_read(post_ids)  # (QA) each post said as what it was: marked now, or already read
    fresh, already = [p for p in post_ids if p in newly], [p for p in post_ids if p not in newly]
    said = [t("read.done", ctx.lang, posts=titles(fresh))] if fresh else []
    msg = Mrkdwn("\n").join([*said, t("read.already", ctx.lang, posts=titles(already))] if already else said)
    if (dropped := cancelled_by_read(ctx, pending, named=len(post_ids) > 1)) is not None:  # QA: went unsaid
        msg = Mrkdwn("{}\n{}").format(msg, dropped)  # after a link: a line of its own (QA: read as one)
    msg = with_finish(msg, finish_notice(ctx, post_ids, before))  # issue 24: the finish line
    tid = replies.main_track(ctx, post_ids)  # where that leaves the reader, in one line (issue 40)
    return replies.progress(ctx, tid, msg) if tid else views.text_reply(msg)


def _tracks_of_post(ctx: Context, text: str) -> tuple[str, ...]:
    """The tracks of the post ``text`` names exactly (its id or former id, or its link), else ``()``."""
    link = ctx.find.link(text)
    ids = [link.post_id] if link is not None and link.post_id else ctx.find.exact_post_ids(text.split())
    return ctx.catalog.tracks_of(ids[0]) if ids and len(ids) == 1 else ()


def follow(ctx: Context, cmd: grammar.Command) -> Reply:
    """Follow (then say the progress and next step, in one line) or unfollow the track ``cmd.arg`` names;
    a post's id or link names the post's track (a post of several tracks gets the choice); several
    tracks (``follow spec pd``): each, then the progress line and next step of each."""
    cat = ctx.catalog
    if cmd.kind == "unfollow" and not cmd.arg.strip():  # QA: listed all 14 tracks, not the reader's
        return views.text_reply(_which_to_unfollow(ctx))
    tid = ctx.find.track(cmd.arg)
    if tid is None and (several := several_tracks(ctx, cmd)) is not None:  # `follow spec pd`, `unfollow all`
        said = _follow_several(ctx, cmd.kind, several) + not_tracks(ctx, cmd)
        if cmd.kind == "follow":  # where the reader stands in each, as `follow spec` says it (QA)
            return replies.next_reads(ctx, notice=said, track_ids=several)
        return views.text_reply(said)
    if tid is None and cmd.kind == "follow" and cmd.arg.casefold().strip() in ALL_WORDS:  # one by one: say how
        return views.text_reply(t("follow.all", ctx.lang, tracks=replies.tracks_list(ctx)))
    if tid is None:  # a post's id or link: its track, or the choice of its tracks
        tracks = _tracks_of_post(ctx, cmd.arg)
        if len(tracks) == 1:
            tid = tracks[0]
        elif tracks:
            names = replies.track_items(ctx, tracks)
            return views.text_reply(
                t("follow.post_tracks", ctx.lang, tracks=names, command=cmd.kind, track_id=tracks[0])
            )
    if tid is None:
        return views.text_reply(replies.unknown_track(ctx, cmd.arg, cmd.kind))
    name = views.track_name(cat, tid, ctx.lang)
    if cmd.kind == "follow":
        if not ctx.reader.follow(tid):
            return views.text_reply(t("follow.already", ctx.lang, track=name))
        return replies.progress(ctx, tid, t("follow.done_short", ctx.lang, track=name))
    removed = ctx.reader.unfollow(tid)
    return views.text_reply(t("unfollow.done" if removed else "unfollow.not", ctx.lang, track=name))


ALL_WORDS = frozenset({"all", "everything", "every", "all tracks", "全部", "所有", "全部主题", "所有主题"})
"""What ``unfollow all`` (``取消关注 全部``) names: every track the caller follows."""


def several_tracks(ctx: Context, cmd: grammar.Command) -> list[str] | None:
    """The tracks ``cmd.arg`` names one word each (``spec pd quant``, ``spec, pd``: two or more;
    ``spec foo``: one, and a word that is none, :func:`not_tracks`), or
    for ``unfollow all`` the followed ones; else None (``follow all``: no track, refused as such)."""
    words = [w for w in cmd.arg.replace(",", " ").replace("，", " ").replace("、", " ").split() if w]
    if cmd.kind == "unfollow" and " ".join(words).casefold() in ALL_WORDS:
        return [tid for tid in ctx.reader.follows() if ctx.catalog.has_track(tid)]
    words = [w for w in words if w.casefold() not in ("and", "和", "&")]
    found = [ctx.find.track(w) for w in words]
    tracks = list(dict.fromkeys(tid for tid in found if tid is not None))
    return tracks if len(words) >= 2 and (len(tracks) >= 2 or (None in found and tracks)) else None


def not_tracks(ctx: Context, cmd: grammar.Command) -> Mrkdwn:
    """What of ``cmd.arg`` names no track (``follow spec foo pd``: “foo”, QA), said after the tracks
    followed: a word close to a track's name suggests that track, as ``follow spc`` alone does
    (:meth:`Finder.near_track`), the others are named with no example; empty when each word is a track."""
    words = [w for w in cmd.arg.replace(",", " ").replace("，", " ").replace("、", " ").split() if w]
    if cmd.kind == "unfollow" and " ".join(words).casefold() in ALL_WORDS:  # `unfollow all`: no track word
        return Mrkdwn()
    unknown = [w for w in words if w.casefold() not in ("and", "和", "&") and ctx.find.track(w) is None]
    near = {w: match for w in unknown if (match := ctx.find.near_track(w)) is not None}
    said = [
        t(
            "follow.not_track_near",
            ctx.lang,
            word=truncate(w, 40),
            track=views.track_name(ctx.catalog, m.track_id, ctx.lang),
            command=cmd.kind,
            track_id=m.track_id,
        )
        for w, m in near.items()
    ]
    if rest := [w for w in unknown if w not in near]:
        said.append(t("follow.not_tracks_plain", ctx.lang, words=truncate(" ".join(rest), 80)))
    if not said:
        return Mrkdwn()
    space = Mrkdwn("" if ctx.lang == "zh" else " ")
    return space + space.join(said)


def _follow_several(ctx: Context, kind: str, tracks: list[str]) -> Mrkdwn:
    """Follow or unfollow each of ``tracks``; one sentence for what changed, one for what was so
    already (``unfollow all`` following nothing: that there is nothing to unfollow)."""
    if not tracks:
        return t("unfollow.none", ctx.lang)
    follow = kind == "follow"
    changed = [tid for tid in tracks if (ctx.reader.follow(tid) if follow else ctx.reader.unfollow(tid))]
    same = [tid for tid in tracks if tid not in changed]
    names = {tid: Mrkdwn("*{}*").format(views.track_name(ctx.catalog, tid, ctx.lang)) for tid in tracks}
    said = []
    if changed:
        key = "follow.several_done" if follow else "unfollow.several_done"
        said.append(t(key, ctx.lang, tracks=join_list([names[x] for x in changed], ctx.lang)))
    if same and follow:
        said.append(t("follow.several_already", ctx.lang, tracks=join_list([names[x] for x in same], ctx.lang)))
    elif same:  # "either A or B" (QA: "not following A and B" read as not both); zh: "A和B你都没有关注"
        key = "unfollow.several_not_any" if len(same) > 2 else "unfollow.several_not_either"
        said.append(t(key, ctx.lang, tracks=_or_list([names[x] for x in same], ctx.lang)))
    return Mrkdwn("" if ctx.lang == "zh" else " ").join(said)


def _or_list(items: list[Mrkdwn], lang: str) -> Mrkdwn:
    """``items`` joined with "or" in English (``A, B, or C``; Babel's CLDR ``or`` list), with "and"
    in Chinese, whose sentence says "neither" itself (``A、B和C你都没有关注``)."""
    if lang == "zh":
        return join_list(items, lang)
    from babel.lists import format_list  # deferred: CLDR's data on first use

    return Mrkdwn(format_list([str(x) for x in items], style="or", locale="en"))


def _which_to_unfollow(ctx: Context) -> Mrkdwn:
    """``unfollow`` without a track: the tracks the caller follows (``` `id` (name) ```), or that there are none."""
    cat = ctx.catalog
    followed = [tid for tid in ctx.reader.follows() if cat.has_track(tid)]
    if not followed:
        return t("unfollow.none", ctx.lang)
    names = replies.track_items(ctx, followed)
    return t("unfollow.which", ctx.lang, tracks=names, track_id=followed[0])
