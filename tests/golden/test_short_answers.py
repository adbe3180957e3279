"""Small actions answer in a line or two (issue 40): ``follow``, ``read``, a *Mark read* click and
``remind`` answer with at most 4 blocks naming the next step, its minutes and the minutes left of
the essential path, worked out here from the catalog; the whole path only when asked (*Open path*).

``data/short-answers-<lang>.json`` records the payloads. Regenerate with ``UPDATE_GOLDEN=1`` only
when an answer changes on purpose, and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.config import Settings
from bot.runtime import Runtime
from bot.slack.handlers import Caller, Handlers
from bot.slack.views.blocks import Reply
from tests.golden.test_golden import _compare, frozen_clock  # noqa: F401  (a fixture)

READER = Caller("T0SHORT", "U0SHORT", "C0SHORT")


def _expected_progress(rt: Runtime, track_id: str) -> tuple[str, int, int, int]:
    """(next step's title, essential read, essential total, minutes left), from the catalog alone."""
    cat, read = rt.holder.catalog, set(rt.store.read_posts(READER.team_id, READER.user_id))
    essentials = [cat.post(p) for p in cat.essentials(track_id)]
    unread = [p for p in cat.order(track_id) if p not in read]
    return (
        cat.post(unread[0]).title,
        sum(1 for p in essentials if p.id in read),
        len(essentials),
        sum(p.minutes or 0 for p in essentials if p.id not in read),
    )


def _check(rt: Runtime, reply: Reply | None, track_id: str, lang: str) -> dict[str, Any]:
    assert reply is not None
    payload = reply.payload()
    assert len(payload["blocks"]) <= 4, payload["blocks"]
    title, done, total, left = _expected_progress(rt, track_id)
    text = json.dumps(payload["blocks"], ensure_ascii=False)
    assert title.replace("&", "&amp;") in text  # the next step, named
    if lang == "en":
        assert f"{done} of {total} essential read · {left} min to go" in text
    else:
        assert f"核心路径已读 {done}/{total} · 还剩 {left} 分钟" in text
    assert '"open_path:' in text  # the whole path, when asked
    return payload


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_small_actions_answer_short_with_the_next_step_and_the_minutes_left(
    lang: str,
    tmp_path: Path,
    frozen_clock: None,  # noqa: F811
) -> None:
    rt = Runtime.create(Settings(database_url=f"sqlite:///{tmp_path / 'short.db'}", _env_file=None))
    try:
        h = Handlers(rt)
        h.command(READER, f"lang {lang}")
        log: list[dict[str, Any]] = []
        for text in ("follow spec", "read p-eagle", "remind eagle-3-1 next monday"):
            log.append({"step": text, "payload": _check(rt, h.command(READER, text), "spec", lang)})
        nxt = rt.holder.catalog.order("spec")[0]
        for view in ("track:spec", "short"):  # a click in a track's path, and in a short answer
            clicked = h.action(READER, "mark_read", {"p": nxt, "t": "spec", "v": view})
            assert nxt in rt.store.read_posts(READER.team_id, READER.user_id)
            assert clicked is not None and not clicked.keep_original  # it replaces the message
            log.append({"step": f"Mark read in {view}", "payload": _check(rt, clicked, "spec", lang)})
            rt.store.mark_unread(READER.team_id, READER.user_id, [nxt])
        opened = h.action(READER, "open_path", {"t": "spec", "v": "short"})
        assert opened is not None and len(opened.payload()["blocks"]) > 4  # asked for: the whole path
        _compare(f"short-answers-{lang}.json", log)
    finally:
        rt.store.close()
