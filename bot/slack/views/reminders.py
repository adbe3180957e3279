"""Render reminders (pure): the confirmation, the list with *Cancel* buttons, and the DM itself."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from zoneinfo import ZoneInfo

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import format_day
from bot.domain.paths import TrackState
from bot.domain.schedule import zone_label
from bot.slack.i18n import t, weekday_name
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views.blocks import Json, Reply, actions, button, context, header, make_reply, section, sections
from bot.slack.views.links import place_lines
from bot.slack.views.messages import ActionIds, post_link, progress_line
from bot.slack.views.plan import minutes_suffix
from bot.store.snapshots import Reminder

MAX_LISTED = 20
"""Reminders listed with a *Cancel* button (the rest are counted)."""


def plain_due_label(due_at: datetime, zone: str, lang: str, today: date | None = None) -> Mrkdwn:
    """An aware instant as a reader reads a day, in IANA ``zone`` and ``lang``: ``Monday 7 Dec 2026,
    09:00 Europe/Berlin`` / ``2026年12月7日 周一 09:00 Europe/Berlin``, led by "tomorrow" when it is the
    day after ``today`` (the reader's local date): ``remind … next monday`` on a Sunday says which
    Monday it booked (QA: the ISO date alone left it to the reader to work out)."""
    local = due_at.astimezone(ZoneInfo(zone))
    day = local.date()
    words = {
        "weekday": weekday_name(day.weekday(), lang),
        "day": format_day(day, lang),
        "time": local.strftime("%H:%M"),
        "tz": zone_label(zone),
    }
    tomorrow = today is not None and (day - today).days == 1
    return t("remind.when_tomorrow" if tomorrow else "remind.when", lang, **words)


def _post(catalog: Catalog, post_id: str, lang: str) -> Mrkdwn:
    return post_link(catalog, post_id, lang=lang) if catalog.has_post(post_id) else Mrkdwn("`{}`").format(post_id)


def reminder_set_notice(
    catalog: Catalog, reminder: Reminder, lang: str, before: Reminder | None = None, today: date | None = None
) -> Mrkdwn:
    """ "I will remind you of <post> on Monday 7 Dec 2026, 09:00 Asia/Kolkata." (escaped mrkdwn;
    :func:`plain_due_label`, "tomorrow, …" when due the day after ``today``, the reader's local date),
    and "… instead of <time>" when it moved ``before`` (the reminder it replaced); "already set for
    <time>" when ``before`` was due then already (QA round 18: a second *Remind me* said nothing of it)."""
    post = _post(catalog, reminder.post_id, lang)
    when = plain_due_label(reminder.due_at, reminder.timezone, lang, today)
    if before is not None and before.due_at == reminder.due_at:
        return t("remind.already_set", lang, post=post, when=when)
    if before is not None and before.due_at != reminder.due_at:
        earlier = plain_due_label(before.due_at, before.timezone, lang, today)
        return t("remind.moved", lang, post=post, when=when, before=earlier)
    return t("remind.set", lang, post=post, when=when)


def reminder_set_reply(catalog: Catalog, post_id: str, state: TrackState, notice: str, read: bool, lang: str) -> Reply:
    """The answer to ``remind <post>`` (command or button): ``notice`` (:func:`reminder_set_notice`)
    with *Mark read* for the reminded post beside it (none when ``read``), the reader's place in the
    post's track ``state`` (:func:`~bot.slack.views.messages.progress_line`) with *Mark read* for that
    line's next step beside it (none when it is the reminded post or there is none), and *Open path*
    (3 blocks). A button acts on what it sits beside (QA: one *Mark read* under both lines marked the
    reminded post while sitting next to the next step)."""
    ids, tid = ActionIds(), state.track_id
    mine = None if read else button(t("btn.mark_read", lang), ids("mark_read"), {"p": post_id, "t": tid, "v": "short"})
    nxt = state.next
    step = None
    if nxt is not None and nxt.post_id != post_id:
        step = button(t("btn.mark_read", lang), ids("mark_read"), {"p": nxt.post_id, "t": tid, "v": "short"})
    line = progress_line(catalog, state, lang)
    open_path = button(t("btn.open_path", lang), ids("open_path"), {"t": tid, "v": "short"})
    blocks = [section(notice, accessory=mine), section(line, accessory=step), actions([open_path])]
    return make_reply(blocks, Mrkdwn("{}\n{}").format(notice, line))


def reminder_cancelled_notice(catalog: Catalog, reminder: Reminder, lang: str) -> Mrkdwn:
    """ "Cancelled the reminder of <post>." (escaped mrkdwn)."""
    return t("reminders.cancelled_post", lang, post=_post(catalog, reminder.post_id, lang))


def reminders_reply(
    catalog: Catalog,
    reminders: Sequence[Reminder],
    lang: str,
    notice: str | None = None,
    numbers: Sequence[int] | None = None,
) -> Reply:
    """The pending reminders (``reminders``, soonest first) numbered as ``reminders cancel <n>``
    counts (``numbers``, one each; None: 1, 2, …) and listed in the order of those numbers (QA round
    13: "2. Tue 8 Dec" above "1. Mon 14 Dec"; a number follows the order reminders were set, so a
    number once shown never names another reminder), with *Cancel*; each day as the confirmation
    names it (:func:`plain_due_label`: ``Monday 14 Dec 2026, 09:00 …``)."""
    blocks: list[Json] = [header(t("reminders.header", lang))]
    if notice:
        blocks.append(section(notice))
    if not reminders:
        blocks.append(section(t("reminders.none", lang)))
        return make_reply(blocks, Mrkdwn("\n").join(x for x in (notice, t("reminders.none", lang)) if x))
    listed = sorted(zip(numbers or range(1, len(reminders) + 1), reminders, strict=True), key=lambda x: x[0])
    lines = []
    for i, (number, r) in enumerate(listed[:MAX_LISTED]):
        when = plain_due_label(r.due_at, r.timezone, lang)  # as the confirmation said it (QA)
        line = Mrkdwn("{}. {} · {}").format(number, when, _post(catalog, r.post_id, lang))
        lines.append(line)
        cancel = button(t("btn.cancel", lang), f"cancel_reminder:{i}", {"d": str(r.id), "v": "reminders"})
        blocks.append(section(line, accessory=cancel))
    if len(reminders) > MAX_LISTED:
        blocks.append(context(t("home.more", lang, n=len(reminders) - MAX_LISTED)))  # those not listed (QA)
    return make_reply(blocks, Mrkdwn("\n").join(([Mrkdwn(notice)] if notice else []) + lines))


def reminder_message(catalog: Catalog, post_id: str, lang: str) -> Reply:
    """The reminder DM: the post, its summary and its place in its tracks, and *Mark read*."""
    post = catalog.post(post_id)
    lines = place_lines(catalog, post.id, lang, card=True)
    published = post.published.display(lang)
    blocks: list[Json] = [
        section(t("remind.dm", lang, post=post_link(catalog, post.id, bold=True, lang=lang))),
        section(
            Mrkdwn("_{} · {}{}_\n{}").format(
                published, post.source.label(lang), minutes_suffix(post, lang), post.summary.get(lang)
            )
        ),
    ]
    if lines:
        blocks.extend(sections(lines))
    mark = button(t("btn.mark_read", lang), "mark_read:0", {"p": post.id, "v": "digest-dm"}, style="primary")
    blocks.append(actions([mark]))
    return make_reply(blocks, t("remind.dm", lang, post=post.title))
