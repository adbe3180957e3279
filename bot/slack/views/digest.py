"""Channel digests composed, pure, as :func:`bot.domain.plan.plan_channel_digest` plans them (DM
digests: :mod:`bot.slack.views.plan_dm`). Button values: ``v`` ``"digest:<subscription id>"`` or
``"digest-dm"``, ``p`` post id, ``t`` track id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.domain.catalog import Catalog
from bot.domain.paths import PathStep
from bot.domain.plan import SubscriptionLike, plan_channel_digest
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, as_plain, link, truncate
from bot.slack.views.blocks import (
    Json,
    Reply,
    actions,
    button,
    confirm_dialog,
    context,
    divider,
    header,
    make_reply,
    section,
    sections,
)
from bot.slack.views.links import read_link, reference_lines
from bot.slack.views.plan import channel_budget_intro, channel_finish_line, minutes_suffix, pt, step_level
from bot.slack.views.together import club_readers_line, unlinked_line

MAX_NOTE = 700
"""Characters of a step's note shown in a channel digest."""
MAX_NEW_LISTED = 10
"""Additions listed one by one in a digest; more are summed up in one line."""
DIGEST_DM_VIEW = "digest-dm"


@dataclass(frozen=True)
class ChannelDigest:
    """A composed channel digest: ``reply`` None when there is nothing to post; the new ``cursor``
    and catalog ``version`` (store both once sent); ``done``: the path is complete after it;
    ``steps`` the post ids walked this week, ``added`` those announced as new."""

    reply: Reply | None
    cursor: int
    done: bool
    steps: tuple[str, ...]
    added: tuple[str, ...]
    version: str


def _step_lines(
    catalog: Catalog, step: PathStep, lang: str, total: int, badge: str | None = None, shown: Sequence[str] = ()
) -> str:
    """A step's lines in a digest; ``shown``: the posts listed above it in the same digest, left out
    of its *Read first* line (read in order already; QA: every step repeated the one above)."""
    post = step.post
    level, source, date = step_level(step, lang), post.source.label(lang), post.published.display(lang)
    meta = t("digest.step_meta", lang, position=step.number, total=total, level=level, source=source, date=date)
    lines: list[str] = [
        read_link(catalog, post, lang, bold=True),
        Mrkdwn("_{}{}_").format(meta, minutes_suffix(post, lang)) + (Mrkdwn(" · *{}*").format(badge) if badge else ""),
    ]
    if post.url is None:  # issue 44 QA: said plainly, instead of the note of a step one can read
        lines.append(unlinked_line(lang))
    elif step.step.note:
        lines.append(truncate(step.step.note.get(lang), MAX_NOTE))
    first = [p for p in step.read_first if p not in shown]
    lines += reference_lines(catalog, step, lang, first=first)
    return Mrkdwn("\n").join(lines)


def new_line(catalog: Catalog, track_id: str, post_id: str, lang: str = "en", moved: bool = False) -> Mrkdwn:
    """The line naming a post a newer catalog version put before where a channel or reader is:
    "New in <track>: <post> (step N)" (``moved``: moved there by a re-ordering). Escaped mrkdwn."""
    order, post = catalog.order(track_id), read_link(catalog, catalog.post(post_id), lang)
    position = order.index(post_id) + 1
    if moved:
        return Mrkdwn("• {} · _{}_").format(post, t("digest.moved", lang, position=position, total=len(order)))
    name = catalog.track(track_id).names.get(lang)
    return Mrkdwn("• ") + t("digest.new_in", lang, track=name, post=post, position=position)


