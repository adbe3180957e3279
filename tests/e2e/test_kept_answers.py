"""Answers kept per (text, reader state, locale, day) (:mod:`bot.slack.kept_answers`), through signed
HTTP requests to the real door: a repeated question is answered without being made again, and
never from before a change of what the answer shows (the person's reads, follows, language, the
day, the catalog). On SQLite, where the store keeps reader states; on PostgreSQL nothing is kept."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from bot.slack.handlers import Handlers
from tests.e2e.helpers import block_texts

OTHER = "U0OTHER1"


def _sqlite(runtime: Any) -> bool:
    return runtime.settings.database_url.startswith("sqlite")


@pytest.fixture
def made(monkeypatch) -> list[str]:
    """The texts whose answer was made (``Handlers.answer_now`` ran: the real one still runs)."""
    seen: list[str] = []
    answer_now = Handlers.answer_now

    def recording(self, caller, text, cmd=None):
        seen.append(text)
        return answer_now(self, caller, text, cmd)

    monkeypatch.setattr(Handlers, "answer_now", recording)
    return seen


def _ack(slack, text: str, user: str | None = None) -> dict[str, Any]:
    """The reply carried by the command's ack (asserted to be there)."""
    ack, _ = slack.command(text, user=user)
    assert ack.status == 200 and ack.text.startswith("{"), ack.text
    reply: dict[str, Any] = json.loads(ack.text)
    return reply


def _warm(slack, made: list[str], *users: str) -> None:
    """Each person's first command (answered after the ack: their users.info is then remembered);
    then ``made`` is emptied."""
    for user in users:
        slack.standin.wait_for_response(slack.command("help", user=user)[1], timeout=30)
    made.clear()


@pytest.mark.parametrize("text", ["speculative", "nixl", "how do I cut time to first token"])
def test_a_repeated_question_is_answered_from_what_was_kept(slack, runtime, made, text):
    _warm(slack, made, slack.user)
    first = _ack(slack, text)
    second = _ack(slack, text)
    assert first == second
    # made once on SQLite (the second kept); on PostgreSQL the reader state is not kept: made twice
    assert made.count(text) == (1 if _sqlite(runtime) else 2), made


def test_people_in_the_same_state_share_an_answer_and_other_texts_are_not_kept(slack, runtime, made):
    _warm(slack, made, slack.user, OTHER)
    assert _ack(slack, "nixl") == _ack(slack, "nixl", user=OTHER)
    _ack(slack, "help")
    _ack(slack, "help")
    assert made.count("nixl") == (1 if _sqlite(runtime) else 2), made
    assert made.count("help") == 2  # not a kept kind


def test_a_change_of_reads_follows_or_language_is_answered_anew(slack, runtime, made):
    _warm(slack, made, slack.user)
    answers = [_twice(slack, "speculative")]
    assert "Follow" in block_texts(answers[-1]["blocks"])
    slack.ask("follow speculative")
    answers.append(_twice(slack, "speculative"))
    assert "Unfollow" in block_texts(answers[-1]["blocks"])
    slack.ask(f"read {_first_unread(runtime, 'spec')}")
    answers.append(_twice(slack, "speculative"))
    slack.ask("lang zh")
    answers.append(_twice(slack, "speculative"))
    assert "推测" in block_texts(answers[-1]["blocks"])
    assert len({json.dumps(a, sort_keys=True) for a in answers}) == 4  # each change shown
    # made again after each change, a repeat kept (on SQLite: once the changed state is kept again)
    made_n = made.count("speculative")
    assert made_n < 8 if _sqlite(runtime) else made_n == 8, made


def _twice(slack, text: str) -> dict[str, Any]:
    """The answer to ``text``, asked twice (asserted the same)."""
    first = _ack(slack, text)
    assert _ack(slack, text) == first
    return first


def test_a_new_day_and_a_new_catalog_are_answered_anew(slack, runtime, made, monkeypatch):
    _warm(slack, made, slack.user)
    _ack(slack, "speculative")
    tomorrow = runtime.store.now() + dt.timedelta(days=1)
    monkeypatch.setattr(runtime.store, "_clock", lambda: tomorrow)
    _ack(slack, "speculative")
    _ack(slack, "speculative")
    expected = 2 if _sqlite(runtime) else 3
    assert made.count("speculative") == expected, made
    loaded = runtime.holder.loaded
    monkeypatch.setattr(type(runtime.holder), "loaded", property(lambda self: _copy(loaded)))
    _ack(slack, "speculative")  # a new catalog version (each request sees another: nothing kept)
    _ack(slack, "speculative")
    assert made.count("speculative") == expected + 2, made


def _copy(loaded: Any) -> Any:
    from bot.runtime import Loaded

    return Loaded(loaded.catalog, loaded.matcher)


def _first_unread(runtime: Any, track: str) -> str:
    steps = runtime.holder.catalog.track(track).steps
    return str(steps[0].post)
