"""What posts an import source holds (:func:`read_source`): an Atom/RSS feed (a file or an
``http(s)`` URL, read with feedparser) or a Jekyll blog source folder (``_posts/YYYY-MM-DD-slug.md``,
read with python-frontmatter)."""

from __future__ import annotations

import contextlib
import datetime as dt
import email.utils
import re
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import feedparser
import frontmatter
import yaml

from bot.domain.catalog.reading_time import file_minutes

FETCH_TIMEOUT_S = 20.0
"""Seconds to wait for an ``http(s)`` source before giving up."""

MAX_FEED_BYTES = 20 * 1024 * 1024
"""A feed larger than this (bytes) is refused rather than read."""


class ImportSourceError(Exception):
    """The source cannot be read: unreachable, not a feed, malformed or truncated. The message says
    why (for a person; no secrets: URLs are printed without their query string)."""


@dataclass(frozen=True)
class SourcePost:
    """A post as the source gives it: ``url`` absolute, ``date`` the source's own calendar day (not
    UTC), ``origin`` the entry (``entry 3``, ``_posts/…md``), ``minutes`` counted from the body of a
    Jekyll source (:mod:`bot.domain.catalog.reading_time`), ``None`` from a feed."""

    title: str
    url: str
    date: dt.date
    authors: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    origin: str = ""
    minutes: int | None = None


@dataclass(frozen=True)
class Skipped:
    """A source entry that was not read, and why."""

    origin: str
    reason: str


def public_source(source: str) -> str:
    """A source for messages: a URL without its query string or credentials."""
    if source.startswith(("http://", "https://")):
        parts = urlsplit(source)
        return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"
    return source


def fetch(url: str) -> bytes:
    """GET ``url`` and return its body (at most :data:`MAX_FEED_BYTES`). Raises
    :class:`ImportSourceError` when it is unreachable or answers other than 200."""
    request = urllib.request.Request(url, headers={"User-Agent": "vllm-path catalog import"})
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_S) as response:
            body: bytes = response.read(MAX_FEED_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise ImportSourceError(f"{public_source(url)}: the server answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ImportSourceError(f"{public_source(url)}: unreachable ({reason})") from None
    if len(body) > MAX_FEED_BYTES:
        raise ImportSourceError(f"{public_source(url)}: larger than {MAX_FEED_BYTES} bytes")
    return body


def _day(raw: str | None, parsed: Any) -> dt.date | None:
    """The calendar day of an entry date as written (ISO 8601 or RFC 822), else feedparser's."""
    if raw:
        with contextlib.suppress(ValueError):
            return dt.datetime.fromisoformat(raw.strip()).date()
        with contextlib.suppress(TypeError, ValueError, IndexError):
            return email.utils.parsedate_to_datetime(raw.strip()).date()
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
    return _split(_feed_entry(index, entry) for index, entry in enumerate(parsed.entries, start=1))


def _split(read: Iterable[SourcePost | Skipped | None]) -> tuple[list[SourcePost], list[Skipped]]:
    """The posts read and the entries skipped, each in their order (``None``s dropped)."""
    items = list(read)
    return ([p for p in items if isinstance(p, SourcePost)], [p for p in items if isinstance(p, Skipped)])


def _feed_entry(index: int, entry: Any) -> SourcePost | Skipped:
    """One feed entry as a post, or why it is skipped."""
    title = " ".join(str(entry.get("title") or "").split())
    origin = f"entry {index}" + (f" ({title!r})" if title else "")
    link = str(entry.get("link") or "").strip()
    day = _day(
        entry.get("published") or entry.get("updated"), entry.get("published_parsed") or entry.get("updated_parsed")
    )
    missing = [name for name, value in (("title", title), ("link", link), ("date", day)) if not value]
    if missing:
        return Skipped(origin, f"no {' or '.join(missing)}")
    if not link.startswith(("http://", "https://")):
        return Skipped(origin, f"link {link!r} is not an http(s) URL")
    authors = tuple(a["name"].strip() for a in entry.get("authors", []) if a.get("name", "").strip())
    tags = tuple(dict.fromkeys(t["term"].strip() for t in entry.get("tags", []) if t.get("term", "").strip()))
    assert day is not None
    return SourcePost(title, link, day, authors, tags, origin)


_POST_NAME = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2})-(?P<slug>.+)\.(?:md|markdown|html)$")


