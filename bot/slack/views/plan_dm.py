"""The weekly DM of the next steps that fit the reader's minutes a week (issue 24): :func:`budget_dm`,
and :class:`BudgetDmComposer`, the same :class:`Reply` fast enough for 100,000 readers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Any

from bot.domain import paths, plan
from bot.domain.budget import DEFAULT_MINUTES, step_cost
from bot.domain.catalog import Catalog
from bot.domain.catalog.attached import PerCatalog
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, plain
from bot.slack.views.blocks import MAX_FALLBACK_TEXT, Reply, button, cut, header, make_reply, nonblank, section
from bot.slack.views.digest import DIGEST_DM_VIEW, dm_tail
from bot.slack.views.links import read_link
from bot.slack.views.plan import minutes_label, pt

MAX_DM_STEPS = 20
"""Steps listed in one DM at most (a big budget of short posts stays within Block Kit's 50)."""
_VIEW = {"v": DIGEST_DM_VIEW}
WORD_BITS = 60
"""Bits per word of a reader's read mask (machine-size ints, cheap to mask and hash)."""
_FULL_WORD = (1 << WORD_BITS) - 1


def _bit_layout(catalog: Catalog) -> tuple[dict[tuple[str, str], tuple[int, int]], int]:
    """``({(track id, post id): (word, bit)}, number of words)``, a track's bits in one word where they fit."""
    pair: dict[tuple[str, str], tuple[int, int]] = {}
    word, used = 0, 0
    for tr in catalog.tracks:
        order = catalog.order(tr.id)
        if used and used + len(order) > WORD_BITS:
            word, used = word + 1, 0
        for pid in order:
            if used == WORD_BITS:
                word, used = word + 1, 0
            pair[(tr.id, pid)] = (word, 1 << used)
            used += 1
    return pair, word + 1


def _bits_by_post(catalog: Catalog, pair: dict[tuple[str, str], tuple[int, int]]) -> dict[str, int]:
    """Post id or former id -> all its bits, word ``w`` at bits ``[w * WORD_BITS, …)``."""
    out: dict[str, int] = {}
    for (_tid, pid), (w, bit) in pair.items():
        out[pid] = out.get(pid, 0) | bit << (w * WORD_BITS)
    for post in catalog.posts:
        if post.id in out:
            out.update(dict.fromkeys(post.aliases, out[post.id]))
    return out


def _head(minutes_per_week: int, lang: str) -> list[Any]:
    return [header(t("digest.dm_header", lang)), section(pt("dm.budget", lang, budget=minutes_per_week))]


def _step_section(catalog: Catalog, track_id: str, post_id: str, i: int, lang: str) -> Any:
    post = catalog.post(post_id)
    label = minutes_label(post, lang)
    text = Mrkdwn("{}\n_{}{}_").format(
        read_link(catalog, post, lang, bold=True),
        catalog.track(track_id).names.get(lang),
        Mrkdwn(" · ") + label if label else Mrkdwn(),
    )
    mark = button(t("btn.mark_read", lang), f"mark_read:{i}", {"p": post_id, "t": track_id, **_VIEW})
    return section(text, accessory=mark)


def budget_dm(
    catalog: Catalog, follows: Sequence[str], read: set[str], minutes_per_week: int, lang: str = "en"
) -> Reply | None:
    """The DM for a reader of ``follows`` who read ``read``; None when nothing is left to read."""
    steps = plan.plan_reader_week(catalog, follows, read, minutes_per_week)[:MAX_DM_STEPS]
    if not steps:
        return None
    blocks = _head(minutes_per_week, lang)
    blocks += [_step_section(catalog, tid, pid, i, lang) for i, (tid, pid) in enumerate(steps)]
    blocks += dm_tail(catalog, len(steps), lang)
    posts = Mrkdwn("; ").join(catalog.post(p).title for _t, p in steps)
    return make_reply(blocks, t("digest.dm_fallback", lang, posts=posts))


class BudgetDmComposer:
    """:func:`budget_dm` for one catalog and language, for fan-outs: read posts become bits (one per
    track and step, in words of :data:`WORD_BITS`), tracks are walked over rows ``(post id, word,
    bit, cost, linked)``. Cached blocks are shared (read-only); thread-safe."""

    def __init__(self, catalog: Catalog, lang: str = "en"):
        self.catalog = catalog
        self.lang = lang
        pair, words = _bit_layout(catalog)
        self._all_bits = _bits_by_post(catalog, pair)
        self._shifts = tuple(w * WORD_BITS for w in range(words))
        self._has_aliases = any(post.aliases for post in catalog.posts)
        self._rows: dict[str, tuple[tuple[str, int, int, int, bool], ...]] = {}
        for tr in catalog.tracks:
            rows = []
            for pid in paths.reading_order(catalog, tr.id):
                w, bit = pair[(tr.id, pid)]
                post = catalog.post(pid)
                rows.append((pid, w, bit, step_cost(post.minutes), post.url is not None))
            self._rows[tr.id] = tuple(rows)
        self._heads: dict[int, list[dict[str, Any]]] = {}
        self._steps: dict[tuple[str, str, int], dict[str, Any]] = {}
        self._tails: dict[int, list[dict[str, Any]]] = {}
        # plain() works segment by segment, so the fallback is the plain template with plain titles
        self._fallback_tpl = plain(t("digest.dm_fallback", lang, posts=Mrkdwn("{posts}")))
        self._titles: dict[str, str] = {}

    def read_mask(self, read: Iterable[str]) -> tuple[int, ...]:
        """The read bits, one int per word, of ``read`` (post ids or former ids; unknown ignored)."""
        get = self._all_bits.get
        if not self._has_aliases and isinstance(read, (set, frozenset)):
            mask = sum(map(get, read, repeat(0)))  # distinct ids, distinct bits: a sum is an or
        else:
            mask = 0
            for pid in read:
                mask |= get(pid, 0)
        full = _FULL_WORD
        return tuple([(mask >> shift) & full for shift in self._shifts])

    def week(
        self, follows: Sequence[str], read: Iterable[str] | tuple[int, ...], minutes_per_week: int
    ) -> list[tuple[str, str]]:
        """This week's ``(track id, post id)`` steps, as :func:`bot.domain.plan.plan_reader_week`."""
        words = read if isinstance(read, tuple) else self.read_mask(read)
        chosen: list[tuple[str, str]] = []
        taken: set[str] = set()
        used = 0
        # One loop, written out: a generator of unread steps cost this fan-out benchmark 5-8 %.
        for tid in follows:
            spare: tuple[str, int] | None = None
            linked_left = False
            for pid, w, bit, cost, linked in self._rows.get(tid, ()):
                if words[w] & bit or pid in taken:
                    continue
                if not linked:
                    spare = spare or (pid, cost)
                    continue
                linked_left = True
                if chosen and used + cost > minutes_per_week:
                    return chosen
                chosen.append((tid, pid))
                taken.add(pid)
                used += cost
                if used >= minutes_per_week or len(chosen) >= MAX_DM_STEPS:
                    return chosen
            if not linked_left and spare is not None:  # only unlinked steps left: the first one
                if chosen and used + spare[1] > minutes_per_week:
                    return chosen
                chosen.append((tid, spare[0]))
                taken.add(spare[0])
                used += spare[1]
                if used >= minutes_per_week or len(chosen) >= MAX_DM_STEPS:
                    return chosen
        return chosen

    def _title(self, post_id: str) -> str:
        title = self._titles.get(post_id)
        if title is None:
            title = self._titles[post_id] = plain(Mrkdwn.escape(self.catalog.post(post_id).title))
        return title

    def compose(
        self, follows: Sequence[str], read: Iterable[str] | tuple[int, ...], minutes_per_week: int = DEFAULT_MINUTES
    ) -> Reply | None:
        """:func:`budget_dm` (``read``: post ids or the words of :meth:`read_mask`); None: nothing left."""
        steps = self.week(follows, read, minutes_per_week)
        if not steps:
            return None
        cat, lang = self.catalog, self.lang
        head = self._heads.get(minutes_per_week)
        if head is None:
            head = self._heads.setdefault(minutes_per_week, [b.to_dict() for b in _head(minutes_per_week, lang)])
        blocks = list(head)
        cache = self._steps
        for i, (tid, pid) in enumerate(steps):
            block = cache.get((tid, pid, i))
            if block is None:
                block = cache.setdefault((tid, pid, i), _step_section(cat, tid, pid, i, lang).to_dict())
            blocks.append(block)
        n = len(steps)
        tail = self._tails.get(n)
        if tail is None:
            tail = self._tails.setdefault(n, [b.to_dict() for b in dm_tail(cat, n, lang)])
        blocks.extend(tail)
        posts = "; ".join([self._title(pid) for _t, pid in steps])
        text = nonblank(cut(self._fallback_tpl.replace("{posts}", posts), MAX_FALLBACK_TEXT))
        return Reply(text=text, blocks=blocks, response_type="ephemeral")


_composers: PerCatalog[BudgetDmComposer] = PerCatalog()


def budget_dm_composer(catalog: Catalog, lang: str = "en") -> BudgetDmComposer:
    """The shared :class:`BudgetDmComposer` for ``catalog`` and ``lang`` (dropped with the catalog)."""
    return _composers.get(catalog, lang, lambda: BudgetDmComposer(catalog, lang))
