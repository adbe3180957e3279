"""How well :mod:`bot.domain.catalog.placement` places a new post: leave-one-out over every
placed catalog post, from the text a feed gives, beside a title-only baseline.

    python benchmarks/placement.py [--blog DIR_OR_GIT_DIR] [--catalog DIR] [--json] [--modes feed,title] [--every 3]

Each post that is a step of a track is left out of every track and placed again from its feed
text: for a vLLM-blog post whose file is in the blog source (a checkout of
vllm-project/vllm-project.github.io, or its bare mirror from ``fetch``), the title, the front
matter's ``summary``, its tags (jekyll-feed gives them as categories) and the body; for any other
post its title alone (its catalog summary is our own words, not the feed's). The placer for each
post is built without it (``Placer(leave_out=...)``: not its step, words, idf, nor the track
sentences that name it), given the catalog's vocabulary (its glossary's track words, the blog hosts
its links resolve on). Measured: the first suggested track is one of the post's tracks (target
>= 0.90), one of the first two is (>= 0.97), and in that track the suggested position is within one
step of the curated one (>= 0.70), in the full path as ``catalog accept`` takes a position
(essentials first); beside them, not targets, what bounds the position (:data:`DIAGNOSTICS`).
Three runs: the feed's text against the catalog's words plus the other posts' blog texts
(``texts``), the same without those texts, and the title alone. The post texts are read at run
time (their licence does not let us store them); without the blog source the run stops with a
message (exit 2).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli.importer.sources import read_jekyll
from bot.domain.catalog import Catalog, load_catalog
from bot.domain.catalog.placement import Placer
from bot.domain.search.vocabulary import Vocabulary, load_vocabulary

REPO = Path(__file__).resolve().parents[1]
MIRROR = Path("/work/.mirror/vllm-project+vllm-project.github.io/repo")
TARGETS = {"track_first": 0.90, "track_top2": 0.97, "position_within_1": 0.70}
DIAGNOSTICS = ("essential_right", "position_within_1_if_essential_right")
"""Not targets, what bounds the position: the share of posts whose suggestion in their track says
essential or further reading as the catalog does, and of those the share within one step."""


Feed = tuple[str, str, str, tuple[str, ...], int | None]
"""A post as its feed gives it: title, summary, body, tags, minutes counted from the body."""


def blog_posts(blog: Path, base: str) -> dict[str, Feed]:
    """URL path -> :data:`Feed` of every post of ``blog`` (a folder, or a git dir whose
    ``HEAD:_posts`` is read with ``git archive``)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = blog
        if (blog / "HEAD").is_file() and not (blog / "_posts").is_dir():
            data = subprocess.run(
                ["git", f"--git-dir={blog}", "archive", "HEAD", "_posts"], capture_output=True, check=True
            ).stdout
            with tarfile.open(fileobj=BytesIO(data)) as tar:
                tar.extractall(tmp, filter="data")
            folder = Path(tmp)
        posts, _ = read_jekyll(folder, base)
    return {p.url.removeprefix(base): (p.title, p.summary, p.content, p.tags, p.minutes) for p in posts}


MODES = ("feed", "catalog", "title")
"""The runs: the post's feed text against the catalog's words plus the other posts' blog texts,
the same without those texts, and the post's title alone (the baseline)."""


