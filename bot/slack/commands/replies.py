"""Replies several use cases share (a track's path, search results, the newest posts, the next
reads, did-you-mean lines, the redraw of a button's message); the Block Kit is the views'."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Post
from bot.domain.search import PostMatch, SearchResult
from bot.domain.search.links import slug_words
from bot.slack import grammar
from bot.slack.commands.context import Context
from bot.slack.commands.plan import track_path_line
from bot.slack.commands.reminder_numbers import numbered
from bot.slack.grammar_phrases import ASKED_TOPIC, TRACK_QUESTION
from bot.slack.i18n import join_list, t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply
from bot.slack.views.parts import memo_reply
from bot.slack.views.reminders import reminders_reply
from bot.slack.views.search import search_reply

_FORM_ENDINGS = ("s", "d", "ed", "er", "ers", "ing")
"""Endings that make an English word a form of a command's keyword (``reminder``, ``follows``)."""


def known_word(ctx: Context, word: str) -> bool:
    """Whether ``word`` is a word in its own right, not a mistyped command: an everyday English word
    (:func:`bot.domain.search.analysis.english_words`: ``ready``) or one the search answers with
    confidence alone (catalog vocabulary: ``sglang``, ``nixl``; :attr:`SearchResult.confidence`);
    never a form of a keyword (``reminder``, ``follows``, ``subscription``: the command meant)."""
    from bot.domain.search.analysis import english_words  # deferred: read for a near-miss only

    low = word.casefold()
    keys = [key for key in grammar.KEYWORDS if key.isascii()]
    if any(low + end == key or low == key + end for key in keys for end in _FORM_ENDINGS):  # `subscription`
        return False
    return low in english_words() or ctx.find.posts(low, limit=1).confidence == "confident"


def suggest_command(ctx: Context, text: str) -> Mrkdwn | None:
    """A did-you-mean line when ``text`` starts with a near miss of a command (:func:`grammar.near_command`)
    that is no known word (:func:`known_word`: ``ready for production`` is no mistyped ``read``)."""
    meant = grammar.near_command(text)
    if meant is None or known_word(ctx, text.split()[0].lstrip("/")):
        return None
    return t("didyoumean.command", ctx.lang, suggestion=truncate(meant, 200))


def suggest(ctx: Context, text: str, command: str = "") -> Mrkdwn | None:
    """A did-you-mean line for unmatched text: the track :meth:`Finder.near_track` finds, with
    ``command`` before its id (``follow sepc`` suggests ``/vllm-path follow spec``)."""
    match = ctx.find.near_track(text)
    if match is None:
        return None
    tid, name = match.track_id, ctx.catalog.track(match.track_id).names.get(ctx.lang)
    return t("didyoumean.track", ctx.lang, track=name, track_id=f"{command} {tid}" if command else tid)


def track_items(ctx: Context, track_ids: Sequence[str]) -> Mrkdwn:
    """The tracks ``track_ids`` (in the catalog) as ``\\`id\\` (name)`` (full-width brackets in
    Chinese), one list in the caller's language (:func:`~bot.slack.i18n.join_list`: ``、`` in Chinese)."""
    item = Mrkdwn("`{}`（{}）" if ctx.lang == "zh" else "`{}` ({})")
    return join_list([item.format(tid, views.track_name(ctx.catalog, tid, ctx.lang)) for tid in track_ids], ctx.lang)


def tracks_list(ctx: Context) -> Mrkdwn:
    """Every track as ``\\`id\\` (name)``, one list (:func:`track_items`)."""
    return track_items(ctx, [tr.id for tr in ctx.catalog.tracks])


HOLDING_COMMANDS = frozenset({"follow", "subscribe", "next", ""})
"""Commands whose unknown track may be answered with the track a word's posts are in (:func:`posts_track`)."""


