"""Issue 41, "readers hear of it": a post a curator accepts into a followed track is named once, as
"New in <track>: <post> (step N)", in the next channel digest and weekly DM when it lands behind
where the channel or reader is (a post ahead simply comes in order), across restarts; and a step
whose link arrives in a new catalog version shows the link, no "no link yet". Real parts: a copy
of the catalog changed with the accept code (or its YAML edited) and reloaded, the stores
(SQLite and PostgreSQL), the deliverer posting to the Slack stand-in, the handlers."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from slack_sdk import WebClient

from bot.digest.deliver import Deliverer, Outcome, Pacer
from bot.domain.catalog import load_catalog
from bot.domain.catalog.accept import Review, accept
from bot.domain.catalog.drafts import Draft, write_draft
from bot.domain.catalog.models import Source
from bot.domain.schedule import WeeklySchedule
from bot.runtime import CatalogHolder, Runtime
from bot.slack.handlers import Caller, Handlers
from bot.slack.listeners.events import publish_home
from tests.dbutil import set_cursor
from tests.digest.conftest import TEAM, make_runtime
from tests.domain.catalog.helpers import catalog_copy

FIRE = dt.datetime(2026, 12, 7, 8, 0, tzinfo=dt.UTC)  # a Monday
WEEK = dt.timedelta(days=7)
READER = "U0READER"
QUESTIONS = ("What does it change?", "How do I try it?", "What does it cost?")
QUESTIONS_ZH = ("它改变了什么？", "怎么试用？")
LINK = "https://vllm-project.github.io/2026/12/04/now-linked.html"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the repository's catalog that the test changes."""
    return catalog_copy(tmp_path / "catalog")


def runtime_on(root: Path, db_url: str, standin: Any) -> Runtime:
    """A runtime (a process, as far as the store knows) serving the catalog in ``root``."""
    return make_runtime(db_url, standin, CatalogHolder(root, index_now=False))


def add_post(root: Path, post_id: str, title: str, track: str, position: int) -> None:
    """Accept a new vLLM blog post into ``track`` at ``position`` as a curator does (a new version)."""
    draft = Draft(
        id=post_id,
        title=title,
        url=f"https://vllm-project.github.io/2026/12/03/{post_id}.html",
        published=dt.date(2026, 12, 3),
        source=Source(kind="vllm-blog"),
        feed="vLLM blog",
        minutes=9,
        minutes_source="counted",
    )
    write_draft(root, draft)
    review = Review(
        track=track,
        position=position,
        essential=False,  # an essential step needs a discussion prompt too (prompts.yaml)
        summary="What the post measures, in our own words.",
        summary_zh="这篇文章测量了什么。",
        questions=QUESTIONS,
        questions_zh=QUESTIONS_ZH,
    )
    accept(root, post_id, review)


def deliverer(rt: Runtime) -> Deliverer:
    return Deliverer(rt, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=50))


def sent_text(standin: Any, channel: str) -> list[str]:
    """The text and blocks of every message posted to ``channel``, oldest first."""
    calls = [c for c in standin.calls("chat.postMessage") if c.args["channel"] == channel and c.ok]
    return [c.args["text"] + json.dumps(c.args["blocks"], ensure_ascii=False) for c in calls]


NEW_LINE = re.compile(r"New in ([^:]+): .*?\(step (\d+)\)")


def test_a_post_accepted_behind_a_channel_is_named_once_in_its_next_digest(root: Path, db_url: str, standin) -> None:
    for pid in [p for p in load_catalog(root).order("spec") if load_catalog(root).post(p).url is None]:
        give_link(root, pid, f"https://vllm-project.github.io/2026/12/04/{pid}.html")  # the path walks to its end
    rt = runtime_on(root, db_url, standin)
    sub = rt.store.subscribe(TEAM, "C1", "spec", WeeklySchedule.of(0, "09:00", "UTC"), steps_per_week=3)
    further = len(rt.holder.catalog.essentials("spec")) + 1  # the first further reading step
    set_cursor(rt.store, sub.id, further, rt.holder.catalog.version)  # the channel passed it
    assert deliverer(rt).deliver_subscription(sub.id, FIRE).outcome is Outcome.SENT
    # Two accepts: one where the channel has been, one at the end (ahead of the channel).
    add_post(root, "behind-the-channel", "Drafters Behind The Channel", "spec", further)
    end = len(load_catalog(root).order("spec")) + 1
    add_post(root, "ahead-of-the-channel", "Drafters Ahead Of The Channel", "spec", end)
    ok, errors = rt.reload_catalog()
    assert ok, errors
    assert deliverer(rt).deliver_subscription(sub.id, FIRE + WEEK).outcome is Outcome.SENT
    second = sent_text(standin, "C1")[1]
    assert NEW_LINE.findall(second) == [("Speculative decoding", str(further))]
    assert "Drafters Behind The Channel" in second and "Ahead Of The Channel" not in second
    rt.store.close()

    # A restart (a new process on the same store and catalog): the next digest names it no more.
    again = runtime_on(root, db_url, standin)
    try:
        assert deliverer(again).deliver_subscription(sub.id, FIRE + 2 * WEEK).outcome is Outcome.SENT
        third = sent_text(standin, "C1")[2]
        assert "New in" not in third and "Behind The Channel" not in third
        # the post ahead comes in order, as a step, when the channel reaches it
        weeks = 3
        while "Ahead Of The Channel" not in "".join(sent_text(standin, "C1")) and weeks < 20:
            deliverer(again).deliver_subscription(sub.id, FIRE + weeks * WEEK)
            weeks += 1
        texts = sent_text(standin, "C1")
        assert sum("Ahead Of The Channel" in t for t in texts) == 1
        assert not any("New in" in t for t in texts[2:])
    finally:
        again.store.close()


