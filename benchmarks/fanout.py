"""Digest fan-out: composition speed, and delivery rate against a rate-limited Slack stand-in.

    python benchmarks/fanout.py [--people 100000] [--tracks 10] [--subs 10000]
                                [--deliveries 300] [--rate 20] [--database-url URL] [--json]
                                [--skip-delivery] [--check]

**Compose.** ``--people`` synthetic readers (seeded) each follow ``--tracks`` tracks of the real
catalog at the default budget (:data:`bot.domain.budget.DEFAULT_MINUTES`) and have read a prefix
of each path (uniform length) plus now and then a post out of order. Timed: the DM delivery
sends, ``budget_dm_composer(catalog, "en").compose(follows, read, minutes)``
(:class:`bot.slack.views.plan_dm.BudgetDmComposer`, as
:meth:`bot.slack.views.digest_render.SlackDigestRenderer.dm_digest` calls it), for every reader
with a cold cache (the first fan-out of a catalog version) and again warm; and
:func:`compose_channel_digest` for ``--subs`` channel subscriptions at random places in their
paths. Target: 100,000 people x 10 tracks in at most 2 s (cold).

**Deliver.** A :class:`~tests.standin.SlackStandIn` on loopback allows ``--rate``
``chat.postMessage`` per second per workspace (a token bucket of ``--burst`` tokens, default 2:
Slack's limits tolerate short bursts; ``--burst 1`` is a strict limiter) and 1 per second per
channel (burst 1), answering 429 + ``Retry-After`` beyond. Two fan-outs through the real
``DigestClock.run_now`` (database, ledger, pacing, slack-sdk with its retry handlers):

* ``workspace``: ``--deliveries`` subscriptions in as many channels; the achieved rate (accepted
  posts per second from the first to the last) as a ratio of ``--rate``;
* ``channel``: 8 subscriptions in one channel; the achieved rate as a ratio of 1 per second.

The clock is configured ``--headroom`` (default 0.95) times the allowed rates, the margin any
client needs against a limiter that counts arrival times (``--headroom 1.33``: a clock configured
above the limit, each 429 holding the workspace for its ``Retry-After``). Target: ratio >= 0.9 in
both, every digest delivered.

Exit 0 always (a report); ``--check`` exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import benchdb  # benchmarks/, on sys.path as this script's folder

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.catalog import Catalog
from bot.domain.schedule import WeeklySchedule
from bot.slack.views import plan_dm
from bot.slack.views.digest import compose_channel_digest, preview_subscription
from bot.slack.views.plan_dm import budget_dm_composer

REPO_ROOT = Path(__file__).resolve().parent.parent

TEAM = "TBENCH"


# --- compose -------------------------------------------------------------------------------------


def make_people(catalog: Catalog, n: int, tracks_each: int, seed: int = 1) -> list[tuple[list[str], set[str]]]:
    """``n`` readers: (followed track ids, read post ids)."""
    rng = random.Random(seed)
    track_ids = [t.id for t in catalog.tracks]
    all_posts = [p.id for p in catalog.posts]
    people = []
    for _ in range(n):
        follows = rng.sample(track_ids, min(tracks_each, len(track_ids)))
        read: set[str] = set()
        for tid in follows:
            order = catalog.order(tid)
            read.update(order[: rng.randint(0, len(order))])
        if rng.random() < 0.3:
            read.add(rng.choice(all_posts))
        people.append((follows, read))
    return people


def bench_compose(catalog: Catalog, people: int, tracks: int, subs: int) -> dict:
    population = make_people(catalog, people, tracks)
    plan_dm._composers.clear()  # cold: the first fan-out of this catalog version builds the caches
    gc.collect()
    gc.freeze()  # the input (100,000 read sets) is not compose's garbage to scan
    t0 = time.perf_counter()
    sent = 0
    for follows, read in population:  # a fan-out sends each and lets it go
        if budget_dm_composer(catalog, "en").compose(follows, read, DEFAULT_MINUTES) is not None:
            sent += 1
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    for follows, read in population:
        budget_dm_composer(catalog, "en").compose(follows, read, DEFAULT_MINUTES)
    warm = time.perf_counter() - t0
    rng = random.Random(2)
    track_ids = [t.id for t in catalog.tracks]
    channel_subs = []
    for i in range(subs):
        tid = rng.choice(track_ids)
        channel_subs.append(
            replace(
                preview_subscription(tid, rng.randint(1, 3), rng.randint(0, len(catalog.order(tid))), i),
                last_catalog_version=catalog.version,
            )
        )
    t0 = time.perf_counter()
    channel = [compose_channel_digest(catalog, s) for s in channel_subs]
    channel_s = time.perf_counter() - t0
    return {
        "people": people,
        "tracks_each": tracks,
        "dm_cold_s": round(cold, 3),
        "dm_warm_s": round(warm, 3),
        "dm_us_per_person_cold": round(cold / people * 1e6, 2),
        "dms_with_something_to_say": sent,
        "step_blocks_rendered": len(budget_dm_composer(catalog, "en")._steps),
        "channel_subs": subs,
        "channel_s": round(channel_s, 3),
        "channel_ms_per_digest": round(channel_s / max(1, subs) * 1e3, 3),
        "channel_digests_with_something": sum(1 for c in channel if c.reply is not None),
        "target_dm_s": 2.0,
        "dm_ok": cold <= 2.0,
    }


# --- deliver -------------------------------------------------------------------------------------


def bench_delivery(
    database_url: str | None, deliveries: int, rate: float, headroom: float = 0.95, burst: int = 1
) -> dict:
    """Both delivery scenarios, each on its own database: an SQLite file in a temporary folder,
    or with ``database_url`` (a PostgreSQL server) a database ``vp_bench_<random>`` created there
    for the scenario and dropped after it (``benchmarks/benchdb.py``)."""
    from bot.runtime import CatalogHolder

    holder = CatalogHolder(DEFAULT_CATALOG_DIR)
    track_ids = [t.id for t in holder.catalog.tracks]
    results = {}
    with tempfile.TemporaryDirectory(prefix="vp-fanout-") as tmp:
        for scenario, subs, allowed in (
            ("workspace", [(f"C{i:05d}", track_ids[i % len(track_ids)]) for i in range(deliveries)], rate),
            ("channel", [("CONE", track_ids[i]) for i in range(8)], 1.0),
        ):
            with contextlib.ExitStack() as stack:
                url = (
                    stack.enter_context(benchdb.own_postgres_database(database_url))
                    if database_url
                    else f"sqlite:///{tmp}/{scenario}.db"
                )
                results[scenario] = _deliver(url, holder, subs, allowed, rate, headroom, burst, scenario)
    return results


def _deliver(
    url: str,
    holder: Any,
    subs: list[tuple[str, str]],
    allowed: float,
    rate: float,
    headroom: float,
    burst: int,
    scenario: str,
) -> dict:
    """One delivery scenario on the database ``url`` (this run's own); its result row."""
    from bot.config import Settings
    from bot.digest.clock import DigestClock
    from bot.runtime import Runtime
    from bot.store import Store
    from tests.standin import SlackStandIn

    store = Store.from_url(url)
    with SlackStandIn(team_id=TEAM) as standin:
        standin.configure(team_rate_per_s=rate, team_burst=burst, channel_rate_per_s=1.0)
        settings = Settings(
            _env_file=None,
            database_url=url,
            slack_bot_token="xoxb-bench",
            slack_api_url=standin.api_url,
            slack_client_id=None,
            slack_client_secret=None,
            slack_app_token=None,
        )
        runtime = Runtime(settings, store, holder)
        runtime.record_catalog_version()
        for channel, track in subs:
            store.subscribe(TEAM, channel, track, WeeklySchedule.of(0, "09:00", "UTC"))
        clock = DigestClock(
            runtime,
            workers=8,
            reconcile_every_s=None,
            team_rate_per_s=rate * headroom,
            channel_interval_s=1.0 / headroom,
        )
        t0 = time.monotonic()
        try:
            counts = clock.run_now()
        finally:
            clock.shutdown()
        wall = time.monotonic() - t0
        ok = sorted(c.at for c in standin.calls("chat.postMessage") if c.ok)
        limited = sum(1 for c in standin.calls("chat.postMessage") if c.status == 429)
    store.close()
    span = ok[-1] - ok[0] if len(ok) > 1 else float("nan")
    achieved = (len(ok) - 1) / span if len(ok) > 1 else float("nan")
    return {
        "digests": len(subs),
        "sent": counts.get("sent", 0),
        "accepted_posts": len(ok),
        "allowed_per_s": allowed,
        "achieved_per_s": round(achieved, 3),
        "ratio": round(achieved / allowed, 3),
        "http_429": limited,
        "wall_s": round(wall, 2),
        "ok": achieved / allowed >= 0.9 and len(ok) == len(subs),
        "clock_rate_per_s": round(allowed * headroom, 3),
        "server_burst": burst if scenario == "workspace" else 1,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=100_000)
    parser.add_argument("--tracks", type=int, default=10)
    parser.add_argument("--subs", type=int, default=10_000)
    parser.add_argument("--deliveries", type=int, default=300)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--burst", type=int, default=2)
    parser.add_argument("--headroom", type=float, default=0.95)
    parser.add_argument(
        "--database-url",
        default=None,
        help="a PostgreSQL server on which each scenario creates (and then drops) "
        "its own database (default: SQLite files in a temporary folder)",
    )
    parser.add_argument("--skip-delivery", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)

    from bot.domain.catalog import load_catalog

    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    report = {"catalog": catalog.version, "compose": bench_compose(catalog, args.people, args.tracks, args.subs)}
    if not args.skip_delivery:
        report["delivery"] = bench_delivery(args.database_url, args.deliveries, args.rate, args.headroom, args.burst)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        c = report["compose"]
        print(f"catalog {report['catalog']}")
        print(
            f"compose DMs: {c['people']:,} people x {c['tracks_each']} tracks: "
            f"{c['dm_cold_s']:.3f} s cold ({c['dm_us_per_person_cold']} us/person), "
            f"{c['dm_warm_s']:.3f} s warm; {c['dms_with_something_to_say']:,} with something to say; "
            f"{c['step_blocks_rendered']:,} (track, post, position) step blocks rendered; target <= 2 s: "
            f"{'ok' if c['dm_ok'] else 'MISSED'}"
        )
        print(
            f"compose channel digests: {c['channel_subs']:,} in {c['channel_s']:.3f} s "
            f"({c['channel_ms_per_digest']} ms each)"
        )
        for name, d in report.get("delivery", {}).items():
            print(
                f"deliver [{name}]: {d['accepted_posts']}/{d['digests']} posted, "
                f"{d['achieved_per_s']}/s of {d['allowed_per_s']}/s allowed = ratio {d['ratio']} "
                f"({d['http_429']} x 429, {d['wall_s']} s wall); target >= 0.9: "
                f"{'ok' if d['ok'] else 'MISSED'}"
            )
    if args.check:
        ok = report["compose"]["dm_ok"] and all(d["ok"] for d in report.get("delivery", {}).values())
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
