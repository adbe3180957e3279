"""The daily feed watch (issue 11): a real HTTP feed, the Slack stand-in, a real database and a
controlled clock; one notice per new post, remembered; nothing posted the second time."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.digest import clock as schedule
from bot.digest.clock import WATCH_ID, DigestClock
from bot.digest.watch import check_feed
from bot.runtime import CatalogHolder
from bot.store import Store
from tests.digest.conftest import make_runtime
from tests.standin import SlackStandIn

ADMIN = "C0ADMIN1"


def atom(entries: list[tuple[str, str, str]]) -> str:
    items = "".join(
        f'<entry><title>{title}</title><link href="{url}"/><id>{url}</id>'
        f"<updated>{day}T00:00:00Z</updated><published>{day}T00:00:00Z</published></entry>"
        for title, url, day in entries
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
        "<title>vLLM Blog</title><id>https://vllm-project.github.io/</id>"
        f"<updated>2026-11-30T00:00:00Z</updated>{items}</feed>"
    )


@pytest.fixture
def feed_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A real HTTP server serving ``tmp_path/feed.xml``; yields (URL, file path)."""
    path = tmp_path / "feed.xml"

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def log_message(self, *args):  # keep test output clean
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/feed.xml", path
    finally:
        server.shutdown()
        server.server_close()


def test_new_posts_are_announced_once_with_the_import_command(
    db_url, holder: CatalogHolder, feed_server, standin: SlackStandIn
):
    url, path = feed_server
    cat = holder.catalog
    known = cat.post("p-eagle")
    path.write_text(
        atom(
            [
                (
                    "A Post The Catalog Lacks &amp; More",
                    "https://vllm-project.github.io/2026/11/20/lacking.html",
                    "2026-11-20",
                ),
                (known.title, cat.url_of(known), "2026-03-13"),
            ]
        ),
        encoding="utf-8",
    )
    now = [datetime(2026, 12, 1, 6, 0, tzinfo=UTC)]
    rt = make_runtime(db_url, standin, holder, catalog_feed_url=url, catalog_admin_channel=ADMIN)
    rt.store._clock = lambda: now[0]
    try:
        report = check_feed(rt)
        assert report.error is None
        assert [p.url for p in report.announced] == ["https://vllm-project.github.io/2026/11/20/lacking.html"]
        posts = standin.calls("chat.postMessage")
        assert len(posts) == 1 and posts[0].args["channel"] == ADMIN
        blob = str(posts[0].args["blocks"]) + posts[0].args["text"]
        assert "A Post The Catalog Lacks &amp; More" in blob  # escaped, as mrkdwn wants
        assert f"vllm-path catalog import {url} --write" in blob
        assert known.title not in blob
        assert "<!" not in blob and "<@" not in blob  # no pings
        # The next day: the same feed, nothing new to say.
        now[0] = datetime(2026, 12, 2, 6, 0, tzinfo=UTC)
        again = check_feed(rt)
        assert again.error is None and again.announced == () and len(again.missing) == 1
        assert len(standin.calls("chat.postMessage")) == 1
        # A second new post later: only that one is announced.
        path.write_text(
            atom(
                [
                    (
                        "A Post The Catalog Lacks &amp; More",
                        "https://vllm-project.github.io/2026/11/20/lacking.html",
                        "2026-11-20",
                    ),
                    ("Another New One", "https://vllm-project.github.io/2026/12/01/another.html", "2026-12-01"),
                ]
            ),
            encoding="utf-8",
        )
        third = check_feed(rt)
        assert [p.title for p in third.announced] == ["Another New One"]
        last = standin.calls("chat.postMessage")[-1]
        assert "Another New One" in last.args["text"] and "Lacks" not in last.args["text"]
    finally:
        rt.store.close()


def test_a_broken_feed_or_a_failed_post_announces_nothing_and_is_retried(
    sqlite_url, holder, feed_server, standin: SlackStandIn
):
    url, path = feed_server
    path.write_text("<feed><entry><title>cut", encoding="utf-8")
    rt = make_runtime(sqlite_url, standin, holder, catalog_feed_url=url, catalog_admin_channel=ADMIN)
    try:
        report = check_feed(rt)
        assert report.error and report.announced == ()
        assert standin.calls("chat.postMessage") == []
        path.write_text(
            atom([("Fresh", "https://vllm-project.github.io/2026/11/21/fresh.html", "2026-11-21")]), encoding="utf-8"
        )
        standin.configure(channel_errors={ADMIN: "channel_not_found"})
        failed = check_feed(rt)  # Slack refuses the channel: the claim is released
        assert failed.error == "channel_not_found" and failed.announced == ()
        assert rt.store.noticed_urls() == set()
        standin.configure(channel_errors={})
        ok = check_feed(rt)
        assert [p.title for p in ok.announced] == ["Fresh"]
    finally:
        rt.store.close()


def test_unset_feed_skips(sqlite_url, holder, standin):
    rt = make_runtime(sqlite_url, standin, holder)
    try:
        assert check_feed(rt).skipped
    finally:
        rt.store.close()


def test_the_clock_runs_the_watch_once_a_day(sqlite_url, holder, feed_server, standin: SlackStandIn):
    url, path = feed_server
    path.write_text(
        atom([("Clock Found This", "https://vllm-project.github.io/2026/11/22/clock.html", "2026-11-22")]),
        encoding="utf-8",
    )
    rt = make_runtime(
        sqlite_url, standin, holder, catalog_feed_url=url, catalog_admin_channel=ADMIN, catalog_watch_at="07:30"
    )
    clock = DigestClock(rt, reconcile_every_s=None, workers=1)
    clock.start()
    try:
        job = clock.scheduler.get_job(WATCH_ID)
        assert job is not None
        fake_now = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
        first = job.trigger.get_next_fire_time(None, fake_now)
        second = job.trigger.get_next_fire_time(first, first)
        assert first == datetime(2026, 12, 2, 7, 30, tzinfo=UTC)
        assert (second - first).total_seconds() == 24 * 3600
        schedule.watch_feed()  # what the job runs when it fires
        schedule.watch_feed()
        assert len(standin.calls("chat.postMessage")) == 1
        assert isinstance(rt.store, Store) and rt.store.noticed_urls() == {
            "https://vllm-project.github.io/2026/11/22/clock.html"
        }
    finally:
        clock.shutdown()
        rt.store.close()
