"""A channel digest's budget, as the channel's (QA): a budget out of range is refused before
anything is set up, and ``subscriptions`` says the minutes a digest planned by minutes sends (it
said "1 step a week") and that it stops after the essential path when set so."""

from __future__ import annotations

from bot.slack.handlers import Caller, Handlers

ALICE = Caller("T1", "U1", "C1")


def test_a_budget_out_of_range_sets_no_digest_up(runtime) -> None:
    reply = Handlers(runtime).command(ALICE, "subscribe quant monday 0m")
    assert "; 0 min is outside that" in reply.text
    assert runtime.store.subscriptions("T1", "C1") == []


def test_subscriptions_say_the_minutes_and_the_stop(runtime) -> None:
    handlers = Handlers(runtime)
    confirmed = handlers.command(ALICE, "subscribe spec monday 9am 45m then stop").text
    assert "This channel's digest: 45 min of reading a week" in confirmed and "reading plan" not in confirmed
    listed = handlers.command(ALICE, "subscriptions").text
    assert "45 min a week · essentials in about 2 weeks" in listed and "stopping after the essential path" in listed
    assert "step a week" not in listed
    handlers.command(ALICE, "subscribe quant monday 9am")
    # issue 40: no budget is a person's default pace, said in minutes and weeks, not "1 step a week"
    quant = next(line for line in handlers.command(ALICE, "subscriptions").text.splitlines() if "Quant" in line)
    assert "45 min a week · essentials in about " in quant and "step a week" not in quant


def test_minutes_then_steps_say_and_keep_only_the_latest_amount(runtime) -> None:
    """(QA) ``… 3 steps`` then ``… 60m`` said both amounts; ``… 1 steps`` after minutes kept the
    minutes. The latest amount asked for is the one kept and the one said."""
    handlers = Handlers(runtime)
    handlers.command(ALICE, "subscribe spec monday 3 steps")
    by_minutes = handlers.command(ALICE, "subscribe spec monday 60m").text
    assert "60 min of reading a week" in by_minutes and "3 steps each week" not in by_minutes
    (sub,) = runtime.store.subscriptions("T1", "C1")
    assert sub.minutes_per_week == 60
    by_steps = handlers.command(ALICE, "subscribe spec 2 steps").text
    assert "2 steps each week" in by_steps and "min of reading" not in by_steps
    (sub,) = runtime.store.subscriptions("T1", "C1")
    assert (sub.steps_per_week, sub.minutes_per_week) == (2, None)
    assert "2 steps a week" in handlers.command(ALICE, "subscriptions").text