def posts_track(ctx: Context, text: str, command: str = "") -> Mrkdwn | None:
    """For a word that is no track but whose posts are mostly in one (``follow fp8``: three or more
    of its first five confident matches in *Quantization*; roadmap, session 11), a line naming that
    track and the ``command`` for it; None otherwise, or for a command that only undoes
    (``unfollow``: :data:`HOLDING_COMMANDS`)."""
    if command not in HOLDING_COMMANDS:
        return None
    result = ctx.find.posts(text, limit=5)
    tid = result.leading_track
    if result.confidence != "confident" or not result.results:
        return None
    if tid is None or not ctx.catalog.has_track(tid):
        tid = ""  # two tracks lead alike: spread
    shown = truncate(text, 100)
    if sum(tid in match.tracks for match in result.results) < 3:  # spread: the tracks, and the search
        held = Counter(t for match in result.results for t in match.tracks if ctx.catalog.has_track(t))
        tracks = [t for t, n in held.most_common(3) if n >= 2]
        if len(tracks) < 2:
            return None
        items = track_items(ctx, tracks)
        return t("track.posts_spread", ctx.lang, query=shown, tracks=items, search=truncate(" ".join(text.split()), 60))
    name = views.track_name(ctx.catalog, tid, ctx.lang)
    return t("track.posts_in", ctx.lang, query=shown, track=name, track_id=f"{command} {tid}" if command else tid)


def unknown_track(ctx: Context, text: str, command: str = "") -> Mrkdwn:
    """The answer when ``text`` names no track: the list, and a did-you-mean (:func:`suggest`), else
    the track the posts on ``text`` are in (:func:`posts_track`)."""
    if not text.strip():
        return t("track.which", ctx.lang, tracks=tracks_list(ctx))
    suggestion = suggest(ctx, text, command) or posts_track(ctx, text, command)
    base = t("track.unknown", ctx.lang, query=truncate(text, 100), tracks=tracks_list(ctx))
    return base + (Mrkdwn("\n") + suggestion if suggestion else Mrkdwn())


def track_view(ctx: Context, track_id: str, notice: str | None = None, offset: int | None = None) -> Reply:
    """The track reply for the caller; ``offset`` the first step listed (``None``: around the next one)."""
    followed, path = track_id in ctx.reader.follows(), track_path_line(ctx, track_id)
    state = ctx.reader.state(track_id)
    return views.track_reply(ctx.catalog, state, ctx.lang, followed=followed, notice=notice, offset=offset, path=path)


def query(ctx: Context, text: str, notice: str | None = None, offset: int = 0) -> Reply:
    """A track's path when ``text`` names a track or asks about one as a whole (``where do I begin
    with X``, or a track's name and how to read it: ``spec 怎么读``, :data:`~bot.slack.grammar_phrases.TRACK_QUESTION`),
    otherwise search results (:func:`search`)."""
    asked = TRACK_QUESTION.match(text.strip())
    if (pair := _two_tracks(ctx, text)) is not None:  # "quantization vs speculative decoding": both paths
        names = join_list(
            [Mrkdwn("*{}*").format(views.track_name(ctx.catalog, tid, ctx.lang)) for tid in pair], ctx.lang
        )
        ids = join_list([Mrkdwn("`/vllm-path {}`").format(tid) for tid in pair], ctx.lang)
        return next_reads(
            ctx, notice=t("search.side_by_side", ctx.lang, tracks=names, commands=ids), track_ids=list(pair)
        )
    if "." in text and (link := ctx.find.link(text)) is not None:
        if link.status == "post":
            return search(ctx, text, notice=notice, offset=offset)  # a post's link: that post, whatever its words
        if link.status == "foreign" and (words := slug_words(link.url)) and ctx.find.posts(words, limit=1).results:
            said = t("search.link_words", ctx.lang, words=truncate(words, 100))  # an article we do not know
            return search(ctx, words, notice=notice or said, offset=offset)
    track_id = ctx.find.track(text) or ctx.find.topic(text) or (ctx.find.track(asked["t"]) if asked else None)
    if track_id is not None:
        return track_view(ctx, track_id, notice=notice)
    return search(ctx, text, notice=notice, offset=offset)


