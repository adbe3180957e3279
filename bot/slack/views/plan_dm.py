"""The weekly DM of the next steps that fit the reader's minutes a week (issue 24): :func:`budget_dm`,
and :class:`BudgetDmComposer`, the same :class:`Reply` fast enough for 100,000 readers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.catalog import Catalog
from bot.domain.catalog.attached import PerCatalog
from bot.domain.plan import plan_reader_week, reader_week
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, plain
from bot.slack.views.blocks import MAX_FALLBACK_TEXT, Json, Reply, button, cut, header, make_reply, nonblank, section
from bot.slack.views.digest import DIGEST_DM_VIEW, MAX_NEW_LISTED, dm_tail, new_line
from bot.slack.views.links import read_link
from bot.slack.views.plan import minutes_label, pt
from bot.slack.views.together import unlinked_line

MAX_DM_STEPS = 20
"""Steps listed in one DM at most (a big budget of short posts stays within Block Kit's 50)."""
_VIEW = {"v": DIGEST_DM_VIEW}


def _head(minutes_per_week: int, lang: str) -> list[Json]:
    return [header(t("digest.dm_header", lang)), section(pt("dm.budget", lang, budget=minutes_per_week))]


def _step_section(catalog: Catalog, track_id: str, post_id: str, i: int, lang: str) -> Json:
    post = catalog.post(post_id)
    label = minutes_label(post, lang)
    text = Mrkdwn("{}\n_{}{}_").format(
        read_link(catalog, post, lang, bold=True),
        catalog.track(track_id).names.get(lang),
        Mrkdwn(" · ") + label if label else Mrkdwn(),
    )
    if post.url is None:  # no link yet: said plainly, and nothing to mark read (as in channel digests)
        return section(Mrkdwn("{}\n{}").format(text, unlinked_line(lang)))
    mark = button(t("btn.mark_read", lang), f"mark_read:{i}", {"p": post_id, "t": track_id, **_VIEW})
    return section(text, accessory=mark)


def budget_dm(
    catalog: Catalog, follows: Sequence[str], read: set[str], minutes_per_week: int, lang: str = "en"
) -> Reply | None:
    """The DM for a reader of ``follows`` who read ``read``; None when nothing is left to read."""
    steps = plan_reader_week(catalog, follows, read, minutes_per_week, MAX_DM_STEPS)
    if not steps:
        return None
    blocks = _head(minutes_per_week, lang)
    blocks += [_step_section(catalog, tid, pid, i, lang) for i, (tid, pid) in enumerate(steps)]
    blocks += dm_tail(catalog, len(steps), lang)
    posts = Mrkdwn("; ").join(catalog.post(p).title for _t, p in steps)
    return make_reply(blocks, t("digest.dm_fallback", lang, posts=posts))


class BudgetDmComposer:
    """:func:`budget_dm` for one catalog and language, for fan-outs (the week is
    :func:`bot.domain.plan.plan_reader_week`'s). Cached blocks are shared (read-only); thread-safe.

    Speed layer needed by ``benchmarks/compose_dm.py`` (100,000 random readers x 10 tracks, <= 2 s):
    0.67 s with its kept blocks, 78-80 s rendering every block per DM, and 1.8 ms a person (about
    180 s) with a composer per DM instead of the shared one (:func:`budget_dm_composer`)."""

    def __init__(self, catalog: Catalog, lang: str = "en"):
        self.catalog = catalog
        self.lang = lang
        self._week = reader_week(catalog)
        self._heads: dict[int, list[dict[str, Any]]] = {}
        self._steps: dict[tuple[str, str, int], dict[str, Any]] = {}
        self._tails: dict[int, list[dict[str, Any]]] = {}
        # plain() works segment by segment, so the fallback is the plain template with plain titles
        self._fallback_tpl = plain(t("digest.dm_fallback", lang, posts=Mrkdwn("{posts}")))
        self._titles = {p.id: plain(Mrkdwn.escape(p.title)) for p in catalog.posts}

    def _step(self, tid: str, pid: str, i: int) -> dict[str, Any]:
        """The step's section for place ``i``: the place's one rendered (:func:`_step_section`), the
        others copies of it with their own button ``action_id`` (rendering is the cold cost)."""
        first = self._steps.get((tid, pid, 0))
        if first is None:
            first = self._steps.setdefault((tid, pid, 0), _step_section(self.catalog, tid, pid, 0, self.lang))
        if i == 0 or "accessory" not in first:
            return first
        return {**first, "accessory": {**first["accessory"], "action_id": f"mark_read:{i}"}}

    def compose(
        self, follows: Sequence[str], read: Iterable[str], minutes_per_week: int = DEFAULT_MINUTES
    ) -> Reply | None:
        """:func:`budget_dm` (``read``: post ids or former ids); None when nothing is left to read."""
        steps = self._week(follows, read, minutes_per_week, MAX_DM_STEPS)
        if not steps:
            return None
        cat, lang = self.catalog, self.lang
        head = self._heads.get(minutes_per_week)
        if head is None:
            head = self._heads.setdefault(minutes_per_week, _head(minutes_per_week, lang))
        blocks = list(head)
        cache = self._steps
        for i, (tid, pid) in enumerate(steps):
            block = cache.get((tid, pid, i))
            if block is None:
                block = cache.setdefault((tid, pid, i), self._step(tid, pid, i))
            blocks.append(block)
        n = len(steps)
        tail = self._tails.get(n)
        if tail is None:
            tail = self._tails.setdefault(n, dm_tail(cat, n, lang))
        blocks.extend(tail)
        titles = self._titles
        posts = "; ".join([titles[pid] for _t, pid in steps])
        text = nonblank(cut(self._fallback_tpl.replace("{posts}", posts), MAX_FALLBACK_TEXT))
        return Reply(text=text, blocks=blocks, response_type="ephemeral")


def with_new(reply: Reply, catalog: Catalog, new: Sequence[tuple[str, str, int]], lang: str = "en") -> Reply:
    """``reply`` (a weekly DM) with a section after its head naming ``new`` (``(track id, post id,
    step number)``, :func:`bot.domain.plan.new_behind`) as :func:`bot.slack.views.digest.new_line`
    does; the same ``reply`` when ``new`` is empty. Blocks are not changed in place."""
    if not new:
        return reply
    lines = Mrkdwn("\n").join(new_line(catalog, tid, pid, lang) for tid, pid, _n in new[:MAX_NEW_LISTED])
    blocks = list(reply.blocks)
    blocks[2:2] = [section(lines)]
    return replace(reply, blocks=blocks)


_composers: PerCatalog[BudgetDmComposer] = PerCatalog()


def budget_dm_composer(catalog: Catalog, lang: str = "en") -> BudgetDmComposer:
    """The shared :class:`BudgetDmComposer` for ``catalog`` and ``lang`` (dropped with the catalog)."""
    return _composers.get(catalog, lang, lambda: BudgetDmComposer(catalog, lang))
