"""``vllm-path catalog import SOURCE``: what the blog has that the catalog lacks, as drafts.

SOURCE is an Atom or RSS feed (a file or an ``http(s)://`` URL, read with feedparser; the vLLM
blog is built with jekyll-feed, so its feed is ``<blog host>/feed.xml`` and holds only the newest
posts) or the blog's Jekyll source (a folder holding ``_posts/``, or the ``_posts`` folder itself;
each ``YYYY-MM-DD-slug.md`` is read with python-frontmatter and gets Jekyll's default permalink
``/YYYY/MM/DD/slug.html``).

:func:`plan_import` compares the source with the catalog (a post is the same post when its URL is
the same, or else its normalised title, :func:`normalize_title`) and returns an
:class:`ImportPlan`:

* ``new_posts``: posts the catalog lacks (title, URL, day, authors, tags) with the tracks they most
  likely belong to (:func:`guess_tracks`); written as ``status: draft`` entries of
  ``posts/drafts.yaml`` with no summary: ``catalog check`` refuses a draft until a person writes
  its summary and makes it a step of a track;
* ``fills``: fields of existing posts that are not known yet (``url: null``, a date known only as
  a range, no authors) and that the source knows;
* ``conflicts``: a known URL or day that differs from the source's: reported, never changed;
* ``skipped``: source entries that cannot be read (no title, link or date) and why.

:func:`apply_import` writes the plan (``--write``); every file is written whole through a
temporary file, after everything was read and checked, so a bad source writes nothing. A second
run of the same source finds nothing to do. :func:`missing_posts` is the pure core a daily feed
watch (``CATALOG_FEED_URL``) calls.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import os
import re
import tempfile
import unicodedata
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import feedparser
import frontmatter
import yaml

from bot.catalog.compiled import Catalog
from bot.catalog.loader import CatalogError, check_catalog
from bot.catalog.models import SLUG_RE, Post

DRAFTS_FILE = "posts/drafts.yaml"
"""Where ``--write`` puts new posts, relative to the catalog folder."""

DRAFTS_HEADER = (
    "# Draft posts written by `vllm-path catalog import`: the facts (title, URL, date, authors,\n"
    "# tags) are the blog's. `vllm-path catalog check` refuses a draft: write its summary in our\n"
    "# own words, make it a step of a track, remove `status: draft`, then move the entry to\n"
    "# vllm-blog.yaml.\n")

FETCH_TIMEOUT_S = 20.0
"""Seconds to wait for an ``http(s)`` source before giving up."""

MAX_FEED_BYTES = 20 * 1024 * 1024
"""A feed larger than this (bytes) is refused rather than read."""

TRACK_MIN_SCORE = 40.0
"""Track guesses below this score (0..100) are not shown."""


class ImportSourceError(Exception):
    """The source cannot be read: unreachable, not a feed, malformed or truncated. The message says
    why (for a person; no secrets: URLs are printed without their query string)."""


@dataclass(frozen=True)
class SourcePost:
    """A post as the source gives it. ``url`` is absolute; ``date`` the day (the source's own
    calendar day, not converted to UTC); ``origin`` names the entry (``entry 3``, ``_posts/…md``)."""

    title: str
    url: str
    date: dt.date
    authors: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    origin: str = ""


@dataclass(frozen=True)
class Skipped:
    """A source entry that was not read, and why."""

    origin: str
    reason: str


@dataclass(frozen=True)
class TrackGuess:
    """A track a new post likely belongs to: ``score`` 0..100; ``via`` says why (the tag or
    title that names the track, or the most similar post of the track)."""

    track_id: str
    score: float
    via: str


@dataclass(frozen=True)
class NewPost:
    """A post the catalog lacks, as it would be written as a draft. ``url`` is a ``/path`` when
    it is on the catalog's blog host, else absolute."""

    id: str
    title: str
    url: str
    published: dt.date
    authors: tuple[str, ...]
    tags: tuple[str, ...]
    tracks: tuple[TrackGuess, ...]
    origin: str


