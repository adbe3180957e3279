"""bot.domain.links: shared URLs -> catalog posts, on both blog hosts and yomu.fyi (pure, real catalog)."""

from __future__ import annotations

import csv

import pytest

from bot.config import REPO_ROOT
from bot.domain.catalog import load_catalog
from bot.domain.catalog.models import Published
from bot.domain.links import blog_hosts, resolve_link, unfurl_domains
from bot.domain.search.links import BLOG_SOURCE_REPO, source_file_name
from tests.evaldata import eval_file


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(REPO_ROOT / "catalog")


@pytest.mark.parametrize(
    "url",
    [
        "https://vllm-project.github.io/2024/10/17/spec-decode.html",
        "http://www.vllm-project.github.io/2024/10/17/spec-decode.html/",
        "https://blog.vllm.ai/2024/10/17/spec-decode.html?utm_source=slack#results",
        "<https://BLOG.vllm.ai/2024/10/17/spec-decode.html|the post>",
        "http://vllm-project.github.io/2024/10/17/spec-decode",
        "https://blog.vllm.ai/2024/10/17/spec-decode/",
    ],
)
def test_blog_urls_on_either_host_resolve_to_the_post(catalog, url):
    target = resolve_link(catalog, url)
    assert (target.kind, target.post_id) == ("post", "spec-decode")
    assert target.url == url


def test_a_summary_page_resolves_by_its_absolute_url(catalog):
    post = next(p for p in catalog.posts if p.url and p.url.startswith("https://yomu.fyi/"))
    assert resolve_link(catalog, post.url).post_id == post.id
    assert resolve_link(catalog, "https://yomu.fyi/post/none-such.md").kind == "other"


def test_unknown_pages_and_other_hosts(catalog):
    assert resolve_link(catalog, "https://vllm-project.github.io/2099/01/01/x.html").kind == "blog"
    assert resolve_link(catalog, "https://example.com/2024/10/17/spec-decode.html").kind == "other"
    assert resolve_link(catalog, "ftp://vllm-project.github.io/2024/10/17/spec-decode.html").kind == "other"
    assert resolve_link(catalog, "not a url").kind == "other"


def test_the_unfurl_domains_cover_the_blog_hosts(catalog):
    assert blog_hosts(catalog) == ("vllm-project.github.io", "blog.vllm.ai", "vllm.ai")  # vllm.ai/blog/<slug>
    assert set(unfurl_domains(catalog)) == {"vllm-project.github.io", "blog.vllm.ai", "vllm.ai", "yomu.fyi"}


SPEC_FILE = "_posts/2024-10-17-spec-decode.md"


@pytest.mark.parametrize(
    "url",
    [
        f"https://github.com/vllm-project/vllm-project.github.io/blob/main/{SPEC_FILE}",
        f"https://github.com/vllm-project/vllm-project.github.io/blob/main/{SPEC_FILE}#L12",
        f"https://github.com/vllm-project/vllm-project.github.io/blob/3f2a1c9/{SPEC_FILE}?plain=1",
        f"https://www.github.com/VLLM-Project/vllm-project.github.io/raw/main/{SPEC_FILE}",
        f"<https://github.com/vllm-project/vllm-project.github.io/blame/main/{SPEC_FILE}|source>",
        f"https://raw.githubusercontent.com/vllm-project/vllm-project.github.io/main/{SPEC_FILE}",
        f"https://raw.githubusercontent.com/vllm-project/vllm-project.github.io/refs/heads/main/{SPEC_FILE}",
    ],
)
def test_a_link_to_the_posts_source_file_on_github_finds_the_post(catalog, url):
    target = resolve_link(catalog, url)
    assert (target.kind, target.post_id) == ("post", "spec-decode")


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/vllm-project/vllm-project.github.io",
        "https://github.com/vllm-project/vllm-project.github.io/blob/main/_posts/2099-01-01-none-such.md",
        "https://github.com/vllm-project/vllm-project.github.io/blob/main/README.md",
        f"https://github.com/someone-else/vllm-project.github.io/blob/main/{SPEC_FILE}",
        f"https://github.com/vllm-project/vllm-project.github.io/issues/{SPEC_FILE}",
        f"https://raw.githubusercontent.com/someone/fork/main/{SPEC_FILE}",
    ],
)
def test_other_github_links_find_nothing(catalog, url):
    assert resolve_link(catalog, url).kind == "other"


