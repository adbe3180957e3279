"""Composing weekly DMs for a big fan-out: random read sets cost no more than in-order ones.

    python benchmarks/compose_dm.py [--people 100000] [--tracks 10] [--baseline-people 10000] [--json]

``--people`` synthetic readers (seeded) each follow ``--tracks`` tracks of the real catalog, at a
weekly budget drawn from :data:`BUDGETS` (minutes; mostly the default). Two populations: **in
order** (each has read a prefix of each path) and **random** (each has read a random subset of
each path: out-of-order readers). For each, in one run and each in a fresh process (so that
peak memory is its own):

* ``shared``: what delivery runs (:meth:`bot.slack.views.digest_render.SlackDigestRenderer.dm_digest`
  calls ``budget_dm_composer(catalog, lang).compose(follows, read, minutes)``): one
  :class:`bot.slack.views.plan_dm.BudgetDmComposer` per catalog and language whose blocks are
  shared between readers;
* ``fresh`` (the baseline): a new :class:`BudgetDmComposer` for each DM, so nothing is shared
  across people. It costs milliseconds a DM, so it is timed on the first ``--baseline-people``
  readers of the same population and compared per person (``us_per_person``).

Timed: composing every reader's DM once, cold (the first fan-out of a catalog version).
Printed: seconds, CPU seconds, blocks cached and the process's peak RSS (``ru_maxrss``).

Target: random read sets with the shared composer <= 2 s for 100,000 x 10. The population is
built before timing and frozen out of the garbage collector's way (``gc.freeze``), as a
fan-out holds it in its database rows rather than in Python objects.

Imports nothing from ``tests``.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))


BUDGETS = (45, 45, 45, 30, 60, 120)
"""Weekly budgets drawn per reader, in minutes (45 is :data:`bot.domain.budget.DEFAULT_MINUTES`)."""


def population(
    catalog, people: int, tracks_each: int, kind: str, seed: int = 1
) -> list[tuple[list[str], set[str], int]]:
    """``people`` readers: (followed track ids, read post ids, minutes a week)."""
    rng, budgets = random.Random(seed), random.Random(seed + 1)
    track_ids = [t.id for t in catalog.tracks]
    out = []
    for _ in range(people):
        follows = rng.sample(track_ids, min(tracks_each, len(track_ids)))
        read: set[str] = set()
        for tid in follows:
            order = catalog.order(tid)
            if kind == "in_order":
                read.update(order[: rng.randint(0, len(order))])
            else:
                read.update(p for p in order if rng.random() < 0.5)
        out.append((follows, read, budgets.choice(BUDGETS)))
    return out


def one(people: int, tracks: int, kind: str, composer_kind: str, baseline_people: int) -> dict:
    from bot.config import DEFAULT_CATALOG_DIR
    from bot.domain.catalog import load_catalog
    from bot.slack.views.plan_dm import BudgetDmComposer, budget_dm_composer

    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    pop = population(catalog, people, tracks, kind)
    if composer_kind == "fresh":
        pop = pop[:baseline_people]
    composer = budget_dm_composer(catalog, "en")
    gc.collect()
    gc.freeze()
    t0, cpu0 = time.perf_counter(), time.process_time()
    sent = 0
    if composer_kind == "shared":
        for follows, read, minutes in pop:
            if budget_dm_composer(catalog, "en").compose(follows, read, minutes) is not None:
                sent += 1
    else:
        for follows, read, minutes in pop:
            if BudgetDmComposer(catalog, "en").compose(follows, read, minutes) is not None:
                sent += 1
    seconds = time.perf_counter() - t0
    cpu_s = time.process_time() - cpu0
    return {
        "people": len(pop),
        "tracks_each": tracks,
        "readers": kind,
        "composer": composer_kind,
        "seconds": round(seconds, 3),
        "cpu_s": round(cpu_s, 3),
        "us_per_person": round(seconds / len(pop) * 1e6, 2),
        "cpu_us_per_person": round(cpu_s / len(pop) * 1e6, 2),
        "dms": sent,
        "step_blocks_cached": len(composer._steps) if composer_kind == "shared" else None,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=100_000)
    parser.add_argument("--tracks", type=int, default=10)
    parser.add_argument("--baseline-people", type=int, default=10_000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one", nargs=2, metavar=("READERS", "COMPOSER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.people, args.tracks, *args.one, args.baseline_people)))
        return 0
    runs = []
    for kind in ("in_order", "random"):
        for composer in ("shared", "fresh"):
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--people",
                    str(args.people),
                    "--tracks",
                    str(args.tracks),
                    "--baseline-people",
                    str(args.baseline_people),
                    "--one",
                    kind,
                    composer,
                ],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
    shared_random = next(r for r in runs if r["readers"] == "random" and r["composer"] == "shared")
    report = {"runs": runs, "target_s": 2.0, "ok": shared_random["seconds"] <= 2.0}
    if not args.json:
        for r in runs:
            print(
                f"{r['readers']:>8} readers, {r['composer']:>6} composer, {r['people']:,} people: "
                f"{r['seconds']:.3f} s ({r['us_per_person']} us/person), {r['cpu_s']:.3f} s CPU, "
                f"{r['step_blocks_cached'] or '-'} step blocks cached, peak RSS {r['peak_rss_mb']} MB"
            )
    print(json.dumps(report))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
