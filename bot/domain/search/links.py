"""Links are queries: a URL of a catalog post, however it was pasted, resolves to that post.

A post is found at its ``url``, its ``redirect_from`` paths and its source file in the blog's
repository (:func:`github_source_file`), on any blog host (``vocabulary.yaml`` ``blog_hosts``
and the manifest's ``blog_base_url``) or a summary host (``summary_hosts``), with ``http`` or
``https``, with or without ``www.``, Slack's ``<…|label>``, a trailing slash, a query (tracking
parameters), a ``#fragment`` (a ``#:~:text=`` text fragment too), punctuation after it or the
``.html``/``.md`` suffix. Every path form the blog has used finds it: Jekyll's
``/YYYY/MM/DD/slug.html`` with categories before the date (``/community/tools/2026/01/02/…``), and
the newer ``/blog/<slug>`` and ``/blog/<YYYY-MM-DD-slug>`` (``vllm.ai/blog/fp8-kvcache``). A URL
on a blog or summary host that no post has is ``status="unknown"`` (the blog's home page
``"home"``); elsewhere ``"foreign"``, unless its last path segment is a summary page's
(:data:`_MIN_ARTICLE_SLUG`: the summarised article's link); text that is not one URL is ``None`` (without ``http(s)://``,
a word is a URL only on a blog or summary host).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from bot.domain.search.results import LinkResult
from bot.domain.search.vocabulary import Vocabulary
from bot.domain.text import clean

if TYPE_CHECKING:  # pragma: no cover
    from bot.domain.catalog.compiled import Catalog
    from bot.domain.catalog.models import Post

BLOG_SOURCE_REPO = "vllm-project/vllm-project.github.io"
"""The GitHub repository (``owner/name``) of the vLLM blog's source, posts in ``_posts/YYYY-MM-DD-slug.md``."""

GITHUB_HOSTS = ("github.com", "raw.githubusercontent.com")

_GITHUB_VIEWS = frozenset({"blob", "raw", "blame", "edit"})
_POST_FILE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})-(.+?)(?:\.(?:md|markdown|html?))?$", re.IGNORECASE)

_DATED_PATH_RE = re.compile(r"^(?:/[^/]+)*?/(\d{4})/(\d{2})/(\d{2})/([^/]+)$")
"""A Jekyll post path, categories before the date allowed: ``(year, month, day, slug)``."""
_BLOG_PATH_RE = re.compile(r"^/blog/(?:(\d{4}-\d{2}-\d{2})-)?([^/]+)$", re.IGNORECASE)
"""The newer blog's post path: ``/blog/<slug>`` or ``/blog/<YYYY-MM-DD-slug>``: ``(date or None, slug)``."""

_URL_RE = re.compile(r"^(?:https?://)?(?:www\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)(?::\d+)?(/\S*)?$", re.IGNORECASE)
_SUFFIX_RE = re.compile(r"\.(?:html?|md)$", re.IGNORECASE)

_MIN_ARTICLE_SLUG = 24
"""A summary page's slug (``yomu.fyi/post/<slug>.md``) is the summarised article's own (QA round 10:
the Red Hat article's link found nothing, its summary's did): on another host, a link whose last path
segment is that slug is that post. Slugs this long only (a whole title, not ``index`` or ``blog``)."""

_CUT_ARTICLE_SLUG = 64
"""A summary page's slug this long may be its article's cut short (the summary host cuts at 70)."""


def _key(host: str, path: str) -> tuple[str, str]:
    """``(host, path)``: host lower-case without ``www.``, path without trailing slashes or suffix."""
    return host.casefold().removeprefix("www."), _SUFFIX_RE.sub("", path.rstrip("/"))


_AROUND = "<>()[]{}\"'.,;:!?…。，；：！？（）【】「」『』“”‘’"
"""Punctuation a link is pasted inside or followed by (``(https://…)``), never in a post's URL."""


def _on(match: re.Match[str], hosts: frozenset[str]) -> bool:
    """Whether a :data:`_URL_RE` match's host (``www.`` aside) is one of ``hosts``."""
    return match.group(1).casefold().removeprefix("www.") in hosts


def split_url(text: str, hosts: frozenset[str] = frozenset()) -> tuple[str, str, str, bool] | None:
    """``(url as read, host, path, has scheme)`` when ``text`` (Slack markup decoded, punctuation
    around it dropped) is one URL or holds exactly one ``http(s)://`` link among other words (with
    none, exactly one link with a path on one of ``hosts`` without its scheme: ``blog.vllm.ai/…
    part 2?``); else ``None``. A bare word with a dot (``v0.6``) is a URL only with a scheme or a path."""
    url = clean(text).strip("<>").strip()
    if " " in url:  # a sentence around one link ("have you read https://… ?"): that link
        linked = [w for w in url.split() if w.strip(_AROUND).lower().startswith(("http://", "https://"))]
        if not linked and hosts:  # without a scheme, a word with a path on one of ``hosts``
            linked = [w for w in url.split() if (m := _URL_RE.match(w.strip(_AROUND))) and m.group(2) and _on(m, hosts)]
        if len(linked) != 1:
            return None
        url = linked[0]
    url = url.strip(_AROUND)
    match = _URL_RE.match(url)
    if match is None:
        return None
    has_scheme = url.lower().startswith(("http://", "https://"))
    if not has_scheme and not match.group(2):
        return None
    parts = urlsplit(url if has_scheme else "https://" + url)
    host = (parts.hostname or "").casefold()
    return url, host, parts.path or "/", has_scheme


