"""Render a search as Block Kit, pure: one page of matching posts with their places and buttons."""

from __future__ import annotations

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Post
from bot.domain.search.results import SearchResult
from bot.domain.search.vocabulary import default_vocabulary
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views.blocks import Json, Reply, actions, button, context, make_reply, section
from bot.slack.views.links import place_lines, read_link
from bot.slack.views.messages import ICON_READ, MAX_RESULTS, ActionIds, track_name
from bot.slack.views.plan import minutes_suffix

_ORDER_LINES = {
    "latest.more_count": "latest.order_followed",
    "latest.count_blog_first": "latest.order_blog",
    "latest.count_followed": "latest.order_followed",
}
"""The newest posts' count lines, each said in one short, true line (QA round 7: "newest first" led
a line whose order was the vLLM blog's first; for a follower it grew long and contradicted itself):
the vLLM blog's posts lead, then other blogs'; a follower's tracks lead within each; newest first."""


def search_reply(
    catalog: Catalog,
    query: str,
    result: SearchResult,
    read: set[str],
    lang: str,
    notice: str | None = None,
    suggestion: str | None = None,
    header: str | None = None,
    view: str | None = None,
    count_key: str = "latest.more_count",
) -> Reply:
    """A page of :data:`MAX_RESULTS` posts of ``result`` (a :class:`bot.domain.search.SearchResult`)
    with their places and buttons, *More results* (``{"v": "search:<query>", "o": offset}``) and,
    on a later page, *Previous results* (the page before it).
    No results: "no match" plus ``suggestion`` (escaped). ``header``/``view``: for the newest posts,
    whose count line (``count_key``, an i18n key with ``first``, ``last``, ``total``) says their order."""
    shown_query = truncate(" ".join(query.split()), 100)
    blocks: list[Json] = [section(notice)] if notice else []
    if not result.results:
        return _no_results(catalog, result, shown_query, lang, blocks, suggestion)
    ids = ActionIds()
    closest = header is None and result.confidence == "closest"
    if header is None and result.link is not None and result.link.status == "post":  # QA round 12
        header = t("search.link_post", lang)  # not "posts matching “https://…?utm_…”"
    title = header or t("search.closest" if closest else "search.header", lang, query=shown_query)
    blocks.append(section(Mrkdwn("*{}*").format(title)))
    if result.track is not None:
        tid = result.track.track_id
        blocks.append(context(t("search.track_hint", lang, track=track_name(catalog, tid, lang), track_id=tid)))
    done = {p for p in map(catalog.resolve_post_id, read) if p is not None}
    fallback = ([notice] if notice else []) + [title]
    view = view or f"search:{query[:150]}"
    shown = result.results[:MAX_RESULTS]
    offset = result.offset
    page = {"v": view, "o": offset or None}  # a click on a later page redraws that page
    for match in shown:
        post = catalog.post(match.post_id)
        order = match.tracks if view.startswith("latest") else ()  # followed tracks first (QA round 18)
        blocks += _match_blocks(catalog, post, done, lang, ids, page, view, order)
        fallback.append(Mrkdwn("• {}").format(post.title))
    total = result.total or len(shown)
    footer = [t("catalog.version", lang, version=catalog.version)]
    if total > len(shown):
        key = "search.more_count" if header is None else _ORDER_LINES.get(count_key, count_key)
        footer.insert(0, t(key, lang, first=offset + 1, last=offset + len(shown), total=total))
    blocks.append(context(*footer))
    pages = []
    if offset > 0:  # a later page leads back (QA round 20: results 6-8 replaced 1-5 for good)
        back = {"v": view, "o": max(offset - MAX_RESULTS, 0) or None}
        pages.append(button(t("btn.previous_results", lang), ids("more_results"), back))
    if offset + len(shown) < total:
        more = {"v": view, "o": offset + len(shown)}
        pages.append(button(t("btn.more_results", lang), ids("more_results"), more))
    if pages:
        blocks.append(actions(pages))
    return make_reply(blocks, Mrkdwn("\n").join(fallback))


