"""Issues 25 and 40: the public path pages through the real HTTP door: ``/`` redirects to
``/paths``, which lists every track as a card (level, essential steps and minutes) in the suggested
order; ``/paths/<track>`` reads like a course page: the picture inline (an SVG drawn from the
catalog, its boxes linking to the posts; the same picture also served as ``.svg`` and ``.png``),
every essential step's title, link, level, date, source and why it is read here, the time plan at
the default budget, the call to action, the further reading and the tracks to read before, and
its description and Open Graph tags; Chinese by ``?lang=zh`` or ``Accept-Language``; an unknown
track is a 404 page; no reader's data ever shows."""

from __future__ import annotations

import html
import http.client
import re
import shutil
import urllib.request
from urllib.parse import urlsplit

import pytest

from bot.domain import paths
from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.catalog.models import LEVELS
from bot.domain.plan import plan_reader_week
from tests.e2e.slack_requests import HttpResult, get
from tests.messages import messages

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


def _essential_levels(catalog, track_id: str) -> str:
    """The card's level words, from the catalog's steps (not from the page's code)."""
    ess = set(paths.essentials(catalog, track_id))
    levels = sorted({s.level for s in catalog.track(track_id).steps if s.post in ess}, key=LEVELS.index)
    return levels[0] if len(levels) == 1 else f"{levels[0]} to {levels[-1]}"


def test_the_index_lists_every_track_as_a_card_in_a_suggested_order(door) -> None:
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
            rf"{re.escape(track.names.en)}</a></h2>\s*<p class=\"facts\"><span class=\"level\">"
            rf"{_essential_levels(catalog, track.id)}</span> · <span class=\"minutes\">Essential path: "
            rf"{len(ess)} steps · (about )?{minutes} min",
            text,
        ), track.id
    shown = re.findall(r'<li class="card"><h2><a href="/paths/([a-z0-9-]+)"', page.text)
    assert sorted(shown) == sorted(t.id for t in catalog.tracks)
    for i, tid in enumerate(shown):  # a track comes after the tracks it says to read before it
        assert all(shown.index(b) < i for b in catalog.track(tid).before if b in shown), tid
    assert not catalog.track(shown[0]).before
    assert 'property="og:title" content="Reading paths through the vLLM blog"' in page.text


def test_the_front_page_redirects_to_the_paths(door) -> None:
    served, _ = door
    host = urlsplit(served.url)
    for path, where in (("/", "/paths"), ("/?lang=zh", "/paths?lang=zh")):
        conn = http.client.HTTPConnection(host.hostname, host.port, timeout=10)
        try:
            conn.request("GET", path)
            answer = conn.getresponse()
            assert (answer.status, answer.getheader("Location")) == (302, where), path
        finally:
            conn.close()
    assert get(served.url + "/").status == 200  # followed


@needs_dot
def test_the_spec_page_shows_its_picture_steps_links_and_before(door) -> None:
    served, runtime = door
    catalog = runtime.holder.catalog
    page = get(served.url + "/paths/spec")
    assert page.status == 200
    text = html.unescape(page.text)
    svg = re.search(r'<svg class="path-picture".*?</svg>', page.text, re.S)
    assert svg and "<?xml" not in page.text and "<!DOCTYPE svg" not in page.text
    for pid in paths.essentials(catalog, "spec"):
        post = catalog.post(pid)
        url, kind = post.read_link(catalog.manifest)
        assert post.title in text
        assert f'xlink:href="{html.escape(url)}"' in svg.group(0), pid  # its box links to the post
        if kind != "archive":
            assert f'href="{url}"' in text
    for pid in paths.further(catalog, "spec"):
        assert catalog.post(pid).title in text
    for before in catalog.track("spec").before:
        assert f'href="/paths/{before}"' in page.text
    region = re.search(r'<div class="picture" role="region" tabindex="0" aria-label="([^"]+)">', page.text)
    assert region and "essential steps" in html.unescape(region.group(1))
    picture = get(served.url + "/paths/spec.svg")
    assert picture.status == 200 and picture.headers["content-type"] == "image/svg+xml"
    assert picture.body.lstrip().startswith(b"<?xml") and b"<svg" in picture.body
    assert get(served.url + "/paths/spec.png").body[:8] == b"\x89PNG\r\n\x1a\n"


