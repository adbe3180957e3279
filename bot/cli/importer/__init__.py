"""``vllm-path catalog import SOURCE``: what the blog has that the catalog lacks, as drafts.

SOURCE is an Atom or RSS feed (a file or an ``http(s)://`` URL, read with feedparser; the vLLM
blog is built with jekyll-feed, so its feed is ``<blog host>/feed.xml`` and holds only the newest
posts) or the blog's Jekyll source (a folder holding ``_posts/``, or the ``_posts`` folder itself;
each ``YYYY-MM-DD-slug.md`` is read with python-frontmatter and gets Jekyll's default permalink
``/YYYY/MM/DD/slug.html``).

:func:`plan_import` compares the source with the catalog (a post is the same post when its URL is
the same, or else its normalised title, :func:`normalize_title`) and returns an
:class:`~bot.cli.importer.plan.ImportPlan`:

* ``new_posts``: posts the catalog lacks (title, URL, day, authors, tags) with the tracks they most
  likely belong to (:func:`~bot.cli.importer.plan.guess_tracks`); written as ``status: draft``
  entries of ``posts/drafts.yaml`` with no summary: ``catalog check`` refuses a draft until a
  person writes its summary and makes it a step of a track;
* ``fills``: fields of existing posts that are not known yet (``url: null``, a date known only as
  a range, no authors) and that the source knows;
* ``conflicts``: a known URL or day that differs from the source's: reported, never changed;
* ``skipped``: source entries that cannot be read (no title, link or date) and why.

:func:`apply_import` writes the plan (``--write``); every file is written whole through a
temporary file, after everything was read and checked, so a bad source writes nothing. A second
run of the same source finds nothing to do. :func:`missing_posts` is the pure core a daily feed
watch (``CATALOG_FEED_URL``) calls.

Modules, one step each: :mod:`~bot.cli.importer.sources` (reading a feed or a Jekyll source),
:mod:`~bot.cli.importer.plan` (comparing it with the catalog, guessing tracks),
:mod:`~bot.cli.importer.drafts` (writing drafts and fills). What its callers use is importable
from this package; the command itself (printing, exit codes) is ``catalog import`` in
:mod:`bot.cli.catalog`.
"""

from __future__ import annotations

from bot.cli.importer.drafts import DRAFTS_FILE, apply_import
from bot.cli.importer.plan import load_for_import, missing_posts, normalize_title, plan_against, plan_import
from bot.cli.importer.sources import ImportSourceError, SourcePost, fetch, parse_feed

__all__ = [
    "DRAFTS_FILE",
    "ImportSourceError",
    "SourcePost",
    "apply_import",
    "fetch",
    "load_for_import",
    "missing_posts",
    "normalize_title",
    "parse_feed",
    "plan_against",
    "plan_import",
]
