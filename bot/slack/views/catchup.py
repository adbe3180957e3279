"""The "catch me up" reply (issue 44): what entered the catalog since the reader last read, one line
a post with its minutes and its place in their path, then their next step (pure). A post with no
link yet (the catalog's unlinked posts: no URL, no minutes) is named as such, after the readable
ones, with no note (QA: they were listed like readable steps)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import format_day
from bot.domain.catchup import CatchUp, NewPost
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views.blocks import Json, Reply, button, header, make_reply, section, sections
from bot.slack.views.links import read_link
from bot.slack.views.messages import progress_line, track_name
from bot.slack.views.plan import minutes_suffix


def new_post_line(catalog: Catalog, new: NewPost, lang: str) -> Mrkdwn:
    """``• <post> · 8 min · new step 6 of *Speculative decoding*`` (or ``updates step 4 of …``,
    ``follows step 2 of …``, ``further reading in …``), then the relation's note in italics; for a
    post with no link yet only ``• *title* · no link yet, nothing to read until it is published (*track*)``."""
    post, name = new.step.post, track_name(catalog, new.track_id, lang)
    if post.url is None:
        return Mrkdwn("• *{}* · {}").format(post.title, t("catchup.no_link", lang, track=name))
    if new.relation is not None and new.revisits is not None:
        place = t(f"catchup.{new.relation.kind}", lang, n=new.revisits.number, track=name)
    else:
        key = "catchup.new_step" if new.step.essential else "catchup.further"
        place = t(key, lang, n=new.step.number, track=name)
    line = Mrkdwn("• {}{} · {}").format(read_link(catalog, post, lang), minutes_suffix(post, lang), place)
    if new.relation is not None:
        line += Mrkdwn(" · _{}_").format(truncate(new.relation.note.get(lang), 300))
    return line


def readable_first(new: Sequence[NewPost]) -> list[NewPost]:
    """``new`` with the posts that have a link first, each group in its order (newest first): a post
    with no link yet never takes a place a readable one could have (App Home lists three)."""
    return sorted(new, key=lambda n: n.step.post.url is None)


def catchup_reply(catalog: Catalog, cu: CatchUp, lang: str) -> Reply:
    """The reply to ``catch me up`` for ``cu``: the new posts (or that there are none), then the next
    step with *Mark read*; following and having started no track, how to follow one."""
    blocks: list[Json] = [header(t("catchup.header", lang))]
    if not cu.tracks:
        text = t("catchup.no_tracks", lang)
        return make_reply([*blocks, section(text)], text)
    day = format_day(cu.since, lang) if cu.since is not None else ""
    if cu.new:
        lines = [new_post_line(catalog, n, lang) for n in readable_first(cu.new)]
        more = [t("catchup.more", lang, n=cu.more)] if cu.more else []
        intro = t("catchup.intro", lang, day=day)
        blocks += sections([intro, *lines, *more])
    else:
        names = Mrkdwn("、" if lang == "zh" else ", ").join(
            Mrkdwn("*{}*").format(track_name(catalog, tid, lang)) for tid in cu.tracks[:10]
        )
        intro = t("catchup.nothing", lang, day=day, tracks=names)
        blocks.append(section(intro))
    if cu.next is None or cu.next.next is None:
        blocks.append(section(t("catchup.all_read", lang)))
        return make_reply(blocks, intro)
    nxt = cu.next.next
    mark = button(t("btn.mark_read", lang), "mark_read:0", {"p": nxt.post_id, "t": cu.next.track_id, "v": "short"})
    blocks.append(section(t("catchup.next", lang, line=progress_line(catalog, cu.next, lang)), accessory=mark))
    return make_reply(blocks, intro)


HOME_NEW = 3
"""New posts App Home lists at most (``catch me up`` lists them all)."""


def home_catchup_blocks(catalog: Catalog, cu: CatchUp | None, lang: str) -> list[Json]:
    """App Home's *What you missed* section: the newest :data:`HOME_NEW` posts new to the person and
    how many more ``catch me up`` lists; nothing when nothing is new (``cu`` None: not computed)."""
    if cu is None or not cu.new:
        return []
    day = format_day(cu.since, lang) if cu.since is not None else ""
    lines = [new_post_line(catalog, n, lang) for n in readable_first(cu.new)[:HOME_NEW]]
    rest = len(cu.new) - HOME_NEW + cu.more
    more = t("catchup.home_more", lang, n=rest) if rest > 0 else t("catchup.home_all", lang)
    return [*sections([t("catchup.intro", lang, day=day), *lines, more])]
