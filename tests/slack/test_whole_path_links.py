"""Issue 25: with ``PUBLIC_URL`` set, the track reply's path line and the channel digest's footer
link to the public path page ("see the whole path"); without it they do not."""

from __future__ import annotations

import datetime as dt
import json

from bot.config import DEFAULT_CATALOG_DIR, Settings
from bot.domain.catalog import load_catalog
from bot.domain.paths import track_state
from bot.slack.views import messages as views
from bot.slack.views.digest import compose_channel_digest, preview_subscription
from bot.slack.views.plan import path_line
from bot.web.urls import path_page_url

CATALOG = load_catalog(DEFAULT_CATALOG_DIR)
TODAY = dt.date(2026, 12, 1)


def _settings(**values) -> Settings:
    return Settings(_env_file=None, **values)


def test_the_page_url_needs_the_public_url() -> None:
    assert path_page_url(_settings(), "spec") is None
    assert (
        path_page_url(_settings(public_url="https://paths.example.com/"), "spec")
        == "https://paths.example.com/paths/spec"
    )
    assert (
        path_page_url(_settings(public_url="https://paths.example.com"), "spec", "zh")
        == "https://paths.example.com/paths/spec?lang=zh"
    )


def test_the_track_reply_links_the_whole_path() -> None:
    url = path_page_url(_settings(public_url="https://paths.example.com"), "spec")
    line = path_line(CATALOG, track_state(CATALOG, "spec", set()), None, TODAY, "en", url)
    assert "<https://paths.example.com/paths/spec|see the whole path>" in line
    assert "see the whole path" not in path_line(CATALOG, track_state(CATALOG, "spec", set()), None, TODAY, "en")
    zh = path_line(CATALOG, track_state(CATALOG, "spec", set()), None, TODAY, "zh", url + "?lang=zh")
    assert "|查看完整路径>" in zh
    reply = views.track_reply(CATALOG, track_state(CATALOG, "spec", set()), "en", followed=False, path=line)
    assert "<https://paths.example.com/paths/spec|see the whole path>" in json.dumps(reply.blocks)


def test_the_channel_digest_links_the_whole_path_in_its_footer() -> None:
    sub = preview_subscription("spec")
    url = "https://paths.example.com/paths/spec"
    with_link = compose_channel_digest(CATALOG, sub, page_url=url).reply
    footer = with_link.blocks[-1]
    assert footer["type"] == "context"
    assert footer["elements"][0]["text"].endswith(f" · <{url}|see the whole path>")
    assert len(footer["elements"][0]["text"]) <= 3000
    without = compose_channel_digest(CATALOG, sub).reply
    assert "see the whole path" not in json.dumps(without.blocks)
