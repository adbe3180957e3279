"""The finish line (issue 24): what a reader sees when they mark the last essential step read."""

from __future__ import annotations

from collections.abc import Collection

from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views.links import read_link
from bot.slack.views.plan import minutes_label

MAX_FURTHER = 5
"""Further-reading posts listed by name (the track reply lists them all)."""


def finish_text(
    catalog: Catalog, track_id: str, read: Collection[str], lang: str = "en", finished: Collection[str] = ()
) -> Mrkdwn:
    """The finish message (escaped mrkdwn, under 3,000 characters): the steps covered, unread further
    reading (:data:`MAX_FURTHER`) and the next track not in ``finished``."""
    ess = paths.essentials(catalog, track_id)
    minutes, _ = paths.total_minutes(catalog, ess)
    name = catalog.track(track_id).names.get(lang)
    lines = [
        t("finish.done", lang, track=name, steps=len(ess), minutes=minutes),
        t("finish.covered", lang, titles=", ".join(catalog.post(p).title for p in ess)[:900]),
    ]
    done = {catalog.resolve_post_id(p) or p for p in read}
    more = [p for p in paths.further(catalog, track_id) if p not in done][:MAX_FURTHER]
    if more:
        lines.append(t("finish.further", lang))
        for pid in more:
            post = catalog.post(pid)
            label = minutes_label(post, lang)
            reading = Mrkdwn(" · ") + label if label else Mrkdwn()
            lines.append(Mrkdwn("• {}{}").format(read_link(catalog, post, lang), reading))
    nxt = paths.next_track(catalog, track_id, finished)
    if nxt is not None:
        lines.append(t("finish.next", lang, track=catalog.track(nxt).names.get(lang), track_id=nxt))
    return Mrkdwn("\n").join(lines)
