"""Every post gives a reader a way to read it: the article, a company article's summary page, or
the blog's archive page; dates with only a known start read "after …"."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import ValidationError

from bot.domain.catalog import load_catalog
from bot.domain.catalog.models import Manifest, Post, Published, format_day, format_published
from tests.domain.catalog.helpers import catalog_copy


def post(url: str | None, source: dict | None = None) -> Post:
    return Post.model_validate(
        {
            "id": "p",
            "title": "P",
            "url": url,
            "published": "2026-03-13",
            "source": source or {"kind": "vllm-blog"},
            "summary": {"en": "s"},
        }
    )


def test_archive_url_defaults_to_the_blog_home_and_follows_the_host():
    assert Manifest(version="2026.12.0").archive_url == "https://vllm-project.github.io/"
    moved = Manifest(version="2026.12.0", blog_base_url="https://blog.vllm.ai/")
    assert moved.archive_url == "https://blog.vllm.ai/"
    own = Manifest(version="2026.12.0", blog_archive_url="https://blog.vllm.ai/archive/")
    assert own.archive_url == "https://blog.vllm.ai/archive/"
    with pytest.raises(ValidationError):
        Manifest(version="2026.12.0", blog_archive_url="not a url")


def test_read_link_kinds():
    m = Manifest(version="2026.12.0", blog_base_url="https://blog.vllm.ai")
    assert post("/2026/03/13/x.html").read_link(m) == ("https://blog.vllm.ai/2026/03/13/x.html", "article")
    assert post("https://developers.redhat.com/x").read_link(m) == ("https://developers.redhat.com/x", "article")
    company = {"kind": "company", "name": "Red Hat"}
    assert post("https://yomu.fyi/post/x.md", company).read_link(m) == ("https://yomu.fyi/post/x.md", "summary")
    assert post("https://www.yomu.fyi/post/x.md", company).read_link(m)[1] == "summary"
    assert post("https://notyomu.fyi/x", company).read_link(m)[1] == "article"
    assert post(None).read_link(m) == ("https://blog.vllm.ai/", "archive")


def test_every_post_of_the_catalog_has_a_link(tmp_path):
    cat = load_catalog(catalog_copy(tmp_path / "catalog"))
    kinds = {}
    for p in cat.posts:
        url, kind = p.read_link(cat.manifest)
        assert url.startswith("https://")
        kinds[p.id] = kind
        if kind == "article":
            assert url == cat.url_of(p)
    assert {pid for pid, k in kinds.items() if k == "archive"} == {p.id for p in cat.posts if p.url is None}
    assert {pid for pid, k in kinds.items() if k == "summary"} == {
        p.id for p in cat.posts if p.url and p.url.startswith("https://yomu.fyi/")
    }


def test_dates_for_readers():
    assert format_day(dt.date(2026, 8, 4)) == "4 Aug 2026"
    assert format_day(dt.date(2026, 8, 4), "zh") == "2026年8月4日"
    day = Published.model_validate("2026-03-13")
    assert format_published(day) == "13 Mar 2026" and day.display("zh") == "2026年3月13日"
    rng = Published.model_validate({"from": "2026-08-14", "to": "2026-11-30"})
    assert format_published(rng) == "after 14 Aug 2026"
    assert format_published(rng, "zh") == "2026年8月14日之后"
    assert rng.label() == "2026-08-14..2026-11-30"  # the ISO label is unchanged
