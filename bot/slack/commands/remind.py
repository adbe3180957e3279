"""``remind <post> [day]``, ``reminders [cancel <n>]`` and the *Remind me* / *Cancel* buttons.

The day is read by :func:`bot.domain.reminder_day.choose_day` in the reader's local date (their Slack
time zone, else the default zone); no day means a week from today. The reminder is stored
(:mod:`bot.store.reminders`) and sent by the clock (:mod:`bot.digest.reminders`) at 09:00 local.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.domain.reminder_day import choose_day, due_at, local_today
from bot.slack import grammar
from bot.slack.commands.registry import button, command
from bot.slack.commands.session import ButtonValue, Session
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views import reminders as rviews
from bot.slack.views.blocks import Reply
from bot.slack.views.search import search_reply

DEFAULT_DAYS = 7
"""Days ahead when no day is named (``remind p-eagle``: a week from today)."""


def _now() -> datetime:
    return datetime.now(UTC)


def set_reminder(s: Session, post_id: str, words: list[str]) -> Mrkdwn:
    """Store a reminder of ``post_id`` for the day ``words`` name (empty: a week from today);
    returns the confirmation or the error text (escaped mrkdwn)."""
    zone, _ = s.timezone(None)
    zone = zone or "UTC"
    today = local_today(_now(), zone)
    choice = choose_day(words, today)
    if choice.error or choice.rest:
        return t("remind.bad_day", s.lang, value=truncate(choice.error or " ".join(words), 60))
    day = choice.day or today + timedelta(days=DEFAULT_DAYS)
    reminder, before = s.rt.store.add_reminder(s.caller.team_id, s.caller.user_id, post_id,
                                               due_at(day, zone), zone)
    notice = rviews.reminder_set_notice(s.rt.holder.catalog, reminder, s.lang, before=before)
    kept = s.keep_language()
    return notice + (Mrkdwn("\n") + kept if kept else Mrkdwn())


@command("remind")
def remind(s: Session, cmd: grammar.Command) -> Reply:
    """``remind <post id or query> [day]``: remind the caller of a post by DM on that day."""
    words = cmd.arg.split()
    choice = choose_day(words, local_today(_now(), s.timezone(None)[0] or "UTC"))
    if choice.error:
        return views.text_reply(t("remind.bad_day", s.lang, value=truncate(choice.error, 60)))
    if not choice.rest:
        return views.text_reply(t("remind.which", s.lang))
    if choice.meant and len(choice.rest) > 1:  # "laguna xs2 tomorow": ask, book nothing
        meant = " ".join(["remind", *choice.rest[:-1], choice.meant])
        return views.text_reply(t("didyoumean.command", s.lang, suggestion=truncate(meant, 200)))
    if choice.day is None and len(choice.rest) > 1:  # "p-eagle next monday at 3pm": a clear post,
        named = next((k for k in range(len(choice.rest) - 1, 0, -1)  # then no day: blame those words
                      if s.exact_post_ids(choice.rest[:k]) is not None), None)
        if named is not None:
            return views.text_reply(t("remind.bad_day", s.lang, value=truncate(" ".join(choice.rest[named:]), 60)))
    query = " ".join(choice.rest)
    post_ids, candidates = s.resolve_posts(query)
    day_words = words[len(choice.rest):]
    if candidates is not None:  # several posts match about as well: let the reader pick
        notice = t("remind.pick", s.lang, query=truncate(query, 100), example=candidates.results[0].post_id,
                   day=truncate(" ".join(day_words) or "next week", 40))
        return search_reply(s.rt.holder.catalog, query, candidates, s.read(), s.lang, notice=notice)
    if not post_ids:
        return views.text_reply(t("remind.no_match", s.lang, query=truncate(query, 100)))
    if len(post_ids) != 1:
        return views.text_reply(t("remind.which", s.lang))
    return views.text_reply(set_reminder(s, post_ids[0], day_words))


@command("reminders")
def reminders(s: Session, cmd: grammar.Command) -> Reply:
    """``reminders``: the caller's pending reminders; ``reminders cancel <n>`` cancels the n-th."""
    store, team, user = s.rt.store, s.caller.team_id, s.caller.user_id
    words = cmd.arg.split()
    notice = None
    if len(words) == 2 and words[0].casefold() in ("cancel", "取消") and words[1].isdigit():
        pending = store.reminders(team, user)
        n = int(words[1])
        if not 1 <= n <= len(pending):
            notice = t("reminders.no_number" if pending else "reminders.no_number_none", s.lang, n=n)
        elif store.cancel_reminder(team, user, pending[n - 1].id):
            notice = rviews.reminder_cancelled_notice(s.rt.holder.catalog, pending[n - 1], s.lang)
        else:  # sent or cancelled between the list and the cancel
            notice = t("reminders.not_found", s.lang)
    elif words:  # "reminders cancel abc", "reminders foo": say what works, and list them
        notice = t("reminders.usage", s.lang)
    return rviews.reminders_reply(s.rt.holder.catalog, store.reminders(team, user), s.lang, notice=notice)


@button("remind")
def remind_button(s: Session, value: ButtonValue) -> Reply | None:
    """*Remind me next week* (the day in the value's ``d``), then redraw (or answer privately)."""
    cat = s.rt.holder.catalog
    pid = cat.resolve_post_id(value.p) if value.p else None
    if pid is None or not cat.has_post(pid):
        return s.redraw(value.v, t("error.generic", s.lang), offset=value.o)
    return s.redraw(value.v, set_reminder(s, pid, (value.d or "").split()), offset=value.o)


@button("cancel_reminder")
def cancel_button(s: Session, value: ButtonValue) -> Reply | None:
    """*Cancel* on a listed reminder (its id in ``d``), then redraw the list."""
    ok = bool(value.d and value.d.isdigit()
              and s.rt.store.cancel_reminder(s.caller.team_id, s.caller.user_id, int(value.d)))
    return s.redraw(value.v, t("reminders.cancelled" if ok else "reminders.not_found", s.lang), offset=value.o)