_VERSUS = re.compile(r"\s+(?:vs\.?|versus|or|and|with)\s+|\s*(?:对比|和|与|跟|还是|或)\s*", re.IGNORECASE)
"""What sets subjects side by side (``quantization vs speculative decoding``, ``spec和pd``)."""

_VERSUS_FRAME = re.compile(
    r"^\s*(?:compare|comparing|difference\s+between|diff\s+between|对比|比较)\s+"
    r"|\s*(?:的区别|有什么区别|有啥区别|区别是什么|区别|哪个好|哪个更好|which\s+is\s+better|which\s+one)?\s*[?？]*\s*$",
    re.IGNORECASE,
)
"""Words that only frame a comparison (``compare X and Y``, ``X和Y的区别``, ``X vs Y which is better``)."""


def _two_tracks(ctx: Context, text: str) -> tuple[str, ...] | None:
    """The tracks (two to four, all different) ``text`` sets side by side when each of its parts
    names one (:data:`_VERSUS`, the frame :data:`_VERSUS_FRAME` dropped;
    :meth:`~bot.slack.commands.context.Finder.track`: a typo or an alias counts) (QA rounds 10 and
    12: ``quantization vs speculative decoding`` listed two speculative-decoding posts, ``spec vs pd
    vs quant`` five); else None."""
    parts = [p for p in _VERSUS.split(_VERSUS_FRAME.sub("", text)) if p.strip()]
    if not 2 <= len(parts) <= 4 or any(len(p.split()) > 4 for p in parts):
        return None  # a track is named in a few words: a sentence around "and" is no comparison
    tracks = [ctx.find.track(p.strip()) for p in parts]
    if any(tid is None for tid in tracks) or len(set(tracks)) != len(tracks):
        return None
    return tuple(tid for tid in tracks if tid is not None)


def search(ctx: Context, text: str, notice: str | None = None, offset: int = 0) -> Reply:
    """Search results for ``text``, ``views.MAX_RESULTS`` from ``offset`` (one word near a track's name
    points at it); without a ``notice``, kept (:func:`~bot.slack.views.parts.memo_reply`): do not change it."""
    if notice:  # a notice is one click's answer: not worth keeping
        return search_now(ctx, text, notice, offset)
    key = ("search", text, offset, ctx.lang, frozenset(ctx.reader.read()))
    return memo_reply(ctx.catalog, key, lambda: search_now(ctx, text, None, offset))


def search_now(ctx: Context, text: str, notice: str | None, offset: int) -> Reply:
    """:func:`search` computed afresh (never kept)."""
    result = ctx.find.posts(text, limit=views.MAX_RESULTS, offset=offset)
    if offset and not result.results and result.total:  # the page is gone: show the first
        result = ctx.find.posts(text, limit=views.MAX_RESULTS)
    if not result.results and result.known and not ctx.find.posts(result.known, limit=1).results:
        result = replace(result, known=None)  # "search fine tune llama" would find nothing either
    quiet = bool(result.results) or not text.strip() or result.link is not None  # a link: no guess
    if result.results and result.track is None and len(text.split()) == 1:
        # posts found for a word near a track name ("qaunt" finds quantization posts): point at it
        near = ctx.find.near_track(text)  # only the track the posts found lead to: `kv` is no typo of `pd`
        result = replace(result, track=near) if near and near.track_id == result.leading_track else result
    suggestion = None if quiet else suggest_command(ctx, text) or suggest(ctx, text)
    header, read = _asked_header(ctx, text, result), ctx.reader.read()
    return search_reply(
        ctx.catalog,
        text,
        result,
        read,
        ctx.lang,
        notice=notice,
        suggestion=suggestion,
        header=header,
        count_key="search.more_count",
    )


