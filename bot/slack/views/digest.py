"""Digest composition: pure functions from catalog + reader state to a Block Kit :class:`Reply`.

Nothing here touches the database, the clock or Slack; :mod:`bot.digest.deliver` does that.

**Channel digests** walk a track's path like a reading club, as planned by
:func:`bot.domain.plan.plan_channel_digest`: each brings the next steps (each with its note and
what to read first) and announces what a newer catalog version added to the track; the one
that reaches the end of the path carries a closing message.

**DM digests** list the next read in each track a person follows, skipping what they have read,
composed for big fan-outs by :class:`DmComposer`. The blocks of the returned replies are shared
between replies: treat them as read-only.

Buttons use action ids ``<kind>:<n>`` (unique within a message) and values with ``v`` =
``"digest:<subscription id>"`` (channel digest) or ``"digest-dm"`` (DM digest), ``p`` post id and
``t`` track id; kinds ``mark_read``, ``follow``, ``snooze``, ``stop``. Catalog text is escaped;
digests never mention anyone; every post named has a way to read it
(:func:`bot.slack.views.links.read_link`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from slack_sdk.models.blocks import Block

from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.domain.catalog.attached import PerCatalog
from bot.domain.plan import SubscriptionLike, plan_channel_digest
from bot.slack.i18n import level_name, t
from bot.slack.mrkdwn import Mrkdwn, as_plain, link, plain, truncate
from bot.slack.views.blocks import (
    MAX_SECTION_TEXT,
    Reply,
    actions,
    button,
    confirm_dialog,
    context,
    cut,
    divider,
    encode_value,
    header,
    make_reply,
    section,
    sections,
)
from bot.slack.views.links import post_date, read_link
from bot.slack.views.plan import channel_budget_intro, channel_finish_line, minutes_label, pt

MAX_NOTE = 700
"""Characters of a step's note shown in a channel digest (a DM shows up to ``MAX_DM_NOTE``)."""
MAX_DM_NOTE = 300
MAX_NEW_LISTED = 10
"""Additions listed one by one in a digest; more are summed up in one line."""
DIGEST_DM_VIEW = "digest-dm"
_NEW_KEYS = {"behind": "digest.new_behind", "ahead": "digest.new_ahead", "moved": "digest.moved"}


@dataclass(frozen=True)
class ChannelDigest:
    """A composed channel digest: ``reply`` None when there is nothing to post this week (path
    done, nothing added); the subscription's new ``cursor`` and the catalog ``version`` it refers
    to (store both once the digest is sent); ``done`` when the path is complete after this digest;
    ``steps`` the post ids walked this week, ``added`` those announced as new."""

    reply: Reply | None
    cursor: int
    done: bool
    steps: tuple[str, ...]
    added: tuple[str, ...]
    version: str


def _step_lines(catalog: Catalog, track_id: str, post_id: str, lang: str, total: int, badge: str | None = None) -> str:
    post = catalog.post(post_id)
    step = catalog.step(track_id, post_id)
    position = catalog.order(track_id).index(post_id) + 1
    meta = t(
        "digest.step_meta",
        lang,
        position=position,
        total=total,
        level=level_name(step.level, lang),
        source=post.source.label(lang),
        date=post_date(post, lang),
    )
    minutes = minutes_label(post, lang)  # issue 24: the step's reading time, when known
    lines: list[str] = [
        read_link(catalog, post, lang, bold=True),
        Mrkdwn("_{}{}_").format(meta, Mrkdwn(" · ") + minutes if minutes else Mrkdwn())
        + (Mrkdwn(" · *{}*").format(badge) if badge else ""),
    ]
    if step.note:
        lines.append(truncate(step.note.get(lang), MAX_NOTE))
    if before := paths.read_before(catalog, track_id, post_id):
        items = Mrkdwn(", ").join(read_link(catalog, catalog.post(s.post), lang) for s in before)
        lines.append(t("track.read_first", lang, items=items))
    if step.external_prerequisites:
        items = Mrkdwn(", ").join(link(x.url, x.title) for x in step.external_prerequisites)
        lines.append(t("track.background", lang, items=items))
    return Mrkdwn("\n").join(lines)


