"""QA round 6: a feed post about nothing vLLM ("Cooking with GPUs 🍳") got a confident place from
the word "gpus". A place resting on loose words only, for a post that never names vLLM, is now
marked weak, and the draft, ``catalog import`` and the curator's card say so (real catalog, real
placer, the CLI on a feed file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.config import DEFAULT_CATALOG_DIR
from bot.domain.catalog import load_catalog
from bot.domain.catalog.drafts import Draft, Placement
from bot.domain.catalog.placement import Placer
from bot.slack.mrkdwn import plain
from bot.slack.views.feed import draft_card
from tests.domain.catalog.helpers import catalog_copy
from tests.domain.catalog.test_feed_drafts import atom, entry

COOKING = (
    "Cooking with GPUs 🍳",
    "Our GPUs run warm, so we bake bread on them.",
    "We roast vegetables and bake bread in the oven. Our GPUs keep the kitchen warm while the dough rises. "
    "Recipes for soup, pasta and cake follow, with a note on how long each takes.",
)


@pytest.fixture(scope="module")
def placer() -> Placer:
    return Placer(load_catalog(DEFAULT_CATALOG_DIR))


def test_an_off_topic_post_gets_only_weak_places(placer: Placer) -> None:
    found = placer.suggest(*COOKING)
    assert found, "it still gets places: the curator decides"
    assert all(s.weak and s.reason.startswith("weak:") and "may not be about vLLM" in s.reason for s in found)
    title_only = placer.suggest(COOKING[0])
    assert title_only and all(s.weak for s in title_only)


@pytest.mark.parametrize(
    "title, summary",
    [
        ("Faster EAGLE-3 drafters in vLLM", "Speculative decoding with a smaller drafter that proposes tokens."),
        ("Faster EAGLE-3 drafters", "Speculative decoding with a smaller drafter that proposes tokens."),  # no "vLLM"
        ("Disaggregated prefill with the NIXL connector", "Prefill and decode on separate GPUs, KV moved between."),
    ],
)
def test_a_post_on_the_catalogs_topics_is_not_weak(placer: Placer, title: str, summary: str) -> None:
    found = placer.suggest(title, summary)
    assert found and not found[0].weak and not found[0].reason.startswith("weak")


def test_every_catalog_post_that_names_vllm_is_placed_without_the_warning() -> None:
    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    named = [p for p in catalog.posts if catalog.tracks_of(p.id) and "vllm" in p.title.casefold()][:12]
    assert named
    for post in named:  # left out, as a new post would be: its title and our summary of it
        found = Placer(catalog, leave_out=post.id).suggest(post.title, post.summary.en, limit=1)
        assert found and not found[0].weak, post.id


def test_import_and_the_card_say_the_place_is_weak(tmp_path: Path) -> None:
    root = catalog_copy(tmp_path / "catalog")
    feed = tmp_path / "feed.xml"
    url = "https://vllm-project.github.io/2026/12/01/cooking-with-gpus.html"
    feed.write_text(atom([entry(COOKING[0], url, "2026-12-01", COOKING[1], COOKING[2])]), encoding="utf-8")
    out = CliRunner().invoke(main, ["catalog", "import", str(feed), "--json", "--catalog", str(root)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    drafts = data["drafts"]
    assert len(drafts) == 1 and drafts[0]["suggested"]
    assert all(s["weak"] is True and s["reason"].startswith("weak:") for s in drafts[0]["suggested"])
    text = CliRunner().invoke(main, ["catalog", "import", str(feed), "--catalog", str(root)]).output
    assert "may not be about vLLM" in text
    draft = Draft.model_validate(
        {
            "id": "cooking-with-gpus",
            "title": COOKING[0],
            "url": url,
            "published": "2026-12-01",
            "source": {"kind": "vllm-blog"},
            "feed": "vLLM blog",
            "minutes": 3,
            "minutes_source": "estimate",
            "suggested": [
                Placement(**{k: drafts[0]["suggested"][0][k] for k in ("track", "position", "reason", "weak")})
            ],
        }
    )
    card = plain(draft_card(draft, load_catalog(root)).text)
    assert "may not be about vLLM" in card
