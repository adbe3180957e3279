"""One description of a step for every door: the channel digest, the track reply, App Home and the
public path page label a step's references alike (issue 39: the digest said "Background:" where the
track reply said "Afterwards" for a follow-up outside the catalog).

``data/step-labels.json`` records, per language and step, the reference lines each door shows (links
reduced to their titles). Regenerate with ``UPDATE_GOLDEN=1`` only when a label changes on purpose.
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain.catalog.loader import load_catalog
from bot.domain.paths import track_path, track_state
from bot.slack.views.digest import compose_channel_digest, preview_subscription
from bot.slack.views.home import HomeState, home_view
from bot.slack.views.messages import track_reply
from bot.web.paths import track_page
from tests.messages import messages

DATA = Path(__file__).parent / "data" / "step-labels.json"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
CATALOG = load_catalog(DEFAULT_CATALOG_DIR)
STEPS = [
    ("pd", "bidirectional-kv-transfer"),  # a follow-up outside the catalog
    ("pd", "hybrid-ssm-disagg"),  # a prerequisite outside the catalog
]


def _labels(lang: str) -> tuple[str, ...]:
    words = messages(lang)
    line = words["ref.line"]
    return tuple(line.split("{label}")[0] + words[f"ref.{k}"] for k in ("background", "afterwards"))


def _lines(text: str, lang: str) -> list[str]:
    """The reference lines outside the catalog in ``text`` (mrkdwn or HTML), links as their titles."""
    plain = re.sub(r"<(?:https?://[^|>]*)\|([^>]*)>", r"\1", text)  # mrkdwn links
    plain = html.unescape(re.sub(r"<[^>]+>", "\n", plain.replace("<br>", "\n")))  # HTML tags
    return [ln.strip() for ln in plain.splitlines() if ln.strip().startswith(_labels(lang))]


def _texts(blocks: object) -> str:
    """Every text of a Block Kit payload, one after another."""
    if isinstance(blocks, dict):
        return "\n".join(v if k == "text" and isinstance(v, str) else _texts(v) for k, v in blocks.items())
    if isinstance(blocks, list):
        return "\n".join(_texts(b) for b in blocks)
    return ""


def _doors(track_id: str, post_id: str, lang: str) -> dict[str, list[str]]:
    path = track_path(CATALOG, track_id)
    step = path.step(post_id)
    # the reader has read every step before it: it is their next step
    state = track_state(CATALOG, track_id, [s.post_id for s in path.steps[: step.number - 1]])
    assert state.next == step
    digest = compose_channel_digest(CATALOG, preview_subscription(track_id, 1, cursor=step.number - 1), lang=lang)
    # QA round 8: a channel digest never sends a step without a link (it waits for one)
    linked = CATALOG.post(post_id).url is not None
    assert post_id not in digest.steps if not linked else digest.reply is not None and digest.steps == (post_id,)
    reply = track_reply(CATALOG, state, lang, followed=True)
    home = home_view(CATALOG, HomeState(following=[state], read=set(state.read), dm=None, channel_subs=[], lang=lang))
    page = track_page(CATALOG, track_state(CATALOG, track_id), lang)
    item = re.search(rf'<li value="{step.number}">.*?</li>', page, re.S)
    assert item is not None
    doors = {"digest": _lines(_texts(list(digest.reply.blocks)), lang)} if linked and digest.reply else {}
    return doors | {
        "track reply": _lines(_texts(list(reply.blocks)), lang),
        "App Home": _lines(_texts(home["blocks"]), lang),
        "web page": _lines(item.group(0), lang),
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_door_labels_a_steps_references_alike(lang: str) -> None:
    seen = {f"{track}/{post}": _doors(track, post, lang) for track, post in STEPS}
    for step, doors in seen.items():
        first = doors.get("digest") or doors["track reply"]  # a step without a link: no digest sends it
        assert first, f"{step}: the digest shows no reference line"
        for door, lines in doors.items():
            assert lines == first, f"{step}: {door} says {lines}, the digest {first}"
    recorded = json.loads(DATA.read_text()) if DATA.exists() else {}
    if UPDATE:
        recorded[lang] = seen
        DATA.write_text(json.dumps(recorded, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    assert recorded.get(lang) == seen


def test_a_follow_up_is_never_called_background() -> None:
    doors = _doors("pd", "bidirectional-kv-transfer", "en")
    assert all(lines and all(ln.startswith("Afterwards") for ln in lines) for lines in doors.values()), doors
