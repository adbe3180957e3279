"""Comparing a source with the catalog: the :class:`ImportPlan` of an import.

A source post is a catalog post with the same URL, or else the same normalised title
(:func:`normalize_title`). A post the catalog lacks becomes a :class:`NewPost` with its likely
tracks (:func:`guess_tracks`), a field the catalog does not know yet a :class:`Fill`, a known
field that differs a :class:`Conflict` (reported, never changed).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from bot.cli.importer.sources import Skipped, SourcePost, public_source, read_source
from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.loader import CatalogError, check_catalog
from bot.domain.catalog.models import SLUG_RE, Post
from bot.domain.feed import normalize_title

TRACK_MIN_SCORE = 40.0
"""Track guesses below this score (0..100) are not shown."""


@dataclass(frozen=True)
class TrackGuess:
    """A track a new post likely belongs to: ``score`` 0..100; ``via`` says why (a tag, the title, a like post)."""

    track_id: str
    score: float
    via: str


@dataclass(frozen=True)
class NewPost:
    """A post the catalog lacks, as its draft: ``url`` a ``/path`` on the catalog's blog host, else absolute."""

    id: str
    title: str
    url: str
    published: dt.date
    authors: tuple[str, ...]
    tags: tuple[str, ...]
    tracks: tuple[TrackGuess, ...]
    origin: str
    minutes: int | None = None


@dataclass(frozen=True)
class Fill:
    """An unknown field of an existing post that the source knows (``url``, ``published``,
    ``authors``, ``minutes`` counted from a Jekyll source's text); ``old``/``new`` as in YAML."""

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
    """What an import would do; ``unchanged`` counts source posts known with nothing to fill."""

    source: str
    new_posts: list[NewPost] = field(default_factory=list)
    fills: list[Fill] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    unchanged: int = 0

    @property
    def changes(self) -> bool:
        """Whether ``--write`` would change a file."""
        return bool(self.new_posts or self.fills)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"source", "new_posts": [{"id", "title", "url", "published" (ISO day),
        "authors", "tags", "tracks": [{"track_id", "score", "via"}], "origin", "minutes"}], "fills": [{"post_id",
        "file", "field", "old", "new"}], "conflicts": [{"post_id", "file", "field", "catalog",
        "source"}], "skipped": [{"origin", "reason"}], "unchanged"}``."""
        data = asdict(self)
        for post in data["new_posts"]:
            post["published"] = post["published"].isoformat()
        return data

    def render(self) -> str:
        """The plan as terminal text."""
        out = [f"import from {self.source}", f"new posts the catalog lacks: {len(self.new_posts)}"]
        for p in self.new_posts:
            out.append(f"  + {p.title}")
            out.append(f"    id: {p.id}   url: {p.url}   date: {p.published.isoformat()}")
            out.append(f"    authors: {', '.join(p.authors) or '-'}   tags: {', '.join(p.tags) or '-'}")
            if p.minutes is not None:
                out.append(f"    minutes: {p.minutes} (counted from the post's text)")
            guesses = ", ".join(f"{g.track_id} ({g.score:.0f}, {g.via})" for g in p.tracks)
            out.append(f"    tracks: {guesses or 'no likely track'}")
            out.append("    summary: (to write: drafts cannot be published without one)")
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
        out.append(f"already in the catalog with nothing to fill: {self.unchanged}")
        return "\n".join(out)


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "..".join(str(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return "null" if value is None else str(value)


@dataclass(frozen=True)
class _Known:
    """A post of the catalog files (published or draft) and the file it is in."""

    post: Post
    file: str


def _absolute(url: str | None, base: str) -> str | None:
    if url is None:
        return None
    return base + url if url.startswith("/") else url


def _relative(url: str, base: str) -> str:
    """``url`` as a ``/path`` when it is on the blog host ``base``, else as given."""
    b, u = urlsplit(base), urlsplit(url)
    if (u.hostname or "").casefold() == (b.hostname or "").casefold() and u.port == b.port and u.path.startswith("/"):
        return u.path + (f"?{u.query}" if u.query else "")
    return url


def slugify(text: str) -> str:
    """An ASCII slug: accents dropped, other non-ASCII removed, words joined by ``-``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")[:80].strip("-")


def _new_id(sp: SourcePost, taken: set[str]) -> str:
    path_slug = slugify(Path(urlsplit(sp.url).path).stem)
    base = path_slug if len(path_slug) >= 3 else slugify(sp.title) or path_slug
    if not SLUG_RE.match(base):
        base = f"post-{sp.date.isoformat()}"
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}-{n}", n + 1
    taken.add(candidate)
    return candidate


