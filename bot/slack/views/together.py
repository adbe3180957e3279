"""Reading together (issue 44), rendered: a reading club's thread under its digest, the line that
opens the next digest with how many read the last one, a reader's streak line and the gentle
nudge DM (buttons ``lower_budget:0`` with ``d`` the new minutes, ``pause_plan:1``, ``dm_off:2``;
``v`` :data:`NUDGE_VIEW`)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.domain.catalog import Catalog
from bot.domain.insights import MIN_READERS
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views.blocks import Reply, actions, button, context, make_reply, section, sections

NUDGE_VIEW = "digest-nudge"
"""``v`` of the nudge's buttons (a ``digest…`` view: a click is answered with a line, not redrawn)."""


def club_thread(catalog: Catalog, steps: Sequence[str], lang: str) -> Reply:
    """The first reply in a club digest's thread: the discussion prompt of each of ``steps`` (post
    ids; one without a prompt is left out) and how to mark the digest read. Within Block Kit's limits."""
    lines = [t("club.thread", lang)]
    for pid in steps:
        prompt = catalog.prompt(pid)
        if prompt is not None:
            lines.append(Mrkdwn("*{}*\n{}").format(catalog.post(pid).title, prompt.get(lang)))
    blocks = [*sections(lines)[:10], context(t("club.how_to_mark", lang))]
    return make_reply(blocks, Mrkdwn("\n").join(lines), "in_channel")


def unlinked_line(lang: str) -> Mrkdwn:
    """What a digest says under a step with no link yet (the catalog's unlinked posts: no URL, no
    minutes) instead of its notes: plainly that there is nothing to read until it is published."""
    return t("digest.no_link", lang)


def club_preview(catalog: Catalog, sub: object, steps: Sequence[str], lang: str) -> Reply | None:
    """For ``digest preview``: the thread reply (:func:`club_thread`) a reading club's digest bringing
    ``steps`` would open, as the deliverer posts it; None when ``sub`` is no club (``club`` false or
    absent: a newly subscribed channel's stand-in) or the digest brings no step (no thread is opened)."""
    if not getattr(sub, "club", False) or not steps:
        return None
    return club_thread(catalog, steps, lang)


def club_readers_line(readers: int | None, lang: str) -> Mrkdwn | None:
    """How many marked the club's last digest read, or None when unknown or under
    :data:`~bot.domain.insights.MIN_READERS` (a count that small is never shown)."""
    return None if readers is None or readers < MIN_READERS else t("club.read_last", lang, n=readers)


def streak_line(weeks: int, lang: str) -> Mrkdwn | None:
    """A reader's streak in weeks, for their App Home and finish message only; None under one week."""
    if weeks < 1:
        return None
    return t("streak.line_one", lang) if weeks == 1 else t("streak.line", lang, n=weeks)


def nudge_message(budget: int, lower: int | None, lang: str) -> Reply:
    """The one gentle DM to a reader two weeks behind their ``budget`` (minutes a week): lower it to
    ``lower`` minutes (None: no lower budget to offer), pause two weeks, or turn the DMs off."""
    value = {"v": NUDGE_VIEW}
    buttons = [
        button(t("btn.pause_plan", lang), "pause_plan:1", value),
        button(t("btn.dm_off", lang), "dm_off:2", value),
    ]
    if lower is not None:
        buttons.insert(0, button(t("btn.lower_budget", lang, n=lower), "lower_budget:0", {**value, "d": str(lower)}))
    text = t("nudge.text", lang, n=budget)
    return make_reply([section(text), actions(buttons), context(t("nudge.footer", lang))], text, "in_channel")
