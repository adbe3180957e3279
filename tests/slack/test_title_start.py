"""``read``/``unread`` by the start of a post's title (QA round 13: ``read parallel all the way down``
was "not sure which post" because its words are common ones): a title's start names its post when
exactly one title starts so; too short a start, or one several titles share, stays a search."""

from __future__ import annotations

import pytest

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain.catalog import load_catalog
from bot.slack.commands.context import title_start
from bot.slack.handlers import Caller, Handlers, UserInfo

ALICE = Caller("T1", "U1", "C1")
CATALOG = load_catalog(DEFAULT_CATALOG_DIR)


def _post_titled(start: str) -> str:
    """The id of the only catalog post whose title starts with ``start`` (the test's own look-up)."""
    found = [p.id for p in CATALOG.posts if p.title.casefold().startswith(start.casefold())]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    "typed, start",
    [
        ("parallel all the way down", "Parallel All the Way Down"),
        ("PARALLEL ALL THE WAY DOWN: beyond", "Parallel All the Way Down"),
        ("next level inference why your", "Next-Level Inference"),
    ],
)
def test_a_titles_start_marks_its_post(runtime, typed, start):
    h = Handlers(runtime, users_info=lambda team, user: UserInfo())
    h.command(ALICE, f"read {typed}")
    assert runtime.store.read_posts("T1", "U1") == {_post_titled(start)}


def test_a_short_or_shared_start_names_no_post():
    assert title_start(CATALOG, "vllm") is None  # too short to name a post
    shared = next(  # a start of 12+ letters that two titles share
        key
        for p in CATALOG.posts
        for q in CATALOG.posts
        if p.id < q.id
        and (key := " ".join(p.title.casefold().split()[:3])) == " ".join(q.title.casefold().split()[:3])
        and sum(c.isalnum() for c in key) >= 12
        and key.replace(" ", "").isalnum()
    )
    assert title_start(CATALOG, shared) is None
