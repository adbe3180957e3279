"""Which catalog post a shared URL points to (pure: no Slack, no database).

The one place the app turns a URL into a post, used by link unfurls (``link_shared``) and the
console's ``paste``. A URL is matched on its host and path (scheme, ``www.``, query, fragment and
a trailing slash do not matter):

* the vLLM blog, on the manifest's ``blog_base_url`` host or on :data:`BLOG_HOST_ALIASES` (the
  blog moved hosts in 2026, see ``shared/reference/README.md``; a post's relative ``url`` is a
  path on either host);
* any other host a catalog post's absolute ``url`` is on (``yomu.fyi`` summary pages today).

Another helper is adding URL resolvers to the search package; when they land this module should
delegate to them, and callers keep calling :func:`resolve_link`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from bot.domain.catalog import Catalog

BLOG_HOST_ALIASES: tuple[str, ...] = ("blog.vllm.ai",)
"""Hosts that serve the vLLM blog besides the manifest's ``blog_base_url`` host."""

SUMMARY_HOSTS: tuple[str, ...] = ("yomu.fyi",)
"""Hosts of summary pages the catalog links to (their links are unfurled too)."""

LinkKind = Literal["post", "blog", "other"]


@dataclass(frozen=True)
class LinkTarget:
    """What a URL points to: ``kind`` ``post`` (``post_id`` set), ``blog`` (a blog-host page the
    catalog does not hold yet) or ``other`` (a host we do not unfurl, or not a URL)."""

    url: str
    kind: LinkKind
    post_id: str | None = None


def _host(netloc: str) -> str:
    host = netloc.rsplit("@", 1)[-1].split(":", 1)[0].lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


def _path(path: str) -> str:
    """A post's path as compared: no trailing slash, no ``.html`` (the blog serves
    ``/2024/10/17/spec-decode`` and ``…/spec-decode.html`` alike, and people paste both)."""
    path = (path or "/").rstrip("/")
    return path.removesuffix(".html") or "/"


def blog_hosts(catalog: Catalog) -> tuple[str, ...]:
    """Hosts of the vLLM blog: the manifest's ``blog_base_url`` host, then the aliases."""
    main = _host(urlsplit(catalog.manifest.blog_base_url).netloc)
    return tuple(dict.fromkeys((main, *BLOG_HOST_ALIASES)))


def unfurl_domains(catalog: Catalog) -> tuple[str, ...]:
    """Every domain whose links the app unfurls (the manifest's ``unfurl_domains``): the blog
    hosts, the summary hosts and the hosts of the catalog's absolute post URLs."""
    hosts = list(blog_hosts(catalog)) + list(SUMMARY_HOSTS)
    for post in catalog.posts:
        if post.url and not post.url.startswith("/"):
            hosts.append(_host(urlsplit(post.url).netloc))
    return tuple(dict.fromkeys(h for h in hosts if h))


def _index(catalog: Catalog) -> dict[tuple[str, str], str]:
    """``(host or "blog", path) -> post id`` for every post with a URL."""
    out: dict[tuple[str, str], str] = {}
    blog = set(blog_hosts(catalog))
    for post in catalog.posts:
        if not post.url:
            continue
        if post.url.startswith("/"):
            out[("blog", _path(post.url))] = post.id
            continue
        parts = urlsplit(post.url)
        host = _host(parts.netloc)
        out[("blog" if host in blog else host, _path(parts.path))] = post.id
    return out


_CACHE: dict[int, tuple[Catalog, dict[tuple[str, str], str]]] = {}


def _cached_index(catalog: Catalog) -> dict[tuple[str, str], str]:
    hit = _CACHE.get(id(catalog))
    if hit is not None and hit[0] is catalog:
        return hit[1]
    index = _index(catalog)
    if len(_CACHE) > 8:
        _CACHE.clear()
    _CACHE[id(catalog)] = (catalog, index)
    return index


def resolve_link(catalog: Catalog, url: str) -> LinkTarget:
    """The post ``url`` points to, as a :class:`LinkTarget` (never raises).

    Slack sends links as written in the message, possibly wrapped in ``<…>`` or with a
    ``|label``; both are stripped first. Only ``http`` and ``https`` URLs match.
    """
    raw = url.strip().strip("<>").split("|", 1)[0]
    try:
        parts = urlsplit(raw)
    except ValueError:
        return LinkTarget(url, "other")
    if parts.scheme.lower() not in ("http", "https"):
        return LinkTarget(url, "other")
    host = _host(parts.netloc)
    is_blog = host in blog_hosts(catalog)
    key = ("blog" if is_blog else host, _path(parts.path))
    post_id = _cached_index(catalog).get(key)
    if post_id is not None:
        return LinkTarget(url, "post", post_id)
    return LinkTarget(url, "blog" if is_blog else "other")