@pytest.mark.parametrize(
    "url",
    [
        "https://vllm-project.github.io/2026/02/03/dsr1-gb200.html",
        "https://blog.vllm.ai/2026/02/03/dsr1-gb200.html?utm_source=x#part-1",
        "https://blog.vllm.ai/2026/02/03/dsr1-gb200/",
        "https://vllm-project.github.io/2026/02/03/dsr1-gb200-part1.html",
    ],
)
def test_an_old_link_the_blog_redirects_finds_the_post(catalog, url):
    target = resolve_link(catalog, url)
    assert (target.kind, target.post_id) == ("post", "wide-ep-blackwell-part-1")


@pytest.mark.parametrize(
    "url",
    [
        "https://vllm-project.github.io/community/tools/2026/01/02/introducing-vllm-playground.html",
        "https://blog.vllm.ai/community/tools/2026/01/02/introducing-vllm-playground/?utm_medium=slack",
        "http://www.vllm-project.github.io/community/tools/2026/01/02/introducing-vllm-playground#install",
    ],
)
def test_a_permalink_with_the_posts_categories_finds_the_post(catalog, url):
    target = resolve_link(catalog, url)
    assert (target.kind, target.post_id) == ("post", "vllm-playground")


@pytest.mark.parametrize(
    "url",
    [
        "https://vllm-project.github.io/",
        "https://blog.vllm.ai",
        "https://blog.vllm.ai/about/",
        "https://blog.vllm.ai/feed.xml",
    ],
)
def test_blog_pages_that_are_no_post_are_blog_pages(catalog, url):
    assert resolve_link(catalog, url).kind == "blog"


def _front_matter() -> dict[tuple[str, str], str]:
    """``(date, slug) -> url`` of every post of the blog source (the reference facts)."""
    rows = csv.DictReader(eval_file("blog-front-matter.tsv", "reference").open(encoding="utf-8"), delimiter="\t")
    return {(row["date"], row["slug"]): row["url"] for row in rows}


def test_every_blog_post_with_a_url_maps_to_its_source_file(catalog):
    """The file name derived from the published day and the URL is a file of the blog source,
    and a GitHub link to that file finds the post (every catalog post with a blog URL)."""
    known = _front_matter()
    checked = 0
    for post in catalog.posts:
        if post.source.kind != "vllm-blog" or not post.url:
            continue
        name = source_file_name(post)
        assert name is not None, post.id
        date, slug = name[:10], name[11:].removesuffix(".md")
        assert (date, slug) in known, (post.id, name)
        for url in (
            f"https://github.com/{BLOG_SOURCE_REPO}/blob/main/_posts/{name}",
            f"https://raw.githubusercontent.com/{BLOG_SOURCE_REPO}/main/_posts/{name}",
        ):
            assert resolve_link(catalog, url).post_id == post.id, url
        checked += 1
    assert checked >= 120


def test_source_file_names_need_a_day_and_a_blog_url(catalog):
    spec = catalog.post("spec-decode")
    assert source_file_name(spec) == "2024-10-17-spec-decode.md"
    assert source_file_name(catalog.post("vllm-playground")) == "2026-01-02-introducing-vllm-playground.md"
    assert source_file_name(spec.model_copy(update={"url": None})) is None
    ranged = spec.model_copy(update={"published": Published.model_validate({"from": "2026-08-14", "to": "2026-11-30"})})
    assert source_file_name(ranged) is None


def test_a_link_inside_punctuation_or_a_sentence_finds_its_post() -> None:
    """QA (issue 26): links pasted in brackets, before a full stop or comma, or inside a question."""
    from bot.config import DEFAULT_CATALOG_DIR
    from bot.domain.catalog import load_catalog
    from bot.domain.search.links import LinkIndex
    from bot.domain.search.vocabulary import default_vocabulary

    resolve = LinkIndex(load_catalog(DEFAULT_CATALOG_DIR), default_vocabulary()).resolve
    url = "https://vllm-project.github.io/2026/03/13/p-eagle.html"
    for text in (url + ".", f"({url})", url + ",", f"have you read {url} ?", f"“{url}”", url + "。"):
        found = resolve(text)
        assert found is not None and found.status == "post" and found.post_id == "p-eagle", text
    assert resolve(f"{url} and {url.replace('p-eagle', 'spec-decode')}") is None  # two links: no one answer
    assert resolve("torch.compile.") is None  # a dotted word is still no link
