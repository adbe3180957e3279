"""Weekly plans under a time budget (bot.domain.catalog.plan_weeks)."""

from __future__ import annotations

import pytest

from bot.domain.catalog.plan_weeks import plan_weeks, weeks_to_finish


def test_steps_that_fit_go_together() -> None:
    assert plan_weeks([10, 10, 10, 5], 30) == [[0, 1, 2], [3]]


def test_a_step_longer_than_the_budget_is_a_week_of_its_own() -> None:
    assert plan_weeks([5, 32, 5, 20], 25) == [[0], [1], [2, 3]]


def test_order_is_kept_even_when_a_later_step_would_fit() -> None:
    # 20 then 15 does not fit in 30; the 5 after it is not pulled forward.
    assert plan_weeks([20, 15, 5], 30) == [[0], [1, 2]]


def test_weeks_to_finish() -> None:
    assert weeks_to_finish([], 30) == 0
    assert weeks_to_finish([6, 32, 12, 9], 20) == 4  # 6 | 32 | 12 | 9 (12 + 9 > 20)
    assert weeks_to_finish([6, 32, 12, 9], 40) == 2


@pytest.mark.parametrize("budget, minutes", [(0, [5]), (-5, [5]), (30, [5, 0])])
def test_non_positive_numbers_are_refused(budget: int, minutes: list[int]) -> None:
    with pytest.raises(ValueError):
        plan_weeks(minutes, budget)
