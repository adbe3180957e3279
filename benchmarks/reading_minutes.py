"""Reading time of the catalog's blog posts, and how many weeks each essential path takes.

    python benchmarks/reading_minutes.py fill BLOG_SOURCE [--write]
    python benchmarks/reading_minutes.py weeks [--budgets 20,25,30,40]

``fill`` counts every vLLM-blog post of ``catalog/posts/vllm-blog.yaml`` whose file is in
BLOG_SOURCE (a checkout of vllm-project/vllm-project.github.io, or its ``_posts`` folder) under
the rule of :mod:`bot.domain.catalog.reading_time`, and compares with the catalog's ``minutes``; it
exits 1 when any differs or is missing. ``--write`` inserts ``minutes: N`` and
``minutes_source: counted`` right before the ``tags:`` line of each post that has no minutes yet
(no other line of the file changes). A post is matched to its file by URL: the Jekyll permalink
of the file (as ``catalog import`` computes it) or ``/YYYY/MM/DD/slug.html`` from the file name.

``weeks`` prints each track's essential minutes and, for each weekly budget, the weeks the
essential path takes when each week sends the next steps that fit
(:func:`bot.domain.budget.weeks_to_finish`).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import yaml

from bot.cli.importer.sources import read_jekyll
from bot.domain.budget import weeks_to_finish
from bot.domain.catalog import load_catalog
from bot.domain.catalog.reading_time import RULE, file_minutes

REPO = Path(__file__).resolve().parents[1]
POSTS_FILE = REPO / "catalog" / "posts" / "vllm-blog.yaml"
_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})-(.+)\.(?:md|markdown|html)$")


def counted_by_path(blog: Path) -> dict[str, int]:
    """URL path (``/2024/10/17/spec-decode.html``) -> minutes, for every post file of ``blog``."""
    posts_dir = blog if blog.name == "_posts" else blog / "_posts"
    out: dict[str, int] = {}
    for path in sorted(posts_dir.iterdir()):
        m = _NAME.match(path.name)
        if m:
            out[f"/{m.group(1)}/{m.group(2)}/{m.group(3)}/{m.group(4)}.html"] = file_minutes(
                path.read_text(encoding="utf-8")
            )
    sources, _ = read_jekyll(blog, "")
    for sp in sources:
        if sp.minutes is not None:
            out.setdefault(sp.url, sp.minutes)
    return out


def insert_minutes(text: str, minutes: dict[str, int]) -> str:
    """``text`` (a posts file) with ``minutes``/``minutes_source: counted`` inserted right before
    the ``tags:`` line of each post id in ``minutes``; raises ``ValueError`` for a post without a
    ``tags:`` line or one that already has minutes."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    current: str | None = None
    for line in lines:
        m = re.match(r"^- id: (\S+)\s*$", line)
        if m:
            current = m.group(1)
        if current in minutes and line.startswith("  minutes:"):
            raise ValueError(f"post {current!r} already has minutes")
        if current in minutes and line.startswith("  tags:"):
            out.append(f"  minutes: {minutes[current]}\n")
            out.append("  minutes_source: counted\n")
            current = None
        out.append(line)
    return "".join(out)


def fill(blog: Path, write: bool) -> int:
    """The ``fill`` command; returns the exit status."""
    counted = counted_by_path(blog)
    posts = yaml.safe_load(POSTS_FILE.read_text(encoding="utf-8"))
    to_write: dict[str, int] = {}
    bad = 0
    for post in posts:
        if post.get("url") is None:
            continue
        got = counted.get(post["url"])
        if got is None:
            print(f"  ? {post['id']}: no file in the blog source for {post['url']}")
            continue
        have = post.get("minutes")
        if have is None:
            to_write[post["id"]] = got
            print(f"  + {post['id']}: {got} min")
        elif have != got or post.get("minutes_source") != "counted":
            bad += 1
            print(f"  ! {post['id']}: catalog {have} ({post.get('minutes_source')}), counted {got}")
    print(f"rule: {RULE}")
    print(f"{len(counted)} files counted; {len(to_write)} posts without minutes; {bad} differ")
    if write and to_write:
        POSTS_FILE.write_text(insert_minutes(POSTS_FILE.read_text(encoding="utf-8"), to_write), encoding="utf-8")
        print(f"wrote {len(to_write)} posts' minutes to {POSTS_FILE.relative_to(REPO)}")
        return 1 if bad else 0
    return 1 if bad or to_write else 0


def weeks(budgets: list[int]) -> int:
    """The ``weeks`` command: one line per track; returns the exit status."""
    catalog = load_catalog(REPO / "catalog")
    print(f"{'track':<14}{'steps':>6}{'ess.':>6}{'min':>6}" + "".join(f"{f'@{b}m':>7}" for b in budgets))
    for track in catalog.tracks:
        ids = catalog.essentials(track.id)
        minutes = [catalog.post(pid).minutes or 0 for pid in ids]
        cells = "".join(f"{weeks_to_finish(minutes, b):>7}" for b in budgets)
        print(f"{track.id:<14}{len(catalog.order(track.id)):>6}{len(ids):>6}{sum(minutes):>6}{cells}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run ``fill`` or ``weeks``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_fill = sub.add_parser("fill", help="count the blog posts' minutes and compare with the catalog")
    p_fill.add_argument("blog", type=Path)
    p_fill.add_argument("--write", action="store_true")
    p_weeks = sub.add_parser("weeks", help="weeks each essential path takes per weekly budget")
    p_weeks.add_argument("--budgets", default="20,25,30,40")
    args = parser.parse_args(argv)
    if args.command == "fill":
        return fill(args.blog, args.write)
    return weeks([int(b) for b in args.budgets.split(",")])


if __name__ == "__main__":
    sys.exit(main())
