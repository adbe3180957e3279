"""The path as a picture: a valid PNG (decoded header and size) and SVG, the CLI that writes one,
and the signed URL the HTTP door serves (a real waitress server)."""

from __future__ import annotations

import itertools
import struct
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
import zlib
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.domain import paths
from bot.domain.picture import path_graph
from bot.doors.serve import HttpDoor
from bot.pictures import render, signed_url
from bot.runtime import Runtime
from bot.slack.app import build_app
from tests.digest.conftest import settings_for
from tests.standin import SlackStandIn

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, checking the signature and the chunk's CRC."""
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    body = data[16 : 16 + length]
    (crc,) = struct.unpack(">I", data[16 + length : 20 + length])
    assert crc == zlib.crc32(kind + body)
    width, height = struct.unpack(">II", body[:8])
    assert data.rstrip(b"\0").endswith(b"IEND\xaeB`\x82")
    return width, height


def test_the_graph_has_essentials_in_order_further_reading_and_marks(repo_catalog) -> None:
    ess = paths.essentials(repo_catalog, "spec")
    g = path_graph(repo_catalog, "spec", read=[ess[0]])
    assert [n.id for n in g.nodes if n.kind == "essential"] == list(ess)
    assert [(a, b) for a, b, k in g.edges if k == "path"] == list(itertools.pairwise(ess))
    further = [n for n in g.nodes if n.kind == "further"]
    assert [n.id for n in further] == list(paths.further(repo_catalog, "spec"))
    assert {n.id: n.read for n in g.nodes}[ess[0]] is True and further[0].read is False
    assert all(n.read is None for n in path_graph(repo_catalog, "spec").nodes)
    assert any(not n.linked and "no link yet" in n.label for n in path_graph(repo_catalog, "pd").nodes)


def test_render_png_and_svg(repo_catalog) -> None:
    width, height = png_size(render(repo_catalog, "spec", "png", read=["spec-decode"]))
    assert 300 < width < 5000 and 300 < height < 8000
    svg = ET.fromstring(render(repo_catalog, "pd", "svg"))
    assert svg.tag.endswith("svg")
    texts = " ".join(t.text or "" for t in svg.iter() if t.tag.endswith("text"))
    assert "PD disaggregated serving" in texts


def test_path_image_writes_the_file_the_suffix_names_and_says_where(tmp_path) -> None:
    runner = CliRunner()
    out = tmp_path / "spec.png"
    result = runner.invoke(main, ["path-image", "spec", "--read", "spec-decode", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert str(out.resolve()) in result.output
    png_size(out.read_bytes())
    svg = tmp_path / "pd.svg"
    assert runner.invoke(main, ["path-image", "pd", "-o", str(svg)]).exit_code == 0
    assert ET.parse(svg).getroot().tag.endswith("svg")
    assert runner.invoke(main, ["path-image", "pd", "-o", str(tmp_path / "pd.gif")]).exit_code == 2
    assert runner.invoke(main, ["path-image", "pd", "--read", "nope", "-o", str(svg)]).exit_code == 2


def test_the_http_door_serves_a_signed_picture_and_refuses_a_changed_one(sqlite_url_plan) -> None:
    with SlackStandIn(team_id="T1") as standin:
        settings = settings_for(
            sqlite_url_plan, standin, public_url="https://paths.example.com", picture_url_secret="k"
        )
        runtime = Runtime.create(settings)
        _serve_pictures(runtime, settings)


def _serve_pictures(runtime, settings) -> None:
    try:
        cat = runtime.holder.catalog
        url = signed_url(settings, cat, "spec", ["spec-decode", "not-in-spec"])
        query = parse_qs(urlsplit(url).query)
        assert query["read"] == ["spec-decode"]
        with HttpDoor(runtime, build_app(runtime), port=0) as door:
            local = door.url + urlsplit(url).path + "?" + urlsplit(url).query
            with urllib.request.urlopen(local, timeout=30) as resp:
                assert resp.status == 200 and resp.headers["Content-Type"] == "image/png"
                reader_png = resp.read()
                png_size(reader_png)
            forged = (
                door.url
                + "/paths/spec.png?"
                + urlencode({"read": "spec-decode,anatomy-of-vllm", "sig": query["sig"][0]})
            )
            for bad in (
                forged,
                door.url + "/paths/spec.png?read=&sig=00",
                door.url + "/paths/spec.png?read=spec-decode",
            ):
                with pytest.raises(urllib.error.HTTPError) as err:
                    urllib.request.urlopen(bad, timeout=30)
                assert err.value.code == 403
            # Without a reader's read set the picture is the public, catalog-only one (the path page's).
            with urllib.request.urlopen(door.url + "/paths/spec.png", timeout=30) as resp:
                assert resp.status == 200 and resp.headers["Content-Type"] == "image/png"
                assert resp.read() != reader_png
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(door.url + "/paths/nope.png", timeout=30)
            assert err.value.code == 404
    finally:
        runtime.store.close()


@pytest.fixture
def sqlite_url_plan(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'plan.db'}"


def test_the_console_says_where_it_saved_the_picture(runtime, tmp_path, monkeypatch) -> None:
    from bot.doors.console import handle, open_console

    monkeypatch.chdir(tmp_path)
    with open_console(runtime=runtime) as console:
        console.command("read spec-decode")
        keep, out = handle(console, "picture spec")
        assert keep and "Usage: picture <track>" in handle(console, "picture")[1]
    where = tmp_path / "vllm-path-spec.png"
    assert out == f"Saved the picture of your Speculative decoding path to {where.resolve()}"
    png_size(where.read_bytes())


def test_the_console_picture_follows_the_readers_language(runtime, tmp_path, monkeypatch) -> None:
    """QA: after ``lang zh`` the picture's title, minutes and "no link yet" and the confirmation were English."""
    from bot.doors.console import handle, open_console

    monkeypatch.chdir(tmp_path)
    with open_console(runtime=runtime) as console:
        team, user = console.team_id, console.user_id
        console.command("lang zh")
        _keep, out = handle(console, "picture pd")
        usage = handle(console, "picture")[1]
    where = (tmp_path / "vllm-path-pd.png").resolve()
    catalog = runtime.holder.catalog
    assert out == f"你的「{catalog.track('pd').names.zh}」路径图已保存到 {where}"
    assert usage.startswith("用法：picture")
    drawn = where.read_bytes()
    png_size(drawn)
    read = runtime.store.read_posts(team, user)
    assert drawn == render(catalog, "pd", "png", read, lang="zh")  # Chinese title, 分钟, 尚无链接
    assert drawn != render(catalog, "pd", "png", read, lang="en")


def test_a_chinese_picture_says_its_minutes_and_missing_links_in_chinese(repo_catalog) -> None:
    """(QA) ``/paths/spec.svg?lang=zh`` read ``7 min`` and ``no link yet`` in its boxes."""
    svg = render(repo_catalog, "spec", "svg", lang="zh").decode("utf-8")
    assert "分钟" in svg and "尚无链接" in svg  # spec has a step with no link yet
    assert " min" not in svg and "no link yet" not in svg
    english = render(repo_catalog, "spec", "svg", lang="en").decode("utf-8")
    assert " min" in english and "no link yet" in english
