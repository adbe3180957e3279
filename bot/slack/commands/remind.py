"""``remind <post> [day]``, ``reminders [cancel <n>]``, the *Remind me* / *Cancel* buttons. The day and
its 09:00 send are in the reader's zone (:func:`~bot.domain.reminder_day.choose_day`, :mod:`bot.digest.reminders`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.domain.reminder_day import (
    REMIND_AT,
    DayChoice,
    a_year_after,
    choose_day,
    day_last,
    drop_read_words,
    due_at,
    local_today,
    names_a_day,
    numeric_readings,
    this_week_gone,
)
from bot.domain.reminder_time import means
from bot.domain.words import clock_time, time_word
from bot.slack import grammar
from bot.slack.commands import replies
from bot.slack.commands.context import ButtonValue, Context
from bot.slack.commands.reminder_numbers import numbered
from bot.slack.i18n import day_text, t, weekday_name
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views import reminders as rviews
from bot.slack.views.blocks import Reply
from bot.slack.views.search import search_reply
from bot.store.snapshots import Reminder

DEFAULT_DAYS = 7
"""Days ahead when no day is named (``remind p-eagle``: a week from today)."""


def set_reminder(ctx: Context, post_id: str, words: list[str]) -> Mrkdwn:
    """Store a reminder of ``post_id`` for the day ``words`` name (none: in a week); the confirmation or error."""
    return _set(ctx, post_id, words)[0]


def _set(
    ctx: Context, post_id: str, words: list[str], note: Mrkdwn | None = None, days: int = DEFAULT_DAYS
) -> tuple[Mrkdwn, bool]:
    """:func:`set_reminder`'s answer (``note`` on a line after the confirmation) and whether the
    reminder was stored (False: the day was refused); no day in ``words``: ``days`` from today. This
    week's day typed when it is today or past (``this friday`` on a Saturday) is next week's, and the
    note says so (QA round 17)."""
    zone = ctx.timezone()
    today = local_today(datetime.now(UTC), zone)
    choice = choose_day(words, today)
    if choice.error or choice.rest:
        return bad_day(ctx.lang, choice.error or " ".join(words), today, choice.reason if choice.error else None), False
    day = choice.day or today + timedelta(days=days)
    if note is None and choice.day is not None and (gone := this_week_gone(words, today)) is not None:
        key = "remind.this_week_today" if gone == today.weekday() else "remind.this_week_past"
        note = t(key, ctx.lang, weekday=weekday_name(gone, ctx.lang), date=day_text(day, ctx.lang))
    caller = ctx.caller
    due = due_at(day, zone)  # sent in the language of this reply, unless the caller chose one (QA)
    reminder, before = ctx.rt.store.add_reminder(caller.team_id, caller.user_id, post_id, due, zone, lang=ctx.lang)
    notice = rviews.reminder_set_notice(ctx.catalog, reminder, ctx.lang, before=before, today=today)
    later = ctx.later_language()
    for line in (note, later):
        notice = notice + (Mrkdwn("\n") + line if line else Mrkdwn())
    return notice, True


_REASON_KEY = {"today": "remind.day_today", "past": "remind.day_past", "far": "remind.day_far"}
_REASON_KEY["ambiguous"] = "remind.day_ambiguous"
"""The refusal of a day that is a date, by :attr:`~bot.domain.reminder_day.DayChoice.reason`."""


def bad_day(lang: str, value: str, today: date, reason: str | None = None) -> Mrkdwn:
    """ "I could not use “<value>” as a day: try …": its dated examples are the day after ``today``
    (the reader's local date), so they are always days ``remind`` accepts (QA: a fixed 2026-12-07
    was offered on 2026-12-07 itself). ``reason`` (``today``, ``past``, ``far``) says why a date
    cannot be used (QA: ``2028-01-01`` is "more than a year ahead", the last day named; ``05/06``
    could be either of two days: both named in ISO form, ``2027-05-06`` or ``2027-06-05``)."""
    tomorrow, last = today + timedelta(days=1), a_year_after(today)
    first, second = (d.isoformat() if d else "" for d in numeric_readings(value, today))
    return t(
        _REASON_KEY.get(reason or "", "remind.bad_day"),
        lang,
        value=truncate(value, 60),
        example=tomorrow.isoformat(),
        example_md=f"{tomorrow.month}月{tomorrow.day}日",
        last=last.isoformat(),
        first=first,
        second=second,
    )


def _day_refused(ctx: Context, choice: DayChoice, today: date) -> Mrkdwn | None:
    """Why the day words of ``remind`` cannot be used: a day not after ``today`` (the reader's
    local date), no post before it, a near miss of a day word (did you mean), or words after a post
    id that are no day; else None."""
    if choice.error:
        return bad_day(ctx.lang, choice.error, today, choice.reason)
    if not choice.rest:
        return t("remind.which", ctx.lang)
    if choice.meant and len(choice.rest) > 1:
        meant = " ".join(["remind", *choice.rest[:-1], choice.meant])
        return t("didyoumean.command", ctx.lang, suggestion=truncate(meant, 200))
    if choice.day is None and len(choice.rest) > 1:
        named = next(
            (k for k in range(len(choice.rest) - 1, 0, -1) if ctx.find.exact_post_ids(choice.rest[:k]) is not None),
            None,
        )
        if named is not None:
            return bad_day(ctx.lang, " ".join(choice.rest[named:]), today)
    return None


_TIME_FIRST = re.compile(
    r"^(?P<time>(?:上午|下午|晚上|早上|中午)?\d{1,2}(?:点半|点\d{1,2}分?|点)|\d{1,2}:\d{2}|\d{1,2}(?:am|pm))(?P<rest>.*)$",
    re.IGNORECASE,
)
"""A time of day typed before the post (``提醒我下午3点读 p-eagle``, ``提醒我 15:00 读 p-eagle``), maybe glued."""


def _time_first(words: list[str]) -> list[str]:
    """``words`` with a time of day typed first (no day before it) moved to the end with the reading
    words after it left out (``下午3点读 p-eagle``: ``p-eagle 下午3点``), where
    :func:`~bot.domain.reminder_day.choose_day` sets it aside as the time it cannot be (QA: it was
    searched for as a post); ``words`` as they are otherwise."""
    lead = 1 if len(words) > 2 and words[0].casefold() in ("at", "around", "在") else 0  # "at 3pm to read p-eagle"
    m = _TIME_FIRST.match(words[lead]) if words else None
    if m is None or clock_time(time_word(m["time"].casefold())) is None:
        return words
    rest = [m["rest"], *words[lead + 1 :]] if m["rest"] else words[lead + 1 :]
    while len(rest) > 1 and rest[0].casefold() in ("to", "read", "about", "of"):
        rest = rest[1:]
    rest = drop_read_words(rest)
    return [*rest, *words[:lead], m["time"]] if rest else words


def _unglue_day(words: list[str]) -> list[str]:
    """``words`` with a Chinese day glued to the end of the last (``p-eagle明天``, ``读p-eagle下周一``)
    split off as a word of its own; ``words`` as they are otherwise."""
    last = words[-1] if words else ""
    for at in range(1, len(last)):
        if last[at - 1].isascii() and not last[at].isascii() and names_a_day(last[at:]):
            return [*words[:-1], last[:at], last[at:]]
    return words


def remind(ctx: Context, cmd: grammar.Command) -> Reply:
    """``remind <post id or query> [day]``: remind the caller of a post by DM on that day. Reading
    words before the post (``提醒我读 p-eagle 明天``) are left out before the day is read (QA: the
    day was read as ``p-eagle 明天``, the post as ``读``)."""
    today = local_today(datetime.now(UTC), ctx.timezone())
    typed = drop_read_words(_unglue_day(_time_first(cmd.arg.split())))
    words = day_last(typed, today)  # "提醒我明天读 p-eagle": the day first
    choice = choose_day(words, today)
    if not choice.rest and not choice.error and (nxt := _next_read(ctx)) is not None:  # "remind me tomorrow"
        words = [nxt, *words]
        choice = choose_day(words, today)
    refused = _day_refused(ctx, choice, today)
    if refused is not None:
        return views.text_reply(refused)
    choice = replace(choice, rest=drop_read_words(choice.rest))  # "提醒我读 nope": the post is "nope" (QA)
    query = " ".join(choice.rest)
    spaced = ctx.find.exact_post_ids(["-".join(choice.rest)]) if len(choice.rest) > 1 else None
    post_ids, candidates = (spaced, None) if spaced else ctx.find.resolve_posts(query)  # "p eagle": p-eagle
    day_words = words[len(choice.rest) :]
    if candidates is not None:  # several posts match about as well: let the reader pick
        day = truncate(" ".join(day_words) or ("下周" if ctx.lang == "zh" else "next week"), 40)
        example = _typed_id(ctx, choice.rest) or candidates.results[0].post_id
        notice = t("remind.pick", ctx.lang, query=truncate(query, 100), example=example, day=day)
        return search_reply(ctx.catalog, query, candidates, ctx.reader.read(), ctx.lang, notice=notice)
    if not post_ids:
        return views.text_reply(t("remind.no_match", ctx.lang, query=truncate(query, 100)))
    if len(post_ids) != 1:
        return views.text_reply(t("remind.which", ctx.lang))
    if (no_link := _no_link(ctx, post_ids[0])) is not None:
        return views.text_reply(no_link)
    if choice.soon:  # "in 2 hours", "半小时后": the next 09:00, and said so (QA round 11)
        return _next_nine(ctx, post_ids[0], choice.soon)
    if choice.at:  # "tomorrow 9am", "tomorrow at 14:00": set for that day at 09:00, and said so (QA round 10)
        return _at_nine(ctx, post_ids[0], choice, day_words)
    return _answer(ctx, post_ids[0], *_set(ctx, post_ids[0], day_words))


def _at_nine(ctx: Context, post_id: str, choice: DayChoice, day_words: list[str]) -> Reply:
    """``remind`` with a time of day (:attr:`~bot.domain.reminder_day.DayChoice.at`): set for the day
    named at :data:`~bot.domain.reminder_day.REMIND_AT`, saying reminders come then (another time:
    that it is set for that day at 09:00 instead); no day: 09:00 itself (``at 9``, ``morning``) is
    tomorrow's, another time asks for a day and sets nothing (``at 3pm``)."""
    at, nine = REMIND_AT.strftime("%H:%M"), choice.at is not None and means(choice.at, REMIND_AT)
    if choice.day is None and not nine:
        command = truncate(" ".join(("/vllm-path remind", post_id, t("remind.tomorrow", ctx.lang))), 200)
        value = truncate(choice.at or "", 40)
        return views.text_reply(t("remind.at_nine_day", ctx.lang, at=at, value=value, command=command))
    # 09:00 asked for: the confirmation says 09:00 already (QA round 11: the note repeated it)
    note = None if nine else t("remind.at_nine_set", ctx.lang, at=at, value=truncate(choice.at or "", 40))
    return _answer(ctx, post_id, *_set(ctx, post_id, day_words, note=note, days=1))