@dataclass(frozen=True)
class Fill:
    """An unknown field of an existing post that the source knows: ``field`` is ``url``,
    ``published`` or ``authors``; ``old``/``new`` as written in YAML."""

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
    """What an import would do (see the module docstring). ``unchanged`` counts source posts the
    catalog already has with nothing to fill."""

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
        "authors", "tags", "tracks": [{"track_id", "score", "via"}], "origin"}], "fills": [{"post_id",
        "file", "field", "old", "new"}], "conflicts": [{"post_id", "file", "field", "catalog",
        "source"}], "skipped": [{"origin", "reason"}], "unchanged"}``."""
        data = asdict(self)
        for post in data["new_posts"]:
            post["published"] = post["published"].isoformat()
        return data

    def render(self) -> str:
        """The plan as terminal text."""
        out = [f"import from {self.source}"]
        out.append(f"new posts the catalog lacks: {len(self.new_posts)}")
        for p in self.new_posts:
            out.append(f"  + {p.title}")
            out.append(f"    id: {p.id}   url: {p.url}   date: {p.published.isoformat()}")
            out.append(f"    authors: {', '.join(p.authors) or '-'}   tags: {', '.join(p.tags) or '-'}")
            guesses = ", ".join(f"{g.track_id} ({g.score:.0f}, {g.via})" for g in p.tracks)
            out.append(f"    tracks: {guesses or 'no likely track'}")
            out.append("    summary: (to write: drafts cannot be published without one)")
        out.append(f"fields to fill in existing posts: {len(self.fills)}")
        for f in self.fills:
            out.append(f"  ~ {f.file}: post '{f.post_id}': {f.field}: {_show(f.old)} -> {_show(f.new)}")
        if self.conflicts:
            out.append(f"conflicts (not changed; check by hand): {len(self.conflicts)}")
            for c in self.conflicts:
                out.append(f"  ! {c.file}: post '{c.post_id}': {c.field}: catalog {_show(c.catalog)}, "
                           f"source {_show(c.source)}")
        if self.skipped:
            out.append(f"source entries skipped: {len(self.skipped)}")
            for s in self.skipped:
                out.append(f"  - {s.origin}: {s.reason}")
        out.append(f"already in the catalog with nothing to fill: {self.unchanged}")
        return "\n".join(out)


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "..".join(str(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return "null" if value is None else str(value)


# --- reading a source --------------------------------------------------------------------------


def _public(source: str) -> str:
    """A source for messages: a URL without its query string or credentials."""
    if source.startswith(("http://", "https://")):
        parts = urlsplit(source)
        return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"
    return source


def fetch(url: str, timeout: float = FETCH_TIMEOUT_S) -> bytes:
    """GET ``url`` and return its body (at most :data:`MAX_FEED_BYTES`). Raises
    :class:`ImportSourceError` when it is unreachable or answers other than 200."""
    request = urllib.request.Request(url, headers={"User-Agent": "vllm-path catalog import"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body: bytes = response.read(MAX_FEED_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise ImportSourceError(f"{_public(url)}: the server answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ImportSourceError(f"{_public(url)}: unreachable ({reason})") from None
    if len(body) > MAX_FEED_BYTES:
        raise ImportSourceError(f"{_public(url)}: larger than {MAX_FEED_BYTES} bytes")
    return body


def _day(raw: str | None, parsed: Any) -> dt.date | None:
    """The calendar day of an entry date as written (ISO 8601 or RFC 822), else feedparser's."""
    if raw:
        text = raw.strip()
        try:
            return dt.datetime.fromisoformat(text).date()
        except ValueError:
            pass
        try:
            return email.utils.parsedate_to_datetime(text).date()
        except (TypeError, ValueError, IndexError):
            pass
    if parsed:
        return dt.date(parsed.tm_year, parsed.tm_mon, parsed.tm_mday)
    return None


