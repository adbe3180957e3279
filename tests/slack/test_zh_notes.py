"""`lang zh`: every track view shows the Chinese note of every step (issue 15).

For each track and each step, a reader who has read every step before it is shown that step as
next; the Chinese track view must carry the step's Chinese note (not the English fallback of
:meth:`bot.domain.catalog.models.LocalizedText.get`).
"""

from __future__ import annotations

import json

import pytest

from bot.config import Settings
from bot.domain.catalog import Catalog, load_catalog
from bot.domain.paths import track_state
from bot.slack.views import messages as views


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(Settings().catalog_dir)


def test_every_step_of_every_track_has_a_chinese_note(catalog: Catalog) -> None:
    missing = [
        f"{track.id}/{step.post}"
        for track in catalog.tracks
        for step in catalog.path(track.id)
        if step.note is None or not step.note.zh
    ]
    assert missing == [], f"{len(missing)} step(s) without a Chinese note: {missing[:10]}"


def test_the_chinese_track_view_shows_each_next_steps_chinese_note(catalog: Catalog) -> None:
    shown_english = []
    for track in catalog.tracks:
        path = catalog.path(track.id)
        for i, step in enumerate(path):
            if step.note is None or not step.note.zh:
                continue
            read = {s.post for s in path[:i]}
            state = track_state(catalog, track.id, read)
            if state.next is None or state.next.post_id != step.post:
                continue  # next passes over a step without a link: that step is not the next one here
            reply = views.track_reply(catalog, state, "zh", followed=False)
            text = json.dumps(reply.payload()["blocks"], ensure_ascii=False)
            # the note's first words, as escaped mrkdwn would show them (no &, <, > in them)
            probe = step.note.zh[:12]
            if not any(c in probe for c in "&<>*_~`") and probe not in text:
                shown_english.append(f"{track.id}/{step.post}")
    assert shown_english == [], shown_english[:10]