def _asked_header(ctx: Context, text: str, result: SearchResult) -> Mrkdwn | None:
    """The results' heading quoting the words searched when ``text`` only frames them as a question
    (``qwen3 是什么``: “qwen3”, :data:`~bot.slack.grammar_phrases.ASKED_TOPIC`); None: the usual one."""
    asked = ASKED_TOPIC.match(" ".join(text.split()))
    words = asked["t"] if asked else ""
    if not result.results or not words or words == " ".join(text.split()):
        return None
    key = "search.closest" if result.confidence == "closest" else "search.header"
    return t(key, ctx.lang, query=truncate(words, 100))


def latest(ctx: Context, notice: str | None = None, offset: int = 0, track_id: str | None = None) -> Reply:
    """The newest posts (``what's new``, :func:`_newest_first` for the caller's followed tracks), or
    those of ``track_id`` (``what's new in spec``): a page of ``views.MAX_RESULTS`` from ``offset``
    shown as search results, kept as :func:`search` is. Buttons' view: ``latest`` or ``latest:<track>``."""
    catalog, follows = ctx.catalog, tuple(ctx.reader.follows())

    def build() -> Reply:
        order = _newest_first(catalog, follows)
        if track_id is not None:
            steps = set(catalog.order(track_id))
            order = [p for p in order if p in steps]
        start = offset if offset < len(order) else 0
        first = (track_id,) if track_id is not None else follows  # QA round 18: *Open path* of a followed track
        page = tuple(
            PostMatch(pid, 100.0, "date", tuple(sorted(catalog.tracks_of(pid), key=lambda tid: tid not in first)))
            for pid in order[start : start + views.MAX_RESULTS]
        )
        result = SearchResult("", None, page, None, total=len(order), offset=start)
        mine = any(catalog.has_track(tid) for tid in follows)  # QA: the heading hid the followed-first order
        if track_id is not None:
            header = t("latest.header_track", ctx.lang, track=catalog.track(track_id).names.get(ctx.lang))
        else:
            header = t("latest.header_followed" if mine else "latest.header", ctx.lang)
        view = "latest" if track_id is None else f"latest:{track_id}"
        count = "latest.count_followed" if mine and track_id is None else "latest.count_blog_first"  # as ordered (QA)
        read = ctx.reader.read()
        return search_reply(
            catalog, "", result, read, ctx.lang, notice=notice, header=header, view=view, count_key=count
        )

    if notice:
        return build()
    key = ("latest", offset, ctx.lang, frozenset(ctx.reader.read()), follows, track_id)
    return memo_reply(catalog, key, build)


def _newest_first(catalog: Catalog, follows: Sequence[str] = ()) -> list[str]:
    """Post ids, those with a link first; of those, the vLLM blog's before other
    companies' (issue 41: the first screen was all third-party summaries) and, within each, the
    posts of the ``follows`` tracks first; each part newest first by publication date (one known
    only to be after a day before it)."""
    mine = {p for tid in follows if catalog.has_track(tid) for p in catalog.order(tid)}

    def key(p: Post) -> tuple[bool, bool, bool, date, date]:
        linked = p.url is not None
        blog = linked and p.source.kind == "vllm-blog"
        return linked, blog, linked and p.id in mine, p.published.latest, p.published.earliest

    return [p.id for p in sorted(catalog.posts, key=key, reverse=True)]


def next_reads(ctx: Context, notice: str | None = None, track_ids: list[str] | None = None) -> Reply:
    """The caller's next read in each followed track (or in ``track_ids``); following none, in each
    track the caller has started (QA: ``next`` said only "you follow no track"), as
    :func:`~bot.domain.paths.started_tracks` counts them (an essential step read; QA round 8: one
    post read as further reading started three tracks), those whose essential path is unread first,
    with the ``follow`` command that adds those (a finished track is not offered to follow as
    started: its further reading is listed after them)."""
    tracks, read, cat = ctx.reader.follows() if track_ids is None else track_ids, ctx.reader.read(), ctx.catalog
    if track_ids is None and not any(cat.has_track(tid) for tid in tracks):
        started = paths.started_tracks(cat, read)
        todo = [tid for tid in started if not paths.essentials_done(cat, tid, read)]
        tracks = todo + [tid for tid in started if tid not in todo]
        several = len(todo) > 1  # QA: two started tracks, one named: `follow` takes them all
        key = "next.started_several" if several else "next.started"
        said = t(key, ctx.lang, track_id=" ".join(todo)) if todo else t("next.finished_only", ctx.lang)
        notice = notice or (said if tracks else None)
    return views.next_reply(cat, ctx.reader.states(tracks), ctx.lang, notice=notice)


