"""Rendered parts reused across replies (:mod:`bot.slack.views.parts`): a reply rendered from
the cache equals one rendered afresh, callers cannot change each other's replies, and two
catalogs with the same version never share parts."""

from __future__ import annotations

import shutil
from pathlib import Path

from bot.catalog import load_catalog
from bot.config import DEFAULT_CATALOG_DIR
from bot.slack.views import messages as views
from bot.slack.views import parts


def _fresh_render(monkeypatch, render):
    """``render()`` with every part made anew (no table to read from)."""
    with monkeypatch.context() as m:
        m.setattr(parts, "piece", lambda catalog, key, make: make())
        return render()


def test_cached_track_replies_equal_fresh_ones(monkeypatch) -> None:
    cat = load_catalog(DEFAULT_CATALOG_DIR)
    order = cat.order("spec")
    cases = [(set(), False), ({order[0]}, True), (set(order), False), ({order[1]}, False)]
    for lang in ("en", "zh"):
        for read, followed in cases:
            def render(read=read, followed=followed, lang=lang):
                return views.track_reply(cat, "spec", read, lang, followed=followed)
            first, second = render(), render()  # the second comes from the table
            assert first == second == _fresh_render(monkeypatch, render)


def test_a_reply_changed_by_its_caller_leaves_the_next_one_alone() -> None:
    cat = load_catalog(DEFAULT_CATALOG_DIR)
    first = views.track_reply(cat, "spec", set(), "en", followed=False)
    expected = views.track_reply(cat, "spec", set(), "en", followed=False)
    first.blocks[0]["text"]["text"] = "changed"
    first.blocks[-1]["elements"].clear()
    assert views.track_reply(cat, "spec", set(), "en", followed=False) == expected


def test_catalogs_with_the_same_version_do_not_share_parts(tmp_path: Path) -> None:
    target = tmp_path / "catalog"
    shutil.copytree(DEFAULT_CATALOG_DIR, target)
    real = load_catalog(DEFAULT_CATALOG_DIR)
    title = real.post("p-eagle").title
    posts = target / "posts" / "vllm-blog.yaml"
    posts.write_text(posts.read_text(encoding="utf-8").replace(title, "Another title"),
                     encoding="utf-8")
    other = load_catalog(target)
    assert other.version == real.version
    track = real.tracks_of("p-eagle")[0]
    before = views.track_reply(real, track, set(), "en", followed=False)
    after = views.track_reply(other, track, set(), "en", followed=False)
    assert title in str(before.blocks) and title not in str(after.blocks)
    assert "Another title" in str(after.blocks)