def parse_feed(data: bytes | str, source: str = "feed") -> tuple[list[SourcePost], list[Skipped]]:
    """Read an Atom or RSS document. Returns its posts and the entries skipped (no title, link or
    date). Raises :class:`ImportSourceError` when the document is not a well-formed feed (a
    truncated file, HTML, an empty file). Pure."""
    parsed = feedparser.parse(data.encode("utf-8") if isinstance(data, str) else data)
    problem = parsed.get("bozo_exception") if parsed.get("bozo") else None
    if problem is not None and not isinstance(problem, feedparser.CharacterEncodingOverride):
        where = ""
        line = getattr(problem, "getLineNumber", None)
        if callable(line):
            where = f" at line {line()}, column {problem.getColumnNumber()}"
        raise ImportSourceError(f"{source}: not a well-formed feed{where}: {problem}")
    if not parsed.get("version"):
        raise ImportSourceError(f"{source}: not an Atom or RSS feed")
    posts: list[SourcePost] = []
    skipped: list[Skipped] = []
    for index, entry in enumerate(parsed.entries, start=1):
        title = " ".join(str(entry.get("title") or "").split())
        origin = f"entry {index}" + (f" ({title!r})" if title else "")
        link = str(entry.get("link") or "").strip()
        day = _day(entry.get("published") or entry.get("updated"),
                   entry.get("published_parsed") or entry.get("updated_parsed"))
        missing = [name for name, value in (("title", title), ("link", link), ("date", day)) if not value]
        if missing:
            skipped.append(Skipped(origin, f"no {' or '.join(missing)}"))
            continue
        if not link.startswith(("http://", "https://")):
            skipped.append(Skipped(origin, f"link {link!r} is not an http(s) URL"))
            continue
        authors = tuple(a["name"].strip() for a in entry.get("authors", []) if a.get("name", "").strip())
        tags = tuple(dict.fromkeys(t["term"].strip() for t in entry.get("tags", []) if t.get("term", "").strip()))
        assert day is not None
        posts.append(SourcePost(title, link, day, authors, tags, origin))
    return posts, skipped


_POST_NAME = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2})-(?P<slug>.+)\.(?:md|markdown|html)$")


def _list(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value.strip(),) if value.strip() else ()
    if isinstance(value, (list, tuple)):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return (str(value),)


def _authors(value: Any) -> tuple[str, ...]:
    """Jekyll ``author``: a list, or one string of comma-separated names (``A, B, and C``)."""
    names: list[str] = []
    for item in _list(value):
        for part in item.split(","):
            part = re.sub(r"^and\s+", "", part.strip())
            if part:
                names.append(part)
    return tuple(names)


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):  # Jekyll: a space-separated string, or a list
        return tuple(value.split())
    return _list(value)


