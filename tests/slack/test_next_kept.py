"""The ``next`` reply is kept per reading state (issue 43, ``benchmarks/clicks.py``): a kept reply or
item is the one a fresh catalog draws for the same state, at its own place in the list (each item's
*Mark read* is ``mark_read:<place>``), and a notice is never kept."""

from __future__ import annotations

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain.catalog.loader import load_catalog
from bot.domain.paths import track_state
from bot.slack.views.messages import next_reply


def _marks(reply) -> list[tuple[str, str]]:
    return [(b["accessory"]["action_id"], b["accessory"]["value"]) for b in reply.blocks if "accessory" in b]


def test_a_kept_next_reply_is_what_a_fresh_catalog_draws() -> None:
    catalog, fresh = load_catalog(DEFAULT_CATALOG_DIR), load_catalog(DEFAULT_CATALOG_DIR)
    read = frozenset(catalog.order("pd")[:2])
    pd, spec = track_state(catalog, "pd", read), track_state(catalog, "spec", read)
    first = next_reply(catalog, [pd, spec], "en")
    assert next_reply(catalog, [pd, spec], "en") is first  # kept
    swapped = next_reply(catalog, [spec, pd], "en")  # the same items at other places
    for reply, order in ((first, [pd, spec]), (swapped, [spec, pd])):
        again = next_reply(fresh, [track_state(fresh, s.track_id, read) for s in order], "en")
        assert reply.body_json == again.body_json
    assert [m[0] for m in _marks(swapped)] == ["mark_read:0", "mark_read:1"]
    assert '"t":"spec"' in _marks(swapped)[0][1] and '"t":"pd"' in _marks(first)[0][1]


def test_a_notice_is_drawn_each_time_on_top_of_the_kept_items() -> None:
    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    pd = track_state(catalog, "pd", frozenset())
    plain = next_reply(catalog, [pd], "en")
    told = next_reply(catalog, [pd], "en", notice="Marked read.")
    assert told is not plain and told.blocks[1]["text"]["text"] == "Marked read."
    assert told.blocks[2:] == plain.blocks[1:]