def main_track(ctx: Context, post_ids: list[str]) -> str | None:
    """The track most of ``post_ids`` are in (QA: three internals steps showed the first post's first
    track); among those, one the reader follows, then the one they have read most in (started),
    then the one whose path has the posts earliest, as a share of its length (QA: with no follow,
    ``vllm-router-release``, step 2 of PD's essential path and later in *Deployment & operations*,
    showed the latter: catalog order); None when none is on a path. The same rule for ``read``,
    ``remind`` and *Mark read*, so one post always leads to one track for one reader."""
    counts = Counter(tid for p in post_ids for tid in ctx.catalog.tracks_of(p))
    if not counts:
        return None
    follows, read = ctx.reader.follows(), ctx.reader.read() - set(post_ids)

    def earliest(tid: str) -> float:
        order = ctx.catalog.order(tid)
        return min((order.index(p) for p in post_ids if p in order), default=len(order)) / max(len(order), 1)

    def started(tid: str) -> int:
        return sum(1 for p in ctx.catalog.order(tid) if p in read)

    return max(counts, key=lambda tid: (counts[tid], tid in follows, started(tid), -earliest(tid)))


def progress(ctx: Context, track_id: str, notice: str) -> Reply:
    """A small action's short answer: ``notice`` and where it leaves the caller in ``track_id``
    (:func:`bot.slack.views.messages.progress_reply`)."""
    return views.progress_reply(ctx.catalog, ctx.reader.state(track_id), notice, ctx.lang)


def current_track(ctx: Context, track_id: str) -> str | None:
    """Today's id of a track a button named: the id, or the track listing it as an alias; else None."""
    if ctx.catalog.has_track(track_id):
        return track_id
    wanted = track_id.casefold()
    return next((tr.id for tr in ctx.catalog.tracks if any(a.casefold() == wanted for a in tr.aliases)), None)


def outdated(ctx: Context, notice: str | None = None) -> Reply:
    """The answer to a button whose track or post is gone (after ``notice``); keeps the message."""
    text = t("error.outdated", ctx.lang)
    if notice:
        text = Mrkdwn("{}\n{}").format(notice, text)
    return replace(views.text_reply(text), keep_original=True)


def redraw(ctx: Context, view: str, notice: str | None, offset: int | None = None) -> Reply | None:
    """The message a button lived in (its value's ``v``) drawn again at ``offset`` (``o``); ``None`` for Home."""
    if view == "home":
        return None
    if view.startswith("track:"):
        tid = current_track(ctx, view[6:])
        return track_view(ctx, tid, notice=notice) if tid else outdated(ctx, notice)
    if view.startswith("search:"):  # search results stay search results (``search spec``)
        return search(ctx, view[7:], notice=notice, offset=offset or 0)
    if view.startswith("digest") or view == "unfurl":
        return views.text_reply(notice or t("done", ctx.lang))
    if view == "reminders":
        mine, numbers, _ = numbered(ctx.rt.store, ctx.caller.team_id, ctx.caller.user_id)
        return reminders_reply(ctx.catalog, mine, ctx.lang, notice=notice, numbers=numbers)
    if view in ("next", "latest"):
        return next_reads(ctx, notice=notice) if view == "next" else latest(ctx, notice=notice, offset=offset or 0)
    if view.startswith("latest:"):  # what's new in one track
        tid = current_track(ctx, view[7:])
        return latest(ctx, notice=notice, offset=offset or 0, track_id=tid) if tid else outdated(ctx, notice)
    return views.text_reply(notice) if notice else outdated(ctx)
