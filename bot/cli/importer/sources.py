"""What posts an import source holds (:func:`read_source`): an Atom/RSS feed (a file or an
``http(s)`` URL, read with feedparser) or a Jekyll blog source folder (``_posts/YYYY-MM-DD-slug.md``,
read with python-frontmatter)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import frontmatter
import yaml

from bot.digest.sources import fetch
from bot.domain.catalog.reading_time import file_minutes
from bot.domain.feed import ImportSourceError, Skipped, SourcePost, day_of, parse_feed, public_source, split_read

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
    return split_read(
        _jekyll_post(path, blog_base_url) for path in sorted(p for p in posts_dir.iterdir() if p.is_file())
    )


def _jekyll_post(path: Path, blog_base_url: str) -> SourcePost | Skipped | None:
    """One file of ``_posts`` as a post, or why it is skipped (``None``: not a post file)."""
    origin = f"_posts/{path.name}"
    m = _POST_NAME.match(path.name)
    if not m:
        is_post = path.suffix in (".md", ".markdown", ".html")
        return Skipped(origin, "file name is not YYYY-MM-DD-slug.md") if is_post else None
    try:
        text = path.read_text(encoding="utf-8")
        loaded = frontmatter.loads(text)
        meta = loaded.metadata
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
    url = blog_base_url.rstrip("/") + url_path
    summary = " ".join(str(meta.get("summary") or "").split())
    return SourcePost(
        title, url, day, authors, _tags(meta.get("tags")), origin, file_minutes(text), summary, loaded.content
    )


def _jekyll_day(named: dt.date, raw: Any) -> dt.date:
    """A post's day: the front matter's ``date`` (``raw``: a date, a datetime or text) over the file name's."""
    if raw is None:
        return named
    if isinstance(raw, dt.datetime):
        return raw.date()
    if isinstance(raw, dt.date):
        return raw
    return day_of(str(raw), None) or named


def read_source(
    source: str, blog_base_url: str, *, max_bytes: int, deadline_s: float
) -> tuple[list[SourcePost], list[Skipped]]:
    """Read SOURCE: an ``http(s)`` feed URL (answered in full within ``deadline_s`` seconds), a
    Jekyll source folder, or a feed file; a feed of more than ``max_bytes`` bytes is refused. Raises
    :class:`ImportSourceError` with the reason when it cannot be read."""
    if source.startswith(("http://", "https://")):
        return parse_feed(fetch(source, max_bytes, deadline_s)[0] or b"", public_source(source))
    path = Path(source)
    if path.is_dir():
        return read_jekyll(path, blog_base_url)
    try:
        with path.open("rb") as file:
            data = file.read(max_bytes + 1)
    except FileNotFoundError:
        raise ImportSourceError(f"{source}: no such file or folder") from None
    except OSError as exc:
        raise ImportSourceError(f"{source}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise ImportSourceError(f"{source}: larger than {max_bytes:,} bytes (CATALOG_IMPORT_MAX_BYTES)")
    if not data.strip():
        raise ImportSourceError(f"{source}: the file is empty")
    return parse_feed(data, source)
