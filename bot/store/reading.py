"""What serves one reader, keyed by (team, user): the reply language, the posts read (and when,
UTC), the tracks followed, the weekly budget, the essential paths finished and the reminders
(a post at 09:00 on a chosen day, their time). :meth:`~bot.store.Store.reader_state` reads the
first four at once (:mod:`bot.store.reader`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, Update, bindparam, delete, func, insert, select, update

from bot.store.base import Carry, StoreCore, update_row
from bot.store.models import LANGS, FinishedPath, ReaderBudget, ReadingProgress, TrackFollow, UserSettings
from bot.store.models import Reminder as ReminderRow
from bot.store.reader import take_written
from bot.store.snapshots import Reminder, snapshot
from bot.store.validate import check_id, check_ids, check_minutes


class ReadingRepo(StoreCore):
    """Per-reader state; every read and write is scoped by team and user (reminders also by id)."""

    def get_lang(self, team: str, user: str) -> str | None:
        """The user's chosen language (``'en'`` | ``'zh'``), or None (use Slack's locale)."""
        return self._scalar(select(UserSettings.c.lang).filter_by(team_id=team, user_id=user))

    def set_lang(self, team: str, user: str, lang: str | None) -> None:
        """Choose ``'en'`` | ``'zh'``, or None to follow Slack's locale; ValueError for another value."""
        check_id(team, "team"), check_id(user, "user")
        if lang is not None and lang not in LANGS:
            raise ValueError(f"lang must be one of {LANGS} or None, got {lang!r}")
        stmt = self._insert(UserSettings).values(team_id=team, user_id=user, lang=lang)
        stmt = stmt.on_conflict_do_update(index_elements=["team_id", "user_id"], set_={"lang": stmt.excluded.lang})
        with self._write() as s:
            s.execute(stmt)

    def mark_read(self, team: str, user: str, post_ids: Iterable[str]) -> set[str]:
        """Record posts as read now and cancel the pending reminders of them; the ids not read before
        (the others keep their ``read_at``)."""
        check_id(team, "team"), check_id(user, "user")
        ids = check_ids(post_ids, "post id")
        if not ids:
            return set()
        written = take_written(team, user, ids)  # a held click's, committed with its hold
        if written is not None:
            return written
        with self._write(carry=mark_read_carry(team, user, ids)) as s:
            return self._mark_read_rows(s, team, user, ids)

    def _mark_read_rows(self, s: Connection, team: str, user: str, ids: Sequence[str]) -> set[str]:
        """:meth:`mark_read`'s writes in ``s``'s transaction (``ids`` checked): the ids not read before.
        Also run by :mod:`bot.store.held_batch` for a held *Mark read* click, in its hold's transaction."""
        now = self._now()
        rows = [{"team_id": team, "user_id": user, "post_id": p, "read_at": now} for p in ids]
        insert, cancel = self._mark_read_statements()
        # Core statements with the values as parameters: compiled once (a ``values([...])`` insert
        # was compiled again on every call, issue 43's Mark read), no ORM bulk layer
        marked = set(s.execute(insert, rows).scalars())
        s.execute(cancel, [{"team": team, "user": user, "post": p} for p in ids])  # no reminder of a post read
        return marked

    def _mark_read_statements(self) -> tuple[Any, Update]:
        """:meth:`mark_read`'s insert (rows as parameters, the ids inserted returned) and reminder cancel
        (``:team``, ``:user``, ``:post``), built once per dialect."""
        made = _STATEMENTS.get(self._dialect)
        if made is None:
            made = _STATEMENTS[self._dialect] = _mark_read_statements(self._insert(ReadingProgress))
        return made

    def mark_unread(self, team: str, user: str, post_ids: Iterable[str]) -> set[str]:
        """Forget that posts were read. Returns the ids that had been read."""
        check_id(team, "team"), check_id(user, "user")
        ids = check_ids(post_ids, "post id")
        if not ids:
            return set()
        mine = delete(ReadingProgress).filter_by(team_id=team, user_id=user)
        stmt = mine.where(ReadingProgress.c.post_id.in_(ids)).returning(ReadingProgress.c.post_id)
        unread = frozenset(ids)
        with self._write(carry=((team, user), lambda state: replace(state, read=state.read - unread))) as s:
            return set(s.execute(stmt).scalars())

    def read_posts(self, team: str, user: str) -> set[str]:
        """The ids of every post ``user`` has read in ``team``."""
        return set(self._scalars(select(ReadingProgress.c.post_id).filter_by(team_id=team, user_id=user)))

    def reading_since(self, team: str, user: str) -> datetime | None:
        """When ``user`` last marked a post read (UTC), else when they first followed a track; None
        when they did neither ("catch me up" counts what entered the catalog since)."""
        last = self._scalar(select(func.max(ReadingProgress.c.read_at)).filter_by(team_id=team, user_id=user))
        first = select(func.min(TrackFollow.c.followed_at)).filter_by(team_id=team, user_id=user)
        return last if last is not None else self._scalar(first)

    def follow(self, team: str, user: str, track: str) -> bool:
        """Follow a track. True if newly followed, False if already following."""
        check_id(team, "team"), check_id(user, "user"), check_id(track, "track")
        return self._insert_new(TrackFollow, team_id=team, user_id=user, track_id=track, followed_at=self._now())

    def unfollow(self, team: str, user: str, track: str) -> bool:
        """Stop following a track. True if the user was following it."""
        return self._change(delete(TrackFollow).filter_by(team_id=team, user_id=user, track_id=track)) > 0

    def follows(self, team: str, user: str) -> list[str]:
        """Track ids ``user`` follows, oldest follow first."""
        stmt = select(TrackFollow.c.track_id).filter_by(team_id=team, user_id=user)
        return self._scalars(stmt.order_by(TrackFollow.c.followed_at, TrackFollow.c.track_id))

    def set_budget(self, team: str, user: str, minutes: int | None) -> bool:
        """Set ``user``'s weekly budget to ``minutes`` (None: the default): True if it changed; ValueError if bad."""
        check_id(team, "team"), check_id(user, "user")
        key = {"team_id": team, "user_id": user}
        if minutes is None:
            return self._change(delete(ReaderBudget).filter_by(**key)) > 0
        minutes, now = check_minutes(minutes), self._now()
        with self._write() as s:
            row, inserted = self._row_for_update(s, ReaderBudget, key, minutes_per_week=minutes, updated_at=now)
            return update_row(s, ReaderBudget, key, row, {"minutes_per_week": minutes}, now)[1] or inserted

    def get_budget(self, team: str, user: str) -> int | None:
        """``user``'s weekly reading budget in minutes, or ``None`` when they set none."""
        return self._scalar(select(ReaderBudget.c.minutes_per_week).filter_by(team_id=team, user_id=user))

    def record_finished(self, team: str, user: str, track: str, minutes: int) -> bool:
        """Record that ``user`` finished ``track``'s essential path (of ``minutes``) now: True the first time."""
        check_id(team, "team"), check_id(user, "user"), check_id(track, "track")
        row = {"team_id": team, "user_id": user, "track_id": track, "minutes": max(0, int(minutes))}
        return self._insert_new(FinishedPath, **row, finished_at=self._now())

    def finished_paths(self, team: str, user: str) -> dict[str, datetime]:
        """``{track id: finished_at (UTC)}`` of the essential paths ``user`` finished."""
        with self._read() as s:  # built once (App Home reads it at every open: home_open.py)
            return {tid: at for tid, at in s.execute(_FINISHED, {"team": team, "user": user})}

    def count_finished(self, team: str) -> dict[str, int]:
        """``{track id: readers who finished its essential path}`` in ``team``."""
        stmt = select(FinishedPath.c.track_id, func.count()).where(FinishedPath.c.team_id == team)
        return {tid: int(n) for tid, n in self._rows(stmt.group_by(FinishedPath.c.track_id))}

    def team_finished(self, team: str) -> list[tuple[str, str]]:
        """Every recorded finish of ``team``: ``(user id, track id)``, by user then track. A record
        stays when a step is marked unread: whether the path is still finished is the caller's to
        tell from the reads (:func:`bot.domain.insights.still_finished`)."""
        check_id(team, "team")
        stmt = select(FinishedPath.c.user_id, FinishedPath.c.track_id).where(FinishedPath.c.team_id == team)
        return [(u, t) for u, t in self._rows(stmt.order_by(FinishedPath.c.user_id, FinishedPath.c.track_id))]

    def now(self) -> datetime:
        """The store clock's current time (aware UTC): what plans date a finish from."""
        return self._now()

    def add_reminder(
        self, team: str, user: str, post: str, due_at: datetime, timezone: str, lang: str | None = None
    ) -> tuple[Reminder, Reminder | None]:
        """Remind ``user`` of ``post`` at ``due_at`` (aware), moving a pending reminder of the same
        post. ``lang`` (``'en'`` | ``'zh'``): the reminder's language, that of the ``remind`` that
        set it up (None: a moved one keeps its own); it speaks the person's chosen language, else
        this one, else English (:func:`bot.digest.reminders.send_due_reminders`). Returns ``(the
        reminder, the pending one before the move or None)``. Raises ValueError for bad arguments."""
        check_id(team, "team"), check_id(user, "user"), check_id(post, "post"), check_id(timezone, "timezone")
        if due_at.tzinfo is None:
            raise ValueError("due_at must be timezone-aware")
        if lang is not None and lang not in LANGS:
            raise ValueError(f"lang must be one of {LANGS} or None, got {lang!r}")
        now = self._now()
        with self._write() as s:
            mine = {"team_id": team, "user_id": user, "post_id": post, "status": "pending"}
            row = s.execute(select(ReminderRow).filter_by(**mine).limit(1)).first()
            before = None if row is None else snapshot(Reminder, row)
            moved: dict[str, Any] = {"due_at": due_at, "timezone": timezone}
            if lang is not None:
                moved["lang"] = lang
            if row is None:
                written = s.execute(
                    insert(ReminderRow).values(**mine, **moved, created_at=now).returning(*ReminderRow.c)
                )
            else:
                moving = update(ReminderRow).where(ReminderRow.c.id == row.id).values(**moved)
                written = s.execute(moving.returning(*ReminderRow.c))
            return snapshot(Reminder, written.one()), before

    def reminders(self, team: str, user: str) -> list[Reminder]:
        """``user``'s pending reminders, soonest first."""
        return self._pending_rows(ReminderRow.c.team_id == team, ReminderRow.c.user_id == user)

    def reminder_slots(self, team: str, user: str) -> list[Reminder]:
        """``user``'s reminders still to come, pending or cancelled (``due_at`` after now), soonest
        first: what ``reminders cancel <n>`` counts, so that a number keeps naming its reminder
        after another is cancelled (a repeated ``cancel 1`` cancels nothing more)."""
        stmt = select(ReminderRow).where(
            ReminderRow.c.team_id == team,
            ReminderRow.c.user_id == user,
            ReminderRow.c.status.in_(("pending", "cancelled")),
            ReminderRow.c.due_at > self._now(),
        )
        return self._snapshots(Reminder, stmt.order_by(ReminderRow.c.due_at, ReminderRow.c.id))

    def cancel_reminder(self, team: str, user: str, reminder_id: int) -> bool:
        """Cancel one of ``user``'s pending reminders. True if it was pending."""
        return self._change(_pending(reminder_id).filter_by(team_id=team, user_id=user).values(status="cancelled")) == 1

    def due_reminders(self, now: datetime, limit: int = 500) -> list[Reminder]:
        """Pending reminders whose ``due_at`` is at or before ``now`` (aware), oldest first."""
        return self._pending_rows(ReminderRow.c.due_at <= now, limit=limit)

    def mark_reminder_sent(self, reminder_id: int) -> bool:
        """Record a pending reminder as sent. True if it was pending."""
        return self._change(_pending(reminder_id).values(status="sent", sent_at=self._now())) == 1

    def _pending_rows(self, *where: ColumnElement[bool], limit: int | None = None) -> list[Reminder]:
        stmt = select(ReminderRow).where(ReminderRow.c.status == "pending", *where)
        return self._snapshots(Reminder, stmt.order_by(ReminderRow.c.due_at, ReminderRow.c.id).limit(limit))