def compose_channel_digest(
    catalog: Catalog,
    sub: SubscriptionLike,
    snapshot: Mapping[str, Sequence[str]] | None = None,
    lang: str = "en",
    page_url: str | None = None,
) -> ChannelDigest:
    """The digest a subscribed channel gets this week.

    ``snapshot`` is the store's ``catalog_snapshot(sub.last_catalog_version)`` (``{track id:
    [post ids in path order]}``) or None when unknown; it is ignored when that version is the
    current one. Raises ``KeyError`` when the catalog has no track ``sub.track_id`` (the
    caller pauses such a subscription). ``page_url``: the track's public path page, linked from
    the footer ("see the whole path") when given.
    """
    plan = plan_channel_digest(catalog, sub, snapshot)
    track_id = plan.track_id
    track = catalog.track(track_id)
    if plan.empty:
        return ChannelDigest(None, plan.cursor, plan.done, (), (), plan.version)

    name = track.names.get(lang)
    view = {"v": f"digest:{sub.id}"}
    n = iter(range(10_000))
    blocks: list[Any] = [header(t("digest.header", lang, track=name))]
    if plan.first:
        intro = channel_budget_intro(name, plan.total, plan.minutes_per_week, lang)
        blocks.append(section(intro or t("digest.intro", lang, track=name, total=plan.total, k=sub.steps_per_week)))
    badge = t("digest.new_badge", lang, version=catalog.version)
    for post_id in plan.steps:
        text = _step_lines(catalog, track_id, post_id, lang, plan.total, badge if post_id in plan.added else None)
        mark = button(t("btn.mark_read", lang), f"mark_read:{next(n)}", {"p": post_id, "t": track_id, **view})
        blocks.append(section(text, accessory=mark))
    if plan.new:
        lines = [t("digest.new_header", lang)]
        for post_id, kind in plan.new[:MAX_NEW_LISTED]:
            position = catalog.order(track_id).index(post_id) + 1
            where = t(_NEW_KEYS[kind], lang, position=position, total=plan.total)
            lines.append(Mrkdwn("• {} · _{}_").format(read_link(catalog, catalog.post(post_id), lang), where))
        if len(plan.new) > MAX_NEW_LISTED:
            lines.append(t("digest.more", lang, n=len(plan.new) - MAX_NEW_LISTED, track_id=track_id))
        if plan.steps:
            blocks.append(divider())
        blocks.extend(sections(lines)[:3])
    if plan.essentials_finished:  # issue 24: one line, in the one digest that passes the last essential
        blocks.append(section(channel_finish_line(name, getattr(sub, "after_essentials", "further"), lang)))
    if plan.closing:
        blocks.append(section(t("digest.closing", lang, total=plan.total, track=name)))
    confirm = confirm_dialog(
        t("digest.stop_confirm_title", lang),
        t("digest.stop_confirm_text", lang, track=name, track_id=track_id),
        t("btn.stop", lang),
        t("btn.cancel", lang),
        style="danger",
    )
    stop = button(t("btn.stop", lang), f"stop:{next(n)}", view, style="danger", confirm=confirm)
    follow = button(t("btn.follow", lang), f"follow:{next(n)}", {"t": track_id, **view})
    blocks.append(actions([follow, button(t("btn.snooze", lang), f"snooze:{next(n)}", view), stop]))
    sent = min(plan.cursor, plan.total)
    footer = t("digest.footer", lang, version=catalog.version, sent=sent, total=plan.total, track_id=track_id)
    whole_path = Mrkdwn(" · ") + link(page_url, as_plain(pt("whole_path", lang))) if page_url else ""
    blocks.append(context(footer + whole_path))
    named = plan.steps or tuple(p for p, _ in plan.new[:MAX_NEW_LISTED])
    titles = Mrkdwn("; ").join(catalog.post(p).title for p in named)
    key = "digest.fallback" if plan.steps else "digest.fallback_new"
    reply = make_reply(blocks, t(key, lang, track=name, posts=titles), "in_channel")
    return ChannelDigest(reply, plan.cursor, plan.done, plan.steps, plan.added, plan.version)


def preview_subscription(track_id: str, steps_per_week: int = 1, cursor: int = 0, id: int = 0) -> SubscriptionLike:
    """A stand-in subscription for previews: a channel newly subscribed to ``track_id``."""
    return _PreviewSub(id, track_id, cursor, steps_per_week, None)


@dataclass(frozen=True)
class _PreviewSub:
    id: int
    track_id: str
    cursor: int
    steps_per_week: int
    last_catalog_version: str | None


# --- DM digests ----------------------------------------------------------------------------------

_DM_VIEW = {"v": DIGEST_DM_VIEW}


def dm_tail(catalog: Catalog, n: int, lang: str) -> list[Block]:
    """A DM digest's last blocks: *Snooze a week* and *Stop* (action ids ``snooze:<n>`` and
    ``stop:<n + 1>``), then the footer."""
    snooze = button(t("btn.snooze", lang), f"snooze:{n}", _DM_VIEW)
    stop = button(t("btn.stop", lang), f"stop:{n + 1}", _DM_VIEW)
    return [actions([snooze, stop]), context(t("digest.dm_footer", lang, version=catalog.version))]