def guess_tracks(matcher: Any, catalog: Catalog, title: str, tags: Iterable[str]) -> tuple[TrackGuess, ...]:
    """The tracks a post most likely belongs to, best first (at most 3, score ≥ :data:`TRACK_MIN_SCORE`):
    for each track the larger of a tag or the title naming it (``matcher.match_track``'s score) and
    0.9 times the score of its post most like the title and tags (``matcher.search``; a neighbour
    is weaker evidence than a name). ``matcher``: a :class:`bot.domain.search.Matcher`."""
    best: dict[str, TrackGuess] = {}

    def offer(track_id: str, score: float, via: str) -> None:
        if track_id not in best or score > best[track_id].score:
            best[track_id] = TrackGuess(track_id, round(float(score), 1), via)

    tag_list = [t for t in tags if t.strip()]
    for text, label in [*((t, f"tag {t!r}") for t in tag_list), (title, "title")]:
        match = matcher.match_track(text.replace("-", " "))
        if match is not None:
            offer(match.track_id, match.score, label)
    query = " ".join([title, *(t.replace("-", " ") for t in tag_list)])
    for result in matcher.search(query, limit=10).results:
        for track_id in catalog.tracks_of(result.post_id):
            offer(track_id, result.score * 0.9, f"like {result.post_id!r}")
    ranked = sorted(best.values(), key=lambda g: -g.score)  # at equal scores, the track offered first
    return tuple(g for g in ranked if g.score >= TRACK_MIN_SCORE)[:3]


def _compare(known: _Known, sp: SourcePost, base: str, plan: ImportPlan) -> bool:
    """Add the fills and conflicts of one matched post; True when it had something to fill."""
    post, filled = known.post, False
    source_url = _relative(sp.url, base)
    current = _absolute(post.url, base)
    if post.url is None:
        plan.fills.append(Fill(post.id, known.file, "url", None, source_url))
        filled = True
    elif current != sp.url and _relative(current or "", base) != source_url:
        plan.conflicts.append(Conflict(post.id, known.file, "url", post.url, source_url))
    pub = post.published
    if pub.precision == "range" and pub.earliest <= sp.date <= pub.latest:
        known_range = {"from": pub.earliest.isoformat(), "to": pub.latest.isoformat()}
        plan.fills.append(Fill(post.id, known.file, "published", known_range, sp.date.isoformat()))
        filled = True
    elif pub.precision == "range" or pub.earliest != sp.date:
        plan.conflicts.append(Conflict(post.id, known.file, "published", pub.label(), sp.date.isoformat()))
    if not post.authors and sp.authors:
        plan.fills.append(Fill(post.id, known.file, "authors", [], list(sp.authors)))
    if post.minutes is None and sp.minutes is not None:
        plan.fills.append(Fill(post.id, known.file, "minutes", None, sp.minutes))
        filled = True
    return filled


def plan_against(
    posts: list[SourcePost], skipped: list[Skipped], known: list[_Known], catalog: Catalog, source: str
) -> ImportPlan:
    """Compare source posts with the catalog's posts (``known``: published and drafts). Pure but
    for building a :class:`bot.domain.search.Matcher` when a new post needs its tracks guessed."""
    matcher = None
    base = catalog.manifest.blog_base_url
    plan = ImportPlan(public_source(source), skipped=list(skipped))
    by_url = {url: k for k in known if (url := _absolute(k.post.url, base))}
    by_title = {normalize_title(k.post.title): k for k in reversed(known)}  # the first post of a title
    taken = {k.post.id for k in known} | {a for k in known for a in k.post.aliases}
    seen: set[str] = set()
    for sp in posts:
        key = normalize_title(sp.title)
        if key in seen or sp.url in seen:
            plan.skipped.append(Skipped(sp.origin, "the same post appears earlier in the source"))
            continue
        seen.update((key, sp.url))
        match = by_url.get(sp.url) or by_title.get(key)
        if match is not None:
            if not _compare(match, sp, base, plan):
                plan.unchanged += 1
            continue
        if matcher is None:
            from bot.domain.search import Matcher

            matcher = Matcher(catalog)
        tracks = guess_tracks(matcher, catalog, sp.title, sp.tags)
        new_id, url = _new_id(sp, taken), _relative(sp.url, base)
        plan.new_posts.append(
            NewPost(new_id, sp.title, url, sp.date, sp.authors, sp.tags, tracks, sp.origin, sp.minutes)
        )
    return plan


def _read_known(root: Path) -> list[_Known]:
    """Every post of ``root/posts/*.yaml`` (drafts included). The catalog is valid here."""
    return [
        _Known(Post.model_validate(raw), f"posts/{path.name}")
        for path in sorted((root / "posts").glob("*.yaml"))
        for raw in yaml.safe_load(path.read_text(encoding="utf-8")) or []
    ]


def load_for_import(root: Path) -> tuple[Catalog, list[_Known]]:
    """The catalog in ``root`` (drafts set aside, version rules not applied) and all its posts.
    Raises :class:`~bot.domain.catalog.loader.CatalogError` when it has other errors."""
    catalog, issues = check_catalog(root, check_versions=False, allow_drafts=True)
    if catalog is None:
        raise CatalogError(issues)
    return catalog, _read_known(root)


def plan_import(source: str, catalog_dir: str | Path) -> ImportPlan:
    """Read ``source`` and compare it with the catalog in ``catalog_dir``. Raises :class:`ImportSourceError`
    or :class:`~bot.domain.catalog.loader.CatalogError` (the catalog has errors other than drafts)."""
    root = Path(catalog_dir)
    catalog, known = load_for_import(root)
    posts, skipped = read_source(source, catalog.manifest.blog_base_url)
    return plan_against(posts, skipped, known, catalog, source)
