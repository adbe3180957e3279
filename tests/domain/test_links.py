"""bot.domain.links: shared URLs -> catalog posts, on both blog hosts and yomu.fyi (pure, real catalog)."""

from __future__ import annotations

import pytest

from bot.config import REPO_ROOT
from bot.domain.catalog import load_catalog
from bot.domain.links import blog_hosts, resolve_link, unfurl_domains


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(REPO_ROOT / "catalog")


@pytest.mark.parametrize("url", [
    "https://vllm-project.github.io/2024/10/17/spec-decode.html",
    "http://www.vllm-project.github.io/2024/10/17/spec-decode.html/",
    "https://blog.vllm.ai/2024/10/17/spec-decode.html?utm_source=slack#results",
    "<https://BLOG.vllm.ai/2024/10/17/spec-decode.html|the post>",
    "http://vllm-project.github.io/2024/10/17/spec-decode",
    "https://blog.vllm.ai/2024/10/17/spec-decode/",
])
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
    assert blog_hosts(catalog) == ("vllm-project.github.io", "blog.vllm.ai")
    assert set(unfurl_domains(catalog)) == {"vllm-project.github.io", "blog.vllm.ai", "yomu.fyi"}