_SLUG_SPLIT = re.compile(r"[-_+.]+")
_PAGE_SUFFIX_RE = re.compile(r"\.(?:html?|md|php|aspx?)$", re.IGNORECASE)


def slug_words(url: str) -> str:
    """The words of a link's last path segment (``…/vllm-vs-sglang-choosing-right-engine?utm…`` →
    ``vllm vs sglang choosing right engine``), numbers left out; ``""`` for fewer than two words
    (``/blog/``, ``index.html``, an id): an article the catalog knows under another address is found
    by them (QA round 11)."""
    path = urlsplit(url if "://" in url else "https://" + url).path.rstrip("/")
    last = _PAGE_SUFFIX_RE.sub("", unquote(path.rsplit("/", 1)[-1]))
    words = [w for w in _SLUG_SPLIT.split(last) if w and not w.isdigit()]
    return " ".join(words) if len(words) >= 2 else ""


_HOST_PREFIXES = frozenset({"www", "docs", "doc", "developers", "developer", "api", "m", "en", "app", "blog", "wiki"})
"""Host labels that say which part of a site a link is on, not whose site it is (``docs.vllm.ai``)."""

_SECOND_LEVEL = frozenset({"co", "com", "org", "net", "ac", "gov", "edu"})
"""Labels before a country's top-level domain that belong to the suffix (``example.co.uk``)."""

_PATH_NOISE = frozenset(
    {
        "en",
        "latest",
        "stable",
        "main",
        "master",
        "blob",
        "tree",
        "raw",
        "issues",
        "issue",
        "pull",
        "pulls",
        "discussions",
        "commit",
        "commits",
        "abs",
        "pdf",
        "html",
        "htm",
        "md",
        "php",
        "aspx",
        "index",
        "www",
        "resolve",
        "files",
        "releases",
        "tag",
        "wiki",
        "docs",
        "blog",
        "posts",
        "post",
        "p",
        "a",
        "s",
        "v",
    }
)
"""Path words that address a page (``/en/latest/``, ``/issues/``, ``/abs/``), not what it is about."""

_PATH_WORD_RE = re.compile(r"[^\W_]+")


def link_words(match: re.Match[str]) -> str:
    """The words a link pasted inside a question stands for (``match.group(0)`` a URL with its
    scheme): its site's name, the host label before the top-level domain other than a part of the
    site (``developers.cloudflare.com`` → ``cloudflare``, ``docs.vllm.ai`` → ``vllm``), then the
    words of its path, numbers and page-addressing words left out (``huggingface.co/google/diffusiongemma``
    → ``huggingface google diffusiongemma``; ``…/issues/123`` → its repository's words), space-padded;
    ``" "`` for text that is no URL. A link to another site names what the question is about
    (Cloudflare's cache is no KV cache: holdout round m)."""
    url = match.group(0).strip(_AROUND)
    try:
        parts = urlsplit(url)
    except ValueError:
        return " "
    labels = [label for label in (parts.hostname or "").casefold().split(".") if label]
    if len(labels) >= 3 and labels[-2] in _SECOND_LEVEL:
        labels = labels[:-1]
    site = [label for label in labels[:-1] if label not in _HOST_PREFIXES]
    path = [
        word
        for word in _PATH_WORD_RE.findall(unquote(parts.path).casefold())
        if not word.isdigit() and word not in _PATH_NOISE
    ]
    return f" {' '.join([*site[-1:], *path])} "


def source_file_name(post: Post) -> str | None:
    """The post's file in the blog source, without folder: ``"2024-10-17-spec-decode.md"``.

    Jekyll's naming: the published day and the last segment of ``url``. ``None`` for a post not on
    the vLLM blog or without an exact day (a ``published`` range). Never raises.
    """
    url = post.url
    if not url or post.published.precision != "day" or post.source.kind != "vllm-blog":
        return None
    path = urlsplit(url).path if not url.startswith("/") else url
    slug = _SUFFIX_RE.sub("", path.rstrip("/").rsplit("/", 1)[-1])
    return f"{post.published.earliest.isoformat()}-{slug}.md" if slug else None


