"""A reader's weekly DM sized by their budget (issue 24), week after week on a controlled clock
(the real scheduler, job store and stand-in, as in test_clock.py) until the essential path is
finished: every week's steps fit the budget (or are one longer step), and the reader who reads
them finishes within the weeks the plan promised."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from bot.digest.clock import DigestClock
from bot.domain import budget, paths
from bot.domain.schedule import WeeklySchedule
from bot.doors.console.answers import dm_id
from bot.slack.views.blocks import decode_value
from tests.digest.clockdriver import ClockDriver
from tests.digest.conftest import TEAM
from tests.standin.blockkit import validate_blocks
from tests.waits import PATIENCE_S

START = datetime(2026, 3, 1, 0, 0, tzinfo=UTC)  # a Sunday
BUDGET = 25


def _dm_posts(standin, channel: str | None) -> list:
    return [c for c in standin.calls("chat.postMessage") if c.ok and (channel is None or c.channel == channel)]


@pytest.mark.parametrize("set_budget", [BUDGET, None], ids=["plan-25m", "default"])
def test_weekly_dm_brings_what_fits_the_budget_until_the_path_is_finished(
    sqlite_runtime, standin, catalog, set_budget: int | None
) -> None:
    """With ``plan 25m``, and with no plan at all (the default budget, ``DEFAULT_MINUTES``)."""
    store = sqlite_runtime.store
    minutes = set_budget or budget.DEFAULT_MINUTES
    ess = paths.essentials(catalog, "spec")
    promised = budget.weeks_to_finish([catalog.post(p).minutes for p in ess], minutes)
    weeks: list[list[str]] = []
    with time_machine.travel(START - timedelta(days=1), tick=False) as traveller:
        store.set_dm(TEAM, "UDM", True, schedule=WeeklySchedule.of(0, "08:00", "Europe/Berlin"))
        store.follow(TEAM, "UDM", "spec")
        if set_budget is not None:
            store.set_budget(TEAM, "UDM", set_budget)
        clock = DigestClock(
            sqlite_runtime, reconcile_every_s=3600, workers=2, team_rate_per_s=100, channel_interval_s=0.01
        )
        clock.start()
        try:
            driver = ClockDriver(clock, traveller)
            channel = None
            while not paths.essentials_done(catalog, "spec", store.read_posts(TEAM, "UDM")):
                assert len(weeks) < 20, "the path never finished"
                before = len(_dm_posts(standin, channel))
                driver.step()
                standin.wait_for(lambda ch=channel, n=before: len(_dm_posts(standin, ch)) > n, timeout=PATIENCE_S)
                channel = channel or dm_id("UDM")  # posted by user id: the app's DM with them
                blocks = _dm_posts(standin, channel)[-1].args["blocks"]
                validate_blocks(blocks)
                posts = [
                    decode_value(b["accessory"]["value"])["p"]
                    for b in blocks
                    if b.get("accessory", {}).get("action_id", "").startswith("mark_read")
                ]
                weeks.append(posts)
                store.mark_read(TEAM, "UDM", posts)  # the reader reads the week's steps
        finally:
            clock.shutdown(wait=True)
    assert not driver.errors
    assert len(weeks) == promised <= budget.FINISH_WEEKS
    assert len(weeks) < len(ess)  # several steps a week: not one step a week
    for posts in weeks:
        cost = [budget.step_cost(catalog.post(p).minutes) for p in posts]
        assert posts and (sum(cost) <= minutes or len(posts) == 1)
    flat = [p for w in weeks for p in w]
    assert flat[: len(ess)] == list(ess) and len(set(flat)) == len(flat)
    dated = sorted(r.claimed_at for r in store.deliveries() if r.destination == "UDM")
    assert [b - a for a, b in itertools.pairwise(dated)] == [timedelta(weeks=1)] * (len(dated) - 1)
