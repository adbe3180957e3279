"""QA round 13, the reader's commands end to end through the HTTP door (signed requests, the
stand-in Slack, the real store and catalog): ``reminders`` lists them in the order of their numbers
(not "2. …" above "1. …") and ``reminders cancel N`` cancels the one listed as N; ``stop`` names
``unfollow`` and ``plan off`` when they apply."""

from __future__ import annotations

import re

from tests.e2e.helpers import TEAM, USER, reply_text, zoned_standin_fixture

_text = reply_text

standin = zoned_standin_fixture("Europe/Berlin")


def _listed(text: str) -> list[tuple[int, str]]:
    return [(int(m.group(1)), m.group(2)) for m in re.finditer(r"(?m)^(\d+)\. (.*)$", text)]


def test_reminders_are_listed_in_the_order_of_their_numbers_and_cancel_uses_them(slack, runtime):
    slack.ask("remind p-eagle in 2 weeks")
    slack.ask("remind spec-decode tomorrow")  # due first, set second
    listed = _listed(_text(slack, "reminders"))
    assert [n for n, _ in listed] == [1, 2], listed
    assert "P-EAGLE" in listed[0][1] and "P-EAGLE" not in listed[1][1], listed
    done = _text(slack, "reminders cancel 2")  # the one listed as 2: spec-decode
    assert "Cancelled" in done, done
    assert [r.post_id for r in runtime.store.reminders(TEAM, USER)] == ["p-eagle"]


def test_stop_names_unfollow_and_plan_off_when_they_apply(slack):
    before = _text(slack, "stop")
    assert "unfollow" not in before and "plan off" not in before, before
    slack.ask("follow spec")
    slack.ask("follow pd")
    slack.ask("plan 30m")
    after = _text(slack, "stop")
    assert "`/vllm-path unfollow spec`, `/vllm-path unfollow pd`, `/vllm-path unfollow all`" in after, after
    assert "Your reading plan (30 min a week): `/vllm-path plan off`" in after, after
    assert "/vllm-path dm off" in after or "weekly DM is already off" in after  # the rest still listed
