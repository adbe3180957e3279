"""QA round 6: the public path page's picture (``/paths/<track>`` inline, ``/paths/<track>.svg``)
shows no internal id on hover: Graphviz's ``<title>`` elements (tooltips) carry the words each
element shows, or nothing (real router, real catalog, real Graphviz)."""

from __future__ import annotations

import html
import re

import pytest

from bot.web.routes import routes

TOOLTIPS = re.compile(r'<title>(.*?)</title>|xlink:title="([^"]*)"', re.S)


def _tooltips(body: str) -> list[str]:
    return [html.unescape(a or b) for a, b in TOOLTIPS.findall(body)]


@pytest.mark.parametrize("path", ["/paths/spec", "/paths/spec.svg", "/paths/pd?lang=zh"])
def test_the_picture_shows_no_internal_id_on_hover(sqlite_runtime, path: str) -> None:
    catalog = sqlite_runtime.holder.catalog
    route = routes(sqlite_runtime)
    where, _, query = path.partition("?")
    status, _, body = route(where, "GET", {"QUERY_STRING": query})
    assert status.startswith("200")
    text = body.decode("utf-8")
    svg = text[text.find("<svg") :]
    tips = _tooltips(svg)
    assert tips, "the picture has tooltips (its boxes' titles)"
    ids = {p.id for p in catalog.posts} | {t.id for t in catalog.tracks}
    slugs = {i for i in ids if "-" in i or "_" in i}  # ids no title word could be
    for tip in tips:
        assert tip not in ids and not set(re.split(r"\s+|->", tip)) & slugs, tip
        assert "->" not in tip and "track__" not in tip, tip
    track = "spec" if "spec" in path else "pd"
    assert catalog.track(track).names.get("zh" if "zh" in query else "en") in tips  # the picture's own tooltip
    assert "<!--" not in svg  # Graphviz's comments name the node ids
