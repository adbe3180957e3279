"""Links are queries: a URL of a catalog post, however it was pasted, resolves to that post.

Accepted forms (all resolve to the same post): either blog host (``vocabulary.yaml``
``blog_hosts``, plus the manifest's ``blog_base_url``), ``http`` or ``https``, with or without
``www.``, with or without Slack's angle brackets and label (``<https://…|label>``), a trailing
slash, a query string or a ``#fragment``, the ``.html``-less form (``/2024/10/17/spec-decode``),
and a summary page (``summary_hosts``: ``https://yomu.fyi/post/slug.md`` with or without ``.md``).
A URL on a blog or summary host that no catalog post has is ``status="unknown"`` (the post is
not in the catalog yet); a URL elsewhere is ``"foreign"``; text that is not one URL is ``None``
(a word with a dot and a slash but no ``http(s)://`` is a URL only on a blog or summary host).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from bot.domain.search.results import LinkResult
from bot.domain.search.vocabulary import Vocabulary, default_vocabulary
from bot.domain.text import clean

if TYPE_CHECKING:  # pragma: no cover
    from bot.domain.catalog.compiled import Catalog

__all__ = ["LinkIndex", "resolve_link"]

_URL_RE = re.compile(r"^(?:https?://)?(?:www\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)(?::\d+)?(/\S*)?$",
                     re.IGNORECASE)
_SUFFIX_RE = re.compile(r"\.(?:html?|md)$", re.IGNORECASE)


def _key(host: str, path: str) -> tuple[str, str]:
    """``(host, path)`` with the path's trailing slashes, ``index`` page and ``.html``/``.md``
    suffix removed; ``host`` lower-case without ``www.``."""
    host = host.casefold().removeprefix("www.")
    path = path.rstrip("/")
    path = _SUFFIX_RE.sub("", path)
    return host, path


def split_url(text: str) -> tuple[str, str, str, bool] | None:
    """``(url as read, host, path, has scheme)`` when ``text`` (after Slack markup is decoded and
    trimmed) is one URL, with or without ``http(s)://``; else ``None``. A bare word with a dot
    (``v0.6``, ``torch.compile``) is not a URL unless it starts with a scheme or has a path."""
    url = clean(text).strip("<>").strip()
    if not url or " " in url:
        return None
    match = _URL_RE.match(url)
    if match is None:
        return None
    has_scheme = url.lower().startswith(("http://", "https://"))
    if not has_scheme and not match.group(2):
        return None
    parts = urlsplit(url if has_scheme else "https://" + url)
    host = (parts.hostname or "").casefold()
    return url, host, parts.path or "/", has_scheme


class LinkIndex:
    """The catalog's post URLs by normalised ``(host, path)`` (read-only after construction)."""

    def __init__(self, catalog: Catalog, vocabulary: Vocabulary) -> None:
        base = urlsplit(catalog.manifest.blog_base_url)
        self.blog_hosts = frozenset({*(h.removeprefix("www.") for h in vocabulary.blog_hosts),
                                     (base.hostname or "").casefold().removeprefix("www.")} - {""})
        self.summary_hosts = frozenset(h.removeprefix("www.") for h in vocabulary.summary_hosts)
        self._posts: dict[tuple[str, str], str] = {}
        for post in catalog.posts:
            if not post.url:
                continue
            if post.url.startswith("/"):
                self._posts[_key("", post.url)] = post.id  # a path on any blog host
                continue
            parts = urlsplit(post.url)
            host, path = _key(parts.hostname or "", parts.path)
            if host in self.blog_hosts:
                host = ""
            self._posts[(host, path)] = post.id

    def resolve(self, text: str) -> LinkResult | None:
        """What the URL in ``text`` points to (see the module docstring), or ``None`` when
        ``text`` is not one URL."""
        split = split_url(text)
        if split is None:
            return None
        url, host, path, has_scheme = split
        host, path = _key(host, path)
        on_blog = host in self.blog_hosts
        if not has_scheme and not on_blog and host not in self.summary_hosts:
            return None  # "deepseek-v3.2/exp" is a query, not a link
        post_id = self._posts.get(("" if on_blog else host, path))
        if post_id is not None:
            return LinkResult("post", url, post_id)
        if on_blog or host in self.summary_hosts:
            return LinkResult("unknown", url)
        return LinkResult("foreign", url)


def resolve_link(catalog: Catalog, text: str, vocabulary: Vocabulary | None = None
                 ) -> LinkResult | None:
    """Resolve a pasted link against ``catalog`` (for ``read``/``unread``/``search``).

    ``vocabulary`` defaults to the shipped one (its ``blog_hosts``/``summary_hosts``). Returns
    ``None`` when ``text`` is not one URL; else a :class:`LinkResult` (``post``, ``unknown`` or
    ``foreign``). Builds a small index each call (a few hundred microseconds for a hundred posts);
    a :class:`bot.domain.search.Matcher` keeps one (``Matcher.resolve_link``).
    """
    return LinkIndex(catalog, vocabulary if vocabulary is not None else default_vocabulary()
                     ).resolve(text)
