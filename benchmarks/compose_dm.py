"""Composing weekly DMs for a big fan-out: random read sets cost no more than in-order ones.

    python benchmarks/compose_dm.py [--people 100000] [--tracks 10] [--json]

``--people`` synthetic readers (seeded) each follow ``--tracks`` tracks of the real catalog.
Two populations: **in order** (each has read a prefix of each path) and **random** (each has
read a random subset of each path: out-of-order readers). For each, in one run and each in a
fresh process (so that peak memory is its own): the composer the delivery code uses
(:func:`bot.slack.views.digest_cache.dm_composer`: parts cached by track, next step and count, in a
bounded LRU) and, as the baseline, :class:`bot.slack.views.digest.DmComposer` (parts cached by the
exact set of posts read, unbounded). Timed: composing every reader's DM once, cold (the first
fan-out of a catalog version). Printed: seconds, distinct parts rendered, cache sizes and the
process's peak RSS (``ru_maxrss``).

Target: random read sets with the keyed composer <= 2 s for 100,000 x 10. The population is
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


def population(catalog, people: int, tracks_each: int, kind: str, seed: int = 1) -> list[tuple[list[str], set[str]]]:
    rng = random.Random(seed)
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
        out.append((follows, read))
    return out


def one(people: int, tracks: int, kind: str, composer_kind: str) -> dict:
    from bot.config import DEFAULT_CATALOG_DIR
    from bot.domain.catalog import load_catalog
    from bot.slack.views import digest_cache as compose_cache
    from bot.slack.views.digest import DmComposer

    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    pop = population(catalog, people, tracks, kind)
    composer = compose_cache.dm_composer(catalog, "en") if composer_kind == "keyed" else DmComposer(catalog, "en")
    gc.collect()
    gc.freeze()
    t0, cpu0 = time.perf_counter(), time.process_time()
    sent = 0
    for follows, read in pop:
        if composer.compose(follows, read) is not None:
            sent += 1
    seconds = time.perf_counter() - t0
    cpu_s = time.process_time() - cpu0
    exact = sum(len(v) for v in composer._parts.values())
    result = {
        "people": people,
        "tracks_each": tracks,
        "readers": kind,
        "composer": composer_kind,
        "seconds": round(seconds, 3),
        "cpu_s": round(cpu_s, 3),
        "us_per_person": round(seconds / people * 1e6, 2),
        "dms": sent,
        "exact_entries": exact,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    if composer_kind == "keyed":
        result["keyed_parts"] = compose_cache.cache_info()["parts"]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=100_000)
    parser.add_argument("--tracks", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one", nargs=2, metavar=("READERS", "COMPOSER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.people, args.tracks, *args.one)))
        return 0
    runs = []
    for kind in ("in_order", "random"):
        for composer in ("keyed", "exact"):
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--people",
                    str(args.people),
                    "--tracks",
                    str(args.tracks),
                    "--one",
                    kind,
                    composer,
                ],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
    keyed_random = next(r for r in runs if r["readers"] == "random" and r["composer"] == "keyed")
    report = {"runs": runs, "target_s": 2.0, "ok": keyed_random["seconds"] <= 2.0}
    if not args.json:
        for r in runs:
            print(
                f"{r['readers']:>8} readers, {r['composer']:>5} cache: {r['seconds']:.3f} s "
                f"({r['us_per_person']} us/person), {r['exact_entries']:,} exact entries, "
                f"{r.get('keyed_parts', '-')} keyed parts, peak RSS {r['peak_rss_mb']} MB"
            )
    print(json.dumps(report))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
