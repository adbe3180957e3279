"""Progress, follows and language: idempotent, and isolated per workspace."""

from __future__ import annotations

import pytest

from bot.store import Store
from tests.store.conftest import FakeClock


def test_mark_read_reports_only_newly_read(store: Store) -> None:
    assert store.mark_read("T1", "U1", ["a", "b", "b"]) == {"a", "b"}
    assert store.mark_read("T1", "U1", ["b", "c"]) == {"c"}
    assert store.mark_read("T1", "U1", ["a", "b", "c"]) == set()
    assert store.read_posts("T1", "U1") == {"a", "b", "c"}
    assert store.mark_read("T1", "U1", []) == set()


def test_marking_read_again_keeps_the_first_read_time(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    t0 = clock.now
    store.mark_read("T1", "U1", ["a"])
    first = store.team_reads("T1")[0][2]
    clock.advance(3600)
    store.mark_read("T1", "U1", ["a"])
    assert store.team_reads("T1") == [("U1", "a", first)] and first == t0
    assert first.tzinfo is not None and first.utcoffset().total_seconds() == 0


def test_mark_unread(store: Store) -> None:
    store.mark_read("T1", "U1", ["a", "b"])
    assert store.mark_unread("T1", "U1", ["a", "zzz"]) == {"a"}
    assert store.mark_unread("T1", "U1", ["a"]) == set()
    assert store.read_posts("T1", "U1") == {"b"}


def test_progress_is_isolated_between_teams_with_the_same_user_id(store: Store) -> None:
    store.mark_read("T1", "U1", ["a"])
    store.mark_read("T2", "U1", ["b"])
    assert store.read_posts("T1", "U1") == {"a"}
    assert store.read_posts("T2", "U1") == {"b"}
    assert store.mark_unread("T2", "U1", ["a"]) == set()
    assert store.read_posts("T1", "U1") == {"a"}


def test_follow_is_idempotent_and_isolated(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    assert store.follow("T1", "U1", "perf") is True
    assert store.follow("T1", "U1", "perf") is False
    clock.advance(1)
    assert store.follow("T1", "U1", "intro") is True
    assert store.follow("T2", "U1", "spec") is True
    assert store.follows("T1", "U1") == ["perf", "intro"]
    assert store.follows("T2", "U1") == ["spec"]
    assert store.unfollow("T1", "U1", "perf") is True
    assert store.unfollow("T1", "U1", "perf") is False
    assert store.follows("T1", "U1") == ["intro"]


def test_language_setting(store: Store) -> None:
    assert store.get_lang("T1", "U1") is None
    store.set_lang("T1", "U1", "zh")
    store.set_lang("T1", "U1", "zh")
    assert store.get_lang("T1", "U1") == "zh"
    assert store.get_lang("T2", "U1") is None
    store.set_lang("T1", "U1", None)
    assert store.get_lang("T1", "U1") is None
    with pytest.raises(ValueError):
        store.set_lang("T1", "U1", "fr")


def test_invalid_ids_are_rejected(store: Store) -> None:
    with pytest.raises(ValueError):
        store.mark_read("", "U1", ["a"])
    with pytest.raises(ValueError):
        store.mark_read("T1", "U1", "a")  # a bare string is not a list of ids
    with pytest.raises(ValueError):
        store.follow("T1", "U1", "  ")


def test_reader_state_equals_the_three_separate_reads(store: Store, clock: FakeClock) -> None:
    """The one-statement read gives what get_lang, read_posts and follows give, on both databases,
    for someone unknown, someone with only some rows, and someone with all of them."""
    empty = store.reader_state("T1", "U9")
    assert (empty.lang, empty.read, empty.follows) == (None, frozenset(), ())
    store.mark_read("T1", "U1", ["a", "b"])
    store.follow("T1", "U1", "perf")
    clock.advance(5)
    store.follow("T1", "U1", "agents")
    store.follow("T1", "U2", "other")
    store.mark_read("T2", "U1", ["elsewhere"])
    partial = store.reader_state("T1", "U1")
    assert partial.lang is None and partial.read == {"a", "b"}
    assert list(partial.follows) == store.follows("T1", "U1") == ["perf", "agents"]
    store.set_lang("T1", "U1", "zh")
    full = store.reader_state("T1", "U1")
    assert full.lang == store.get_lang("T1", "U1") == "zh"
    assert full.read == store.read_posts("T1", "U1")
    assert list(full.follows) == store.follows("T1", "U1")
    odd = ['quo"te', "back\\slash", "逗,号", "a]b"]  # the ids read come as a JSON array
    store.mark_read("T1", "U3", odd)
    assert store.reader_state("T1", "U3").read == set(odd) == store.read_posts("T1", "U3")
