"""``snooze …`` and ``unsnooze`` typed as commands (QA round 11: ``unsnooze`` was searched, ``snooze
2w`` dropped its length unsaid). A snooze is one week, by a digest's *Snooze a week* button or
``dm pause``; only the weekly DM's can be undone (``dm resume``): a channel digest's skips its next
digest, settled in the ledger, and the digest comes back the week after by itself."""

from __future__ import annotations

import re

from bot.slack.commands.context import Context
from bot.slack.grammar_dm import A_WEEK
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views import subscriptions as subviews
from bot.slack.views.blocks import Reply

UNDO = re.compile(r"^(?:please\s+)?(?:un-?snooze|取消暂停|取消推迟)(?:\s+.*)?$", re.IGNORECASE)
"""``unsnooze`` (``un-snooze``, ``取消暂停``, ``取消推迟``): end a snooze."""
_LEAD = re.compile(r"^(?:please\s+)?(?:snooze|推迟)\s*(?:for\s+)?", re.IGNORECASE)
_LENGTH = re.compile(
    r"^(?:(?:\d{1,4}|an?|one|two|three|four|five|six|a\s+few|a\s+couple\s+of)\s*"
    r"(?:w|wk|wks|weeks?|d|days?|mo|months?|h|hrs?|hours?|m|mins?|minutes?)"
    r"|(?:\d{1,4}|[一两二三四五六七八九十几半])\s*(?:个)?(?:周|星期|礼拜|天|月|小时|分钟))$",
    re.IGNORECASE,
)
"""How long a snooze is asked to last (``2w``, ``for 2 weeks``, ``3 days``, ``两周``)."""
_ONE_WEEK = A_WEEK | {"1w", "1 w", "1wk", "7d", "7 d", "1周", "一周", "一个星期", "一星期"}


def snooze_reply(ctx: Context, typed: str) -> Reply:
    """The answer to ``typed`` (``snooze``, ``snooze 2w``, ``unsnooze``, ``推迟两周``, ``取消暂停``):
    ``unsnooze`` ends the weekly DM's snooze when it has one (as ``dm resume``), else says how a
    snooze ends; a length other than a week is refused in one sentence (a snooze is one week);
    anything else: what snoozing is (the digest's button)."""
    text = typed.strip()
    button = t("btn.snooze", ctx.lang)
    if UNDO.match(text):
        return views.text_reply(_undo(ctx))
    length = _LEAD.sub("", text, count=1).strip() if _LEAD.match(text) else ""
    if length and _LENGTH.match(length) and length.casefold() not in _ONE_WEEK:
        return views.text_reply(t("snooze.one_week", ctx.lang, value=truncate(length, 40), button=button))
    return views.text_reply(t("snooze.what", ctx.lang, button=button))


def _undo(ctx: Context) -> Mrkdwn:
    """``unsnooze``: the weekly DM's snooze ended now and the next DM's day named; no DM snoozed:
    that nothing changed, and that a channel digest's snooze ends by itself after the digest it skips."""
    store, team, user = ctx.rt.store, ctx.caller.team_id, ctx.caller.user_id
    dm = store.get_dm(team, user)
    if dm is None or not dm.enabled or subviews.dm_resumes(dm, store.now()) is None:
        return t("snooze.undo_none", ctx.lang)
    store.snooze_dm(team, user, None)
    fire = dm.schedule.next_fire(store.now())
    assert fire is not None  # a weekly schedule always fires again
    return t("dm.resumed", ctx.lang, **views.day_words(fire, ctx.lang))