_MISSING: Any = object()
WORD_BITS = 60
"""Bits per word of a reader's read mask (machine-size ints, cheap to mask and hash)."""
_FULL_WORD = (1 << WORD_BITS) - 1


def _bit_layout(catalog: Catalog) -> tuple[dict[tuple[str, str], tuple[int, int]], int]:
    """``({(track id, post id): (word, bit)}, number of words)``: one bit per step of each
    track, a track's bits side by side in one word of :data:`WORD_BITS` where they fit."""
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
    """Post id or former id -> all its bits at once, word ``w`` at bits ``[w * WORD_BITS, …)``
    (the catalog's checks keep a former id distinct from every other id)."""
    out: dict[str, int] = {}
    for (_tid, pid), (w, bit) in pair.items():
        out[pid] = out.get(pid, 0) | bit << (w * WORD_BITS)
    for post in catalog.posts:
        if post.id in out:
            out.update(dict.fromkeys(post.aliases, out[post.id]))
    return out


def _track_masks(catalog: Catalog, pair: dict[tuple[str, str], tuple[int, int]]) -> dict[str, tuple[int, Any]]:
    """Track id -> ``(word, mask)`` when the track's bits share a word, else
    ``(-1, ((word, mask), ...))``."""
    plan: dict[str, tuple[int, Any]] = {}
    for tr in catalog.tracks:
        masks: dict[int, int] = {}
        for pid in catalog.order(tr.id):
            w, bit = pair[(tr.id, pid)]
            masks[w] = masks.get(w, 0) | bit
        first = next(iter(masks))
        plan[tr.id] = (first, masks[first]) if len(masks) == 1 else (-1, tuple(sorted(masks.items())))
    return plan


class ReadBits:
    """A catalog's read bits: one bit per (track, step) in words of :data:`WORD_BITS` (machine-size
    ints, fast to add and mask), a track's bits side by side in one word where they fit
    (``_pair``: (track, post) -> (word, bit)); a post's former ids map to the same bits."""

    def __init__(self, catalog: Catalog) -> None:
        self._pair, self._words = _bit_layout(catalog)
        self._all_bits = _bits_by_post(catalog, self._pair)
        self._shifts = tuple(w * WORD_BITS for w in range(self._words))
        self._has_aliases = any(post.aliases for post in catalog.posts)

    def read_mask(self, read: Iterable[str]) -> tuple[int, ...]:
        """The read bits, one int per word, of the posts in ``read`` (post ids or former ids;
        unknown ids ignored)."""
        get = self._all_bits.get
        if not self._has_aliases and isinstance(read, (set, frozenset)):
            mask = sum(map(get, read, repeat(0)))  # distinct ids, distinct bits: a sum is an or
        else:
            mask = 0
            for pid in read:
                mask |= get(pid, 0)
        full = _FULL_WORD
        return tuple([(mask >> shift) & full for shift in self._shifts])


