"""QA round 8: channel digests. A week's digest holds readable (linked) steps only: a step without a
link is passed over, not spent (one line says how many wait), and comes in a later digest once a
catalog version links it, exactly once, also across versions (the version's snapshot records its
unlinked posts). A clock whose catalog folder is older than the version recorded says so at
WARNING. A repeated *Snooze* of the same channel digest answers "already snoozed" and changes
nothing. Real catalog, real store (SQLite), the Slack stand-in where a digest is sent."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest

from bot.digest.clock import DigestClock
from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.domain.plan import BudgetPreview, plan_channel_digest, version_snapshot
from bot.domain.schedule import WeeklySchedule
from bot.slack.commands.context import Caller
from bot.slack.commands.digest_actions import digest_action, handle_digest_action
from bot.slack.views.digest import compose_channel_digest, preview_subscription
from bot.store import Store
from tests.digest.conftest import TEAM


def _weeks(catalog: Catalog, track: str, minutes: int, cursor: int = 0, version: str | None = None):
    """Every plan of a channel at ``minutes`` a week from ``cursor`` until there is nothing to send."""
    out = []
    for _ in range(40):
        plan = plan_channel_digest(catalog, BudgetPreview(1, track, cursor, 1, version, minutes_per_week=minutes))
        if plan.empty:
            return out
        out.append(plan)
        cursor, version = plan.cursor, plan.version
    raise AssertionError("no end")


def test_no_digest_is_made_of_posts_that_are_not_published_yet(catalog: Catalog) -> None:
    """The QA case: agentic at the default 45 min had a week of three "no link yet" posts."""
    for track in catalog.tracks:
        for cursor in range(len(catalog.order(track.id))):
            for plan in _weeks(catalog, track.id, 45, cursor):
                assert plan.steps or plan.new
                assert all(catalog.post(p).url is not None for p in plan.steps), (track.id, cursor, plan.steps)
    text = str(compose_channel_digest(catalog, replace(preview_subscription("agentic", 3, 9), id=3)).reply)
    assert "Not published yet" not in text


def test_a_step_passed_over_comes_once_a_new_version_links_it(catalog: Catalog, sqlite_url: str) -> None:
    store = Store.from_url(sqlite_url)
    order = catalog.order("benchmarking")
    unlinked = [p for p in order if catalog.post(p).url is None]
    sub = preview_subscription("benchmarking", 3, order.index(unlinked[0]))
    first = plan_channel_digest(catalog, sub)
    assert first.cursor > order.index(unlinked[-1]) and first.waiting == len(unlinked)
    assert not set(first.steps) & set(unlinked)
    # as a process records the version it serves (bot.runtime.Runtime.record_catalog_version)
    assert store.record_catalog_version(catalog.version, version_snapshot(catalog))
    sub = replace(sub, cursor=first.cursor, last_catalog_version=first.version)

    # A new version links the first of them (a curator accepted its post).
    linked = unlinked[0]
    posts = [
        p.model_copy(update={"url": f"https://vllm-project.github.io/2026/12/04/{p.id}.html"}) if p.id == linked else p
        for p in catalog.posts
    ]
    by_id = {p.id: p for p in posts}
    newer = Catalog.build(
        manifest=catalog.manifest.model_copy(update={"version": "2099.1.1"}),
        posts=posts,
        tracks=list(catalog.tracks),
        orders={tr.id: paths.compute_order(tr, by_id) for tr in catalog.tracks},
    )
    snapshot = store.catalog_snapshot(sub.last_catalog_version)
    second = plan_channel_digest(newer, sub, snapshot)
    assert linked in second.steps and second.waiting == len(unlinked) - 1
    text = str(compose_channel_digest(newer, replace(sub, id=5), snapshot).reply)
    assert "1 step of this path waits for a link" in text
    sub = replace(sub, cursor=second.cursor, last_catalog_version=second.version)
    later = [p for plan in _weeks(newer, "benchmarking", 600, sub.cursor, sub.last_catalog_version) for p in plan.steps]
    assert linked not in later  # exactly once
    store.close()


def test_a_clock_with_an_older_catalog_folder_says_so_at_warning(sqlite_runtime, caplog) -> None:
    store = sqlite_runtime.store
    serving = sqlite_runtime.holder.catalog.version
    store.record_catalog_version("2099.12.19", {})  # another process's newer catalog
    clock = DigestClock(sqlite_runtime, reconcile_every_s=3600, workers=1)
    with caplog.at_level(logging.INFO, logger="bot.digest"):
        clock.reconcile()
    said = [r for r in caplog.records if "recorded by another process" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.WARNING
    assert serving in said[0].getMessage() and "older than" in said[0].getMessage()
    assert "CATALOG_DIR" in said[0].getMessage()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_repeated_snooze_answers_already_snoozed_and_changes_nothing(sqlite_runtime, lang: str) -> None:
    store = sqlite_runtime.store
    sub = store.subscribe(TEAM, "C0SNOOZE", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    caller = Caller(TEAM, "U0ADMIN", "C0SNOOZE")
    value = {"v": f"digest:{sub.id}"}
    first, changed = digest_action(sqlite_runtime, caller, "snooze", value, lang)
    assert changed
    again = handle_digest_action(sqlite_runtime, caller, "snooze", value, lang)
    second, changed_again = digest_action(sqlite_runtime, caller, "snooze", value, lang)
    assert not changed_again and str(second.text) == str(again.text) != str(first.text)
    assert ("already snoozed" if lang == "en" else "已暂停") in str(again.text)


def test_the_version_a_process_serves_is_recorded_with_its_unlinked_posts(sqlite_runtime) -> None:
    """What :meth:`bot.runtime.Runtime.record_catalog_version` records is what the digest reads to
    send a passed-over step once a later version links it (without the list, never)."""
    from bot.domain.plan import UNLINKED_KEY

    catalog = sqlite_runtime.holder.catalog
    sqlite_runtime.record_catalog_version()
    snapshot = sqlite_runtime.store.catalog_snapshot(catalog.version)
    assert snapshot is not None
    assert set(snapshot[UNLINKED_KEY]) == {p.id for p in catalog.posts if p.url is None} != set()
    assert all(snapshot[t.id] == list(catalog.order(t.id)) for t in catalog.tracks)
