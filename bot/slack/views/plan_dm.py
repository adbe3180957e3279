"""The weekly DM of a reader who set a budget (issue 24): the next steps that fit their minutes a
week (:func:`bot.domain.plan.plan_reader_week`), each with its reading time and *Mark read*."""

from __future__ import annotations

from collections.abc import Sequence

from bot.domain import plan
from bot.domain.catalog import Catalog
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views.blocks import Reply, actions, button, context, header, make_reply, section
from bot.slack.views.digest import DIGEST_DM_VIEW
from bot.slack.views.links import read_link
from bot.slack.views.plan import minutes_label, pt

MAX_DM_STEPS = 20
"""Steps listed in one DM at most (a big budget of short posts stays within Block Kit's 50)."""


def budget_dm(catalog: Catalog, follows: Sequence[str], read: set[str], minutes_per_week: int,
              lang: str = "en") -> Reply | None:
    """The DM for a reader following ``follows`` who read ``read``, at ``minutes_per_week``;
    None when nothing is left to read in the followed tracks."""
    steps = plan.plan_reader_week(catalog, follows, read, minutes_per_week)[:MAX_DM_STEPS]
    if not steps:
        return None
    view = {"v": DIGEST_DM_VIEW}
    blocks: list[object] = [header(pt("dm.header", lang)), section(pt("dm.budget", lang, budget=minutes_per_week))]
    for i, (tid, pid) in enumerate(steps):
        post = catalog.post(pid)
        label = minutes_label(post, lang)
        text = Mrkdwn("{}\n_{}{}_").format(read_link(catalog, post, lang, bold=True),
                                          catalog.track(tid).names.get(lang),
                                          Mrkdwn(" · ") + label if label else Mrkdwn())
        blocks.append(section(text, accessory=button(t("btn.mark_read", lang), f"mark_read:{i}",
                                                     {"p": pid, "t": tid, **view})))
    n = len(steps)
    blocks.append(actions([button(t("btn.snooze", lang), f"snooze:{n}", view),
                           button(t("btn.stop", lang), f"stop:{n + 1}", view)]))
    blocks.append(context(pt("dm.footer", lang, version=catalog.version)))
    fallback = pt("dm.fallback", lang, posts=Mrkdwn("; ").join(catalog.post(p).title for _t, p in steps))
    return make_reply(blocks, fallback)  # type: ignore[arg-type]