def _next_nine(ctx: Context, post_id: str, span: str) -> Reply:
    """``remind`` with a span of hours or minutes (``in 2 hours``, ``半小时后``): reminders come once
    a day at :data:`~bot.domain.reminder_day.REMIND_AT`, so it is set for the next one (today's while
    it is still before then in the reader's zone, else tomorrow's), said in one sentence."""
    zone = ctx.timezone()
    local = datetime.now(UTC).astimezone(ZoneInfo(zone))
    days = 0 if local.time() < REMIND_AT else 1
    at = REMIND_AT.strftime("%H:%M")
    note = t("remind.next_nine", ctx.lang, at=at, value=truncate(span, 40))
    return _answer(ctx, post_id, *_set(ctx, post_id, [], note=note, days=days))


def _next_read(ctx: Context) -> str | None:
    """The caller's next read in the first track they follow that has one (the step ``next``
    shows: :attr:`~bot.domain.paths.TrackState.next`), for ``remind me tomorrow`` with no post
    (QA round 10: it asked "Which post?"); None when they follow none or have read them all."""
    for state in ctx.reader.states(ctx.reader.follows()):
        if state.next is not None:
            return state.next.post_id
    return None


POST_PLACEHOLDER = {"en": "<post>", "zh": "<文章>"}
"""What stands for the post in a suggested ``remind`` that names none (the reader fills it in)."""


