"""``vllm-path catalog import SOURCE``: what the blog has that the catalog lacks, as drafts.

SOURCE is an Atom/RSS feed (a file or ``http(s)://`` URL; the vLLM blog's jekyll-feed
``<blog host>/feed.xml`` holds only the newest posts) or the blog's Jekyll source (a folder with
``_posts/``). One module a step: :mod:`~bot.cli.importer.sources` reads the source (a feed with
:mod:`bot.domain.feed`), :mod:`~bot.cli.importer.plan` compares it with the catalog and its drafts
(:class:`ImportPlan`: the drafts of new posts, made by the feed watch's own
:func:`bot.domain.catalog.drafts.new_drafts`; fills of unknown fields of known posts; conflicts
reported but never changed; skipped entries), :mod:`~bot.cli.importer.drafts` writes the fills and
then each draft as ``<catalog>/drafts/<id>.yaml`` (which the catalog never loads: a curator accepts
or rejects it with ``vllm-path catalog accept|reject``), after everything was read and checked, so
a bad source writes nothing. The command is ``catalog import`` in :mod:`bot.cli.catalog`.
"""

from __future__ import annotations

from bot.cli.importer.drafts import apply_import
from bot.cli.importer.plan import load_for_import, plan_against, plan_import
from bot.digest.sources import fetch
from bot.domain.feed import ImportSourceError, SourcePost, normalize_title, parse_feed

__all__ = [
    "ImportSourceError",
    "SourcePost",
    "apply_import",
    "fetch",
    "load_for_import",
    "normalize_title",
    "parse_feed",
    "plan_against",
    "plan_import",
]
