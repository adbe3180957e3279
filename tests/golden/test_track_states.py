"""Track views in many reading states, pinned by hash: the reply for a reader's progress is the
same whether it comes from the per-catalog reply cache (:func:`bot.slack.views.parts.memo_reply`)
or is rendered afresh, and the same as before the cache existed.

``data/track-states.json`` maps a case (language, track, read set, page offset, followed,
notice, shared) to the SHA-256 of its payload; it was recorded with the renderer that built every
block from slack-sdk's models on each call. Each case is rendered twice in one catalog (cold, then
from the cache) and in a fresh catalog in reverse order, so a cached reply that leaks into a state
it does not belong to changes a hash. Regenerate with ``UPDATE_GOLDEN=1`` only when a reply
changes on purpose.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain.catalog.loader import load_catalog
from bot.domain.paths import track_state
from bot.slack.views.messages import track_reply

DATA = Path(__file__).parent / "data" / "track-states.json"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def _cases(catalog) -> list[tuple[str, str, tuple[str, ...], int | None, bool, str | None, bool]]:
    rng = random.Random(20261201)
    cases = []
    for lang in ("en", "zh"):
        for track in catalog.tracks:
            posts = [s.post for s in catalog.path(track.id)]
            n = len(posts)
            read_sets = [
                (),
                tuple(posts[: n // 2]),
                tuple(posts[:-1]),
                tuple(posts),
                tuple(sorted(rng.sample(posts, max(1, n // 3)))),
                tuple(sorted(rng.sample(posts, max(1, (2 * n) // 3)))),
            ]
            offsets: list[int | None] = [None] + ([0, 20, 40, n - 1] if n > 20 else [])
            for k, read in enumerate(read_sets):
                for offset in offsets:
                    cases.append((lang, track.id, read, offset, bool(k % 2), None, False))
            cases.append((lang, track.id, read_sets[4], None, True, "Marked *read*", False))
            cases.append((lang, track.id, read_sets[4], None, False, None, True))
    return cases


def _digest(catalog, case) -> str:
    lang, track, read, offset, followed, notice, shared = case
    reply = track_reply(
        catalog,
        track_state(catalog, track, set(read)),
        lang,
        followed=followed,
        notice=notice,
        shared=shared,
        offset=offset,
    )
    body = json.dumps(reply.payload(), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(body.encode()).hexdigest()


def _key(case) -> str:
    lang, track, read, offset, followed, notice, shared = case
    return f"{lang}|{track}|{','.join(read)}|{offset}|{int(followed)}|{notice or ''}|{int(shared)}"


def test_track_views_in_every_state_match_the_recorded_payloads() -> None:
    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    cases = _cases(catalog)
    got = {_key(c): _digest(catalog, c) for c in cases}
    if UPDATE:
        DATA.write_text(json.dumps(got, indent=0, sort_keys=True) + "\n")
    want = json.loads(DATA.read_text())
    assert len(cases) > 250
    warm = {_key(c): _digest(catalog, c) for c in cases}
    fresh = load_catalog(DEFAULT_CATALOG_DIR)
    reverse = {_key(c): _digest(fresh, c) for c in reversed(cases)}
    for name, seen in (("cold", got), ("cached", warm), ("reverse order", reverse)):
        wrong = [k for k in want if seen.get(k) != want[k]]
        assert not wrong, f"{name}: {len(wrong)} track views differ from the recorded payload, e.g. {wrong[:3]}"
    assert set(got) == set(want)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_cached_reply_is_not_changed_by_a_later_one(lang: str) -> None:
    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    track = catalog.tracks[0].id
    first = track_reply(catalog, track_state(catalog, track, set()), lang, followed=False)
    before = json.dumps(first.payload(), sort_keys=True)
    posts = [s.post for s in catalog.path(track)]
    track_reply(catalog, track_state(catalog, track, set(posts[:1])), lang, followed=True, notice="x")
    assert json.dumps(first.payload(), sort_keys=True) == before


def test_a_reply_without_a_notice_is_kept_per_reading_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole reply is kept per (track, language, posts read, followed, page): the same state
    gets the same reply object (no rendering), any other state its own, a click's notice is never
    kept, and the cache stays within its bound."""
    from bot.slack.views import parts

    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    track = catalog.tracks[0].id
    posts = [s.post for s in catalog.path(track)]
    first = track_reply(catalog, track_state(catalog, track, set()), "en", followed=False)
    assert track_reply(catalog, track_state(catalog, track, set()), "en", followed=False) is first
    others = [
        track_reply(catalog, track_state(catalog, track, {posts[0]}), "en", followed=False),
        track_reply(catalog, track_state(catalog, track, set()), "zh", followed=False),
        track_reply(catalog, track_state(catalog, track, set()), "en", followed=True),
        track_reply(catalog, track_state(catalog, track, set()), "en", followed=False, offset=0),
    ]
    assert all(o is not first for o in others)
    assert (
        len(
            {json.dumps(o.payload(), sort_keys=True) for o in others[:3]}
            | {json.dumps(first.payload(), sort_keys=True)}
        )
        == 4
    )
    noticed = track_reply(catalog, track_state(catalog, track, set()), "en", followed=False, notice="Marked")
    assert noticed is not track_reply(
        catalog, track_state(catalog, track, set()), "en", followed=False, notice="Marked"
    )
    assert parts.cache_info(catalog)["replies"] == 5

    monkeypatch.setattr(parts, "MAX_REPLIES", 3)
    for post in posts[:6]:
        track_reply(catalog, track_state(catalog, track, {post}), "en", followed=True)
        assert parts.cache_info(catalog)["replies"] <= 3