def _no_results(
    catalog: Catalog, result: SearchResult, shown_query: str, lang: str, blocks: list[Json], suggestion: str | None
) -> Reply:
    """The reply to a search with no results (see :func:`search_reply`), after ``blocks``."""
    if (link := result.link) is not None and link.status in ("unknown", "home", "foreign"):
        blocks.append(section(t(f"search.{link.status}_link", lang, url=truncate(link.url, 300))))
    elif not shown_query or result.hint:
        blocks.append(section(t("search.empty", lang)))
    elif (known := result.known) and (
        rest := _rest_of(shown_query, known, "、" if lang == "zh" else ", ")
    ):  # a word known, the rest not
        # (every word known, nothing found: no "search {words}" pointing at itself; QA round 9)
        key, words = "search.partly_rest", truncate(known, 100)
        blocks.append(section(t(key, lang, query=shown_query, words=words, rest=truncate(rest, 100))))
    else:
        blocks.append(section(t("search.none", lang, query=shown_query)))
        if not suggestion and result.track is None:  # no did-you-mean, no track: offer the tracks and an example
            item, sep = ("`{}`（{}）", "、") if lang == "zh" else ("`{}` ({})", ", ")  # full-width in Chinese
            tracks = Mrkdwn(sep).join(Mrkdwn(item).format(tr.id, tr.names.get(lang)) for tr in catalog.tracks)
            blocks.append(section(t("search.none_offer", lang, tracks=tracks)))
    if suggestion:
        blocks.append(section(suggestion))
    elif result.track is not None and catalog.has_track(tid := result.track.track_id):  # a long question names one
        blocks.append(section(t("search.track_hint", lang, track=track_name(catalog, tid, lang), track_id=tid)))
    blocks.append(context(t("didyoumean.help", lang)))
    fallback = Mrkdwn("\n").join(Mrkdwn(b["text"]["text"]) for b in blocks if "text" in b)
    return make_reply(blocks, fallback)


def _match_blocks(
    catalog: Catalog,
    post: Post,
    done: set[str],
    lang: str,
    ids: ActionIds,
    page: dict[str, str | int | None],
    view: str,
    order: tuple[str, ...] = (),
) -> list[Json]:
    """One matching post: its section (source, date, reading time, id; Mark read or Mark unread) and
    its buttons; ``done``: the reader's read post ids (its place names their next unread step);
    *Open path* opens the first of its tracks in ``order`` (what's new: a followed one), else its first."""
    read = post.id in done
    text = Mrkdwn("{}{}\n_{} · {}{} · `{}`_\n{}\n{}").format(
        Mrkdwn(ICON_READ + " " if read else ""),
        read_link(catalog, post, lang, bold=True),
        post.source.label(lang),
        post.published.display(lang),
        minutes_suffix(post, lang),
        post.id,
        truncate(post.summary.get(lang), 300),
        Mrkdwn("\n").join(place_lines(catalog, post.id, lang, read=done)) or t("search.not_in_track", lang),
    )
    kind = "mark_unread" if read else "mark_read"
    blocks: list[Json] = [section(text, accessory=button(t("btn." + kind, lang), ids(kind), {"p": post.id, **page}))]
    own = catalog.tracks_of(post.id)
    tracks = [tid for tid in order if tid in own] + [tid for tid in own if tid not in order]
    row = []
    if tracks:
        name = track_name(catalog, tracks[0], lang)
        label = Mrkdwn("{}：{}" if lang == "zh" else "{}: {}").format(t("btn.open_path", lang), name)
        row.append(button(label, ids("open_path"), {"t": tracks[0], "v": view}))
    if not read:
        row.append(button(t("btn.remind_next_week", lang), ids("remind"), {"p": post.id, "d": "next week", **page}))
    return blocks + ([actions(row)] if row else [])


_FUNCTION_WORDS = frozenset(
    {
        "less",
        "more",
        "much",
        "many",
        "most",
        "least",
        "few",
        "fewer",
        "but",
        "if",
        "both",
        "each",
        "such",
        "only",
        "same",
        "out",
        "off",
        "over",
        "under",
        "here",
        "once",
        "nor",
        "own",
        "other",
        "else",
    }
)
"""English quantifiers and function words no stop word list of search holds: said alone at the end of
an echoed rest (*less*, *more*) they name nothing (:func:`_rest_of`)."""


def _rest_of(query: str, known: str, sep: str = ", ") -> str:
    """The words of ``query`` (as shown) that ``known`` (the search's known words) does not hold,
    in their order; "" when every word is known (a new user's QA: "the rest of it" was unclear) or
    only stop and question words are left. Each run of unknown words between known ones is trimmed
    of the stop and question words at its ends (the search vocabulary's ``ignorable``, and
    :data:`_FUNCTION_WORDS`: QA round 19 saw *can I use less for the* for ``can I use less memory
    for the cache``); a run's words are joined by spaces, the runs by ``sep`` (QA round 20: *best
    buy* for ``best gpu to buy`` read as a shop's name)."""
    have = {w.casefold() for w in known.split()}
    skip = default_vocabulary().ignorable | _FUNCTION_WORDS
    runs: list[list[str]] = [[]]
    for word in query.split():
        if word.casefold().strip("?!.,;:") in have:
            runs.append([])
        else:
            runs[-1].append(word)
    kept: list[str] = []
    for run in runs:
        meaningful = [i for i, w in enumerate(run) if w.casefold().strip("?!.,;:\"'") not in skip]
        if meaningful:
            kept.append(" ".join(run[meaningful[0] : meaningful[-1] + 1]))
    return sep.join(kept)
