"""Comparing a source with the catalog: the :class:`ImportPlan` of an import.

A source post that a linked catalog post already is (the same canonical URL, or the same
normalised title: :func:`~bot.domain.feed.normalize_title`) fills what that post does not know yet
(a :class:`Fill`: a date known only as a range, its authors, its minutes) and reports what differs
(a :class:`Conflict`, never changed). Every other post goes through the feed watch's own code,
:func:`bot.domain.catalog.drafts.new_drafts`: a draft per new post (minutes counted from the feed's
full content or the Jekyll post's body, else estimated; the suggested places with their reasons),
and a title variant of an unlinked catalog post a draft that ``fills`` it (its link, date and
minutes, when accepted). A post the catalog, a draft or a rejected URL already has (canonical URL
or fuzzy title) makes no draft.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bot.cli.importer.sources import Skipped, SourcePost, public_source, read_source
from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.drafts import (
    Draft,
    FeedSource,
    new_drafts,
    placement_vocabulary,
    read_drafts,
    read_sources,
    read_state,
)
from bot.domain.catalog.loader import CatalogError, check_catalog, parse_yaml_text
from bot.domain.catalog.models import Post
from bot.domain.feed import canonical_url, normalize_title
from bot.domain.search.vocabulary import Vocabulary


@dataclass(frozen=True)
class Fill:
    """An unknown field of a linked catalog post that the source knows (``published`` known only as
    a range, ``authors``, ``minutes`` counted from the source's text); ``old``/``new`` as in YAML."""

    post_id: str
    file: str
    field: str
    old: Any
    new: Any


@dataclass(frozen=True)
class Conflict:
    """A known field of an existing post that differs from the source: never changed here."""

    post_id: str
    file: str
    field: str
    catalog: Any
    source: Any


@dataclass
class ImportPlan:
    """What an import would do: the ``drafts`` to write beside the catalog (as the feed watch
    would), the fills and conflicts of known posts, the source entries skipped; ``unchanged``
    counts the source posts that need nothing (known with nothing to fill, already drafted,
    rejected, or off the ``feed``'s topic)."""

    source: str
    feed: str
    drafts: list[Draft] = field(default_factory=list)
    fills: list[Fill] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    unchanged: int = 0

    @property
    def changes(self) -> bool:
        """Whether ``--write`` would write a file."""
        return bool(self.drafts or self.fills)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"source", "feed", "drafts": [Draft.to_json(): {"id", "title", "url",
        "minutes", "minutes_source", "suggested": [{"track", "position", "reason"}], "fills",
        "published", "feed"}], "fills": [{"post_id", "file", "field", "old", "new"}], "conflicts":
        [{"post_id", "file", "field", "catalog", "source"}], "skipped": [{"origin", "reason"}],
        "unchanged"}``."""
        return {
            "source": self.source,
            "feed": self.feed,
            "drafts": [d.to_json() for d in self.drafts],
            **{k: [asdict(x) for x in getattr(self, k)] for k in ("fills", "conflicts", "skipped")},
            "unchanged": self.unchanged,
        }

    def render(self) -> str:
        """The plan as terminal text."""
        out = [f"import from {self.source} (feed: {self.feed})", f"new drafts: {len(self.drafts)}"]
        for d in self.drafts:
            out.append(f"  + {d.title}")
            out.append(f"    id: {d.id}   url: {d.url}   date: {d.published.isoformat()}")
            out.append(f"    authors: {', '.join(d.authors) or '-'}   minutes: {d.minutes} ({d.minutes_note})")
            if d.fills:
                out.append(f"    fills the unlinked post '{d.fills}' (its link, date and minutes)")
            out.extend(f"    suggested: {s.track} step {s.position}: {s.reason}" for s in d.suggested)
            if not d.fills and not d.suggested:
                out.append("    suggested: no track shares its words")
        out.append(f"fields to fill in existing posts: {len(self.fills)}")
        out.extend(f"  ~ {f.file}: post '{f.post_id}': {f.field}: {_show(f.old)} -> {_show(f.new)}" for f in self.fills)
        if self.conflicts:
            out.append(f"conflicts (not changed; check by hand): {len(self.conflicts)}")
            out.extend(
                f"  ! {c.file}: post '{c.post_id}': {c.field}: catalog {_show(c.catalog)}, source {_show(c.source)}"
                for c in self.conflicts
            )
        if self.skipped:
            out.append(f"source entries skipped: {len(self.skipped)}")
            out.extend(f"  - {s.origin}: {s.reason}" for s in self.skipped)
        out.append(f"known with nothing to fill, already drafted, rejected or off-topic: {self.unchanged}")
        return "\n".join(out)


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "..".join(str(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return "null" if value is None else str(value)


@dataclass(frozen=True)
class _Known:
    """A post of the catalog files and the file it is in."""

    post: Post
    file: str


def _absolute(url: str, base: str) -> str:
    return base + url if url.startswith("/") else url


def _relative(url: str, base: str) -> str:
    """``url`` as a ``/path`` when it is on the blog host ``base``, else as given."""
    b, u = urlsplit(base), urlsplit(url)
    if (u.hostname or "").casefold() == (b.hostname or "").casefold() and u.port == b.port and u.path.startswith("/"):
        return u.path + (f"?{u.query}" if u.query else "")
    return url


def _compare(known: _Known, sp: SourcePost, base: str, plan: ImportPlan) -> bool:
    """Add the fills and conflicts of one matched linked post; True when it had something to fill."""
    post, filled = known.post, False
    if post.url is not None and canonical_url(_absolute(post.url, base)) != canonical_url(sp.url):
        plan.conflicts.append(Conflict(post.id, known.file, "url", post.url, _relative(sp.url, base)))
    pub = post.published
    if pub.precision == "range" and pub.earliest <= sp.date <= pub.latest:
        known_range = {"from": pub.earliest.isoformat(), "to": pub.latest.isoformat()}
        plan.fills.append(Fill(post.id, known.file, "published", known_range, sp.date.isoformat()))
        filled = True
    elif pub.precision == "range" or pub.earliest != sp.date:
        plan.conflicts.append(Conflict(post.id, known.file, "published", pub.label(), sp.date.isoformat()))
    if not post.authors and sp.authors:
        plan.fills.append(Fill(post.id, known.file, "authors", [], list(sp.authors)))
        filled = True
    if post.minutes is None and sp.minutes is not None:
        plan.fills.append(Fill(post.id, known.file, "minutes", None, sp.minutes))
        filled = True
    return filled


def plan_against(
    posts: list[SourcePost],
    skipped: list[Skipped],
    known: list[_Known],
    catalog: Catalog,
    source: str,
    feed: FeedSource,
    drafts: Iterable[Draft] = (),
    rejected: Iterable[str] = (),
    vocabulary: Vocabulary | None = None,
) -> ImportPlan:
    """Compare source posts with the catalog's posts (``known``), its ``drafts`` and the
    ``rejected`` URLs; the new posts' drafts are published under ``feed``. Pure but for building a
    :class:`~bot.domain.catalog.placement.Placer` when a new post needs its places suggested."""
    base = catalog.manifest.blog_base_url
    plan = ImportPlan(public_source(source), feed.name, skipped=list(skipped))
    linked = [k for k in known if k.post.url is not None]
    by_url = {canonical_url(_absolute(k.post.url or "", base)): k for k in linked}
    by_title = {normalize_title(k.post.title): k for k in reversed(linked)}  # the first post of a title
    seen: set[str] = set()
    fresh: list[SourcePost] = []
    for sp in posts:
        key, url = normalize_title(sp.title), canonical_url(sp.url)
        if key in seen or url in seen:
            plan.skipped.append(Skipped(sp.origin, "the same post appears earlier in the source"))
            continue
        seen.update((key, url))
        match = by_url.get(url) or by_title.get(key)
        if match is None:
            fresh.append(sp)
        elif not _compare(match, sp, base, plan):
            plan.unchanged += 1
    plan.drafts = new_drafts(fresh, feed, catalog, list(drafts), rejected, vocabulary=vocabulary)
    plan.unchanged += len(fresh) - len(plan.drafts)
    return plan


def _read_known(root: Path) -> list[_Known]:
    """Every post of ``root/posts/*.yaml``. The catalog is valid here."""
    return [
        _Known(Post.model_validate(raw), f"posts/{path.name}")
        for path in sorted((root / "posts").glob("*.yaml"))
        for raw in parse_yaml_text(path.read_text(encoding="utf-8")) or []
    ]


def load_for_import(root: Path) -> tuple[Catalog, list[_Known]]:
    """The catalog in ``root`` (version rules not applied) and all its posts. Raises
    :class:`~bot.domain.catalog.loader.CatalogError` when it has errors."""
    catalog, issues = check_catalog(root, check_versions=False)
    if catalog is None:
        raise CatalogError(issues)
    return catalog, _read_known(root)


def feed_for(source: str, root: Path, blog_base_url: str) -> FeedSource:
    """The feed the drafts of ``source`` come from: the entry of ``root/sources.yaml`` with the same
    URL (its name, kind and ``about`` filter), else that file's ``vllm-blog`` feed, else a vLLM
    blog feed on ``blog_base_url``. Raises ``ValueError`` for an invalid ``sources.yaml``."""
    feeds = read_sources(root)
    same = [f for f in feeds if canonical_url(f.url) == canonical_url(source)] if "://" in source else []
    blog = [f for f in feeds if f.kind == "vllm-blog"]
    fallback = FeedSource(name="vLLM blog", url=blog_base_url.rstrip("/") + "/feed.xml", kind="vllm-blog")
    return [*same, *blog, fallback][0]


def plan_import(source: str, catalog_dir: str | Path, *, max_bytes: int, deadline_s: float) -> ImportPlan:
    """Read ``source`` (at most ``max_bytes`` bytes; a URL within ``deadline_s`` seconds) and compare
    it with the catalog in ``catalog_dir`` and its drafts. Raises :class:`ImportSourceError`,
    :class:`~bot.domain.catalog.loader.CatalogError` (the catalog has errors) or ``ValueError`` (its
    ``sources.yaml`` is not valid)."""
    root = Path(catalog_dir)
    catalog, known = load_for_import(root)
    feed = feed_for(source, root, catalog.manifest.blog_base_url)
    posts, skipped = read_source(source, catalog.manifest.blog_base_url, max_bytes=max_bytes, deadline_s=deadline_s)
    rejected = read_state(root)["rejected"]
    vocabulary = placement_vocabulary(root)
    return plan_against(posts, skipped, known, catalog, source, feed, read_drafts(root), rejected, vocabulary)
