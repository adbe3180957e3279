"""Which catalog post a shared URL points to, for link unfurls and the console's ``paste`` (pure).
The matching is :class:`bot.domain.search.links.LinkIndex`'s, shared with search."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal
from urllib.parse import urlsplit

from bot.domain.catalog import Catalog
from bot.domain.search.links import LinkIndex
from bot.domain.search.vocabulary import default_vocabulary

BLOG_HOST_ALIASES: tuple[str, ...] = ("blog.vllm.ai", "vllm.ai")
"""Hosts that serve the vLLM blog besides the manifest's ``blog_base_url`` host."""

SUMMARY_HOSTS: tuple[str, ...] = ("yomu.fyi",)
"""Hosts of summary pages the catalog links to (their links are unfurled too)."""

LinkKind = Literal["post", "blog", "other"]


@dataclass(frozen=True)
class LinkTarget:
    """What a URL points to: a ``post`` (``post_id`` set), another ``blog`` page, or ``other``."""

    url: str
    kind: LinkKind
    post_id: str | None = None


def _host(netloc: str) -> str:
    host = netloc.rsplit("@", 1)[-1].split(":", 1)[0].lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


def blog_hosts(catalog: Catalog) -> tuple[str, ...]:
    """Hosts of the vLLM blog: the manifest's ``blog_base_url`` host, then the aliases."""
    main = _host(urlsplit(catalog.manifest.blog_base_url).netloc)
    return tuple(dict.fromkeys((main, *BLOG_HOST_ALIASES)))


def unfurl_domains(catalog: Catalog) -> tuple[str, ...]:
    """The domains whose links the app unfurls: blog hosts, summary hosts, hosts of absolute post URLs."""
    absolute = [_host(urlsplit(p.url).netloc) for p in catalog.posts if p.url and not p.url.startswith("/")]
    return tuple(dict.fromkeys(h for h in (*blog_hosts(catalog), *SUMMARY_HOSTS, *absolute) if h))


def _link_index(catalog: Catalog) -> LinkIndex:
    vocabulary = default_vocabulary()
    hosts = tuple(dict.fromkeys((*vocabulary.blog_hosts, *BLOG_HOST_ALIASES)))
    summary = tuple(dict.fromkeys((*vocabulary.summary_hosts, *SUMMARY_HOSTS)))
    return LinkIndex(catalog, replace(vocabulary, blog_hosts=hosts, summary_hosts=summary))


def resolve_link(catalog: Catalog, url: str) -> LinkTarget:
    """What ``url`` (Slack's ``<…|label>`` stripped; ``http(s)`` only) points to. Never raises."""
    raw = url.strip().strip("<>").split("|", 1)[0]
    try:
        parts = urlsplit(raw)
    except ValueError:
        return LinkTarget(url, "other")
    if parts.scheme.lower() not in ("http", "https"):
        return LinkTarget(url, "other")
    index = _link_index(catalog)
    if (found := index.resolve(raw)) is not None and found.status == "post" and found.post_id is not None:
        return LinkTarget(url, "post", found.post_id)
    if _host(parts.netloc) in blog_hosts(catalog) or _host(parts.netloc) in index.blog_hosts:
        return LinkTarget(url, "blog")
    return LinkTarget(url, "other")
