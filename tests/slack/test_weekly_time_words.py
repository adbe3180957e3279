"""A weekly reading time said as a sentence sets the plan (QA round 13: ``plan I have 30 minutes a
week`` was "could not read", ``I have 30 minutes a week`` and ``我每周有30分钟`` searched posts)."""

from __future__ import annotations

import pytest

from bot.slack.grammar import parse
from bot.slack.handlers import Caller, Handlers, UserInfo


@pytest.mark.parametrize(
    "typed, minutes",
    [
        ("plan I have 30 minutes a week", 30),
        ("I have 30 minutes a week", 30),
        ("i can spend an hour a week", 60),
        ("we only have 45 min per week", 45),
        ("I have 2 hours a week.", 120),
        ("我每周有30分钟", 30),
        ("每周能读半小时", 30),
        ("计划 每周有1小时", 60),
    ],
)
def test_a_weekly_time_in_a_sentence_is_a_plan(typed, minutes):
    cmd = parse(typed)
    assert (cmd.kind, cmd.minutes, cmd.error) == ("plan", minutes, None)


@pytest.mark.parametrize("typed", ["每周有什么新文章", "we have a 4090 a week", "i have a question about 30 minutes"])
def test_other_sentences_are_not_a_plan(typed):
    assert parse(typed).kind != "plan"


def test_the_sentence_stores_the_budget(runtime):
    h = Handlers(runtime, users_info=lambda team, user: UserInfo())
    h.command(Caller("T1", "U1", "C1"), "I have 30 minutes a week")
    assert runtime.store.reader_state("T1", "U1").budget == 30