def with_post(ctx: Context, command: str) -> str:
    """``command`` (a ``remind`` as typed, without its keyword's target: ``remind tomorrow``) with a post
    before its day when it names none: the caller's next read (:func:`_next_read`), else
    :data:`POST_PLACEHOLDER` (QA round 19: ``remind <!here> tomorrow`` suggested ``remind tomorrow``,
    which then asked "Which post?"); else ``command`` as it was."""
    words = command.split()
    if len(words) < 2:
        return command
    today = local_today(datetime.now(UTC), ctx.timezone())
    typed = drop_read_words(_unglue_day(_time_first(words[1:])))
    choice = choose_day(day_last(typed, today), today)
    if choice.rest or choice.error:
        return command
    post = _next_read(ctx) or POST_PLACEHOLDER.get(ctx.lang, POST_PLACEHOLDER["en"])
    return " ".join([words[0], post, *words[1:]])


def _typed_id(ctx: Context, words: list[str]) -> str | None:
    """The post id typed among ``words`` (``p-eagle foo``) or spelled with spaces (``p eagle``), the
    example a "which post?" reply gives before the best match's (QA); else None."""
    spaced = ctx.find.exact_post_ids(["-".join(words)]) if len(words) > 1 else None
    typed = [ctx.find.exact_post_ids([w]) for w in words]
    return next((ids[0] for ids in (spaced, *typed) if ids), None)