def read_jekyll(folder: Path, blog_base_url: str) -> tuple[list[SourcePost], list[Skipped]]:
    """Read a Jekyll source: ``folder/_posts/*`` (or ``folder`` itself when it is ``_posts``).

    A post's day and slug come from its file name ``YYYY-MM-DD-slug.md`` (a front-matter ``date``
    overrides the day), its URL from a front-matter ``permalink`` or Jekyll's default
    ``/[categories/]YYYY/MM/DD/slug.html`` on ``blog_base_url``. Files whose front matter cannot be
    read, or that lack a title, are skipped with the reason. Raises :class:`ImportSourceError` when
    there is no ``_posts`` folder.
    """
    posts_dir = folder if folder.name == "_posts" else folder / "_posts"
    if not posts_dir.is_dir():
        raise ImportSourceError(f"{folder}: no _posts folder (expected a Jekyll blog source)")
    posts: list[SourcePost] = []
    skipped: list[Skipped] = []
    for path in sorted(p for p in posts_dir.iterdir() if p.is_file()):
        origin = f"_posts/{path.name}"
        m = _POST_NAME.match(path.name)
        if not m:
            if path.suffix in (".md", ".markdown", ".html"):
                skipped.append(Skipped(origin, "file name is not YYYY-MM-DD-slug.md"))
            continue
        try:
            meta = frontmatter.loads(path.read_text(encoding="utf-8")).metadata
        except (yaml.YAMLError, UnicodeDecodeError, ValueError) as exc:
            skipped.append(Skipped(origin, f"front matter is not readable: {' '.join(str(exc).split())}"))
            continue
        title = " ".join(str(meta.get("title") or "").split())
        if not title:
            skipped.append(Skipped(origin, "no title"))
            continue
        try:
            day = dt.date.fromisoformat(m.group("date"))
            if meta.get("date") is not None:
                raw = meta["date"]
                day = raw if isinstance(raw, dt.date) and not isinstance(raw, dt.datetime) else (
                    raw.date() if isinstance(raw, dt.datetime) else _day(str(raw), None) or day)
        except ValueError:
            skipped.append(Skipped(origin, "the date in the file name is not a real day"))
            continue
        slug = str(meta.get("slug") or m.group("slug"))
        if meta.get("permalink"):
            url_path = "/" + str(meta["permalink"]).lstrip("/")
        else:
            categories = [c.lower() for c in _tags(meta.get("categories") or meta.get("category"))]
            prefix = "".join(f"/{c}" for c in categories)
            url_path = f"{prefix}/{day:%Y/%m/%d}/{slug}.html"
        authors = _authors(meta.get("author") if meta.get("author") is not None else meta.get("authors"))
        posts.append(SourcePost(title, blog_base_url.rstrip("/") + url_path, day, authors,
                                _tags(meta.get("tags")), origin))
    return posts, skipped


def read_source(source: str, blog_base_url: str, timeout: float = FETCH_TIMEOUT_S
                ) -> tuple[list[SourcePost], list[Skipped]]:
    """Read SOURCE: an ``http(s)`` feed URL, a Jekyll source folder, or a feed file. Raises
    :class:`ImportSourceError` with the reason when it cannot be read."""
    if source.startswith(("http://", "https://")):
        return parse_feed(fetch(source, timeout), _public(source))
    path = Path(source)
    if path.is_dir():
        return read_jekyll(path, blog_base_url)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImportSourceError(f"{source}: no such file or folder") from None
    except OSError as exc:
        raise ImportSourceError(f"{source}: cannot be read ({exc.strerror or exc})") from None
    if not data.strip():
        raise ImportSourceError(f"{source}: the file is empty")
    return parse_feed(data, source)


# --- comparing with the catalog --------------------------------------------------------------


def normalize_title(title: str) -> str:
    """A title for matching: NFKC, case-folded, typographic quotes and dashes as ASCII, every run
    of punctuation or spaces as one space. ``“vLLM”: Fast—Cheap`` → ``vllm fast cheap``."""
    text = unicodedata.normalize("NFKC", title).casefold()
    text = "".join(" " if unicodedata.category(ch)[0] in "PSZ" else ch for ch in text)
    return " ".join(text.split())


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
    base = slugify(sp.title) or path_slug or f"post-{sp.date.isoformat()}"
    if path_slug and len(path_slug) >= 3:
        base = path_slug
    if not SLUG_RE.match(base):
        base = f"post-{sp.date.isoformat()}"
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}-{n}", n + 1
    taken.add(candidate)
    return candidate


