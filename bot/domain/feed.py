"""The blog's feed, read (pure): an Atom or RSS document as the posts it lists (:func:`parse_feed`,
with feedparser). Fetching a feed is the caller's (:func:`bot.digest.sources.fetch`: the clock, the CLI)."""

from __future__ import annotations

import contextlib
import datetime as dt
import email.utils
import html
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import feedparser

from bot.domain.catalog.reading_time import reading_minutes

if TYPE_CHECKING:  # pragma: no cover
    pass


class ImportSourceError(Exception):
    """The source cannot be read: unreachable, not a feed, malformed or truncated. The message says
    why (for a person; no secrets: URLs are printed without their query string)."""


@dataclass(frozen=True)
class SourcePost:
    """A post as the source gives it: ``url`` absolute, ``date`` the source's own calendar day (not
    UTC), ``origin`` the entry (``entry 3``, ``_posts/…md``), ``minutes`` counted from the body of a
    Jekyll source or a feed entry's full content (:mod:`bot.domain.catalog.reading_time`), else
    ``None``; ``summary`` and ``content`` a feed entry's texts as plain text (``""`` when absent)."""

    title: str
    url: str
    date: dt.date
    authors: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    origin: str = ""
    minutes: int | None = None
    summary: str = ""
    content: str = ""

    def mentions(self, word: str) -> bool:
        """Whether the title, summary or content names ``word`` (case-insensitive)."""
        return word.casefold() in f"{self.title} {self.summary} {self.content}".casefold()


_PRE = re.compile(r"<pre\b[^>]*>(.*?)</pre\s*>", re.DOTALL | re.IGNORECASE)
_TAGS = re.compile(r"<[^>]+>")


def html_text(markup: str) -> str:
    """Plain text of an HTML fragment (tags dropped, entities decoded, spaces collapsed)."""
    return " ".join(html.unescape(_TAGS.sub(" ", markup)).split())


FULL_TEXT_WORDS = 300
"""A feed entry's content is the full post (its minutes counted, else estimated) from this many words."""


def html_minutes(markup: str, summary: str = "") -> int | None:
    """Reading minutes of a feed entry's HTML content by the catalog's rule (``<pre>`` blocks as
    fenced code, counting half); ``None`` unless the content is the full post: at least
    :data:`FULL_TEXT_WORDS` words and more than the entry's ``summary`` (plain text) has."""
    body = _PRE.sub(lambda m: "\n```\n" + html.unescape(_TAGS.sub("", m.group(1))) + "\n```\n", markup)
    words = len((body := html.unescape(_TAGS.sub(" ", body))).split())
    return reading_minutes(body) if words >= FULL_TEXT_WORDS and words > len(summary.split()) else None


@dataclass(frozen=True)
class Skipped:
    """A source entry that was not read, and why."""

    origin: str
    reason: str


def day_of(raw: str | None, parsed: Any) -> dt.date | None:
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
    return split_read(_feed_entry(index, entry) for index, entry in enumerate(parsed.entries, start=1))


def split_read(read: Iterable[SourcePost | Skipped | None]) -> tuple[list[SourcePost], list[Skipped]]:
    """The posts read and the entries skipped, each in their order (``None``s dropped)."""
    items = list(read)
    return ([p for p in items if isinstance(p, SourcePost)], [p for p in items if isinstance(p, Skipped)])


def _feed_entry(index: int, entry: Any) -> SourcePost | Skipped:
    """One feed entry as a post, or why it is skipped."""
    title = " ".join(str(entry.get("title") or "").split())
    origin = f"entry {index}" + (f" ({title!r})" if title else "")
    link = str(entry.get("link") or "").strip()
    day = day_of(
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
    content = "".join(str(c.get("value") or "") for c in entry.get("content", []))
    summary = html_text(str(entry.get("summary") or ""))
    minutes = html_minutes(content, summary) if content else None
    return SourcePost(title, link, day, authors, tags, origin, minutes, summary, html_text(content))


def public_source(source: str) -> str:
    """A source for messages: a URL without its query string or credentials."""
    if source.startswith(("http://", "https://")):
        parts = urlsplit(source)
        return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"
    return source


def normalize_title(title: str) -> str:
    """A title for matching: NFKC, case-folded, typographic quotes and dashes as ASCII, every run
    of punctuation or spaces as one space. ``“vLLM”: Fast—Cheap`` → ``vllm fast cheap``."""
    text = unicodedata.normalize("NFKC", title).casefold()
    text = "".join(" " if unicodedata.category(ch)[0] in "PSZ" else ch for ch in text)
    return " ".join(text.split())


def canonical_url(url: str) -> str:
    """A URL for matching: ``https``, host lower-case without ``www.``, no fragment, no ``utm_*``
    query parameters, no trailing ``/`` or ``/index.html``. Pure."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").casefold().removeprefix("www.")
    port = f":{parts.port}" if parts.port and parts.port not in (80, 443) else ""
    path = re.sub(r"/(index\.html?)?$", "", parts.path) or ""
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if not k.startswith("utm_")])
    return f"https://{host}{port}{path}" + (f"?{query}" if query else "")