def _no_link(ctx: Context, post_id: str) -> Mrkdwn | None:
    """Why ``post_id`` cannot be reminded of: the catalog has no link for it yet (``url`` None: the
    reminder would have nothing to open; QA), else None."""
    if ctx.catalog.post(post_id).url is not None:
        return None
    title = ctx.catalog.post(post_id).title
    return t("remind.no_link", ctx.lang, post=Mrkdwn("*{}*").format(truncate(str(title), 150)))


def _answer(ctx: Context, post_id: str, notice: Mrkdwn, stored: bool = True) -> Reply:
    """The confirmation (saying, on a line of its own, that the post is read already, when it is,
    and that the reminder is set anyway when ``stored``) and where the reader stands in the post's
    track (issue 40: one line), with *Mark read* for the reminded post
    (:func:`~bot.slack.views.reminders.reminder_set_reply`)."""
    read = post_id in ctx.reader.read()
    if read:  # accepted, but the reader may not know they read it (QA: glued to the link in Chinese)
        note = t("remind.already_read_set" if stored else "remind.already_read", ctx.lang)
        notice = Mrkdwn("{}\n{}").format(notice, note)
    tid = replies.main_track(ctx, [post_id])
    if tid is None:
        return views.text_reply(notice)
    return rviews.reminder_set_reply(ctx.catalog, post_id, ctx.reader.state(tid), notice, read, ctx.lang)


def reminders(ctx: Context, cmd: grammar.Command) -> Reply:
    """``reminders``: the caller's pending reminders; ``reminders cancel <n>`` cancels the n-th, as
    numbered (:func:`~bot.slack.commands.reminder_numbers.numbered`: a number keeps its reminder, so
    a repeated cancel says it was cancelled already instead of cancelling the next one)."""
    store, team, user = ctx.rt.store, ctx.caller.team_id, ctx.caller.user_id
    words = cmd.arg.split()
    notice = None
    if len(words) == 2 and words[0].casefold() in ("cancel", "取消") and words[1].isdigit():
        pending, _, order = numbered(store, team, user)
        n = int(words[1])
        if not 1 <= n <= len(order):
            notice = t("reminders.no_number" if pending else "reminders.no_number_none", ctx.lang, n=n)
        elif order[n - 1].status != "pending":
            pid = order[n - 1].post_id
            title = truncate(str(ctx.catalog.post(pid).title) if ctx.catalog.has_post(pid) else pid, 150)
            listed = len(pending) > 0  # "the numbers below stay": only when a list follows (QA)
            key = "reminders.already_cancelled" if listed else "reminders.already_cancelled_none"
            notice = t(key, ctx.lang, n=n, post=Mrkdwn("*{}*").format(title))
        elif store.cancel_reminder(team, user, order[n - 1].id):
            notice = rviews.reminder_cancelled_notice(ctx.catalog, order[n - 1], ctx.lang)
        else:  # sent or cancelled between the list and the cancel
            notice = t("reminders.not_found", ctx.lang)
    elif words:  # "reminders cancel abc", "reminders foo": say what works, and list them
        notice = t("reminders.usage", ctx.lang)
    pending, numbers, _ = numbered(store, team, user)
    return rviews.reminders_reply(ctx.catalog, pending, ctx.lang, notice=notice, numbers=numbers)


