"""Escaping by construction: catalog text with mrkdwn syntax comes out inert everywhere.

A post titled ``*bold* _it_ ~s~ <!here> a|b & c`` goes through every reply that shows it (track
view, search, read, next, App Home) and both digests; no text field may carry a mention, a link
split by its ``|``, a raw ``&``, or a formatting mark that could pair up with another.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.config import DEFAULT_CATALOG_DIR, Settings
from bot.domain.catalog import load_catalog
from bot.doors.console import open_console
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, esc
from bot.slack.views.blocks import section
from bot.slack.views.digest import compose_channel_digest, preview_subscription
from bot.slack.views.digest_render import RENDERER

HOSTILE = "*bold* _it_ ~s~ <!here> a|b & c"
POST = "p-eagle"
WJ = "\u2060"


@pytest.fixture(scope="module")
def catalog_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("hostile") / "catalog"
    shutil.copytree(DEFAULT_CATALOG_DIR, target)
    posts = target / "posts" / "vllm-blog.yaml"
    text = posts.read_text(encoding="utf-8")
    old = "  title: 'P-EAGLE: Faster LLM inference with Parallel Speculative Decoding in vLLM'"
    assert old in text
    posts.write_text(text.replace(old, f"  title: '{HOSTILE}'"), encoding="utf-8")
    return target


def _mrkdwn_texts(node: Any, top: bool = True) -> Iterator[str]:
    """Every mrkdwn string Slack would parse in a message or view: ``mrkdwn`` text objects and
    the message's top-level ``text``."""
    if isinstance(node, dict):
        if node.get("type") == "mrkdwn" and isinstance(node.get("text"), str):
            yield node["text"]
        if top and isinstance(node.get("text"), str):
            yield node["text"]
        for key, value in node.items():
            if key != "text" or isinstance(value, (dict, list)):
                yield from _mrkdwn_texts(value, top=False)
    elif isinstance(node, list):
        for value in node:
            yield from _mrkdwn_texts(value, top=False)


def assert_inert(texts: list[str]) -> None:
    shown = [x for x in texts if "!here" in x]
    assert shown, "the hostile title is not shown at all"
    for text in shown:
        assert "<!" not in text and "@here" not in text, text
        # every '<' opens one of our links, whose label holds no '|' and no '<'
        for m in re.finditer(r"<([^>]*)>", text):
            target, _, label = m.group(1).partition("|")
            assert target.startswith("http") and "|" not in label, text
        assert re.search(r"&(?!amp;|lt;|gt;)", text) is None, text
        assert "&amp; c" in text, text
        # no formatting mark of the title touches its word (fenced by word joiners, or dropped
        # from the fallback text), so none can pair up into bold, italic or strike
        for mark, word in (("*", "bold"), ("_", "it"), ("~", "s")):
            assert f"{mark}{word}" not in text and f"{word}{mark}" not in text, (mark, text)
        assert f"{WJ}*{WJ}bold" in text or f"{WJ}{WJ}bold" in text, text


def test_mrkdwn_type_escapes_unless_marked_safe() -> None:
    assert str(esc("a & b <c>")) == "a &amp; b &lt;c&gt;"
    assert esc(esc("&")) == "&amp;"  # escaping is idempotent on Mrkdwn
    assert Mrkdwn("*{}*").format("<!channel>") == "*&lt;!channel&gt;*"
    assert Mrkdwn(", ").join(["a&b", Mrkdwn("<u|x>")]) == "a&amp;b, <u|x>"
    assert str(t("read.no_match", "en", query="<!here>")).count("&lt;!here&gt;") == 1
    assert section("a & b")["text"]["text"] == "a &amp; b"  # a plain str is text
    assert section(Mrkdwn("*a*"))["text"]["text"] == "*a*"
    assert esc("America/Los_Angeles") == "America/Los_Angeles"  # inner marks cannot format


def test_a_hostile_title_is_inert_in_every_reply(catalog_dir: Path, tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'h.db'}", catalog_dir=catalog_dir, _env_file=None)
    texts: list[str] = []
    with open_console(settings) as console:
        for command in ("spec", "bold it", f"read {POST}", f"unread {POST}", "follow spec", "next"):
            for printed in console.command(command):
                texts.extend(_mrkdwn_texts(printed.raw))
        for printed in console.home():
            texts.extend(_mrkdwn_texts(printed.raw))
    assert_inert(texts)


def test_a_hostile_title_is_inert_in_digests(catalog_dir: Path) -> None:
    catalog = load_catalog(catalog_dir)
    position = catalog.order("spec").index(POST)
    digest = compose_channel_digest(catalog, preview_subscription("spec", 1, cursor=position))
    assert digest.reply is not None
    texts = list(_mrkdwn_texts(digest.reply.payload()))
    before = set(catalog.order("spec")[:position])
    dm = RENDERER.dm_digest(catalog, ["spec"], before, "en")
    assert dm is not None
    texts += list(_mrkdwn_texts(dm.payload()))
    assert_inert(texts)