def guess_tracks(matcher: Any, catalog: Catalog, title: str, tags: Iterable[str],
                 limit: int = 3) -> tuple[TrackGuess, ...]:
    """The tracks a post most likely belongs to, best first (at most ``limit``, score ≥
    :data:`TRACK_MIN_SCORE`).

    Two signals from :class:`bot.search.Matcher` (read-only use): a tag or the title naming a
    track (:meth:`~bot.search.Matcher.match_track`, its score) and the most similar catalog post
    of each track (:meth:`~bot.search.Matcher.search` on the title and tags, that post's score
    times 0.9, since a neighbour is weaker evidence than a name). A track's score is the larger.
    """
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
    ranked = sorted(best.values(), key=lambda g: (-g.score, g.track_id))
    return tuple(g for g in ranked if g.score >= TRACK_MIN_SCORE)[:limit]


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
    if pub.precision == "range":
        if pub.earliest <= sp.date <= pub.latest:
            plan.fills.append(Fill(post.id, known.file, "published",
                                   {"from": pub.earliest.isoformat(), "to": pub.latest.isoformat()},
                                   sp.date.isoformat()))
            filled = True
        else:
            plan.conflicts.append(Conflict(post.id, known.file, "published", pub.label(),
                                           sp.date.isoformat()))
    elif pub.earliest != sp.date:
        plan.conflicts.append(Conflict(post.id, known.file, "published", pub.label(), sp.date.isoformat()))
    if not post.authors and sp.authors:
        plan.fills.append(Fill(post.id, known.file, "authors", [], list(sp.authors)))
        filled = True
    return filled


def plan_against(posts: list[SourcePost], skipped: list[Skipped], known: list[_Known],
                 catalog: Catalog, source: str, matcher: Any | None = None) -> ImportPlan:
    """Compare source posts with the catalog's posts (``known``: published and drafts). Pure but
    for building a :class:`bot.search.Matcher` when none is given."""
    base = catalog.manifest.blog_base_url
    plan = ImportPlan(_public(source), skipped=list(skipped))
    by_url: dict[str, _Known] = {}
    by_title: dict[str, _Known] = {}
    for k in known:
        url = _absolute(k.post.url, base)
        if url:
            by_url[url] = k
        by_title.setdefault(normalize_title(k.post.title), k)
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
            from bot.search import Matcher

            matcher = Matcher(catalog)
        plan.new_posts.append(NewPost(
            id=_new_id(sp, taken), title=sp.title, url=_relative(sp.url, base), published=sp.date,
            authors=sp.authors, tags=sp.tags, tracks=guess_tracks(matcher, catalog, sp.title, sp.tags),
            origin=sp.origin))
    return plan