def remind_button(ctx: Context, value: ButtonValue) -> Reply | None:
    """*Remind me next week* (the day in the value's ``d``): a short answer (App Home and the
    reminders list are drawn again), a new message under a track's path or search results, which stay."""
    cat = ctx.catalog
    pid = cat.resolve_post_id(value.p) if value.p else None
    if pid is None or not cat.has_post(pid) or (value.t and replies.current_track(ctx, value.t) is None):
        return replies.outdated(ctx)  # a post or track gone, as Mark read says it (QA round 14)
    if (no_link := _no_link(ctx, pid)) is not None:
        return replies.redraw(ctx, value.v, no_link, offset=value.o)
    notice, stored = _set(ctx, pid, (value.d or "").split())
    if value.v == "home" or value.v.startswith("latest:") or value.v in ("next", "latest", "reminders"):
        return replies.redraw(ctx, value.v, notice, offset=value.o)  # App Home and lists: drawn again
    answer = _answer(ctx, pid, notice, stored)  # QA round 18: under a track's path, a new answer, the path kept
    kept = value.v.startswith(("track:", "search:"))  # QA round 19: search results kept too
    return replace(answer, keep_original=True) if answer is not None and kept else answer


def cancel_button(ctx: Context, value: ButtonValue) -> Reply | None:
    """*Cancel* on a listed reminder (its id in ``d``), then redraw the list."""
    reminder_id = int(value.d) if value.d and value.d.isdigit() else None
    ok = reminder_id is not None and ctx.rt.store.cancel_reminder(ctx.caller.team_id, ctx.caller.user_id, reminder_id)
    notice = t("reminders.cancelled" if ok else "reminders.not_found", ctx.lang)
    return replies.redraw(ctx, value.v, notice, offset=value.o)


def pending_of(ctx: Context, post_ids: Sequence[str]) -> list[Reminder]:
    """The caller's pending reminders of ``post_ids``, soonest first: those marking the posts read
    cancels (:meth:`bot.store.reading.ReadingRepo.mark_read`), read before the mark."""
    wanted = set(post_ids)
    return [r for r in ctx.rt.store.reminders(ctx.caller.team_id, ctx.caller.user_id) if r.post_id in wanted]


def cancelled_by_read(ctx: Context, reminders: Sequence[Reminder], named: bool = False) -> Mrkdwn | None:
    """ "Your reminder of it for Tuesday 8 Dec 2026 is cancelled." for the pending ``reminders`` of
    posts just marked read (their days in each reminder's zone, :func:`~bot.slack.i18n.day_text`);
    ``named``: several posts were marked, so each reminder's post is named instead of "it" (QA),
    one line a post; None when there were none (QA: the reminder went unsaid)."""
    still = {r.id for r in ctx.rt.store.reminders(ctx.caller.team_id, ctx.caller.user_id)}
    gone = [r for r in reminders if r.id not in still]
    if not gone:
        return None
    if not named:
        return _cancelled_text(ctx, gone)
    posts = list(dict.fromkeys(r.post_id for r in gone))
    return Mrkdwn("\n").join(_cancelled_text(ctx, [r for r in gone if r.post_id == p], p) for p in posts)


def cancelled_with_click(ctx: Context, post_id: str) -> Mrkdwn | None:
    """:func:`cancelled_by_read` for a *Mark read* click that just marked ``post_id`` read: its
    pending reminder was cancelled with the click's hold (:mod:`bot.store.held_batch`) before this
    runs, so the post's latest reminder still to come is named when it is cancelled (one cancelled
    by hand before the click is named too: it is cancelled all the same); else None."""
    mine = [r for r in ctx.rt.store.reminder_slots(ctx.caller.team_id, ctx.caller.user_id) if r.post_id == post_id]
    latest = max(mine, key=lambda r: r.id) if mine else None
    return _cancelled_text(ctx, [latest]) if latest is not None and latest.status == "cancelled" else None


def _cancelled_text(ctx: Context, gone: Sequence[Reminder], post_id: str | None = None) -> Mrkdwn:
    """ "Your reminder of it for <days> is cancelled." (``gone``: one or more); with ``post_id``,
    "Your reminder of *<title>* for <days> is cancelled."."""
    sep = "、" if ctx.lang == "zh" else ", "
    days = sep.join(day_text(local_today(r.due_at, r.timezone), ctx.lang) for r in gone)
    if post_id is None:
        return t("read.reminder_cancelled", ctx.lang, days=days)
    title = str(ctx.catalog.post(post_id).title) if ctx.catalog.has_post(post_id) else post_id
    post = Mrkdwn("*{}*").format(truncate(title, 150))
    return t("read.reminder_cancelled_post", ctx.lang, days=days, post=post)