def _step_item(page_text: str, number: int) -> str:
    item = re.search(rf'<li value="{number}"><(?:a|span) id="step-{number}"(.*?)</li>', page_text, re.S)
    assert item, number
    return html.unescape(item.group(1))


@needs_dot
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_spec_page_reads_like_a_course(door, lang) -> None:
    served, runtime = door
    catalog = runtime.holder.catalog
    page = get(served.url + "/paths/spec" + ("?lang=zh" if lang == "zh" else ""))
    assert page.status == 200
    path = paths.track_path(catalog, "spec")
    words = messages(lang)
    for step in path.steps:  # why read it here, level, date, source, minutes
        item = _step_item(page.text, step.number)
        if step.step.note:
            assert " ".join(step.step.note.get(lang).split()) in " ".join(item.split()), step.post_id
        assert step.post.published.display(lang) in item and step.post.source.label(lang) in item
        level = words[f"level.{step.level}"] if step.essential else words["budget.further"]  # never "core" there
        assert f'<span class="level">{level}</span>' in item, step.post_id
    assert sum(1 for s in path.steps if s.step.note) >= 5
    # the time plan: week 1 is what the reader-week rule gives a reader starting the track
    weeks = re.findall(r'<li class="week">(.*?)</ul></li>', page.text, re.S)
    first = [pid for _tid, pid in plan_reader_week(catalog, ["spec"], [], DEFAULT_MINUTES)]
    assert weeks and re.findall(r'href="#step-(\d+)"', weeks[0]) == [str(path.step(p).number) for p in first]
    shown = [int(n) for w in weeks for n in re.findall(r'href="#step-(\d+)"', w)]
    assert set(s.number for s in path.essentials) <= set(shown) and len(shown) == len(set(shown))
    plan_head = "每周 45 分钟的时间安排" if lang == "zh" else "Time plan at 45 min a week"
    assert plan_head in page.text
    command = '<aside class="cta"' in page.text and "<code>/vllm-path follow spec</code>" in page.text
    assert command and 'href="/slack/install"' not in page.text  # no OAuth here: no install link
    assert re.search(r'<meta property="og:title" content="[^"]+">', page.text)
    assert re.search(r'<meta name="description" content="[^"]{40,}">', page.text)
    assert 'property="og:url"' not in page.text  # no public URL configured


def test_the_open_graph_url_follows_the_public_url(tmp_path, standin) -> None:
    from bot.doors.serve import serve_http
    from bot.runtime import Runtime
    from tests.e2e.conftest import e2e_settings

    runtime = Runtime.create(e2e_settings(tmp_path, standin, public_url="https://paths.example"))
    served = serve_http(runtime, "127.0.0.1", 0, background=True)
    try:
        page = get(served.url + "/paths/spec?lang=zh").text
        assert '<meta property="og:url" content="https://paths.example/paths/spec?lang=zh">' in page
        assert '<meta property="og:url" content="https://paths.example/paths">' in get(served.url + "/paths").text
    finally:
        served.close()
        runtime.store.close()


@needs_dot
def test_chinese_by_query_and_by_accept_language(door) -> None:
    served, runtime = door
    name = runtime.holder.catalog.track("spec").names.zh
    by_query = get(served.url + "/paths/spec?lang=zh")
    assert by_query.status == 200 and "核心路径" in by_query.text and name in by_query.text
    assert f">{name}</text>" in by_query.text and '<html lang="zh-Hans">' in by_query.text  # the picture too
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


def test_a_track_named_as_the_bot_accepts_it_leads_to_its_page(door) -> None:
    """(QA) ``/paths/speculative`` and ``/paths/SPEC`` were 404 though ``/vllm-path`` takes them."""
    import http.client
    from urllib.parse import quote, urlsplit

    served, runtime = door
    track = runtime.holder.catalog.track("spec")
    where = urlsplit(served.url)
    for name in map(quote, ("SPEC", *track.aliases, track.names.en)):
        if name == "spec":
            continue
        conn = http.client.HTTPConnection(where.hostname, where.port, timeout=10)
        conn.request("GET", f"/paths/{name}?lang=zh")
        answer = conn.getresponse()
        assert (answer.status, answer.getheader("Location")) == (301, "/paths/spec?lang=zh"), name
        conn.close()
    assert get(served.url + "/paths/SPEC").status == 200