def evaluate(
    catalog: Catalog,
    texts: dict[str, Feed],
    vocabulary: Vocabulary | None = None,
    modes: tuple[str, ...] = MODES,
    every: int = 1,
) -> dict[str, dict[str, float | int]]:
    """The three rates (and counts) over every placed post for each of ``modes`` (of :data:`MODES`:
    ``feed``, ``catalog``, ``title``; the last two share one placer a post, built without any blog
    text), each placer given the catalog's ``vocabulary`` (its glossary, its blog hosts);
    ``every``: only every this many placed posts (a quicker, rougher run while trying ideas)."""
    bodies = {p.id: texts[p.url][2] for p in catalog.posts if p.url in texts}
    counts = {mode: {"first": 0, "top2": 0, "near": 0, "flag": 0, "flag_near": 0} for mode in modes}
    n = with_text = 0
    placed = [post for post in catalog.posts if catalog.tracks_of(post.id)]
    for post in placed[::every]:
        tracks = catalog.tracks_of(post.id)
        n += 1
        title, summary, content, tags, minutes = texts.get(post.url or "", (post.title, "", "", (), None))
        with_text += bool(content)
        plain = Placer(catalog, leave_out=post.id, vocabulary=vocabulary)
        for mode in modes:
            placer = (
                Placer(catalog, texts=bodies, leave_out=post.id, vocabulary=vocabulary) if mode == "feed" else plain
            )
            said = (summary, content, tags, minutes) if mode != "title" else ("", "", (), None)
            got = placer.suggest(
                title,
                said[0],
                said[1],
                tags=said[2],
                published=post.published.earliest,
                minutes=said[3],
                vllm_blog=post.source.kind == "vllm-blog",
                linked=post.url is not None,
                limit=2,
            )
            count = counts[mode]
            count["first"] += bool(got) and got[0].track in tracks
            count["top2"] += any(s.track in tracks for s in got[:2])
            placed = next((s for s in got if s.track in tracks), None)
            if placed is not None:
                curated = catalog.order(placed.track).index(post.id) + 1
                near = abs(placed.position - curated) <= 1
                flag = placed.essential == catalog.step(placed.track, post.id).essential
                count["near"] += near
                count["flag"] += flag
                count["flag_near"] += flag and near
    return {
        mode: {
            "posts": n,
            "with_feed_content": with_text,
            "track_first": round(c["first"] / n, 3),
            "track_top2": round(c["top2"] / n, 3),
            "position_within_1": round(c["near"] / n, 3),
            "essential_right": round(c["flag"] / n, 3),
            "position_within_1_if_essential_right": round(c["flag_near"] / max(c["flag"], 1), 3),
        }
        for mode, c in counts.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blog", type=Path, default=Path(os.environ.get("BLOG_SOURCE", MIRROR)))
    parser.add_argument("--catalog", type=Path, default=Path(os.environ.get("CATALOG_DIR", REPO / "catalog")))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated runs of: " + ", ".join(MODES))
    parser.add_argument("--every", type=int, default=1, help="place only every this many posts (a rough, quick run)")
    args = parser.parse_args()
    if not args.blog.exists():
        print(
            f"skipped: no blog source at {args.blog} (fetch github:vllm-project/vllm-project.github.io, or "
            "pass --blog DIR): the post texts are read at run time, never stored here",
            file=sys.stderr,
        )
        return 2
    started = time.perf_counter()
    catalog = load_catalog(args.catalog)
    texts = blog_posts(args.blog, catalog.manifest.blog_base_url)
    modes = tuple(m for m in MODES if m in args.modes.split(","))
    runs = evaluate(catalog, texts, load_vocabulary(args.catalog), modes, max(args.every, 1))
    feed = runs.get("feed", runs[modes[0]])
    load = [round(x, 2) for x in os.getloadavg()]
    result = {"runs": runs, "targets": TARGETS, "seconds": round(time.perf_counter() - started, 2), "load": load}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{'':36} {'feed text':>10} {'no texts':>9} {'title only':>11} {'target':>7}")
        for key, target in (*TARGETS.items(), *((k, None) for k in DIAGNOSTICS)):
            row = " ".join(
                f"{runs[m][key]:>{w}.3f}" if m in runs else " " * w
                for m, w in (("feed", 10), ("catalog", 9), ("title", 11))
            )
            print(f"{key:36} {row} {'' if target is None else f'{target:>7.2f}'}")
        print(
            f"posts placed: {feed['posts']} ({feed['with_feed_content']} with the blog's text); "
            f"{result['seconds']} s at load {'/'.join(map(str, load))} (1/5/15 min)"
        )
    return 0 if all(feed[k] >= t for k, t in TARGETS.items()) else 1


if __name__ == "__main__":
    sys.exit(main())
