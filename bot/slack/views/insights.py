"""Render reading insights (:class:`bot.domain.insights.Insights`) as Block Kit, for admins (pure)."""

from __future__ import annotations

from bot.domain.catalog import Catalog
from bot.domain.insights import ACTIVE_DAYS, FINISH_DAYS, MIN_READERS, WEEKS, Insights, TrackCompletion, TrackFunnel
from bot.slack.i18n import t
from bot.slack.ids import is_channel_id
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views.blocks import Json, Reply, context, header, make_reply, section, sections
from bot.slack.views.messages import post_link, track_name
from bot.slack.views.parts import count_text

FUNNEL_STEPS = 15
"""Steps of a funnel shown on one line (the rest are summarised by the last one shown)."""


def _activity(ins: Insights, lang: str) -> Mrkdwn:
    """Active readers and reads per week (the reply's first section and its fallback text)."""
    counts = " ".join(str(n) for _, n in ins.reads_per_week)
    # under 4 readers no count is shown, not even how many read (QA: "Active readers: *1* (1 ever)")
    readers = {"active": count_text(ins.readers_active), "total": count_text(ins.readers_total)}
    if not ins.reads_per_week:  # too few readers to show when they read
        return t("stats.activity_hidden", lang, days=ACTIVE_DAYS, n=MIN_READERS, **readers)
    return t("stats.activity", lang, days=ACTIVE_DAYS, weeks=WEEKS, spark=ins.sparkline(), counts=counts, **readers)


def funnel_line(catalog: Catalog, funnel: TrackFunnel, lang: str) -> Mrkdwn:
    """``*Speculative decoding* · 6 readers`` then ``6 → 5 → 4 → <4 …`` (readers reaching each step),
    cut after the last step anyone reached: ``6 → 5 → 0 · no one past step 2 of 17``;
    one line saying so when every step's count is hidden or zero (not ``<4 → 0 → 0 …``)."""
    name = track_name(catalog, funnel.track_id, lang)
    if not any(funnel.reached):  # each None (hidden) or 0
        readers = count_text(funnel.readers)
        return t("stats.funnel_hidden", lang, track=name, readers=readers, steps=funnel.steps)
    # QA round 13: cut after the last step anyone reached (not "5 → 5 → 5 → 0 → 0 → … (12 more zeros)"):
    # one 0 shows where readers stop, then how far that is in the path
    last = max(i for i, n in enumerate(funnel.reached) if n != 0) + 1  # a hidden count (None) is someone
    shown = funnel.reached[: min(last, FUNNEL_STEPS)]
    steps = " → ".join(count_text(n) for n in shown)
    more = Mrkdwn(" …" if last > FUNNEL_STEPS else "")
    if last < funnel.steps:
        more += Mrkdwn(" · " if more else " → 0 · ") + t("stats.funnel_stop", lang, last=last, steps=funnel.steps)
    return t(
        "stats.funnel", lang, track=name, readers=count_text(funnel.readers), steps=funnel.steps, funnel=steps + more
    )


def completion_line(catalog: Catalog, row: TrackCompletion, lang: str) -> Mrkdwn:
    """``*Speculative decoding* · 60% of 5 followers finished the essential path (3)``, or that
    there are fewer than ``MIN_READERS`` followers of :data:`FINISH_DAYS` or finishers (no share shown)."""
    name = track_name(catalog, row.track_id, lang)
    if row.share is None and row.cohort is not None:
        return t("stats.completion_few", lang, track=name, n=MIN_READERS, cohort=row.cohort)
    if row.share is None:
        return t("stats.completion_hidden", lang, track=name, n=MIN_READERS, weeks=FINISH_DAYS // 7)
    return t("stats.completion", lang, track=name, share=round(row.share * 100), cohort=row.cohort, n=row.finished)


def insights_blocks(catalog: Catalog, ins: Insights, lang: str) -> list[Json]:
    """The insights as blocks (header, activity, funnels, top posts, digest health)."""
    blocks: list[Json] = [header(t("stats.header", lang)), section(_activity(ins, lang))]
    funnels = [f for f in ins.funnels if f.readers != 0]
    if funnels:
        blocks.append(section(t("stats.funnels", lang)))
        blocks.extend(sections([funnel_line(catalog, f, lang) for f in funnels])[:6])
    if ins.completions:
        blocks.append(section(t("stats.completions", lang, weeks=FINISH_DAYS // 7)))
        blocks.extend(sections([completion_line(catalog, c, lang) for c in ins.completions])[:4])
    if ins.top_posts:
        lines = [
            Mrkdwn("{}. {} · {}").format(i, post_link(catalog, p), t("stats.readers", lang, n=n))
            for i, (p, n) in enumerate(ins.top_posts, 1)
        ]
        blocks.append(section(t("stats.top", lang) + Mrkdwn("\n") + Mrkdwn("\n").join(lines)))
    else:
        blocks.append(section(t("stats.top_hidden", lang, n=MIN_READERS - 1)))
    if ins.channels:
        lines = []
        for ch in ins.channels:
            cid = ch.channel_id
            where = Mrkdwn("<#{}>").format(Mrkdwn(cid)) if is_channel_id(cid) else Mrkdwn("`{}`").format(cid)
            counts = {k: getattr(ch, k) for k in ("active", "paused", "sent", "skipped", "failed")}
            line = t("stats.channel", lang, channel=where, **counts)
            if ch.reasons:
                line += Mrkdwn(" · ") + t("stats.reasons", lang, reasons=", ".join(ch.reasons))
            lines.append(line)
        blocks.append(section(t("stats.digests", lang, days=ACTIVE_DAYS)))
        blocks.extend(sections(lines)[:10])
    blocks.append(context(t("stats.footer", lang, n=MIN_READERS - 1)))
    return blocks


def insights_reply(catalog: Catalog, ins: Insights, lang: str) -> Reply:
    """The ``/vllm-path stats`` reply (ephemeral, for the admin who asked)."""
    return make_reply(insights_blocks(catalog, ins, lang), _activity(ins, lang))