def mark_read_carry(team: str, user: str, ids: Sequence[str]) -> Carry:
    """How marking ``ids`` read changes ``user``'s reader state in ``team`` (a reader cache's carry)."""
    read = frozenset(ids)
    return (team, user), lambda state: replace(state, read=state.read | read)


def _mark_read_statements(insert: Any) -> tuple[Any, Update]:
    """:meth:`ReadingRepo.mark_read`'s statements from the dialect's ``insert`` of ``reading_progress``."""
    reminders = ReminderRow
    cancel = update(reminders).where(
        reminders.c.team_id == bindparam("team"),
        reminders.c.user_id == bindparam("user"),
        reminders.c.status == "pending",
        reminders.c.post_id == bindparam("post"),  # run for each post (an IN list is compiled at each run)
    )
    return insert.on_conflict_do_nothing().returning(ReadingProgress.c.post_id), cancel.values(status="cancelled")


_FINISHED = select(FinishedPath.c.track_id, FinishedPath.c.finished_at).where(
    FinishedPath.c.team_id == bindparam("team"), FinishedPath.c.user_id == bindparam("user")
)
""":meth:`ReadingRepo.finished_paths`' statement (``:team``, ``:user``)."""
_STATEMENTS: dict[str, tuple[Any, Update]] = {}
""":meth:`ReadingRepo.mark_read`'s statements, built once per dialect name."""


def _pending(reminder_id: int) -> Update:
    return update(ReminderRow).where(ReminderRow.c.id == reminder_id, ReminderRow.c.status == "pending")
