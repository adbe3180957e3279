"""Issue 44: weekly streaks with humane rules, with a controlled clock on the real catalog. A week
counts when the reader read their budget or all that was due; a week with nothing due and a paused
week keep the streak; a missed week with something due breaks it; *behind* counts the missed weeks
in a row that the nudge waits for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.domain.catalog.loader import load_catalog
from bot.domain.streaks import behind_since, lower_budget, streak, week_start

W0 = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)  # a Monday: the reader follows then
BUDGET = 20


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(DEFAULT_CATALOG_DIR)


def week(n: int, day: int = 1) -> datetime:
    """A time in week ``n`` after the follow (day 0: Monday)."""
    return W0 + timedelta(weeks=n, days=day)


def budget_worth(catalog: Catalog, track: str, skip: int = 0) -> list[str]:
    """The track's first unread linked posts (after ``skip``) adding up to the budget."""
    out, minutes = [], 0
    for pid in paths.reading_order(catalog, track)[skip:]:
        if minutes >= BUDGET:
            break
        out.append(pid)
        minutes += catalog.post(pid).minutes or 0
    assert minutes >= BUDGET
    return out


def reads_in(catalog: Catalog, track: str, weeks: list[int]) -> dict[str, datetime]:
    """A budget's worth of ``track`` read in each of ``weeks``, in reading order."""
    reads: dict[str, datetime] = {}
    for n in weeks:
        for pid in budget_worth(catalog, track, skip=len(reads)):
            reads[pid] = week(n)
    return reads


def test_weeks_start_on_monday_utc() -> None:
    assert week_start(datetime(2026, 11, 8, 23, 59, tzinfo=UTC)) == datetime(2026, 11, 2, tzinfo=UTC)
    assert week_start(W0) == datetime(2026, 11, 2, tzinfo=UTC)


def test_a_missed_week_with_something_due_breaks_the_streak(catalog: Catalog) -> None:
    reads = reads_in(catalog, "spec", [1, 3])  # week 2: something due, nothing read
    s = streak(catalog, reads, {"spec": W0}, BUDGET, (), now=week(4, day=2))
    assert (s.weeks, s.behind, s.this_week) == (1, 0, False)
    unbroken = streak(catalog, reads_in(catalog, "spec", [1, 2, 3]), {"spec": W0}, BUDGET, (), now=week(4, day=2))
    assert unbroken.weeks == 3


def test_a_paused_week_keeps_the_streak(catalog: Catalog) -> None:
    reads = reads_in(catalog, "spec", [1, 3])
    pause = ((week(2, day=0), week(2, day=6)),)
    s = streak(catalog, reads, {"spec": W0}, BUDGET, pause, now=week(4, day=2))
    assert (s.weeks, s.behind) == (2, 0)


def test_a_week_with_nothing_due_keeps_the_streak(catalog: Catalog) -> None:
    whole = {pid: week(1) for pid in paths.reading_order(catalog, "spec")}  # all of it in week 1
    follows = {"spec": W0, "quant": week(3, day=1)}  # week 2: nothing due; week 3 a new track
    reads = {**whole, **{pid: week(3, day=2) for pid in budget_worth(catalog, "quant")}}
    s = streak(catalog, reads, follows, BUDGET, (), now=week(4, day=2))
    assert s.weeks == 2
    alone = streak(catalog, whole, {"spec": W0}, BUDGET, (), now=week(6))
    assert (alone.weeks, alone.behind) == (1, 0)  # weeks 2..5 had nothing due


def test_reading_all_that_was_due_counts_even_under_the_budget(catalog: Catalog) -> None:
    first = paths.reading_order(catalog, "spec")[0]
    small = streak(catalog, {first: week(1)}, {"spec": W0}, 1, (), now=week(2))
    assert small.weeks == 1  # a 1-minute plan: its one due step read
    short = streak(catalog, {first: week(1)}, {"spec": W0}, 600, (), now=week(2))
    assert short.weeks == 0  # 600 minutes due, one short post read: the week is missed


def test_the_current_week_adds_once_it_counts_and_never_breaks(catalog: Catalog) -> None:
    reads = reads_in(catalog, "spec", [1, 2])
    assert streak(catalog, reads, {"spec": W0}, BUDGET, (), now=week(3, day=0)).this_week is False
    with_now = reads_in(catalog, "spec", [1, 2, 3])
    s = streak(catalog, with_now, {"spec": W0}, BUDGET, (), now=week(3, day=3))
    assert (s.weeks, s.this_week) == (3, True)