def _list(value: Any) -> tuple[str, ...]:
    """A front-matter value (one value, a list or None) as its non-blank strings."""
    items = value if isinstance(value, (list, tuple)) else () if value is None else (value,)
    return tuple(str(v).strip() for v in items if str(v).strip())


def _authors(value: Any) -> tuple[str, ...]:
    """Jekyll ``author``: a list, or one string of comma-separated names (``A, B, and C``)."""
    parts = (re.sub(r"^and\s+", "", part.strip()) for item in _list(value) for part in item.split(","))
    return tuple(part for part in parts if part)


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):  # Jekyll: a space-separated string, or a list
        return tuple(value.split())
    return _list(value)


def read_jekyll(folder: Path, blog_base_url: str) -> tuple[list[SourcePost], list[Skipped]]:
    """Read a Jekyll source: ``folder/_posts/*`` (or ``folder`` itself when it is ``_posts``).

    Day and slug come from the file name ``YYYY-MM-DD-slug.md`` (a front-matter ``date`` overrides
    the day), the URL from ``permalink`` or Jekyll's default ``/[categories/]YYYY/MM/DD/slug.html``
    on ``blog_base_url``, ``minutes`` from the body. A file whose front matter cannot be read, or
    without a title, is skipped with the reason. Raises :class:`ImportSourceError` without ``_posts``.
    """
    posts_dir = folder if folder.name == "_posts" else folder / "_posts"
    if not posts_dir.is_dir():
        raise ImportSourceError(f"{folder}: no _posts folder (expected a Jekyll blog source)")
    return _split(_jekyll_post(path, blog_base_url) for path in sorted(p for p in posts_dir.iterdir() if p.is_file()))


def _jekyll_post(path: Path, blog_base_url: str) -> SourcePost | Skipped | None:
    """One file of ``_posts`` as a post, or why it is skipped (``None``: not a post file)."""
    origin = f"_posts/{path.name}"
    m = _POST_NAME.match(path.name)
    if not m:
        is_post = path.suffix in (".md", ".markdown", ".html")
        return Skipped(origin, "file name is not YYYY-MM-DD-slug.md") if is_post else None
    try:
        text = path.read_text(encoding="utf-8")
        meta = frontmatter.loads(text).metadata
    except (yaml.YAMLError, UnicodeDecodeError, ValueError) as exc:
        return Skipped(origin, f"front matter is not readable: {' '.join(str(exc).split())}")
    title = " ".join(str(meta.get("title") or "").split())
    if not title:
        return Skipped(origin, "no title")
    try:
        day = _jekyll_day(dt.date.fromisoformat(m.group("date")), meta.get("date"))
    except ValueError:
        return Skipped(origin, "the date in the file name is not a real day")
    slug = str(meta.get("slug") or m.group("slug"))
    if meta.get("permalink"):
        url_path = "/" + str(meta["permalink"]).lstrip("/")
    else:
        categories = [c.lower() for c in _tags(meta.get("categories") or meta.get("category"))]
        url_path = "".join(f"/{c}" for c in categories) + f"/{day:%Y/%m/%d}/{slug}.html"
    authors = _authors(meta.get("author") if meta.get("author") is not None else meta.get("authors"))
    return SourcePost(
        title, blog_base_url.rstrip("/") + url_path, day, authors, _tags(meta.get("tags")), origin, file_minutes(text)
    )


def _jekyll_day(named: dt.date, raw: Any) -> dt.date:
    """A post's day: the front matter's ``date`` (``raw``: a date, a datetime or text) over the file name's."""
    if raw is None:
        return named
    if isinstance(raw, dt.datetime):
        return raw.date()
    if isinstance(raw, dt.date):
        return raw
    return _day(str(raw), None) or named


def read_source(source: str, blog_base_url: str) -> tuple[list[SourcePost], list[Skipped]]:
    """Read SOURCE: an ``http(s)`` feed URL, a Jekyll source folder, or a feed file. Raises
    :class:`ImportSourceError` with the reason when it cannot be read."""
    if source.startswith(("http://", "https://")):
        return parse_feed(fetch(source), public_source(source))
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
