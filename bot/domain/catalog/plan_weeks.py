"""Spreading a reading path over weeks under a weekly time budget. Pure: numbers in, numbers out.

Each week sends the next steps, in path order, whose reading times fit the week's budget
together; a week always sends at least one step, so a step longer than the budget is a week of
its own and the path always ends.
"""

from __future__ import annotations

from collections.abc import Sequence


def plan_weeks(minutes: Sequence[int], budget: int) -> list[list[int]]:
    """The steps each week sends: a list of weeks, each a list of 0-based step indexes in order.

    ``minutes`` are the steps' reading times in path order (whole minutes, each > 0);
    ``budget`` is minutes a week (> 0). A week takes the next steps while their sum stays at most
    ``budget`` and always at least one step. An empty path gives no weeks. Raises ``ValueError``
    for a budget or a step time that is not positive.
    """
    if budget <= 0:
        raise ValueError(f"the weekly budget must be a positive number of minutes, not {budget}")
    for i, m in enumerate(minutes):
        if m <= 0:
            raise ValueError(f"step {i + 1} has {m} minutes; reading times must be positive")
    weeks: list[list[int]] = []
    i = 0
    while i < len(minutes):
        week = [i]
        used = minutes[i]
        i += 1
        while i < len(minutes) and used + minutes[i] <= budget:
            week.append(i)
            used += minutes[i]
            i += 1
        weeks.append(week)
    return weeks


def weeks_to_finish(minutes: Sequence[int], budget: int) -> int:
    """How many weeks :func:`plan_weeks` takes for the path (0 for an empty path). Same errors."""
    return len(plan_weeks(minutes, budget))