def test_a_post_added_behind_what_a_reader_read_is_named_once_in_their_dm(root: Path, db_url: str, standin) -> None:
    rt = runtime_on(root, db_url, standin)
    store, order = rt.store, list(rt.holder.catalog.order("spec"))
    store.follow(TEAM, READER, "spec")
    store.follow(TEAM, READER, "pd")
    further = len(rt.holder.catalog.essentials("spec")) + 1  # the first further reading step
    store.mark_read(TEAM, READER, order[: further + 1])
    store.set_dm(TEAM, READER, True, WeeklySchedule.of(0, "09:00", "UTC"))
    assert store.version_of_last_dm(TEAM, READER) is None  # no DM yet: nothing is new to them
    assert deliverer(rt).deliver_dm(TEAM, READER, FIRE).outcome is Outcome.SENT
    assert store.version_of_last_dm(TEAM, READER) == rt.holder.catalog.version
    add_post(root, "behind-the-reader", "Drafters Behind The Reader", "spec", further)
    assert rt.reload_catalog()[0]
    assert deliverer(rt).deliver_dm(TEAM, READER, FIRE + WEEK).outcome is Outcome.SENT
    dms = sent_text(standin, READER)
    assert len(dms) == 2 and "New in" not in dms[0]
    assert NEW_LINE.findall(dms[1]) == [("Speculative decoding", str(further))]
    assert "Drafters Behind The Reader" in dms[1]
    rt.store.close()

    again = runtime_on(root, db_url, standin)  # a restart
    try:
        assert deliverer(again).deliver_dm(TEAM, READER, FIRE + 2 * WEEK).outcome is Outcome.SENT
        third = sent_text(standin, READER)[2]
        assert "New in" not in third  # still unread, so still suggested, but not as new again
    finally:
        again.store.close()


def unlinked_step(root: Path) -> tuple[str, str]:
    """``(track id, post id)`` of a step without a link, in a track of the catalog in ``root``."""
    catalog = load_catalog(root)
    return next((tr.id, p) for tr in catalog.tracks for p in catalog.order(tr.id) if catalog.post(p).url is None)


def give_link(root: Path, post_id: str, url: str) -> None:
    """A feed's post fills the unlinked ``post_id``: a curator accepts it (its link, a new version)."""
    post = load_catalog(root).post(post_id)
    draft = Draft(
        id="fills-" + post_id[:40],
        title=post.title,
        url=url,
        published=dt.date(2026, 12, 4),
        source=post.source,
        feed="vLLM blog",
        minutes=7,
        minutes_source="counted",
        fills=post_id,
    )
    write_draft(root, draft)
    review = Review(questions=QUESTIONS, questions_zh=QUESTIONS_ZH)
    assert accept(root, draft.id, review).post == post_id


def home_text(standin: Any) -> list[str]:
    """Every App Home view published, oldest first, as JSON text."""
    return [json.dumps(c.args["view"], ensure_ascii=False) for c in standin.calls("views.publish") if c.ok]


def around(text: str, title: str) -> str:
    """The text right after ``title`` (where its "no link yet" note would be)."""
    i = text.index(title)
    return text[i : i + len(title) + 80]


def test_no_link_yet_gives_way_to_the_link_once_the_catalog_has_it(root: Path, sqlite_url: str, standin) -> None:
    tid, pid = unlinked_step(root)
    rt = runtime_on(root, sqlite_url, standin)
    try:
        title = rt.holder.catalog.post(pid).title
        h, me = Handlers(rt), Caller(TEAM, READER, "C2")
        order = list(rt.holder.catalog.order(tid))
        rt.store.follow(TEAM, READER, tid)
        rt.store.mark_read(TEAM, READER, order[: order.index(pid)])
        sub = rt.store.subscribe(TEAM, "C2", tid, WeeklySchedule.of(0, "09:00", "UTC"), steps_per_week=1)
        set_cursor(rt.store, sub.id, order.index(pid), rt.holder.catalog.version)
        before = h.command(me, tid)  # the track's path, kept per catalog
        assert "no link yet" in around(json.dumps(before.blocks, ensure_ascii=False), title)
        client = WebClient(token="xoxb-test", base_url=standin.api_url)
        publish_home(h, client, None, me, None)  # App Home keeps the view it rendered (a minute)
        assert LINK not in home_text(standin)[-1]  # its *Read next* passes over a step without a link

        give_link(root, pid, LINK)
        ok, errors = rt.reload_catalog()
        assert ok, errors
        after = json.dumps(h.command(me, tid).blocks, ensure_ascii=False)
        assert LINK in after and "no link yet" not in around(after, title)
        nxt = json.dumps(h.command(me, f"next {tid}").blocks, ensure_ascii=False)
        # the minutes' note counts the other steps still without one ("… more have no link yet")
        nxt = re.sub(r"\d+ more ha(?:ve|s) no link yet", "", nxt)
        assert LINK in nxt and "no link yet" not in around(nxt, title)
        assert deliverer(rt).deliver_subscription(sub.id, FIRE).outcome is Outcome.SENT
        digest = sent_text(standin, "C2")[0]
        assert LINK in digest and "no link yet" not in around(digest, title)
        publish_home(h, client, None, me, None)  # within the minute: the new catalog's view
        assert LINK in home_text(standin)[-1]  # now *Read next*, linked
    finally:
        rt.store.close()
