"""Issue 44, the opt-in "catch me up" line of the weekly DM (``dm catchup on``): a reader who turned
it on gets, in their weekly DM, the newest posts "catch me up" would list (a post accepted into a
followed track after their last read); with nothing new, or with it off, the DM is the one they
would get anyway, byte for byte. Real parts: a copy of the catalog changed with the accept code and
reloaded, the stores (SQLite and PostgreSQL), the deliverer posting to the Slack stand-in."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from bot.digest.deliver import Deliverer, Outcome, Pacer
from bot.domain.catalog.accept import Review, accept
from bot.domain.catalog.drafts import Draft, write_draft
from bot.domain.catalog.models import Source
from bot.domain.schedule import WeeklySchedule
from bot.runtime import CatalogHolder, Runtime
from bot.store import Store
from bot.store.dm_reads import DmReadBatcher
from tests.digest.conftest import TEAM, make_runtime
from tests.domain.catalog.helpers import catalog_copy
from tests.standin.blockkit import block_kit_problems

READ_AT = dt.datetime(2027, 1, 5, 9, 0, tzinfo=dt.UTC)  # after every post of the repo's catalog entered
ADDED = dt.date(2027, 1, 10)  # the day the new post enters the catalog
FIRE = dt.datetime(2027, 1, 11, 8, 0, tzinfo=dt.UTC)  # a Monday
TITLE = "Drafters The Reader Missed"
ON, OFF, NEVER = "U0CATCHON", "U0CATCHOFF", "U0NEVERSET"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the repository's catalog that the test changes."""
    return catalog_copy(tmp_path / "catalog")


def add_post(root: Path) -> None:
    """Accept a new post at the end of ``spec`` on :data:`ADDED`, as a curator does (a new version)."""
    draft = Draft(
        id="missed-drafters",
        title=TITLE,
        url="https://vllm-project.github.io/2027/01/08/missed-drafters.html",
        published=dt.date(2027, 1, 8),
        source=Source(kind="vllm-blog"),
        feed="vLLM blog",
        minutes=9,
        minutes_source="counted",
    )
    write_draft(root, draft)
    questions = ("What does it change?", "How do I try it?", "What does it cost?")
    questions_zh = ("它改变了什么？", "怎么试用？")
    end = len(CatalogHolder(root, index_now=False).catalog.order("spec")) + 1
    review = Review(
        track="spec",
        position=end,
        essential=False,
        summary="What the post measures, in our own words.",
        summary_zh="这篇文章测量了什么。",
        questions=questions,
        questions_zh=questions_zh,
    )
    accept(root, draft.id, review, today=ADDED)


def seed(rt: Runtime, user: str, when: dt.datetime = READ_AT) -> None:
    """``user`` follows spec and read its first two steps at ``when`` (the store's clock); DM on."""
    store = Store(rt.store.engine, clock=lambda: when)
    store.follow(TEAM, user, "spec")
    store.mark_read(TEAM, user, list(rt.holder.catalog.order("spec"))[:2])
    rt.store.set_dm(TEAM, user, True, WeeklySchedule.of(0, "09:00", "UTC"))


def dm_of(standin: Any, user: str) -> dict[str, Any]:
    """The one DM posted to ``user``: its ``text`` and ``blocks``."""
    (call,) = [c for c in standin.calls("chat.postMessage") if c.args["channel"] == user and c.ok]
    return {"text": call.args["text"], "blocks": call.args["blocks"]}


def send(rt: Runtime, *users: str) -> None:
    deliverer = Deliverer(rt, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=50))
    for user in users:
        assert deliverer.deliver_dm(TEAM, user, FIRE).outcome is Outcome.SENT


def test_the_dm_of_a_reader_who_asked_names_what_they_missed_and_others_are_unchanged(
    root: Path, db_url: str, standin
) -> None:
    rt = make_runtime(db_url, standin, CatalogHolder(root, index_now=False))
    try:
        for user in (ON, OFF, NEVER):
            seed(rt, user)
        assert rt.store.set_dm_catchup(TEAM, ON, True).catchup
        assert rt.store.set_dm_catchup(TEAM, OFF, True).catchup
        assert not rt.store.set_dm_catchup(TEAM, OFF, False).catchup  # on, then off again
        assert rt.store.get_dm(TEAM, ON).catchup and not rt.store.get_dm(TEAM, NEVER).catchup
        batched = DmReadBatcher(rt.store)  # the worker's read (one statement on PostgreSQL) has it too
        try:
            assert [getattr(batched.get(TEAM, u).dm, "catchup", None) for u in (ON, OFF, NEVER)] == [True, False, False]
        finally:
            batched.close()
        add_post(root)
        assert rt.reload_catalog()[0]
        send(rt, ON, OFF, NEVER)
        on, off, never = (dm_of(standin, u) for u in (ON, OFF, NEVER))
        assert off == never  # off (after on) or never set: the same DM
        assert on["text"] == off["text"] and not block_kit_problems(on["blocks"])
        added = on["blocks"][2 : len(on["blocks"]) - len(off["blocks"]) + 2]
        assert on["blocks"] == [*off["blocks"][:2], *added, *off["blocks"][2:]]  # one section, after the head
        missed = json.dumps(added, ensure_ascii=False)
        assert "New since 5 Jan 2027" in missed and TITLE in missed
        assert "/vllm-path catch me up" in missed and "New since" not in json.dumps(off["blocks"])
    finally:
        rt.store.close()


def test_nothing_new_since_the_last_read_adds_nothing(root: Path, sqlite_url: str, standin) -> None:
    rt = make_runtime(sqlite_url, standin, CatalogHolder(root, index_now=False))
    try:
        add_post(root)
        assert rt.reload_catalog()[0]
        later = FIRE - dt.timedelta(hours=1)  # they read the day after it entered (its day still counts)
        for user in (ON, OFF):
            seed(rt, user, later)
        rt.store.set_dm_catchup(TEAM, ON, True)
        send(rt, ON, OFF)
        assert dm_of(standin, ON) == dm_of(standin, OFF)
    finally:
        rt.store.close()