class DmComposer(ReadBits):
    """Composes DM digests for one catalog version and language, fast enough for big fan-outs.

    The part of a DM about one track (a section with the next step and its Mark read button)
    depends only on the reader's read bits (:class:`ReadBits`) of that track, so it is rendered
    once per (track, those bits) and reused: a reader costs one pass over what they have read
    and a few dictionary look-ups per followed track. A track's Mark read button has the action
    id ``mark_read:<i>``, ``i`` the track's index in the catalog (unique within a message).
    Thread-safe: the caches only gain entries, equal for every caller.
    """

    def __init__(self, catalog: Catalog, lang: str = "en"):
        self.catalog = catalog
        self.lang = lang
        self._track_index = {tr.id: i for i, tr in enumerate(catalog.tracks)}
        ReadBits.__init__(self, catalog)
        # track id -> (word, mask) when the track's bits share a word, else (-1, ((w, m), ...))
        self._plan = _track_masks(catalog, self._pair)
        # track id -> {read bits of the track: (section block, fallback line) | None when done}
        self._parts: dict[str, dict[Any, tuple[dict[str, Any], str] | None]] = {tr.id: {} for tr in catalog.tracks}
        # track id -> (word, mask, its parts): what compose looks up per followed track, at once
        self._entries: dict[str, tuple[int, Any, dict[Any, Any]]] = {
            tid: (word, mask, self._parts[tid]) for tid, (word, mask) in self._plan.items()
        }
        self._head = header(t("digest.dm_header", lang)).to_dict()
        self._tail = [b.to_dict() for b in dm_tail(catalog, len(catalog.tracks), lang)]
        # a plain str template: the lines put into it are escaped already (see _part)
        self._fallback = str(t("digest.dm_fallback", lang, posts=Mrkdwn("{posts}")))
        self._section_tpl = section("-", accessory=button(t("btn.mark_read", lang), "mark_read:0", _DM_VIEW)).to_dict()

    def _read_in(self, track_id: str, key: Any) -> set[str]:
        """The post ids of ``track_id`` whose bits are set in ``key`` (as made in compose)."""
        word, mask = self._plan[track_id]
        words = {word: key} if word >= 0 else {w: k for (w, _m), k in zip(mask, key, strict=False)}
        out = set()
        for pid in self.catalog.order(track_id):
            w, bit = self._pair[(track_id, pid)]
            if words.get(w, 0) & bit:
                out.add(pid)
        return out

    def _part(self, track_id: str, key: Any) -> tuple[dict[str, Any], str] | None:
        """The DM's part about ``track_id`` for a reader whose read bits in it are ``key``
        (rendered on first use); None when that reader has finished the track."""
        parts = self._parts[track_id]
        if key in parts:
            return parts[key]
        cat, lang = self.catalog, self.lang
        order = cat.order(track_id)
        done = self._read_in(track_id, key)
        step = paths.next_step(cat, track_id, done)
        part = None
        if step is not None:
            post = cat.post(step.post)
            name = cat.track(track_id).names.get(lang)
            title = read_link(cat, post, lang, bold=True)
            line = t("next.track_line", lang, track=name, read=len(done), total=len(order), post=title)
            level = level_name(step.level, lang)
            meta = t("digest.dm_meta", lang, position=order.index(step.post) + 1, total=len(order), level=level)
            text = Mrkdwn("{}\n_{}_").format(line, meta)
            if step.note:
                text += Mrkdwn("\n") + truncate(step.note.get(lang), MAX_DM_NOTE)
            # The slack-sdk-built template with this part's text and button filled in: the
            # same dict section(text, accessory=button(...)).to_dict() gives, at a fraction of
            # the cost (tests compare the two).
            tpl = self._section_tpl
            block = {
                **tpl,
                "text": {**tpl["text"], "text": str(cut(text, MAX_SECTION_TEXT))},
                "accessory": {
                    **tpl["accessory"],
                    "action_id": f"mark_read:{self._track_index[track_id]}",
                    "value": encode_value({"p": step.post, "t": track_id, "v": DIGEST_DM_VIEW}),
                },
            }
            part = (block, plain(Mrkdwn("{}: {}").format(name, post.title)))  # fallback text: defanged once, cached
        parts[key] = part
        return part

    def compose(self, follows: Sequence[str], read: Iterable[str] | tuple[int, ...]) -> Reply | None:
        """The DM for a reader following ``follows`` (distinct track ids, in the order shown;
        unknown ids skipped, at most 20 tracks) who has read ``read`` (post ids, or the words from
        :meth:`read_mask`). None when there is nothing to suggest (no known track followed, or
        every followed path done)."""
        words = read if isinstance(read, tuple) else self.read_mask(read)
        blocks = [self._head]
        lines: list[str] = []
        entries = self._entries
        missing = _MISSING
        for tid in follows:
            entry = entries.get(tid)
            if entry is None:
                continue
            word, mask, parts = entry
            key = words[word] & mask if word >= 0 else tuple([words[w] & m for w, m in mask])
            part = parts.get(key, missing)
            if part is missing:
                part = self._part(tid, key)
            if part is None:
                continue
            blocks.append(part[0])
            lines.append(part[1])
            if len(lines) >= 20:
                break
        if not lines:
            return None
        blocks.extend(self._tail)
        text = self._fallback.format(posts="; ".join(lines))
        return Reply(text=truncate(text, 3000), blocks=blocks, response_type="in_channel")


_composers: PerCatalog[DmComposer] = PerCatalog()


def dm_composer(catalog: Catalog, lang: str = "en") -> DmComposer:
    """The shared :class:`DmComposer` for ``catalog`` and ``lang`` (built on first use; dropped
    when the catalog object is garbage-collected)."""
    return _composers.get(catalog, lang, lambda: DmComposer(catalog, lang))


def compose_dm(catalog: Catalog, follows: Sequence[str], read: Iterable[str], lang: str = "en") -> Reply | None:
    """A person's weekly DM: the next read in each followed track (skipping what they have read,
    and tracks they have finished), with Mark read buttons, Snooze a week and Stop. None when
    there is nothing to suggest. See :class:`DmComposer` for the caching."""
    return dm_composer(catalog, lang).compose(follows, read)