def test_behind_counts_missed_weeks_in_a_row_and_a_pause_resets_it(catalog: Catalog) -> None:
    reads = reads_in(catalog, "spec", [1])
    s = streak(catalog, reads, {"spec": W0}, BUDGET, (), now=week(4, day=2))
    assert (s.weeks, s.behind) == (0, 2)  # weeks 2 and 3 missed
    paused = streak(catalog, reads, {"spec": W0}, BUDGET, ((week(3, 0), week(3, 5)),), now=week(4, day=2))
    assert (paused.weeks, paused.behind) == (0, 0)  # week 2 missed still breaks; the pause ends "behind"
    assert streak(catalog, {}, {"spec": W0}, BUDGET, (), now=week(0, day=3)).behind == 0  # the follow week


def test_no_follows_no_streak_and_the_lighter_budget(catalog: Catalog) -> None:
    assert streak(catalog, {}, {}, BUDGET, (), now=W0).weeks == 0
    alone = budget_worth(catalog, "spec")  # no follows: a budget read still counts
    assert streak(catalog, {p: week(1) for p in alone}, {}, BUDGET, (), now=week(2)).weeks == 1
    assert lower_budget(45) == 20 and lower_budget(60) == 30 and lower_budget(5) is None


def test_weeks_start_on_monday_in_the_readers_time_zone(catalog: Catalog) -> None:
    assert week_start(datetime(2026, 11, 8, 17, 0, tzinfo=UTC), "Asia/Shanghai") == datetime(
        2026, 11, 8, 16, tzinfo=UTC
    )
    assert week_start(datetime(2026, 11, 9, 5, 0, tzinfo=UTC), "America/Los_Angeles") == datetime(
        2026, 11, 2, 8, tzinfo=UTC
    )
    assert week_start(W0, "Not/AZone") == week_start(W0) == week_start(W0, None)  # unknown: UTC
    # a budget read on Sunday 8 November 20:00 UTC is Monday 04:00 in Shanghai: this week there
    reads = {pid: datetime(2026, 11, 8, 20, 0, tzinfo=UTC) for pid in budget_worth(catalog, "spec")}
    now = datetime(2026, 11, 9, 6, 0, tzinfo=UTC)
    utc = streak(catalog, reads, {"spec": W0}, BUDGET, (), now=now)
    shanghai = streak(catalog, reads, {"spec": W0}, BUDGET, (), now=now, zone="Asia/Shanghai")
    assert (utc.weeks, utc.this_week) == (1, False) and (shanghai.weeks, shanghai.this_week) == (1, True)
    # read Monday 9 November 05:00 UTC: Sunday 21:00 in Los Angeles, last week there
    reads = {pid: datetime(2026, 11, 9, 5, 0, tzinfo=UTC) for pid in budget_worth(catalog, "spec")}
    now = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
    la = streak(catalog, reads, {"spec": W0}, BUDGET, (), now=now, zone="America/Los_Angeles")
    assert streak(catalog, reads, {"spec": W0}, BUDGET, (), now=now).this_week is True
    assert (la.weeks, la.this_week) == (1, False)


def test_behind_and_its_start_follow_the_readers_time_zone(catalog: Catalog) -> None:
    now = datetime(2026, 11, 22, 17, 0, tzinfo=UTC)  # Monday 23 November 01:00 in Shanghai
    assert streak(catalog, {}, {"spec": W0}, BUDGET, (), now=now).behind == 1
    assert streak(catalog, {}, {"spec": W0}, BUDGET, (), now=now, zone="Asia/Shanghai").behind == 2
    assert behind_since(now, 2, "Asia/Shanghai") == datetime(2026, 11, 8, 16, tzinfo=UTC)
    assert behind_since(now, 1) == datetime(2026, 11, 9, tzinfo=UTC)


def test_a_week_across_a_daylight_saving_change_starts_at_local_midnight(catalog: Catalog) -> None:
    # Los Angeles leaves daylight saving on Sunday 1 November 2026: that week is 169 hours long
    assert week_start(datetime(2026, 11, 2, 9, tzinfo=UTC), "America/Los_Angeles") == datetime(
        2026, 11, 2, 8, tzinfo=UTC
    )
    assert week_start(datetime(2026, 11, 1, 9, tzinfo=UTC), "America/Los_Angeles") == datetime(
        2026, 10, 26, 7, tzinfo=UTC
    )
    assert behind_since(datetime(2026, 11, 3, tzinfo=UTC), 1, "America/Los_Angeles") == datetime(
        2026, 10, 26, 7, tzinfo=UTC
    )
