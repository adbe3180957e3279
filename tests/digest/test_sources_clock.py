"""Issue 41: the clock fetches the feeds of ``sources.yaml`` on its schedule (``CATALOG_SOURCES_EVERY_S``)
and drafts their new posts beside the catalog; a broken feed does not stop it. Real loopback feeds, a
real database and the real APScheduler clock; without the setting, no feed is fetched."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bot.digest.clock import SOURCES_DAILY_S, SOURCES_ID, DigestClock
from bot.digest.sources import watch_sources
from bot.domain.catalog.drafts import read_drafts
from bot.runtime import CatalogHolder
from tests.digest.conftest import make_runtime
from tests.domain.catalog.helpers import catalog_copy
from tests.domain.catalog.test_feed_drafts import NEW_TITLE, Feeds, serve_feeds
from tests.standin import SlackStandIn

CEILING_S = 60.0


def test_the_clock_drafts_new_feed_posts_on_its_schedule(sqlite_url: str, tmp_path: Path, standin: SlackStandIn):
    root = catalog_copy(tmp_path / "catalog")
    (tmp_path / "www").mkdir()
    feeds = Feeds(tmp_path / "www", slow_s=0.0)
    try:
        serve_feeds(root, feeds)
        off = make_runtime(sqlite_url, None, CatalogHolder(root), catalog_dir=root)
        clock = DigestClock(off, reconcile_every_s=None, workers=1)
        clock.start()
        try:
            assert clock.scheduler.get_job(SOURCES_ID) is None
        finally:
            clock.shutdown()
        assert feeds.seen == []

        rt = make_runtime(
            sqlite_url,
            standin,
            CatalogHolder(root),
            catalog_dir=root,
            catalog_sources_every_s=3600,
            catalog_curators="U0CURATOR",
        )
        clock = DigestClock(rt, reconcile_every_s=None, workers=1)
        clock.start()
        try:
            job = clock.scheduler.get_job(SOURCES_ID)
            assert job is not None and job.trigger.interval.total_seconds() == 3600
            deadline = time.monotonic() + CEILING_S

            def broken() -> set[str]:  # the drafts may be written before the broken feed is asked
                return {name for name, _, status in feeds.seen if status == 500}

            while time.monotonic() < deadline and (len(read_drafts(root)) < 3 or not broken()):
                time.sleep(0.1)
            assert NEW_TITLE in {d.title for d in read_drafts(root)}
            assert len(read_drafts(root)) == 3
            assert broken() == {"broken.xml"}
            cards = [standin.wait_for_call("chat.postMessage", count=n, timeout=CEILING_S) for n in (1, 2, 3)]
            assert {c.args["channel"] for c in cards} == {"U0CURATOR"}
            assert all("draft_accept:" in json.dumps(c.args["blocks"]) for c in cards)
            assert NEW_TITLE in " ".join(c.args["text"] for c in cards)
        finally:
            clock.shutdown()
    finally:
        feeds.server.shutdown()
        feeds.server.server_close()


def test_the_old_catalog_feed_url_is_one_more_feed_read_daily(sqlite_url: str, tmp_path: Path, standin: SlackStandIn):
    """``CATALOG_FEED_URL`` (the removed daily watch's setting) is read as one more vLLM blog feed:
    the clock fetches it daily, its new posts become drafts; a URL also in sources.yaml is fetched once."""
    root = catalog_copy(tmp_path / "catalog")
    (tmp_path / "www").mkdir()
    feeds = Feeds(tmp_path / "www", slow_s=0.0)
    try:
        serve_feeds(root, feeds)
        (root / "sources.yaml").write_text("feeds: []\n", encoding="utf-8")
        blog = f"{feeds.base}/blog.xml"
        rt = make_runtime(sqlite_url, standin, CatalogHolder(root), catalog_dir=root, catalog_feed_url=blog)
        clock = DigestClock(rt, reconcile_every_s=None, workers=1)
        clock.start()
        try:
            job = clock.scheduler.get_job(SOURCES_ID)
            assert job is not None and job.trigger.interval.total_seconds() == SOURCES_DAILY_S
            deadline = time.monotonic() + CEILING_S
            while time.monotonic() < deadline and NEW_TITLE not in {d.title for d in read_drafts(root)}:
                time.sleep(0.1)
            assert NEW_TITLE in {d.title for d in read_drafts(root)}
        finally:
            clock.shutdown()
        assert [name for name, _, _ in feeds.seen] == ["blog.xml"]
        (root / "sources.yaml").write_text(f"feeds: [{{name: b, url: '{blog}', kind: vllm-blog}}]\n", encoding="utf-8")
        report = watch_sources(root, rt.holder.catalog, feed_url=blog)
        assert report.unchanged == ["b"] and [name for name, _, _ in feeds.seen] == ["blog.xml", "blog.xml"]
        with pytest.raises(ValueError):
            watch_sources(root, rt.holder.catalog, feed_url="ftp://example.com/feed.xml")
    finally:
        feeds.server.shutdown()
        feeds.server.server_close()
