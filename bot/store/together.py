"""Reading together (issue 44): reading clubs' digest messages and the ✅ marks on them, and a
reader's habit (plan pauses, the last gentle nudge). Keyed by team; times are aware UTC."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, or_, select, update

from bot.store.base import changed
from bot.store.models import ClubDigest, ClubRead, DmPreference, ReaderBudget, ReaderHabit, ReadingProgress, TrackFollow
from bot.store.models import Reminder as ReminderRow
from bot.store.reading import ReadingRepo
from bot.store.validate import check_aware, check_id, check_ids

MAX_STEPS_CHARS = 2000
"""The width of ``club_digests.steps`` (post ids, space-separated)."""


@dataclass(frozen=True, slots=True)
class HabitFacts:
    """What a reader's streak is computed from: ``reads`` ``{post id: read_at}``, ``follows``
    ``{track id: followed_at}`` (oldest first), ``budget`` (minutes; None: the default),
    ``pauses`` ``((start, end), …)``, ``nudged_at`` (None: never), ``dm_off`` (``dm off`` said) and
    ``timezone``: the reader's IANA zone, whose Mondays start their streak weeks: that of their DM
    settings (``dm on`` takes Slack's ``users.info`` ``tz``), else of their latest reminder (set in
    their zone), else None (unknown: UTC)."""

    reads: dict[str, datetime]
    follows: dict[str, datetime]
    budget: int | None
    pauses: tuple[tuple[datetime, datetime], ...]
    nudged_at: datetime | None
    dm_off: bool
    timezone: str | None = None


class TogetherRepo(ReadingRepo):
    """Club digests, ✅ marks, plan pauses and nudges."""

    def record_club_digest(
        self, team: str, channel: str, message_ts: str, subscription_id: int, steps: tuple[str, ...]
    ) -> bool:
        """Remember that ``message_ts`` in ``channel`` is subscription ``subscription_id``'s club digest
        bringing ``steps`` (post ids): True the first time (so its thread is opened once)."""
        check_id(team, "team"), check_id(channel, "channel"), check_id(message_ts, "message_ts")
        joined = " ".join(check_ids(steps, "post id"))
        if len(joined) > MAX_STEPS_CHARS:
            raise ValueError(f"steps take more than {MAX_STEPS_CHARS} characters")
        row = {"team_id": team, "channel_id": channel, "message_ts": message_ts, "steps": joined}
        return self._insert_new(ClubDigest, **row, subscription_id=subscription_id, posted_at=self._now())

    def club_mark(self, team: str, channel: str, message_ts: str, user: str) -> set[str] | None:
        """``user``'s ✅ on a message: when it is a club digest they had not marked, record the mark
        and mark its steps read (one transaction) and return the post ids newly read; None when it
        is no club digest or was marked before."""
        check_id(user, "user")
        key = {"team_id": team, "channel_id": channel, "message_ts": message_ts}
        steps = self._scalar(select(ClubDigest.c.steps).filter_by(**key))
        if steps is None:
            return None
        if not self._insert_new(ClubRead, **key, user_id=user, read_at=self._now()):
            return None
        return self.mark_read(team, user, steps.split())

    def club_unmark(self, team: str, channel: str, message_ts: str, user: str, steps: Iterable[str]) -> bool:
        """Take back a :meth:`club_mark` (a bot's ✅, found out after the ack): forget ``user``'s mark on
        the message and the posts it newly marked read (``steps``: what :meth:`club_mark` returned;
        others stay as they were). True when there was a mark to forget."""
        check_id(user, "user")
        key = {"team_id": team, "channel_id": channel, "message_ts": message_ts, "user_id": user}
        forgot = self._change(delete(ClubRead).filter_by(**key)) > 0
        self.mark_unread(team, user, steps)
        return forgot

    def club_readers_last(self, subscription_id: int) -> int:
        """How many people marked the subscription's latest club digest read (0 without one)."""
        last = (
            select(ClubDigest.c.team_id, ClubDigest.c.channel_id, ClubDigest.c.message_ts)
            .where(ClubDigest.c.subscription_id == subscription_id)
            .order_by(ClubDigest.c.posted_at.desc(), ClubDigest.c.message_ts.desc())
            .limit(1)
            .subquery()
        )
        stmt = (
            select(func.count())
            .select_from(ClubRead)
            .join(
                last,
                (ClubRead.c.team_id == last.c.team_id)
                & (ClubRead.c.channel_id == last.c.channel_id)
                & (ClubRead.c.message_ts == last.c.message_ts),
            )
        )
        return int(self._scalar(stmt) or 0)

    def habit_facts(self, team: str, user: str) -> HabitFacts:
        """:class:`HabitFacts` of ``user`` in ``team``, in one read transaction."""
        mine = {"team_id": team, "user_id": user}
        with self._read() as s:
            reads = dict(
                s.execute(select(ReadingProgress.c.post_id, ReadingProgress.c.read_at).filter_by(**mine)).all()
            )
            follows_q = select(TrackFollow.c.track_id, TrackFollow.c.followed_at).filter_by(**mine)
            follows = dict(s.execute(follows_q.order_by(TrackFollow.c.followed_at, TrackFollow.c.track_id)).all())
            budget = s.scalar(select(ReaderBudget.c.minutes_per_week).filter_by(**mine))
            habit = s.execute(select(ReaderHabit).filter_by(**mine)).first()
            dm = s.execute(select(DmPreference.c.enabled, DmPreference.c.timezone).filter_by(**mine)).first()
            enabled, zone = (dm.enabled, dm.timezone) if dm is not None else (None, None)
            if zone is None:  # no DM settings: the zone their latest reminder was set in
                latest = select(ReminderRow.c.timezone).filter_by(**mine).order_by(ReminderRow.c.created_at.desc())
                zone = s.scalar(latest.limit(1))
            pauses = tuple(
                (datetime.fromisoformat(a), datetime.fromisoformat(b)) for a, b in (habit.pauses if habit else ())
            )
            nudged = habit.nudged_at if habit else None
            return HabitFacts(reads, follows, budget, pauses, nudged, enabled is False, zone)

    def pause_plan(self, team: str, user: str, until: datetime) -> None:
        """Pause ``user``'s plan from now until ``until`` (aware): those weeks never break a streak."""
        check_id(team, "team"), check_id(user, "user"), check_aware(until, "until")
        now = self._now()
        key = {"team_id": team, "user_id": user}
        with self._write() as s:
            row, _ = self._row_for_update(s, ReaderHabit, key, pauses=[], updated_at=now)
            pauses = [*row.pauses, [now.isoformat(), until.isoformat()]]
            s.execute(update(ReaderHabit).filter_by(**key).values(pauses=pauses, updated_at=now))

    def claim_nudge(self, team: str, user: str, now: datetime, every: timedelta) -> bool:
        """Record a nudge to ``user`` at ``now`` (aware) unless one went out less than ``every``
        before: True for the one caller that may send it (a conditional write: two clocks never both)."""
        check_id(team, "team"), check_id(user, "user"), check_aware(now, "now")
        key = {"team_id": team, "user_id": user}
        with self._write() as s:
            if self._inserted(s, ReaderHabit, {**key, "pauses": [], "nudged_at": now, "updated_at": now}):
                return True
            due = or_(ReaderHabit.c.nudged_at.is_(None), ReaderHabit.c.nudged_at <= now - every)
            stmt = update(ReaderHabit).filter_by(**key).where(due).values(nudged_at=now, updated_at=now)
            return changed(s, stmt) == 1

    def planners(self) -> list[tuple[str, str]]:
        """``(team, user)`` of every reader with a plan, in order: following a track, with a weekly
        DM on or a budget of their own, and not ``dm off``."""
        followers = select(TrackFollow.c.team_id, TrackFollow.c.user_id).distinct().subquery()
        dm = (DmPreference.c.team_id == followers.c.team_id) & (DmPreference.c.user_id == followers.c.user_id)
        budget = (ReaderBudget.c.team_id == followers.c.team_id) & (ReaderBudget.c.user_id == followers.c.user_id)
        own_budget = DmPreference.c.enabled.is_(None) & ReaderBudget.c.user_id.is_not(None)
        planned = or_(DmPreference.c.enabled.is_(True), own_budget)
        stmt = (
            select(followers.c.team_id, followers.c.user_id)
            .outerjoin(DmPreference, dm)
            .outerjoin(ReaderBudget, budget)
            .where(planned)
            .order_by(followers.c.team_id, followers.c.user_id)
        )
        return [(str(t), str(u)) for t, u in self._rows(stmt)]