def _read_known(root: Path) -> list[_Known]:
    """Every post of ``root/posts/*.yaml`` (drafts included). The catalog is valid here."""
    out: list[_Known] = []
    for path in sorted((root / "posts").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        for raw in data:
            out.append(_Known(Post.model_validate(raw), f"posts/{path.name}"))
    return out


def load_for_import(root: Path) -> tuple[Catalog, list[_Known]]:
    """The catalog in ``root`` (drafts set aside, version rules not applied) and all its posts.
    Raises :class:`~bot.catalog.loader.CatalogError` when it has other errors."""
    catalog, issues = check_catalog(root, check_versions=False, allow_drafts=True)
    if catalog is None:
        raise CatalogError(issues)
    return catalog, _read_known(root)


def plan_import(source: str, catalog_dir: str | Path, timeout: float = FETCH_TIMEOUT_S) -> ImportPlan:
    """Read ``source`` and compare it with the catalog in ``catalog_dir`` (see the module
    docstring). Raises :class:`ImportSourceError` (source) or
    :class:`~bot.catalog.loader.CatalogError` (the catalog has errors other than drafts)."""
    root = Path(catalog_dir)
    catalog, known = load_for_import(root)
    posts, skipped = read_source(source, catalog.manifest.blog_base_url, timeout)
    return plan_against(posts, skipped, known, catalog, source)


def missing_posts(feed: bytes | str, catalog: Catalog) -> list[SourcePost]:
    """The posts of a feed document that ``catalog`` lacks (neither its URL nor its normalised
    title is in the catalog), in feed order. Pure: the daily watch of ``CATALOG_FEED_URL`` fetches
    the feed (:func:`fetch`), calls this, and notifies about posts it has not notified before.
    Raises :class:`ImportSourceError` for a malformed feed; entries without title, link or date
    are left out."""
    posts, _ = parse_feed(feed, "CATALOG_FEED_URL")
    base = catalog.manifest.blog_base_url
    urls = {_absolute(p.url, base) for p in catalog.posts}
    titles = {normalize_title(p.title) for p in catalog.posts}
    return [p for p in posts if p.url not in urls and normalize_title(p.title) not in titles]


# --- writing -----------------------------------------------------------------------------------


def _scalar(value: str) -> str:
    """One YAML scalar as our files write it (quoted only when needed)."""
    text = yaml.safe_dump(value, allow_unicode=True, width=10_000)
    return text.removesuffix("...\n").strip()


def draft_yaml(post: NewPost) -> str:
    """The text of one draft entry of ``posts/drafts.yaml`` (a YAML list item)."""
    lines = []
    if post.tracks:
        lines.append("# likely tracks: " + ", ".join(f"{g.track_id} ({g.score:.0f})" for g in post.tracks))
    lines.append(f"- id: {post.id}")
    lines.append(f"  title: {_scalar(post.title)}")
    lines.append(f"  url: {_scalar(post.url)}")
    lines.append(f"  published: '{post.published.isoformat()}'")
    lines.append("  authors:" + ("" if post.authors else " []"))
    lines.extend(f"  - {_scalar(a)}" for a in post.authors)
    lines.append("  source:\n    kind: vllm-blog")
    lines.append("  tags:" + ("" if post.tags else " []"))
    lines.extend(f"  - {_scalar(t)}" for t in post.tags)
    if "blog_tags" in Post.model_fields:  # the blog's own tags, kept verbatim (issue 11 data)
        lines.append("  blog_tags:" + ("" if post.tags else " []"))
        lines.extend(f"  - {_scalar(t)}" for t in post.tags)
    lines.append("  status: draft")
    lines.append("  # summary: to write in our own words (en, and zh on a bilingual track)")
    return "\n".join(lines) + "\n"


FIELD_ORDER = ("id", "title", "url", "published", "authors", "source")
"""The order our posts files write a post's first fields in; a missing field is inserted there."""


def _end_of(data: Any, n: int, keys: list[Any], index: int, total: int) -> int:
    """The line (0-based) where key ``keys[index]`` of item ``n`` of ``data`` ends: the next
    key's line, the next item's line, or ``total`` (the end of the file)."""
    if index + 1 < len(keys):
        return int(data[n].lc.key(keys[index + 1])[0])
    return int(data.lc.item(n + 1)[0]) if n + 1 < len(data) else total


def _edit_fields(text: str, edits: list[tuple[str, str, list[str]]]) -> str:
    """Apply ``(post_id, field, new_lines)`` edits to a posts file's text: each replaces the lines
    of that field of that post (or is inserted at its place in :data:`FIELD_ORDER` when the post
    lacks it), indented like the post's keys; every other byte stays. The file is parsed once
    (ruamel.yaml, for line numbers) and the edits are applied from the bottom up. Raises
    ``KeyError`` for an unknown post id."""
    from ruamel.yaml import YAML

    data = YAML(typ="rt").load(text)
    lines = text.splitlines(keepends=True)
    items = {item.get("id"): (n, item) for n, item in enumerate(data)}
    spans: list[tuple[int, int, int, list[str]]] = []
    for post_id, field_name, new_lines in edits:
        n, item = items[post_id]
        keys = list(item.keys())
        col = item.lc.key(keys[0])[1]
        if field_name in item:
            i = keys.index(field_name)
            start, stop = int(item.lc.key(field_name)[0]), _end_of(data, n, keys, i, len(lines))
        else:
            wanted = FIELD_ORDER.index(field_name) if field_name in FIELD_ORDER else len(FIELD_ORDER)
            before = [k for k in keys if k in FIELD_ORDER and FIELD_ORDER.index(k) < wanted]
            i = keys.index(before[-1]) if before else len(keys) - 1
            start = stop = _end_of(data, n, keys, i, len(lines))
            first = int(item.lc.key(keys[i])[0]) + 1
            while start > first and not lines[start - 1].strip():
                start -= 1  # insert before the blank lines that end the previous field
            stop = start
        while stop > start + 1 and not lines[stop - 1].strip():
            stop -= 1  # blank lines before the next key stay where they are
        spans.append((start, stop, col, new_lines))
    # Bottom up; at one line, a replacement before an insertion so that both survive.
    for start, stop, col, new_lines in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        lines[start:stop] = [f"{' ' * col}{new}\n" for new in new_lines]
    return "".join(lines)


def _fill_lines(fill: Fill) -> list[str]:
    if fill.field == "authors":
        return ["authors:", *(f"- {_scalar(a)}" for a in fill.new)]
    if fill.field == "published":
        return [f"published: '{fill.new}'"]
    return [f"{fill.field}: {_scalar(fill.new)}"]


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def apply_import(plan: ImportPlan, catalog_dir: str | Path) -> list[str]:
    """Write ``plan`` into the catalog: new posts appended to :data:`DRAFTS_FILE` as drafts, fills
    edited into their lines (nothing else in the file changes). Every new text is computed before
    the first file is replaced. Returns the files written (relative to the catalog folder)."""
    root = Path(catalog_dir)
    texts: dict[str, str] = {}
    by_file: dict[str, list[tuple[str, str, list[str]]]] = {}
    for fill in plan.fills:
        by_file.setdefault(fill.file, []).append((fill.post_id, fill.field, _fill_lines(fill)))
    for rel, edits in by_file.items():
        texts[rel] = _edit_fields((root / rel).read_text(encoding="utf-8"), edits)
    if plan.new_posts:
        path = root / DRAFTS_FILE
        text = path.read_text(encoding="utf-8") if path.exists() else DRAFTS_HEADER
        if not text.strip():
            text = DRAFTS_HEADER
        if not text.endswith("\n"):
            text += "\n"
        texts[DRAFTS_FILE] = text + "".join(draft_yaml(p) for p in plan.new_posts)
    for text in texts.values():
        yaml.safe_load(text)  # never write a file we cannot read back
    for rel, text in texts.items():
        _write_atomic(root / rel, text)
    return sorted(texts)


def run_import(source: str, catalog_dir: str | Path, *, write: bool = False, as_json: bool = False,
               timeout: float = FETCH_TIMEOUT_S) -> int:
    """The body of ``vllm-path catalog import``: print the plan (text or JSON on stdout), write it
    with ``write``; reasons for a refusal go to stderr. Returns the exit code: 0 done (also when
    there is nothing to do), 1 the source or the catalog was refused (nothing written)."""
    import json

    import click

    try:
        plan = plan_import(source, catalog_dir, timeout)
    except ImportSourceError as exc:
        click.echo(f"error: {exc}; nothing written", err=True)
        return 1
    except CatalogError as exc:
        for issue in exc.errors:
            click.echo(f"error: {issue}", err=True)
        click.echo(f"error: the catalog in {catalog_dir} has {len(exc.errors)} error(s); fix them "
                   "first (`vllm-path catalog check`); nothing written", err=True)
        return 1
    written: list[str] = []
    if write and plan.changes:
        written = apply_import(plan, catalog_dir)
    if as_json:
        data = plan.to_dict()
        data["written"] = written
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    click.echo(plan.render())
    if write:
        click.echo(f"wrote: {', '.join(written)}" if written else "nothing to write")
        if plan.new_posts:
            click.echo(f"next: write the drafts' summaries in {DRAFTS_FILE} and place them in "
                       "tracks; `vllm-path catalog check` refuses drafts until then")
    elif plan.changes:
        click.echo("dry run: add --write to write the drafts and fills")
    return 0
