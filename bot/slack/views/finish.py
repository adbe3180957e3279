"""The finish line (issue 24): what a reader sees when they mark the last essential step read."""

from __future__ import annotations

from bot.domain.catalog import Catalog
from bot.domain.paths import TrackState
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views.links import read_link
from bot.slack.views.plan import minutes_label

MAX_FURTHER = 5
"""Further-reading posts listed by name (the track reply lists them all)."""


def finish_text(
    catalog: Catalog, state: TrackState, lang: str = "en", next_track: str | None = None, why: Mrkdwn | None = None
) -> Mrkdwn:
    """The finish message (escaped mrkdwn, under 3,000 characters) of the reader's ``state``: the
    count of steps covered and their minutes (QA round 18: every title listed made it ~700
    characters), unread further reading (:data:`MAX_FURTHER`; one waiting for a step before it says
    which: ``next`` passes it) and ``next_track`` (an id) to offer, with ``why`` (:func:`finish_reason`);
    with none, a pointer to ``/vllm-path recommend``."""
    path = state.path
    ess = path.essentials
    name = path.track.names.get(lang)
    lines = [t("finish.done", lang, track=name, steps=len(ess), minutes=path.essential_minutes)]
    more = [s for s in path.further if not state.is_read(s)][:MAX_FURTHER]
    if more:
        lines.append(t("finish.further", lang))
        for step in more:
            label = minutes_label(step.post, lang)
            reading = Mrkdwn(" · ") + label if label else Mrkdwn()
            if step in state.held_back:  # QA round 8: listed, then passed by "next" without a word
                first = catalog.post(state.unread_first(step)[0]).title
                reading += t("finish.after_unread", lang, post=truncate(first, 80))
            lines.append(Mrkdwn("• {}{}").format(read_link(catalog, step.post, lang), reading))
    if next_track is not None:
        offer = t("finish.next", lang, track=catalog.track(next_track).names.get(lang), track_id=next_track)
        lines.append(offer if why is None else _sentence(offer + Mrkdwn(" · ") + why, lang))
    else:  # QA round 19: no track close enough to offer: where to look instead
        lines.append(t("finish.recommend", lang))
    return Mrkdwn("\n").join(lines)


REASONS = ("follow", "after", "before", "linked", "shared")
"""Why a next track is offered (:func:`bot.slack.commands.plan.next_choice`): the reader follows it, it
names the finished track in ``before``, the finished track names it, ``relations.yaml`` links their
posts, they share posts."""


def finish_reason(reason: str, count: int, lang: str = "en") -> Mrkdwn | None:
    """Why the finish message offers its next track, in a few words (``finish.why.<reason>``, one of
    :data:`REASONS`; ``count`` the posts linked or shared), else None for an unknown reason."""
    if reason not in REASONS:
        return None
    one = "_one" if count == 1 and reason in ("linked", "shared") else ""
    return t("finish.why." + reason + one, lang, n=count)


_ENDS = ".!?…。！？"
"""Marks that already end a sentence (a title ending in ``?``, a list cut with ``…``)."""


def _sentence(text: Mrkdwn, lang: str) -> Mrkdwn:
    """``text`` ended with a full stop (``。`` in Chinese) unless it ends with a mark of :data:`_ENDS` (QA)."""
    return text if str(text).rstrip().endswith(tuple(_ENDS)) else text + Mrkdwn("。" if lang == "zh" else ".")
