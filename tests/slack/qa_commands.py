"""What the QA-round command tests (``tests/slack/test_qa1[6-9]_commands.py``) share: an SQLite-only
database, a caller, the real handlers and readers of their replies."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.slack.views.blocks import decode_value
from tests.dbutil import migrated_database_url

ALICE = Caller("T1", "U1", "C1")


@pytest.fixture
def any_migrated_db_url(tmp_path: Path) -> Iterator[str]:
    """SQLite only: these tests read the grammar and the replies; the store's SQL they reach runs on
    both databases in the store's and the handlers' own tests (the suite's time: issue 43). Imported
    by a test module, it replaces the conftest's two-database fixture there."""
    with migrated_database_url("sqlite", tmp_path) as url:
        yield url


def handlers(runtime: Any, locale: str | None = None, names: Mapping[str, str] | None = None) -> Handlers:
    """The real handlers of ``runtime``, every person's ``users.info`` saying ``locale`` and their
    name in ``names`` (None: no locale, no name)."""
    return Handlers(runtime, users_info=lambda team, user: UserInfo(locale=locale, name=(names or {}).get(user)))


def body(reply: Any) -> str:
    """``reply``'s Slack payload as JSON text (Chinese kept as typed)."""
    return json.dumps(reply.payload(), ensure_ascii=False)


def finish(h: Handlers, cat: Catalog, track: str) -> str:
    """The reply's text when :data:`ALICE` marks every essential step of ``track`` read at once."""
    return h.command(ALICE, "read " + " ".join(paths.essentials(cat, track))).text


def buttons(reply: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """Every button of ``reply``: (action id's kind, label, decoded value)."""
    found = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "button":
                kind = str(node.get("action_id", "")).split(":", 1)[0]
                found.append((kind, str(node["text"]["text"]), decode_value(node.get("value"))))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(reply.blocks)
    return found