def compose_channel_digest(
    catalog: Catalog,
    sub: SubscriptionLike,
    snapshot: Mapping[str, Sequence[str]] | None = None,
    lang: str = "en",
    page_url: str | None = None,
    readers: int | None = None,
) -> ChannelDigest:
    """A channel's digest this week. ``snapshot``: the store's ``catalog_snapshot`` of
    ``sub.last_catalog_version`` (``{track id: [post ids]}``) or None; ``page_url``: the track's
    public page; ``readers``: a reading club's readers of its last digest (shown from 4, first).
    Raises ``KeyError`` when the catalog has no track ``sub.track_id``."""
    plan = plan_channel_digest(catalog, sub, snapshot)
    track_id = plan.track_id
    track = catalog.track(track_id)
    if plan.empty:
        return ChannelDigest(None, plan.cursor, plan.done, (), (), plan.version)

    name = track.names.get(lang)
    view = {"v": f"digest:{sub.id}"}
    n = iter(range(10_000))
    blocks: list[Json] = [header(t("digest.header", lang, track=name))]
    if (read_last := club_readers_line(readers, lang)) is not None:
        blocks.append(context(read_last))
    if plan.first:
        intro = channel_budget_intro(name, plan.total, plan.minutes_per_week, lang)
        blocks.append(section(intro or t("digest.intro", lang, track=name, total=plan.total, k=sub.steps_per_week)))
    badge = t("digest.new_badge", lang, version=catalog.version)
    for post_id in plan.steps:
        shown = plan.steps[: plan.steps.index(post_id)]
        text = _step_lines(
            catalog, plan.path.step(post_id), lang, plan.total, badge if post_id in plan.added else None, shown
        )
        mark = button(t("btn.mark_read", lang), f"mark_read:{next(n)}", {"p": post_id, "t": track_id, **view})
        linked = catalog.post(post_id).url is not None  # no link yet: nothing to mark read
        blocks.append(section(text, accessory=mark if linked else None))
    if plan.new:
        lines = []
        for post_id, kind in plan.new[:MAX_NEW_LISTED]:
            lines.append(new_line(catalog, track_id, post_id, lang, kind == "moved"))
        if len(plan.new) > MAX_NEW_LISTED:
            lines.append(t("digest.more", lang, n=len(plan.new) - MAX_NEW_LISTED, track_id=track_id))
        if plan.steps:
            blocks.append(divider())
        blocks.extend(sections(lines)[:3])
    if plan.waiting:  # passed over for want of a link: said in one line, sent once linked
        key = "digest.waiting_one" if plan.waiting == 1 else "digest.waiting"
        blocks.append(context(t(key, lang, n=plan.waiting)))
    if plan.essentials_finished:
        after = getattr(sub, "after_essentials", "further")
        listed = any(not plan.path.step(p).essential for p in plan.steps)
        line = channel_finish_line(name, after, lang, further_sent=listed, further_left=plan.cursor < plan.total)
        blocks.append(section(line))
    if plan.closing:
        blocks.append(section(t("digest.closing", lang, total=plan.total, track=name)))
    stop_label = t("btn.stop", lang)
    question = t("digest.stop_confirm_text", lang, track=name, track_id=track_id)
    confirm = confirm_dialog(
        t("digest.stop_confirm_title", lang), question, stop_label, t("btn.cancel", lang), style="danger"
    )
    stop = button(stop_label, f"stop:{next(n)}", view, style="danger", confirm=confirm)
    follow = button(t("btn.follow", lang), f"follow:{next(n)}", {"t": track_id, **view})
    blocks.append(actions([follow, button(t("btn.snooze", lang), f"snooze:{next(n)}", view), stop]))
    waits = plan.waiting  # not counted as sent, said beside the count (QA round 15)
    key = "digest.footer" if not waits else "digest.footer_waiting_one" if waits == 1 else "digest.footer_waiting"
    footer = t(key, lang, version=catalog.version, sent=plan.sent, total=plan.total, track_id=track_id, n=waits)
    footer += over_budget(catalog, plan.steps, plan.minutes_per_week, lang)
    whole_path = Mrkdwn(" · ") + link(page_url, as_plain(pt("whole_path", lang))) if page_url else ""
    blocks.append(context(footer + whole_path))
    named = plan.steps or tuple(p for p, _ in plan.new[:MAX_NEW_LISTED])
    titles = Mrkdwn("; ").join(catalog.post(p).title for p in named)
    key = "digest.fallback" if plan.steps else "digest.fallback_new"
    reply = make_reply(blocks, t(key, lang, track=name, posts=titles), "in_channel")
    return ChannelDigest(reply, plan.cursor, plan.done, plan.steps, plan.added, plan.version)


def over_budget(catalog: Catalog, steps: Sequence[str], budget: int | None, lang: str) -> Mrkdwn:
    """`` · 7 min this week: one step always goes out, even when longer than the 5-min budget`` when
    the week's ``steps`` (post ids) hold more minutes than the channel's weekly ``budget`` (QA round
    20: the header said "about 5 min of reading a week" and the step was 7); else empty. A week
    always sends at least one step (:func:`bot.domain.budget.fit`), so only a single step can exceed it."""
    minutes = sum(catalog.post(p).minutes or 0 for p in steps)
    if not budget or minutes <= budget:
        return Mrkdwn()
    return Mrkdwn(" · ") + t("digest.over_budget", lang, minutes=minutes, budget=budget)


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


_DM_VIEW = {"v": DIGEST_DM_VIEW}


def dm_tail(catalog: Catalog, n: int, lang: str) -> list[Json]:
    """A DM digest's last blocks: *Snooze a week* (``snooze:<n>``), *Stop* (``stop:<n + 1>``), footer."""
    snooze = button(t("btn.snooze", lang), f"snooze:{n}", _DM_VIEW)
    stop = button(t("btn.stop", lang), f"stop:{n + 1}", _DM_VIEW)
    return [actions([snooze, stop]), context(t("digest.dm_footer", lang, version=catalog.version))]