def github_source_file(host: str, path: str) -> str | None:
    """The post file a GitHub link to :data:`BLOG_SOURCE_REPO` names, without ``.md``, casefolded
    (``"2024-10-17-spec-decode"``), or ``None``; never raises. Paths: ``/<owner>/<repo>/blob/<branch>/_posts/<file>.md``
    on github.com (``raw``, ``blame``, ``edit`` too) or ``/<owner>/<repo>/<branch>/_posts/<file>.md``
    on raw.githubusercontent.com (the branch may hold slashes)."""
    host = host.casefold().removeprefix("www.")
    if host not in GITHUB_HOSTS:
        return None
    parts = [unquote(p) for p in path.split("/") if p]
    if len(parts) < 5 or "/".join(parts[:2]).casefold() != BLOG_SOURCE_REPO.casefold():
        return None
    rest = parts[2:]
    if host == "github.com":
        if rest[0] not in _GITHUB_VIEWS:
            return None
        rest = rest[1:]
    if "_posts" not in rest[1:-1]:
        return None
    match = _POST_FILE_RE.match(rest[-1])
    return f"{match.group(1)}-{match.group(2)}".casefold() if match else None


class LinkIndex:
    """The catalog's post URLs by normalised ``(host, path)`` (read-only after construction)."""

    def __init__(self, catalog: Catalog, vocabulary: Vocabulary) -> None:
        base = (urlsplit(catalog.manifest.blog_base_url).hostname or "").casefold()
        self.blog_hosts = frozenset({h.removeprefix("www.") for h in (*vocabulary.blog_hosts, base)} - {""})
        self.summary_hosts = frozenset(h.removeprefix("www.") for h in vocabulary.summary_hosts)
        self._posts: dict[tuple[str, str], str] = {}
        self._files: dict[str, str] = {}
        self._slugs: dict[str, str] = {}
        self._articles: dict[str, str] = {}  # a summary page's slug: the article it summarises has it too
        for post in catalog.posts:
            for extra in post.redirect_from:
                self._posts.setdefault(_key("", extra), post.id)
            name = source_file_name(post)
            if name is not None:
                stem = _SUFFIX_RE.sub("", name).casefold()
                self._files.setdefault(stem, post.id)
                self._slugs.setdefault(stem[11:], post.id)  # without "YYYY-MM-DD-"
            if not post.url:
                continue
            if post.url.startswith("/"):
                self._posts[_key("", post.url)] = post.id  # a path on any blog host
                continue
            parts = urlsplit(post.url)
            host, path = _key(parts.hostname or "", parts.path)
            self._posts[("" if host in self.blog_hosts else host, path)] = post.id
            if host in self.summary_hosts and len(slug := path.rsplit("/", 1)[-1]) >= _MIN_ARTICLE_SLUG:
                self._articles.setdefault(slug.casefold(), post.id)

    def resolve(self, text: str) -> LinkResult | None:
        """What the URL in ``text`` points to, or ``None`` when ``text`` is not one URL."""
        if (split := split_url(text, self.blog_hosts | self.summary_hosts)) is None:
            return None
        url, host, path, has_scheme = split
        host, path = _key(host, path)
        on_blog = host in self.blog_hosts
        if not has_scheme and not on_blog and host not in self.summary_hosts:
            return None  # "deepseek-v3.2/exp" is a query, not a link
        post_id = self._posts.get(("" if on_blog else host, path))
        if post_id is None and on_blog:
            post_id = self._blog_path(path)
        if post_id is None and host in GITHUB_HOSTS:
            source = github_source_file(host, path)
            post_id = self._files.get(source) if source is not None else None
        if post_id is None and not on_blog and host not in self.summary_hosts:
            post_id = self._article(path.rsplit("/", 1)[-1].casefold())
        if post_id is not None:
            return LinkResult("post", url, post_id)
        if on_blog and path in ("", "/index", "/blog"):  # (QA) the blog's home page is no post missing
            return LinkResult("home", url)
        return LinkResult("unknown" if on_blog or host in self.summary_hosts else "foreign", url)

    def _article(self, slug: str) -> str | None:
        """The post whose summary page has ``slug`` (:data:`_MIN_ARTICLE_SLUG`), or whose summary's
        slug, cut at :data:`_CUT_ARTICLE_SLUG` characters, begins it (``…-without-buying-ne``)."""
        if len(slug) < _MIN_ARTICLE_SLUG:
            return None
        if (found := self._articles.get(slug)) is not None:
            return found
        return next((p for s, p in self._articles.items() if len(s) >= _CUT_ARTICLE_SLUG and slug.startswith(s)), None)

    def _blog_path(self, path: str) -> str | None:
        """The post at a blog path of another form than its ``url``: Jekyll's with categories
        (``/community/tools/2026/01/02/slug``) or the newer ``/blog/<slug>``, ``/blog/<date>-<slug>``."""
        if (dated := _DATED_PATH_RE.match(path)) is not None:
            year, month, day, slug = dated.groups()
            return self._files.get(f"{year}-{month}-{day}-{unquote(slug)}".casefold())
        if (blog := _BLOG_PATH_RE.match(path)) is not None:
            date, slug = blog.groups()
            slug = unquote(slug).casefold()
            return self._files.get(f"{date}-{slug}") if date else self._slugs.get(slug)
        return None
