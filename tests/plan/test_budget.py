"""The weekly budget: the words for it, what fits in a week, and the default's promise."""

from __future__ import annotations

import itertools
import random

import pytest

from bot.domain import budget, paths
from bot.slack.grammar import parse


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("30m", 30),
        ("30 min", 30),
        ("45minutes", 45),
        ("1h", 60),
        ("1.5h", 90),
        ("1h30", 90),
        ("2 hours", 120),
        ("30分钟", 30),
        ("1小时", 60),
        ("半小时", 30),
        ("一小时", 60),
        ("两小时", 120),
        ("half an hour", 30),  # (QA) said in words, as 半小时 is
        ("an hour and a half", 90),
        ("30", None),
        ("monday", None),
        ("", None),
    ],
)
def test_parse_minutes_reads_one_duration(text: str, minutes: int | None) -> None:
    assert budget.parse_minutes(text) == minutes


@pytest.mark.parametrize(
    ("text", "minutes", "enabled"),
    [
        ("plan 30m", 30, True),
        ("plan 1h", 60, True),
        ("plan 45 min", 45, True),
        ("plan 2 hours", 120, True),
        ("计划 30分钟", 30, True),
        ("每周 1小时", 60, True),
        ("每周1小时", 60, True),
        ("plan half an hour", 30, True),
        ("plan off", None, False),
        ("计划 关闭", None, False),
        ("plan", None, None),
    ],
)
def test_plan_command_forms(text: str, minutes: int | None, enabled: bool | None) -> None:
    cmd = parse(text)
    assert (cmd.kind, cmd.minutes, cmd.enabled, cmd.error) == ("plan", minutes, enabled, None)


def test_plan_with_no_duration_is_refused_with_the_text() -> None:
    cmd = parse("plan tomorrow")
    assert cmd.error == "plan.bad" and cmd.error_value == "tomorrow"


def test_a_negative_plan_is_out_of_range_as_zero_is(runtime) -> None:
    """(QA) ``plan -5m`` said "I could not read -5m" while ``plan 0m`` gave the range: both give it."""
    from bot.slack.handlers import Caller, Handlers

    handlers, alice = Handlers(runtime), Caller("T1", "U1", "C1")
    assert parse("plan -5m").minutes == -5 and parse("plan - 1h").minutes == -60
    for text, value in (("plan -5m", "-5"), ("plan 0m", "0"), ("plan 10000h", "600,000")):  # (QA) the unit said
        assert f"A plan is 5–600 minutes a week; {value} min is outside that." in handlers.command(alice, text).text
    assert runtime.store.get_budget("T1", "U1") is None
    assert parse("plan -tomorrow").error == "plan.bad"


def test_dm_on_and_subscribe_take_a_budget_beside_the_schedule() -> None:
    dm = parse("dm on friday 08:30 30m")
    assert (dm.kind, dm.enabled, dm.minutes, dm.schedule.weekday, dm.schedule.at_time) == ("dm", True, 30, 4, "08:30")
    sub = parse("subscribe spec monday 09:00 45 min then stop")
    assert (sub.arg, sub.minutes, sub.after_essentials, sub.schedule.weekday) == ("spec", 45, "stop", 0)
    assert parse("subscribe spec monday 2 steps").minutes is None
    assert parse("subscribe spec monday 2 steps").steps == 2


def test_fit_takes_what_fits_and_always_one() -> None:
    assert budget.fit([10, 15, 10], 30) == 2
    assert budget.fit([40, 5], 30) == 1  # a longer step goes alone
    assert budget.fit([10, 20, 1], 30) == 2  # exactly the budget
    assert budget.fit([], 30) == 0
    assert budget.fit([None, None, None, None], 30) == 3  # unknown lengths count 10 minutes


def test_weeks_to_finish_walks_week_by_week() -> None:
    assert budget.weeks_to_finish([16, 16, 16, 16, 16, 10], 30) == 5
    assert budget.weeks_to_finish([16, 16, 16, 16, 16, 10], 45) == 3
    assert budget.weeks_to_finish([], 45) == 0
    assert budget.weeks_to_finish([10, 10, 10, 5], 30) == 2  # 10 10 10 | 5
    assert budget.weeks_to_finish([5, 32, 5, 20], 25) == 3  # a longer step is a week of its own
    assert budget.weeks_to_finish([20, 15, 5], 30) == 2  # 20 | 15 5: order kept, 5 not pulled forward
    assert budget.weeks_to_finish([6, 32, 12, 9], 20) == 4 and budget.weeks_to_finish([6, 32, 12, 9], 40) == 2


def guaranteed_weeks(total_minutes: int, budget: int) -> int:
    """The most weeks :func:`bot.domain.budget.weeks_to_finish` can take for any steps of whole
    minutes (each at least one) totalling ``total_minutes`` at ``budget``: two weeks in a row hold
    at least ``budget + 1`` minutes, so ``w`` weeks need ``w // 2 * (budget + 1) + w % 2`` minutes."""
    w = 0
    while (w + 1) // 2 * (budget + 1) + (w + 1) % 2 <= total_minutes:
        w += 1
    return w


def test_the_default_finishes_any_essential_path_within_four_weeks() -> None:
    """Every way to split at most 90 minutes into at most 8 steps (random and adversarial)
    finishes in <= 4 weeks at the default; the bound is tight at 44 and broken at 43."""
    rng = random.Random(24)
    cases = [[rng.randint(1, 90) for _ in range(rng.randint(1, 8))] for _ in range(20000)]
    cases += [list(c) for n in range(1, 5) for c in itertools.product((1, 22, 23, 44, 45, 46, 89), repeat=n)]
    cases = [c for c in cases if sum(c) <= budget.ESSENTIAL_MAX_MINUTES]
    worst = max(budget.weeks_to_finish(c, budget.DEFAULT_MINUTES) for c in cases)
    assert worst <= budget.FINISH_WEEKS
    assert worst <= guaranteed_weeks(budget.ESSENTIAL_MAX_MINUTES, budget.DEFAULT_MINUTES)
    assert guaranteed_weeks(90, 44) == 4 and guaranteed_weeks(90, 43) == 5
    assert budget.weeks_to_finish([44, 2, 44], 43) == 3 and budget.weeks_to_finish([23, 22, 23, 22], 44) == 4


def test_every_essential_path_of_the_catalog_finishes_within_four_weeks(timed_catalog, repo_catalog) -> None:
    for cat in (repo_catalog, timed_catalog):
        for tr in cat.tracks:
            ess = paths.essentials(cat, tr.id)
            assert 1 <= len(ess) <= paths.ESSENTIAL_STEPS_MAX
            assert all(cat.post(p).url for p in ess), tr.id
            weeks = budget.weeks_to_finish([cat.post(p).minutes for p in ess], budget.DEFAULT_MINUTES)
            assert weeks <= budget.FINISH_WEEKS, (tr.id, weeks)
