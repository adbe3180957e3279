"""Issue 25: the public path pages through the real HTTP door: ``/paths`` lists every track with
its essential path's minutes, ``/paths/<track>`` shows the picture (an SVG drawn from the catalog
that loads), every essential step's title and link, the further reading and the tracks to read
before; Chinese by ``?lang=zh`` or ``Accept-Language``; an unknown track is a 404 page; no
reader's data ever shows."""

from __future__ import annotations

import html
import re
import shutil
import urllib.request

import pytest

from bot.domain import paths
from tests.e2e.slack_requests import HttpResult, get

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


@pytest.fixture
def door(tmp_path, standin):
    from bot.doors.serve import serve_http
    from bot.runtime import Runtime
    from tests.e2e.conftest import e2e_settings

    runtime = Runtime.create(e2e_settings(tmp_path, standin))
    served = serve_http(runtime, "127.0.0.1", 0, background=True)
    yield served, runtime
    served.close()
    runtime.store.close()


def _get(url: str, accept_language: str) -> HttpResult:
    from tests.e2e.slack_requests import _open

    return _open(urllib.request.Request(url, headers={"Accept-Language": accept_language}), 10.0)


def test_the_index_lists_every_track_with_its_essential_minutes(door) -> None:
    served, runtime = door
    catalog = runtime.holder.catalog
    page = get(served.url + "/paths")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    text = html.unescape(page.text)
    for track in catalog.tracks:
        ess = paths.essentials(catalog, track.id)
        minutes, _ = paths.total_minutes(catalog, ess)
        assert f'href="/paths/{track.id}"' in page.text and track.names.en in text
        assert re.search(
            rf"{track.names.en}</strong></a>\s*<span class=\"minutes\">Essential path: "
            rf"{len(ess)} steps · (about )?{minutes} min",
            text,
        ), track.id


@needs_dot
def test_the_spec_page_shows_its_picture_steps_links_and_before(door) -> None:
    served, runtime = door
    catalog = runtime.holder.catalog
    page = get(served.url + "/paths/spec")
    assert page.status == 200
    text = html.unescape(page.text)
    for pid in paths.essentials(catalog, "spec"):
        post = catalog.post(pid)
        url, kind = post.read_link(catalog.manifest)
        assert post.title in text
        if kind != "archive":
            assert f'href="{url}"' in text
    for pid in paths.further(catalog, "spec"):
        assert catalog.post(pid).title in text
    for before in catalog.track("spec").before:
        assert f'href="/paths/{before}"' in page.text
    img = re.search(r'<img src="([^"]+)" alt="([^"]+)">', page.text)
    assert img and img.group(1) == "/paths/spec.svg"
    assert "essential steps" in html.unescape(img.group(2))
    picture = get(served.url + img.group(1))
    assert picture.status == 200 and picture.headers["content-type"] == "image/svg+xml"
    assert picture.body.lstrip().startswith(b"<?xml") and b"<svg" in picture.body
    assert get(served.url + "/paths/spec.png").body[:8] == b"\x89PNG\r\n\x1a\n"


def test_chinese_by_query_and_by_accept_language(door) -> None:
    served, runtime = door
    name = runtime.holder.catalog.track("spec").names.zh
    by_query = get(served.url + "/paths/spec?lang=zh")
    assert by_query.status == 200 and "核心路径" in by_query.text and name in by_query.text
    assert 'src="/paths/spec.svg?lang=zh"' in by_query.text and '<html lang="zh-Hans">' in by_query.text
    by_header = _get(served.url + "/paths/spec", "zh-CN,zh;q=0.9,en;q=0.8")
    assert "核心路径" in by_header.text
    english = _get(served.url + "/paths/spec", "de-DE,en;q=0.5,zh;q=0.1")
    assert "Essential path" in english.text and "核心路径" not in english.text
    assert "Essential path" in _get(served.url + "/paths/spec?lang=en", "zh-CN").text


def test_an_unknown_track_is_a_404_page(door) -> None:
    served, _ = door
    for path in ("/paths/nope", "/paths/spec/extra", "/paths/nope.svg"):
        page = get(served.url + path)
        assert page.status == 404, path
    page = get(served.url + "/paths/nope")
    assert "No such page" in page.text and 'href="/paths"' in page.text


def test_the_pages_never_show_a_reader(door) -> None:
    served, runtime = door
    runtime.store.mark_read("T0READER", "U0READER", list(runtime.holder.catalog.order("spec")[:3]))
    for path in ("/paths", "/paths/spec"):
        text = get(served.url + path).text
        assert "U0READER" not in text and "✓" not in text


def test_a_signed_picture_url_is_still_the_readers_picture(door) -> None:
    served, _ = door
    assert get(served.url + "/paths/spec.png?read=spec-decode&sig=forged").status == 403
